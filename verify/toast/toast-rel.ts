// A TOAST relation as the checks see it. One sequential scan finds every chunk tuple: plain
// chunks go into a map chunk_id -> chunks in the order the TOAST index returns them
// (chunk_seq, then TID; NULL chunk_seq last), direct chunks (chunk_id NULL, or 0 by the v1
// convention) into a list for the unreachable-chunk check. Visibility is SnapshotToast's:
// every chunk counts unless its inserter is known aborted (HEAP_XMIN_INVALID) or xmin is 0.
import { FormatError } from "../../formats/schema/errors.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID, HTH } from "../../formats/heap/tuple-header.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pdLower, pdSpecial, pdUpper } from "../../formats/page/page.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { scanPages } from "../scan.js";
import { toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import { BlockCache } from "../block-cache.js";
import { chunkFields } from "./chunk-fields.js";
import { viewOf } from "../page-view.js";
import { PlainChunkTable, type ChunkRun } from "./chunk-table.js";
import { tidKey } from "../../formats/page/item-pointer.js";
import { varsize4BAt } from "../../formats/varlena/varlena.js";
import { chunkSeqAt } from "../../formats/toast/chunk.js";

/** A chunk's place: block * 65536 + item (formats/page/item-pointer.ts). */
export { tidKey };
export const tidOf = (key: number): { block: number; item: number } => ({ block: Math.floor(key / 65536), item: key % 65536 });

/** ChunkFacts.fields: chunk_data is a plain 4b or 1b varlena */
export const CHUNK_OK = 0;
/** the tuple cannot be walked (chunkFields throws); header = the tuple's byte 24 */
export const CHUNK_UNWALKABLE = 1;
export const CHUNK_DATA_NULL = 2;
/** chunk_data is compressed or external; header = its first word */
export const CHUNK_DATA_BAD_KIND = 3;

export interface DirectChunkInfo {
  key: number;
  /** xmin committed and xmax invalid or aborted */
  live: boolean;
}

export interface TupleAt {
  page: Uint8Array;
  /** offset of the tuple in the page */
  off: number;
  len: number;
}

export class ToastRelation {
  readonly cache: BlockCache;
  readonly maxChunk: number;
  private plain?: PlainChunkTable;
  private direct?: DirectChunkInfo[];

  constructor(
    readonly fork: RelationFork,
    /** pg_class OID of the TOAST relation (what pointers must name) */
    readonly oid: number,
    readonly label: string,
    /** liveness of a chunk tuple (xmin committed, xmax invalid/aborted), from the caller's XID context */
    private readonly isLive: (page: Uint8Array, off: number) => boolean,
    /** the TOAST index is partial on chunk_id IS NOT NULL (Direct TOAST layout) */
    readonly indexPartial: boolean,
  ) {
    this.cache = new BlockCache(fork, 256);
    this.maxChunk = toastMaxChunkSize(fork.geometry.blockSize);
  }

  get nblocks(): number {
    return this.fork.nblocks;
  }

  private scan(): void {
    const f = this.feeder();
    for (const [blkno, page] of scanPages(this.fork)) f.page(blkno, page);
    f.done();
  }

  /**
   * Build the chunk maps from pages read elsewhere (the TOAST relation's own check): page() with
   * every block in order, then done(); until done() the maps are not used (a scan makes them).
   */
  feeder(): ChunkMapFeed {
    return new ChunkMapFeed(this);
  }

  /** ChunkMapFeed.done: the maps a complete feed built (a partial one's are dropped). */
  adopt(plain: PlainChunkTable, direct: DirectChunkInfo[]): void {
    if (this.plain) return;
    plain.finish();
    this.plain = plain;
    this.direct = direct;
  }

  /** Record the chunks of one page (ChunkMapFeed, scan). */
  mapPage(blkno: number, page: Uint8Array, plain: PlainChunkTable, direct: DirectChunkInfo[]): void {
    const dv = viewOf(page);
    if (pageIsNew(dv)) return;
    const special = pdSpecial(dv);
    if (pdLower(dv) > pdUpper(dv) || pdUpper(dv) > special || special > page.length) return; // reported by the page checks
    const n = maxOffsetNumber(dv);
    for (let i = 1; i <= n; i++) {
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const off = lpOff(w);
      const len = lpLen(w);
      if (off < 24 || off + len > special || len < 24) continue;
      const infomask = dv.getUint16(off + HTH.t_infomask, true);
      const xmin = dv.getUint32(off + HTH.t_xmin, true);
      // SnapshotToast: skip known-aborted inserts and speculative-insertion leftovers
      if ((infomask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID)) === HEAP_XMIN_INVALID || xmin === 0) continue;
      const hoff = page[off + HTH.t_hoff];
      const natts = dv.getUint16(off + HTH.t_infomask2, true) & HEAP_NATTS_MASK;
      if (natts < 1 || hoff + 4 > len) continue;
      const bits = infomask & HEAP_HASNULL ? page[off + 23] : 0xff;
      const key = tidKey(blkno, i);
      const idNull = (bits & 1) === 0;
      const id = idNull ? 0 : dv.getUint32(off + hoff, true);
      if (idNull || id === 0) {
        direct.push({ key, live: this.isLive(page, off) });
        continue;
      }
      let seq: number | null = null;
      if (natts >= 2 && (bits & 2) !== 0 && hoff + 8 <= len) seq = chunkSeqAt(page, off + hoff);
      recordChunk(plain, id, seq, key, page, off, len, infomask, natts, hoff);
    }
  }

  /** Chunks of plain value `valueId`, in TOAST index order. */
  plainChunks(valueId: number): ChunkRun | undefined {
    if (!this.plain) this.scan();
    return this.plain!.run(valueId);
  }

  /** Every direct chunk (chunk_id NULL or 0) of the relation. */
  directChunks(): DirectChunkInfo[] {
    if (!this.direct) this.scan();
    return this.direct!;
  }

  /**
   * The tuple at (block, item): null with a reason when the block is beyond the relation or the
   * item is not a used LP_NORMAL item inside the page.
   */
  tupleAt(block: number, item: number): TupleAt | { why: string } {
    if (block >= this.fork.nblocks) return { why: `block ${block} is beyond the end of the TOAST relation (${this.fork.nblocks} blocks)` };
    let page: Uint8Array;
    try {
      page = this.cache.get(block);
    } catch (e) {
      if (e instanceof FormatError) return { why: e.message };
      throw e;
    }
    const dv = viewOf(page);
    if (pageIsNew(dv)) return { why: `block ${block} is a new (empty) page` };
    const n = maxOffsetNumber(dv);
    if (item < 1 || item > n) return { why: `item ${item} is outside the page's line pointers 1..${n}` };
    const w = itemIdWord(dv, item);
    if (lpFlags(w) !== LP_NORMAL) return { why: `line pointer (${block},${item}) has lp_flags ${lpFlags(w)}, not LP_NORMAL` };
    const off = lpOff(w);
    const len = lpLen(w);
    if (off < 24 || off + len > pdSpecial(dv) || len < 24) return { why: `line pointer (${block},${item}) has lp_off ${off} lp_len ${len}, outside the page's items` };
    return { page, off, len };
  }
}

