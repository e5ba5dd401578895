// Heap tuples formed from datums as heap_form_tuple forms them (src/backend/access/common/
// heaptuple.c: heap_compute_data_size, heap_fill_tuple): the null bitmap when any attribute is
// NULL, t_hoff MAXALIGNed after it, each datum at its type's alignment except varlenas with a
// 1-byte header and cstrings, which are never aligned; a varlena of a packable column (attstorage
// not 'p') that fits in 127 bytes gets a 1-byte header.
import { alignBytes, type AttrDesc, type TupleDesc } from "./descriptor.js";
import { HTH, HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, SizeofHeapTupleHeader } from "./tuple-header.js";
import { setTidAt, type Tid } from "../page/item-pointer.js";
import { setU16At, setU32At } from "../schema/bytes.js";
import { maxAlign } from "../page/page.js";
import { canMakeShort, set4bHeader, VARHDRSZ, VARHDRSZ_SHORT } from "../varlena/varlena.js";

/** The header fields the caller decides; the rest (natts, null and width bits, t_hoff) follow from the datums. */
export interface HeapTupleFields {
  xmin: number;
  xmax: number;
  /** t_cid (or t_xvac) */
  field3: number;
  ctid: Tid;
  /** transaction status and lock bits of t_infomask (HEAP_XMIN_*, HEAP_XMAX_*) */
  xactBits: number;
  /** HEAP_KEYS_UPDATED, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE */
  infomask2Bits?: number;
}

/** A datum's stored form: a 1-byte-header varlena, an external pointer or a cstring is not aligned. */
export function storedUnaligned(a: AttrDesc, stored: Uint8Array): boolean {
  return a.len === -2 || (a.len === -1 && (stored[0] & 1) === 1);
}

/** The offset after `off` where a datum of attlen `attlen` (alignment `al` bytes) whose first byte is `first` goes. */
function datumStart(off: number, attlen: number, al: number, first: number): number {
  if (attlen === -2 || (attlen === -1 && (first & 1) === 1)) return off;
  return (off + al - 1) & ~(al - 1);
}

/** The t_infomask bits a non-null datum sets: HEAP_HASVARWIDTH for a varlena or cstring, HEAP_HASEXTERNAL for a TOAST pointer. */
function datumInfomask(attlen: number, first: number): number {
  if (attlen >= 0) return 0;
  return attlen === -1 && first === 0x01 ? HEAP_HASVARWIDTH | HEAP_HASEXTERNAL : HEAP_HASVARWIDTH;
}

/** The offset a datum goes to after `off` (tuple-relative; t_hoff is MAXALIGNed). */
export function datumOffset(off: number, a: AttrDesc, stored: Uint8Array): number {
  return datumStart(off, a.len, alignBytes(a.align), stored[0]!);
}

/** A varlena payload (no header, not compressed) in the form heap_fill_tuple stores it. */
export function varlenaStored(a: AttrDesc, payload: Uint8Array): Uint8Array {
  const v = varlenaAlloc(a, payload.length);
  v.out.set(payload, v.at);
  return v.out;
}

/** The stored form of a `payloadLength`-byte varlena with its header written; the payload goes at `at`. */
export function varlenaAlloc(a: AttrDesc, payloadLength: number): { out: Uint8Array; at: number } {
  if (a.storage !== "p" && canMakeShort(payloadLength)) {
    const out = new Uint8Array(VARHDRSZ_SHORT + payloadLength);
    out[0] = ((VARHDRSZ_SHORT + payloadLength) << 1) | 1;
    return { out, at: VARHDRSZ_SHORT };
  }
  const out = new Uint8Array(VARHDRSZ + payloadLength);
  set4bHeader(new DataView(out.buffer), 0, out.length);
  return { out, at: VARHDRSZ };
}

/** The tuple's t_hoff for `natts` attributes, with or without a null bitmap. */
export const tupleHoff = (natts: number, hasNull: boolean): number => maxAlign(SizeofHeapTupleHeader + (hasNull ? (natts + 7) >> 3 : 0));

/** The length of the tuple formHeapTuple forms from these datums (null for SQL NULL). */
export function heapTupleSize(desc: TupleDesc, datums: readonly (Uint8Array | null)[]): number {
  const natts = desc.attrs.length;
  let hasNull = false;
  for (let i = 0; i < natts; i++) if (datums[i] === null) hasNull = true;
  let size = tupleHoff(natts, hasNull);
  for (let i = 0; i < natts; i++) {
    const d = datums[i];
    if (d) size = datumOffset(size, desc.attrs[i], d) + d.length;
  }
  return size;
}

/**
 * A heap tuple of `desc` from stored datums (null for SQL NULL): fixed-length ones exactly attlen
 * bytes, varlenas with their header (varlenaStored, or a compressed or external datum), cstrings
 * with their NUL.
 */
export function formHeapTuple(desc: TupleDesc, datums: readonly (Uint8Array | null)[], h: HeapTupleFields): Uint8Array {
  const out = new Uint8Array(heapTupleSize(desc, datums));
  writeHeapTuple(desc, datums, h, out, 0);
  return out;
}

