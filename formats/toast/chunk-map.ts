// Where every plain chunk of a TOAST relation is, from one sequential scan of its heap: the
// fallback when the TOAST index is missing or damaged, and the converter's inventory. Kept in
// typed arrays sorted by (chunk_id, chunk_seq) so that a large TOAST table costs ~14 bytes a chunk.
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID, HTH } from "../heap/tuple-header.js";
import { tupleState } from "../heap/visibility.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { scanBlocks, type RelationFork } from "../storage/relfile.js";

/**
 * May a chunk tuple be used (HeapTupleSatisfiesToast, heapam_visibility.c)? TOAST reads do not
 * apply MVCC: a chunk counts unless its inserting transaction is known to have aborted (hint bit,
 * invalid xmin, or pg_xact; offline, "in progress" means it never committed).
 */
export function chunkUsable(xmin: number, infomask: number, clog?: XactStatusLookup): boolean {
  if ((infomask & HEAP_XMIN_FROZEN) === HEAP_XMIN_FROZEN || infomask & HEAP_XMIN_COMMITTED) return true;
  if (infomask & HEAP_XMIN_INVALID) return false;
  if (xmin === 0) return false;
  if (clog && xmin > 2) {
    const s = clog.status(xmin);
    if (s === "aborted" || s === "in_progress") return false;
  }
  return true;
}

export interface ChunkMapStats {
  /** pages scanned */
  pages: number;
  /** LP_NORMAL tuples with a chunk_id */
  plainChunks: number;
  /** of those, left out: inserted by an aborted transaction */
  unusable: number;
  /** left out: a second usable tuple with the same (chunk_id, chunk_seq) */
  duplicates: number;
  /** LP_NORMAL tuples with chunk_id NULL or 0 (Direct TOAST chunks) */
  directChunks: number;
  /** LP_NORMAL tuples that are not chunks at all (too short, no chunk_seq) */
  malformed: number;
  /** chunk_ids of the unusable and duplicate chunks (still "used" OIDs for a new value) */
  otherIds: number[];
}

/** Length of the chunk_data varlena at `at` (int-aligned unless short), or -1 when it is not plain data. */
function chunkDataLength(page: Uint8Array, at: number, end: number): number {
  if (at < end && page[at] === 0) at = (at + 3) & ~3;
  if (at >= end) return -1;
  const b0 = page[at];
  if ((b0 & 3) === 0) {
    if (at + 4 > end) return -1;
    const total = (b0 | (page[at + 1] << 8) | (page[at + 2] << 16) | (page[at + 3] << 24)) >>> 2;
    return total >= 4 && at + total <= end ? total - 4 : -1;
  }
  if ((b0 & 1) === 1 && b0 !== 1) {
    const total = b0 >>> 1;
    return at + total <= end ? total - 1 : -1;
  }
  return -1; // compressed or external: a toasted toast chunk
}

/** Usable plain chunks by (chunk_id, chunk_seq); one entry per key. */
export class PlainChunkMap {
  private constructor(
    readonly ids: Uint32Array,
    readonly seqs: Int32Array,
    readonly blocks: Uint32Array,
    readonly items: Uint16Array,
    /** 1 when the chunk is live (not deleted by a committed transaction) */
    readonly live: Uint8Array,
    /** chunk_data length, -1 when chunk_data is NULL, toasted or unreadable */
    readonly dataLen: Int32Array,
    readonly stats: ChunkMapStats,
  ) {}

  get size(): number {
    return this.ids.length;
  }

