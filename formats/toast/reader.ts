// Detoasting, both TOAST flavours: a value's stored bytes S come from its plain chunks (through
// the TOAST index, or a heap scan when the index is unusable) or from its direct chunks (by TID);
// compressed values are decompressed incrementally as chunks arrive (PayloadStream). Everything
// is a lazy iterator, so a slice [a, b) fetches only the chunks it needs (uncompressed: the
// chunks holding [a, b); compressed: from the first chunk until b raw bytes exist) and a
// consumer that stops early reads nothing further. Each read reports what it touched.
import { FormatError } from "../schema/errors.js";
import type { XactStatusLookup } from "../storage/clog.js";
import type { RelationFork } from "../storage/relfile.js";
import type { Tid } from "../page/item-pointer.js";
import { PayloadStream, methodName } from "../compression/index.js";
import { VARLENA_EXTSIZE_MASK, type ToastPointer } from "../varlena/toast-pointer.js";
import { VARTAG_DIRECT, VARTAG_ONDISK } from "../varlena/varlena.js";
import { toastMaxChunkSize } from "./chunk-desc.js";
import { PlainChunkMap } from "./chunk-map.js";
import { directSlices, type DirectContext } from "./direct-chunks.js";
import { emptyStats, PageCache, Touch, type ToastReadStats } from "./pages.js";
import { plainSlices, type PlainLookup } from "./plain-chunks.js";
import { ToastIndexScanner } from "./toast-index.js";

export interface ToastReaderOptions {
  /** main fork of the TOAST relation */
  heap: RelationFork;
  /** main fork of its index; null or absent: chunks of plain values are found by a heap scan */
  index?: RelationFork | null;
  /** pg_xact, to leave out chunks of aborted inserts */
  clog?: XactStatusLookup;
  /** pg_class OID of the TOAST relation: pointers naming another one are refused */
  toastRelid?: number;
  /** pages kept per fork (default 64) */
  cachePages?: number;
  /** TOAST heap blocks read per miss (default 4: chunks of a value are usually neighbours) */
  readAhead?: number;
}

export interface ReadOptions {
  /** first raw byte (default 0) */
  start?: number;
  /** end of the range, exclusive (default: the whole value) */
  end?: number;
  stats?: ToastReadStats;
}

/** The pointer facts a read needs, for either flavour. */
export interface PointerShape {
  flavour: "plain" | "direct";
  rawSize: number;
  storedSize: number;
  compressed: boolean;
  method: number;
  valueId?: number;
  root?: Tid;
}

/** What a pointer says, after the invariants of new-formats.md §1.5 that need no chunk. */
export function pointerShape(p: ToastPointer, toastRelid?: number): PointerShape {
  const what = p.tag === VARTAG_ONDISK ? `toast value ${p.va_valueid}` : `direct toast value at (${p.root.block},${p.root.offset})`;
  const S = p.va_extinfo & VARLENA_EXTSIZE_MASK;
  const raw = p.va_rawsize - 4;
  if (p.va_rawsize < 4 || p.va_rawsize > 0x3fffffff) throw new FormatError("TOAST_POINTER_BAD_RAWSIZE", `${what} has va_rawsize ${p.va_rawsize}, outside 4..${0x3fffffff}`);
  if (S < 1 || S > raw) throw new FormatError("TOAST_POINTER_BAD_SIZE", `${what} has stored size ${S}, outside 1..va_rawsize - 4 = ${raw}`);
  const compressed = S < raw;
  const method = p.va_extinfo >>> 30;
  if (compressed ? method > 1 : method !== 0) throw new FormatError("TOAST_POINTER_BAD_METHOD", `${what} has compression method bits ${method}${compressed ? " (only 0 pglz and 1 lz4 exist)" : " on an uncompressed value"}`);
  if (compressed && S < 5) throw new FormatError("TOAST_POINTER_BAD_SIZE", `compressed ${what} has stored size ${S}; va_tcinfo alone takes 4 bytes`);
  if (toastRelid !== undefined && p.va_toastrelid !== toastRelid) throw new FormatError("TOAST_POINTER_BAD_RELID", `${what} names TOAST relation ${p.va_toastrelid}, the table's is ${toastRelid}`);
  if (p.tag === VARTAG_ONDISK) return { flavour: "plain", rawSize: raw, storedSize: S, compressed, method, valueId: p.va_valueid };
  if (p.tag === VARTAG_DIRECT) return { flavour: "direct", rawSize: raw, storedSize: S, compressed, method, root: p.root };
  throw new FormatError("TOAST_POINTER_BAD_TAG", `external datum has vartag ${(p as { tag: number }).tag}`);
}

