// The invariants of new-formats.md §1.5 for the Direct TOAST values of one table: each direct
// pointer's own rules, then (for parent tuples that are not dead) a full walk of its value from
// va_tid through its tier checking every chunk, the slice sizes, arrays, offsets, levels, the
// total size and that the value decompresses to exactly va_rawsize - 4 bytes; across values, no
// chunk reached from two roots; finally direct chunks reached from no pointer (warning when
// live, information otherwise). Pure: bytes in, findings out. Feed it every pointer, then call finish().
import { FormatError, type Finding, type Location, type Severity } from "../schema/errors.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { scanBlocks, type RelationFork } from "../storage/relfile.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";
import type { Tid } from "../page/item-pointer.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH } from "../heap/tuple-header.js";
import { tupleState } from "../heap/visibility.js";
import { decompressTcinfo, readTcinfo } from "../compression/index.js";
import { VARTAG_DIRECT } from "../varlena/varlena.js";
import type { ToastPointer } from "../varlena/toast-pointer.js";
import { toastMaxChunkSize } from "./chunk-desc.js";
import { directSlices } from "./direct-chunks.js";
import { emptyStats, PageCache, Touch } from "./pages.js";
import { pointerShape } from "./reader.js";
import { sliceCount, tierOf, type DirectTier } from "./tiers.js";
import { isCode, type Code } from "../codes/index.js";

export interface InvariantOptions {
  /** main fork of the TOAST relation */
  heap: RelationFork;
  /** pg_class OID of the TOAST relation (pointers must name it) */
  toastRelid: number;
  clog?: XactStatusLookup;
  /** the TOAST index is partial on chunk_id IS NOT NULL (then chunk_id = 0 is an error) */
  indexPartial?: boolean;
}

export interface InvariantSummary {
  pointers: number;
  /** pointers whose value was walked (parent not dead, value not seen before) */
  valuesWalked: number;
  byTier: Record<DirectTier, number>;
  chunksReached: number;
  unreachableLive: number;
  unreachableDead: number;
}

const tidKey = (t: Tid): number => t.block * 65536 + t.offset;
const tidOfKey = (k: number): Tid => ({ block: Math.floor(k / 65536), offset: k % 65536 });

export class DirectInvariantChecker {
  readonly findings: Finding[] = [];
  readonly summary: InvariantSummary = { pointers: 0, valuesWalked: 0, byTier: { single: 0, flat: 0, tree: 0 }, chunksReached: 0, unreachableLive: 0, unreachableDead: 0 };
  private readonly cache: PageCache;
  private readonly maxChunk: number;
  /** chunk -> the root it was reached from */
  private readonly owner = new Map<number, number>();
  /** root -> the pointer fields it was first named with, and whether a live parent's walk reported on it */
  private readonly rootSig = new Map<number, { sig: string; reported: boolean }>();
  private warnedZero = false;
  private warnedShort = false;

  constructor(readonly o: InvariantOptions) {
    this.cache = new PageCache(o.heap, 32);
    this.maxChunk = toastMaxChunkSize(o.heap.geometry.blockSize);
  }

  private add(code: Code, severity: Severity, message: string, location: Location, detail?: string): void {
    this.findings.push({ code, severity, message, location, ...(detail ? { detail } : {}) });
  }