  /**
   * Scan `fork` once (sequential 1 MiB batches). `onPage` sees every page (the converter counts
   * and inspects them in the same pass).
   */
  static build(fork: RelationFork, clog?: XactStatusLookup, onPage?: (blk: number, page: Uint8Array) => void): PlainChunkMap {
    let cap = 1024;
    let n = 0;
    let ids = new Uint32Array(cap);
    let seqs = new Int32Array(cap);
    let blocks = new Uint32Array(cap);
    let items = new Uint16Array(cap);
    let rank = new Uint8Array(cap);
    let dlen = new Int32Array(cap);
    const stats: ChunkMapStats = { pages: 0, plainChunks: 0, unusable: 0, duplicates: 0, directChunks: 0, malformed: 0, otherIds: [] };
    const grow = (): void => {
      cap *= 2;
      const g = <T extends Uint32Array | Int32Array | Uint16Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(cap);
        b.set(a);
        return b;
      };
      ids = g(ids, (k) => new Uint32Array(k));
      seqs = g(seqs, (k) => new Int32Array(k));
      blocks = g(blocks, (k) => new Uint32Array(k));
      items = g(items, (k) => new Uint16Array(k));
      rank = g(rank, (k) => new Uint8Array(k));
      dlen = g(dlen, (k) => new Int32Array(k));
    };
    for (const [blk, page] of scanBlocks(fork)) {
      stats.pages++;
      onPage?.(blk, page);
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      const max = maxOffsetNumber(dv);
      for (let i = 1; i <= max; i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const off = lpOff(w);
        const len = lpLen(w);
        if (len < 32 || off + len > page.length) {
          stats.malformed++;
          continue;
        }
        const infomask = dv.getUint16(off + HTH.t_infomask, true);
        const natts = dv.getUint16(off + HTH.t_infomask2, true) & HEAP_NATTS_MASK;
        const bits = infomask & HEAP_HASNULL ? page[off + 23] : 0xff;
        const hoff = page[off + HTH.t_hoff];
        // chunk_id NULL (or 0, the v1 convention): a direct chunk. Stock chunks written by a
        // patched server may have five attributes (NULL arrays); they are stock all the same.
        if ((bits & 1) === 0 || (hoff + 4 <= len && dv.getUint32(off + hoff, true) === 0)) {
          stats.directChunks++;
          continue;
        }
        if (natts < 2 || (bits & 2) === 0 || hoff + 8 > len) {
          stats.malformed++;
          continue;
        }
        stats.plainChunks++;
        const xmin = dv.getUint32(off + HTH.t_xmin, true);
        if (!chunkUsable(xmin, infomask, clog)) {
          stats.unusable++;
          stats.otherIds.push(dv.getUint32(off + hoff, true));
          continue;
        }
        if (n === cap) grow();
        ids[n] = dv.getUint32(off + hoff, true);
        seqs[n] = dv.getInt32(off + hoff + 4, true);
        blocks[n] = blk;
        items[n] = i;
        dlen[n] = natts >= 3 && bits & 4 ? chunkDataLength(page, off + hoff + 8, off + len) : -1;
        rank[n] = tupleState(xmin, dv.getUint32(off + HTH.t_xmax, true), infomask, clog) === "live" ? 0 : 1;
        n++;
      }
    }
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = k;
    order.sort((a, b) => ids[a] - ids[b] || seqs[a] - seqs[b] || rank[a] - rank[b] || blocks[a] - blocks[b] || items[a] - items[b]);
    let m = 0;
    for (let k = 0; k < n; k++) {
      const j = order[k];
      if (m > 0) {
        const p = order[m - 1];
        if (ids[p] === ids[j] && seqs[p] === seqs[j]) {
          stats.duplicates++;
          stats.otherIds.push(ids[j]);
          continue;
        }
      }
      order[m++] = j;
    }
    const pick = <T extends Uint32Array | Int32Array | Uint16Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(m);
      for (let k = 0; k < m; k++) b[k] = a[order[k]];
      return b;
    };
    const live = pick(rank, (k) => new Uint8Array(k)).map((r) => (r === 0 ? 1 : 0));
    return new PlainChunkMap(
      pick(ids, (k) => new Uint32Array(k)),
      pick(seqs, (k) => new Int32Array(k)),
      pick(blocks, (k) => new Uint32Array(k)),
      pick(items, (k) => new Uint16Array(k)),
      live,
      pick(dlen, (k) => new Int32Array(k)),
      stats,
    );
  }

  /** [start, end) of the entries of chunk_id `id`. */
  range(id: number): [number, number] {
    const ids = this.ids;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < ids.length && ids[end] === id) end++;
    return [lo, end];
  }

  /** The first entry of `id` with chunk_seq >= seq within its range (or the range end). */
  seek(id: number, seq: number): number {
    const [s, e] = this.range(id);
    let lo = s;
    let hi = e;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid] < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Are chunks 0..n-1 of value `id` all here, each of the size `extsize` implies, and nothing
   * more? Returns the range start when so, else why not.
   */
  complete(id: number, extsize: number, maxChunk: number): { start: number } | { why: string } {
    const [s, e] = this.range(id);
    const n = Math.floor((extsize - 1) / maxChunk) + 1;
    if (e === s) return { why: `no chunk of toast value ${id} exists` };
    for (let k = 0; k < n; k++) {
      if (s + k >= e || this.seqs[s + k] !== k) return { why: `chunk ${k} of ${n} of toast value ${id} is missing` };
      const want = Math.min(maxChunk, extsize - k * maxChunk);
      if (this.dataLen[s + k] !== want) return { why: `chunk ${k} of toast value ${id} holds ${this.dataLen[s + k] < 0 ? "no plain data" : `${this.dataLen[s + k]} bytes`}, expected ${want}` };
    }
    if (e - s > n) return { why: `toast value ${id} has ${e - s} chunks, its pointer implies ${n}` };
    return { start: s };
  }

  /** Distinct chunk_ids, ascending. */
  *valueIds(): Generator<number> {
    const ids = this.ids;
    for (let k = 0; k < ids.length; k++) if (k === 0 || ids[k] !== ids[k - 1]) yield ids[k];
  }
}
