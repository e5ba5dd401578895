// Heap tuples formed from datums as heap_form_tuple forms them (src/backend/access/common/
// heaptuple.c: heap_compute_data_size, heap_fill_tuple): the null bitmap when any attribute is
// NULL, t_hoff MAXALIGNed after it, each datum at its type's alignment except varlenas with a
// 1-byte header and cstrings, which are never aligned; a varlena of a packable column (attstorage
// not 'p') that fits in 127 bytes gets a 1-byte header.
import { alignBytes, type AttrDesc, type TupleDesc } from "./descriptor.js";
import { HTH, HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, SizeofHeapTupleHeader } from "./tuple-header.js";
import { writeTid, type Tid } from "../page/item-pointer.js";
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

/** The offset a datum goes to after `off` (tuple-relative; t_hoff is MAXALIGNed). */
export function datumOffset(off: number, a: AttrDesc, stored: Uint8Array): number {
  if (storedUnaligned(a, stored)) return off;
  const al = alignBytes(a.align);
  return (off + al - 1) & ~(al - 1);
}

/** A varlena payload (no header, not compressed) in the form heap_fill_tuple stores it. */
export function varlenaStored(a: AttrDesc, payload: Uint8Array): Uint8Array {
  if (a.storage !== "p" && canMakeShort(payload.length)) {
    const out = new Uint8Array(VARHDRSZ_SHORT + payload.length);
    out[0] = ((VARHDRSZ_SHORT + payload.length) << 1) | 1;
    out.set(payload, VARHDRSZ_SHORT);
    return out;
  }
  const out = new Uint8Array(VARHDRSZ + payload.length);
  set4bHeader(new DataView(out.buffer), 0, out.length);
  out.set(payload, VARHDRSZ);
  return out;
}

/** The tuple's t_hoff for `natts` attributes, with or without a null bitmap. */
export const tupleHoff = (natts: number, hasNull: boolean): number => maxAlign(SizeofHeapTupleHeader + (hasNull ? (natts + 7) >> 3 : 0));

/**
 * A heap tuple of `desc` from stored datums (null for SQL NULL): fixed-length ones exactly attlen
 * bytes, varlenas with their header (varlenaStored, or a compressed or external datum), cstrings
 * with their NUL.
 */
export function formHeapTuple(desc: TupleDesc, datums: readonly (Uint8Array | null)[], h: HeapTupleFields): Uint8Array {
  const natts = desc.attrs.length;
  const hasNull = datums.some((d) => d === null);
  const hoff = tupleHoff(natts, hasNull);
  let size = hoff;
  for (let i = 0; i < natts; i++) {
    const d = datums[i];
    if (d) size = datumOffset(size, desc.attrs[i], d) + d.length;
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let infomask = h.xactBits;
  let off = hoff;
  for (let i = 0; i < natts; i++) {
    const d = datums[i];
    const a = desc.attrs[i];
    if (!d) continue;
    if (hasNull) out[SizeofHeapTupleHeader + (i >> 3)] |= 1 << (i & 7);
    if (a.len < 0) infomask |= HEAP_HASVARWIDTH;
    if (a.len === -1 && d[0] === 0x01) infomask |= HEAP_HASEXTERNAL;
    off = datumOffset(off, a, d);
    out.set(d, off);
    off += d.length;
  }
  if (hasNull) infomask |= HEAP_HASNULL;
  dv.setUint32(HTH.t_xmin, h.xmin >>> 0, true);
  dv.setUint32(HTH.t_xmax, h.xmax >>> 0, true);
  dv.setUint32(HTH.t_field3, h.field3 >>> 0, true);
  writeTid(dv, HTH.t_ctid, h.ctid);
  dv.setUint16(HTH.t_infomask2, natts | (h.infomask2Bits ?? 0), true);
  dv.setUint16(HTH.t_infomask, infomask, true);
  out[HTH.t_hoff] = hoff;
  return out;
}
