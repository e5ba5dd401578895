// Plain TOAST values: chunks (chunk_id, chunk_seq, chunk_data) in the TOAST heap. This reader
// scans the TOAST heap once and remembers where each value's chunks are; a later issue adds
// the descent of the TOAST index. Every fetch counts the pages it touched.
import { FormatError } from "../schema/errors.js";
import { deformHeapTuple } from "../heap/deform.js";
import { HTH } from "../heap/tuple-header.js";
import { tupleState } from "../heap/visibility.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { scanBlocks, type RelationFork } from "../storage/relfile.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";
import { readVarlenaHeader } from "../varlena/varlena.js";
import { decompressTcinfo } from "../compression/index.js";
import type { ToastPointer } from "../varlena/toast-pointer.js";
import { toastChunkDesc3, toastMaxChunkSize } from "./chunk-desc.js";

interface ChunkRef {
  seq: number;
  block: number;
  item: number;
}

export interface FetchStats {
  pagesTouched: number;
  chunksRead: number;
  bytesDecompressed: number;
}

export class PlainToastReader {
  private index?: Map<number, ChunkRef[]>;
  private readonly page: Uint8Array;
  readonly maxChunk: number;

  constructor(
    readonly fork: RelationFork,
    readonly clog?: XactStatusLookup,
  ) {
    this.page = new Uint8Array(fork.geometry.blockSize);
    this.maxChunk = toastMaxChunkSize(fork.geometry.blockSize);
  }

  private buildIndex(): Map<number, ChunkRef[]> {
    const idx = new Map<number, ChunkRef[]>();
    for (const [blkno, page] of scanBlocks(this.fork)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      const n = maxOffsetNumber(dv);
      for (let i = 1; i <= n; i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const off = lpOff(w);
        const len = lpLen(w);
        if (off + len > page.length || len < 24) continue;
        const t = new DataView(page.buffer, page.byteOffset + off, len);
        if (tupleState(t.getUint32(HTH.t_xmin, true), t.getUint32(HTH.t_xmax, true), t.getUint16(HTH.t_infomask, true), this.clog) !== "live") continue;
        const hoff = t.getUint8(HTH.t_hoff);
        const bits = t.getUint16(HTH.t_infomask, true) & 1 ? page[off + 23] : 0xff;
        if ((bits & 1) === 0 || hoff + 8 > len) continue; // direct chunks (chunk_id NULL) are not plain
        const id = t.getUint32(hoff, true);
        const seq = t.getInt32(hoff + 4, true);
        let list = idx.get(id);
        if (!list) idx.set(id, (list = []));
        list.push({ seq, block: blkno, item: i });
      }
    }
    for (const l of idx.values()) l.sort((a, b) => a.seq - b.seq);
    return idx;
  }

  /** The stored bytes S of a value (compressed or not, no varlena header). */
  fetchStored(ptr: ToastPointer, stats?: FetchStats): Uint8Array {
    if (ptr.tag !== 18) throw new FormatError("TOAST_NOT_PLAIN", "a Direct TOAST pointer cannot be read by the plain TOAST reader", {});
    this.index ??= this.buildIndex();
    const refs = this.index.get(ptr.va_valueid);
    const where = { file: this.fork.basePath };
    if (!refs) throw new FormatError("TOAST_VALUE_MISSING", `toast value ${ptr.va_valueid} not found in toast table`, where);
    const expected = Math.floor((ptr.extsize - 1) / this.maxChunk) + 1;
    const out = new Uint8Array(ptr.extsize);
    let pos = 0;
    let lastBlock = -1;
    for (let k = 0; k < refs.length; k++) {
      const r = refs[k];
      if (r.seq !== k) throw new FormatError("TOAST_CHUNK_MISSING", `toast value ${ptr.va_valueid} chunk ${k} is missing (found chunk ${r.seq}); expected ${expected} chunks`, { ...where, block: r.block, item: r.item });
      if (r.block !== lastBlock) {
        this.fork.readBlock(r.block, this.page);
        lastBlock = r.block;
        if (stats) stats.pagesTouched++;
      }
      const dv = pageView(this.page);
      const w = itemIdWord(dv, r.item);
      const tuple = this.page.subarray(lpOff(w), lpOff(w) + lpLen(w));
      const layout = deformHeapTuple(tuple, toastChunkDesc3);
      const slot = layout.attrs[2];
      if (slot.isnull) throw new FormatError("TOAST_CHUNK_NULL_DATA", `toast value ${ptr.va_valueid} chunk ${k} has NULL chunk_data`, { ...where, block: r.block, item: r.item });
      const vh = slot.varlena ?? readVarlenaHeader(tuple, slot.off);
      if (vh.kind === "4b_c" || vh.kind === "1b_e") throw new FormatError("TOAST_CHUNK_BAD_VARLENA", `toast value ${ptr.va_valueid} chunk ${k} has a ${vh.kind === "1b_e" ? "external" : "compressed"} chunk_data`, { ...where, block: r.block, item: r.item });
      const data = tuple.subarray(slot.off + vh.header, slot.off + vh.total);
      const want = k < expected - 1 ? this.maxChunk : ptr.extsize - (expected - 1) * this.maxChunk;
      if (k >= expected) throw new FormatError("TOAST_CHUNK_EXTRA", `toast value ${ptr.va_valueid} chunk number ${k} exceeds the expected ${expected} chunks`, { ...where, block: r.block, item: r.item });
      if (data.length !== want) throw new FormatError("TOAST_CHUNK_BAD_SIZE", `toast value ${ptr.va_valueid} chunk ${k} has size ${data.length}, expected ${want}`, { ...where, block: r.block, item: r.item });
      out.set(data, pos);
      pos += data.length;
      if (stats) stats.chunksRead++;
    }
    if (refs.length !== expected) throw new FormatError("TOAST_CHUNK_MISSING", `toast value ${ptr.va_valueid} has ${refs.length} chunks, expected ${expected}`, where);
    return out;
  }

  /** The value's raw bytes (decompressed), without a varlena header. */
  fetch(ptr: ToastPointer, stats?: FetchStats): Uint8Array {
    const stored = this.fetchStored(ptr, stats);
    if (!ptr.compressed) return stored;
    const raw = decompressTcinfo(stored);
    if (stats) stats.bytesDecompressed += raw.length;
    if (raw.length !== ptr.va_rawsize - 4) throw new FormatError("TOAST_RAWSIZE_MISMATCH", `toast value ${ptr.tag === 18 ? ptr.va_valueid : ""} decompressed to ${raw.length} bytes, the pointer says ${ptr.va_rawsize - 4}`, { file: this.fork.basePath });
    return raw;
  }
}