export class ToastReader {
  readonly heap: PageCache;
  readonly maxChunk: number;
  private readonly indexCache: PageCache | null;
  private scanner: ToastIndexScanner | null;
  private chunkMap?: PlainChunkMap;
  /** why the index stopped being used (damage found), if it did */
  indexProblem: FormatError | null = null;
  private readonly lookup: PlainLookup;

  constructor(readonly o: ToastReaderOptions) {
    this.heap = new PageCache(o.heap, o.cachePages ?? 64, o.readAhead ?? 4);
    this.maxChunk = toastMaxChunkSize(o.heap.geometry.blockSize);
    this.indexCache = o.index ? new PageCache(o.index, o.cachePages ?? 64) : null;
    this.scanner = this.indexCache ? new ToastIndexScanner(this.indexCache) : null;
    this.lookup = {
      heap: this.heap,
      maxChunk: this.maxChunk,
      clog: o.clog,
      index: () => this.scanner,
      map: (touch) => {
        if (!this.chunkMap) {
          this.chunkMap = PlainChunkMap.build(this.o.heap, this.o.clog);
          touch.stats.heapScanPages += this.chunkMap.stats.pages;
        }
        return this.chunkMap;
      },
      indexFailed: (e) => {
        this.indexProblem ??= e;
        this.scanner = null;
      },
    };
  }

  /** Is the index in use (present and not found damaged)? */
  get usesIndex(): boolean {
    return this.scanner !== null;
  }

  private directContext(touch: Touch): DirectContext {
    return { heap: this.heap, maxChunk: this.maxChunk, touch };
  }

  /** Stored bytes S[from, to) of the value, in pieces (views of page buffers that are never reused). */
  *storedPieces(p: ToastPointer, from = 0, to?: number, stats: ToastReadStats = emptyStats()): Generator<Uint8Array> {
    const sh = pointerShape(p, this.o.toastRelid);
    const end = Math.min(to ?? sh.storedSize, sh.storedSize);
    if (from < 0 || from > end) throw new RangeError(`stored range [${from}, ${end}) is not inside [0, ${sh.storedSize}]`);
    if (from === end) return;
    yield* this.slicePieces(sh, from, end, new Touch(stats));
  }

  private *slicePieces(sh: PointerShape, from: number, to: number, touch: Touch): Generator<Uint8Array> {
    const mc = this.maxChunk;
    const first = Math.floor(from / mc);
    const last = Math.floor((to - 1) / mc);
    const src = sh.flavour === "plain" ? plainSlices(this.lookup, sh.valueId!, sh.storedSize, first, last, touch) : directSlices(this.directContext(touch), sh.root!, sh.storedSize, first, last);
    let i = first;
    for (const data of src) {
      const base = i * mc;
      const s = Math.max(from - base, 0);
      const e = Math.min(to - base, data.length);
      if (e > s) yield s === 0 && e === data.length ? data : data.subarray(s, e);
      i++;
    }
  }