  /** One direct pointer of a parent tuple; `parentDead` for tuples that are dead or never committed. */
  checkPointer(p: ToastPointer, where: Location, parentDead: boolean): void {
    if (p.tag !== VARTAG_DIRECT) return;
    this.summary.pointers++;
    let sh;
    try {
      sh = pointerShape(p, this.o.toastRelid);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      const direct = e.code.replace(/^TOAST_/, "DTOAST_");
      this.add(isCode(direct) ? direct : e.code, "error", e.message, where);
      return;
    }
    const rootKey = tidKey(p.root);
    const sig = `${p.va_rawsize}/${p.va_extinfo}/${p.va_toastrelid}`;
    const prev = this.rootSig.get(rootKey);
    if (prev !== undefined) {
      if (prev.sig !== sig) {
        this.add("DTOAST_ROOT_SHARED", "error", `two pointers name root (${p.root.block},${p.root.offset}) with different values (rawsize/extinfo/toastrelid ${prev.sig} and ${sig})`, where);
        return;
      }
      // the same value named again (an UPDATE that kept the column): walked once by a live parent
      if (prev.reported || parentDead) return;
    }
    this.rootSig.set(rootKey, { sig, reported: !parentDead });
    const touch = new Touch(emptyStats());
    const reached: number[] = [];
    const S = new Uint8Array(sh.storedSize);
    let pos = 0;
    let problem: FormatError | null = null;
    const chunkNotes: [Code, Severity, string, Tid][] = [];
    try {
      const ctx = {
        heap: this.cache,
        maxChunk: this.maxChunk,
        touch,
        visit: (t: Tid, _tuple: Uint8Array, c: { id: number | null; shortForm: boolean }) => {
          const k = tidKey(t);
          const o = this.owner.get(k);
          if (o !== undefined && o !== rootKey) {
            const r = tidOfKey(o);
            throw new FormatError("DTOAST_CHUNK_SHARED", `chunk (${t.block},${t.offset}) is reached from root (${r.block},${r.offset}) and from root (${p.root.block},${p.root.offset})`, { block: t.block, item: t.offset });
          }
          reached.push(k);
          if (c.id === 0) chunkNotes.push(["DTOAST_CHUNK_ID_ZERO", this.o.indexPartial ? "error" : "warning", `chunk (${t.block},${t.offset}) has chunk_id 0 (the v1 convention)${this.o.indexPartial ? "; the TOAST index is partial on chunk_id IS NOT NULL, so REINDEX would fail on duplicate (0, chunk_seq) keys" : ""}`, t]);
          if (c.shortForm) chunkNotes.push(["DTOAST_SHORT_VARLENA", "warning", `chunk (${t.block},${t.offset}) stores a column with a 1-byte varlena header`, t]);
        },
      };
      for (const piece of directSlices(ctx, p.root, sh.storedSize, 0, sliceCount(sh.storedSize, this.maxChunk) - 1)) {
        S.set(piece, pos);
        pos += piece.length;
      }
      if (pos !== sh.storedSize) throw new FormatError("DTOAST_TOTAL_SIZE", `the value's slices hold ${pos} bytes, its pointer says ${sh.storedSize}`);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      problem = e;
    }
    // chunks of a dead tuple's value still count as reached when they exist
    for (const k of reached) this.owner.set(k, rootKey);
    if (parentDead) return;
    this.summary.valuesWalked++;
    this.summary.chunksReached += reached.length;
    const file = this.o.heap.basePath;
    for (const [code, sev, msg, t] of chunkNotes) {
      if (code === "DTOAST_CHUNK_ID_ZERO" && this.warnedZero && sev !== "error") continue;
      if (code === "DTOAST_SHORT_VARLENA" && this.warnedShort) continue;
      if (code === "DTOAST_CHUNK_ID_ZERO") this.warnedZero = true;
      if (code === "DTOAST_SHORT_VARLENA") this.warnedShort = true;
      this.add(code, sev, msg, where, `TOAST relation ${file}, chunk (${t.block},${t.offset})`);
    }
    if (problem) {
      const loc = problem.location;
      this.add(problem.code, "error", problem.message, where, loc.block !== undefined ? `TOAST relation ${file}, chunk (${loc.block},${loc.item})` : `TOAST relation ${file}`);
      return;
    }
    this.summary.byTier[tierOf(sliceCount(sh.storedSize, this.maxChunk))]++;
    if (!sh.compressed) return;
    const tc = readTcinfo(S);
    if (tc.rawSize !== sh.rawSize || tc.method !== sh.method) {
      this.add("DTOAST_POINTER_BAD_TCINFO", "error", `compressed value's va_tcinfo (raw size ${tc.rawSize}, method ${tc.method}) disagrees with its pointer (raw size ${sh.rawSize}, method ${sh.method})`, where, `TOAST relation ${file}, root (${p.root.block},${p.root.offset})`);
      return;
    }
    try {
      const raw = decompressTcinfo(S);
      if (raw.length !== sh.rawSize) this.add("DTOAST_RAWSIZE_MISMATCH", "error", `value decompresses to ${raw.length} bytes, the pointer says ${sh.rawSize}`, where);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      this.add(e.code, "error", `direct toast value at (${p.root.block},${p.root.offset}) does not decompress: ${e.message}`, where, `byte ${e.location.offset ?? "?"} of the stored value`);
    }
  }

  /** After every pointer: direct chunks no pointer reaches. Returns all findings. */
  finish(): Finding[] {
    const file = this.o.heap.basePath;
    for (const [blk, page] of scanBlocks(this.o.heap)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      const max = maxOffsetNumber(dv);
      for (let i = 1; i <= max; i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const off = lpOff(w);
        if (lpLen(w) < 28 || off + lpLen(w) > page.length) continue;
        const infomask = dv.getUint16(off + HTH.t_infomask, true);
        const natts = dv.getUint16(off + HTH.t_infomask2, true) & HEAP_NATTS_MASK;
        const idNull = (infomask & HEAP_HASNULL) !== 0 && (page[off + 23] & 1) === 0;
        const idZero = !idNull && natts >= 1 && dv.getUint32(off + page[off + HTH.t_hoff], true) === 0;
        if (!idNull && !idZero) continue;
        if (this.owner.has(blk * 65536 + i)) continue;
        const live = tupleState(dv.getUint32(off + HTH.t_xmin, true), dv.getUint32(off + HTH.t_xmax, true), infomask, this.o.clog) === "live";
        if (live) this.summary.unreachableLive++;
        else this.summary.unreachableDead++;
        this.add(
          live ? "DTOAST_UNREACHABLE_LIVE" : "DTOAST_UNREACHABLE_DEAD",
          live ? "warning" : "info",
          live ? `live direct TOAST chunk (${blk},${i}) is reached from no TOAST pointer` : `dead direct TOAST chunk (${blk},${i}) is reached from no TOAST pointer (VACUUM removes it)`,
          { file, block: blk, item: i },
        );
      }
    }
    return this.findings;
  }
}