/**
 * Write the tuple formHeapTuple forms into `out` at `at` (heapTupleSize bytes, which must be zero:
 * alignment padding and the null bitmap are not cleared), e.g. straight into a page being filled.
 */
export function writeHeapTuple(desc: TupleDesc, datums: readonly (Uint8Array | null)[], h: HeapTupleFields, out: Uint8Array, at: number): void {
  const natts = desc.attrs.length;
  let hasNull = false;
  for (let i = 0; i < natts; i++) if (datums[i] === null) hasNull = true;
  const hoff = tupleHoff(natts, hasNull);
  let infomask = h.xactBits;
  let off = hoff;
  for (let i = 0; i < natts; i++) {
    const d = datums[i];
    const a = desc.attrs[i];
    if (!d) continue;
    if (hasNull) out[at + SizeofHeapTupleHeader + (i >> 3)] |= 1 << (i & 7);
    infomask |= datumInfomask(a.len, d[0]!);
    off = datumOffset(off, a, d);
    // a short datum (most of them) is cheaper copied bytewise than through set()
    const n = d.length;
    if (n <= 32) for (let k = 0, p = at + off; k < n; k++) out[p + k] = d[k];
    else out.set(d, at + off);
    off += n;
  }
  if (hasNull) infomask |= HEAP_HASNULL;
  writeHeapTupleHeader(out, at, h, natts, infomask, hoff);
}

/** Stored datums side by side in one buffer (a loader's row): datum i is buf[off[i], off[i] + len[i]), len[i] < 0 for SQL NULL. */
export interface DatumSpans {
  readonly buf: Uint8Array;
  readonly off: Int32Array;
  readonly len: Int32Array;
}

/** What forming a tuple needs of each attribute, read once per relation: attlen and alignment in bytes. */
export class HeapFormLayout {
  readonly natts: number;
  readonly attlen: Int16Array;
  readonly align: Uint8Array;
  constructor(desc: TupleDesc) {
    this.natts = desc.attrs.length;
    this.attlen = Int16Array.from(desc.attrs, (a) => a.len);
    this.align = Uint8Array.from(desc.attrs, (a) => alignBytes(a.align));
  }
}

/** heapTupleSize over DatumSpans. */
export function heapTupleSizeOfSpans(l: HeapFormLayout, v: DatumSpans): number {
  const { natts, attlen, align } = l;
  const { buf, off, len } = v;
  let hasNull = false;
  for (let i = 0; i < natts; i++) if (len[i]! < 0) hasNull = true;
  let size = tupleHoff(natts, hasNull);
  for (let i = 0; i < natts; i++) {
    const n = len[i]!;
    if (n >= 0) size = datumStart(size, attlen[i]!, align[i]!, buf[off[i]!]!) + n;
  }
  return size;
}

/** writeHeapTuple over DatumSpans: `out` at `at` is zero (padding and the null bitmap are not cleared). */
export function writeHeapTupleSpans(l: HeapFormLayout, v: DatumSpans, h: HeapTupleFields, out: Uint8Array, at: number): void {
  const { natts, attlen, align } = l;
  const { buf: src, off: voff, len } = v;
  let hasNull = false;
  for (let i = 0; i < natts; i++) if (len[i]! < 0) hasNull = true;
  const hoff = tupleHoff(natts, hasNull);
  let infomask = h.xactBits;
  let off = hoff;
  for (let i = 0; i < natts; i++) {
    const n = len[i]!;
    if (n < 0) continue;
    const s = voff[i]!;
    const first = src[s]!;
    if (hasNull) out[at + SizeofHeapTupleHeader + (i >> 3)] |= 1 << (i & 7);
    infomask |= datumInfomask(attlen[i]!, first);
    off = datumStart(off, attlen[i]!, align[i]!, first);
    // a short datum (most of them) is cheaper copied bytewise than through set()
    if (n <= 32) for (let k = 0, p = at + off; k < n; k++) out[p + k] = src[s + k]!;
    else out.set(src.subarray(s, s + n), at + off);
    off += n;
  }
  if (hasNull) infomask |= HEAP_HASNULL;
  writeHeapTupleHeader(out, at, h, natts, infomask, hoff);
}

/** The header of a tuple being formed at `at`: `h`'s fields, natts, the data's infomask bits and t_hoff. */
export function writeHeapTupleHeader(out: Uint8Array, at: number, h: HeapTupleFields, natts: number, infomask: number, hoff: number): void {
  // the header bytes written directly (a DataView per tuple costs more than the tuple's data)
  setU32At(out, at + HTH.t_xmin, h.xmin >>> 0);
  setU32At(out, at + HTH.t_xmax, h.xmax >>> 0);
  setU32At(out, at + HTH.t_field3, h.field3 >>> 0);
  setTidAt(out, at + HTH.t_ctid, h.ctid.block, h.ctid.offset);
  setU16At(out, at + HTH.t_infomask2, natts | (h.infomask2Bits ?? 0));
  setU16At(out, at + HTH.t_infomask, infomask);
  out[at + HTH.t_hoff] = hoff;
}