  /**
   * The raw value (decompressed, no varlena header) or its range [start, end), in pieces, read
   * lazily. Pieces stay valid after the iterator moves on.
   */
  *iterate(p: ToastPointer, o: ReadOptions = {}): Generator<Uint8Array> {
    const sh = pointerShape(p, this.o.toastRelid);
    const a = o.start ?? 0;
    const b = Math.min(o.end ?? sh.rawSize, sh.rawSize);
    if (a < 0 || a > b) throw new RangeError(`range [${a}, ${b}) is not inside the value's ${sh.rawSize} bytes`);
    const touch = new Touch(o.stats ?? emptyStats());
    if (!sh.compressed) {
      if (a < b) yield* this.slicePieces(sh, a, b, touch);
      return;
    }
    if (a === b) return;
    const full = b >= sh.rawSize;
    const stream = new PayloadStream({ payloadSize: sh.storedSize, stopAfter: full ? undefined : b });
    let checked = false;
    const what = sh.flavour === "plain" ? `toast value ${sh.valueId}` : `direct toast value at (${sh.root!.block},${sh.root!.offset})`;
    for (const piece of this.slicePieces(sh, 0, sh.storedSize, touch)) {
      const before = stream.produced;
      let out: Uint8Array;
      try {
        out = stream.push(piece);
      } catch (e) {
        throw this.inValue(e, what);
      }
      if (!checked && stream.tcinfo) {
        checked = true;
        const tc = stream.tcinfo;
        if (tc.rawSize !== sh.rawSize || tc.method !== sh.method) {
          throw new FormatError("TOAST_TCINFO_MISMATCH", `${what}: va_tcinfo says ${tc.rawSize} raw bytes by ${methodName(tc.method)}, the pointer says ${sh.rawSize} by ${methodName(sh.method)}`);
        }
      }
      touch.stats.bytesDecompressed += out.length;
      const s = Math.max(a - before, 0);
      const e = Math.min(b - before, out.length);
      if (e > s) yield out.subarray(s, e);
      if (!full && stream.produced >= b) return;
    }
    try {
      stream.finish();
    } catch (e) {
      throw this.inValue(e, what);
    }
    if (stream.produced < b) throw new FormatError("TOAST_RAWSIZE_MISMATCH", `${what} decompressed to ${stream.produced} bytes, the pointer says ${sh.rawSize}`);
  }

  private inValue(e: unknown, what: string): unknown {
    if (!(e instanceof FormatError)) return e;
    const at = e.location.offset !== undefined ? ` (byte ${e.location.offset} of the compressed data)` : "";
    return new FormatError(e.code, `${what}: ${e.message}${at}`, { file: this.o.heap.basePath }, e.detail);
  }

  /** Collect [start, end) of the raw value. */
  fetchSlice(p: ToastPointer, start: number, end: number, stats?: ToastReadStats): Uint8Array {
    const sh = pointerShape(p, this.o.toastRelid);
    const b = Math.min(end, sh.rawSize);
    const out = new Uint8Array(Math.max(0, b - start));
    let pos = 0;
    for (const piece of this.iterate(p, { start, end: b, stats })) {
      out.set(piece, pos);
      pos += piece.length;
    }
    if (pos !== out.length) throw new FormatError("TOAST_RAWSIZE_MISMATCH", `read ${pos} of ${out.length} bytes`);
    return out;
  }

  /** The whole raw value (decompressed, without a varlena header). */
  fetch(p: ToastPointer, stats?: ToastReadStats): Uint8Array {
    return this.fetchSlice(p, 0, Number.MAX_SAFE_INTEGER, stats);
  }

  /** The stored bytes S (compressed or not, no varlena header). */
  fetchStored(p: ToastPointer, stats?: ToastReadStats): Uint8Array {
    const sh = pointerShape(p, this.o.toastRelid);
    const out = new Uint8Array(sh.storedSize);
    let pos = 0;
    for (const piece of this.storedPieces(p, 0, sh.storedSize, stats)) {
      out.set(piece, pos);
      pos += piece.length;
    }
    return out;
  }

  close(): void {
    this.o.heap.close();
    this.o.index?.close();
  }
}