/**
 * The pages of a TOAST relation's own check, fed to its chunk maps (an object, not closures: a
 * closure made per relation and called per page is inlined by V8 into the scan, and the scan is
 * deoptimised when the closure dies).
 */
export class ChunkMapFeed {
  private readonly plain = new PlainChunkTable();
  private readonly direct: DirectChunkInfo[] = [];
  private next: number;

  constructor(private readonly rel: ToastRelation) {
    this.next = rel.fork.firstBlock;
  }

  page(blkno: number, page: Uint8Array): void {
    if (blkno !== this.next) this.next = -1; // not the whole relation in order: the maps stay unbuilt
    else this.next++;
    this.rel.mapPage(blkno, page, this.plain, this.direct);
  }

  done(): void {
    if (this.next !== this.rel.fork.nblocks) return;
    this.rel.adopt(this.plain, this.direct);
  }
}

/** A chunk's place and what chunkFields says of it: read in place for a clean stock chunk, else by chunkFields itself. */
function recordChunk(t: PlainChunkTable, id: number, seq: number | null, key: number, page: Uint8Array, off: number, len: number, infomask: number, natts: number, hoff: number): void {
  const d = off + 32; // chunk_data of a stock chunk: after the 24-byte header and two int4 columns
  if (natts === 3 && !(infomask & HEAP_HASNULL) && hoff === 24 && len > 32) {
    const b0 = page[d];
    if ((b0 & 3) === 0 && b0 !== 0 && len >= 36) {
      const total = varsize4BAt(page, d);
      if (total >= 4 && 32 + total <= len) return t.add(id, seq, key, CHUNK_OK, total - 4, 0);
    } else if (b0 & 1 && b0 !== 1) {
      const total = b0 >>> 1;
      if (32 + total <= len) return t.add(id, seq, key, CHUNK_OK, total - 1, 0);
    }
  }
  const m = chunkDataFields(page, off, len);
  t.add(id, seq, key, m.fields, m.data ? m.data.length : 0, m.header);
}

/** chunk_data of the chunk tuple at page[off, off + len) as the checks see it (chunkFields, classified). */
export function chunkDataFields(page: Uint8Array, off: number, len: number): { fields: number; header: number; data: Uint8Array | null } {
  let f;
  try {
    f = chunkFields(page.subarray(off, off + len));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    return { fields: CHUNK_UNWALKABLE, header: page[off + 24] ?? 0, data: null };
  }
  if (f.data === null) return { fields: CHUNK_DATA_NULL, header: 0, data: null };
  if (f.dataKind !== "4b" && f.dataKind !== "1b") return { fields: CHUNK_DATA_BAD_KIND, header: f.dataHeader, data: null };
  return { fields: CHUNK_OK, header: 0, data: f.data };
}
