// Walk a heap tuple's attributes with a descriptor (heap_deform_tuple's layout rules,
// src/backend/access/common/heaptuple.c): fixed-length attributes align nominally; a varlena
// whose first byte is non-zero starts right there (1-byte headers are unaligned), else align.
import { FormatError } from "../schema/errors.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "./tuple-header.js";
import { alignBytes, type AttrDesc, type TupleDesc } from "./descriptor.js";
import { AttrSpans } from "./attr-spans.js";
import { readVarlenaHeader, type VarlenaHeader } from "../varlena/varlena.js";

export interface AttrSlot {
  attnum: number;
  /** null in the tuple, or beyond the tuple's natts without a fast default */
  isnull: boolean;
  /** beyond the tuple's natts: the value comes from attmissingval (or is NULL) */
  missing: boolean;
  /** offset of the datum within the tuple (valid when !isnull && !missing) */
  off: number;
  /** datum length in bytes, header included for varlena */
  len: number;
  varlena?: VarlenaHeader;
  /** a NUL-terminated cstring (attlen -2); len includes the NUL */
  cstring?: boolean;
}

export interface TupleLayout {
  natts: number;
  hoff: number;
  hasnull: boolean;
  /** null bitmap bytes (when hasnull) */
  bits?: Uint8Array;
  attrs: AttrSlot[];
  /** end of the last attribute's data within the tuple */
  end: number;
}

/** MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(natts)): the only t_hoff heap_form_tuple writes. */
export const expectedHoff = (natts: number, hasnull: boolean): number => (SizeofHeapTupleHeader + (hasnull ? (natts + 7) >> 3 : 0) + 7) & ~7;

/** Null bitmap convention: bit i set = attribute i+1 present. */
export const attIsNull = (bits: Uint8Array, i: number): boolean => (bits[i >> 3] & (1 << (i & 7))) === 0;

/**
 * Deform `tuple` (the item's bytes). Throws FormatError naming the attribute and offset when
 * the data does not fit the descriptor.
 */
export function deformHeapTuple(tuple: Uint8Array, desc: TupleDesc): TupleLayout {
  if (tuple.length < SizeofHeapTupleHeader) {
    throw new FormatError("HEAP_TUPLE_TOO_SHORT", `tuple of ${tuple.length} bytes is shorter than the ${SizeofHeapTupleHeader}-byte header`, { offset: 0 });
  }
  // read by hand: a DataView per tuple costs more than the two fields
  const infomask = tuple[HTH.t_infomask]! | (tuple[HTH.t_infomask + 1]! << 8);
  const natts = (tuple[HTH.t_infomask2]! | (tuple[HTH.t_infomask2 + 1]! << 8)) & HEAP_NATTS_MASK;
  const hoff = tuple[HTH.t_hoff];
  const hasnull = (infomask & HEAP_HASNULL) !== 0;
  const bitmapLen = hasnull ? (natts + 7) >> 3 : 0;
  const want = expectedHoff(natts, hasnull);
  if (hoff !== want || hoff > tuple.length) {
    // heap_form_tuple always sets t_hoff to exactly this (verify_heapam checks the same).
    throw new FormatError("HEAP_BAD_T_HOFF", `tuple data should begin at byte ${want}, but actually begins at byte ${hoff} (${natts} attributes, ${hasnull ? "has nulls" : "no nulls"})`, { offset: HTH.t_hoff, path: "t_hoff" });
  }
  const bits = hasnull ? tuple.subarray(SizeofHeapTupleHeader, SizeofHeapTupleHeader + bitmapLen) : undefined;
  const { attrs, end } = walkAttributes(tuple, hoff, bits, natts, desc);
  return { natts, hoff, hasnull, bits, attrs, end };
}

/** One reusable span buffer per descriptor: walkAttributes copies the spans out before returning. */
const scratch = new WeakMap<TupleDesc, AttrSpans>();

/**
 * The checked attribute walk of heap and index tuples, over AttrSpans: from `start`, `natts`
 * attributes present in the tuple (null bitmap `bits`, 1 = present), descriptor attributes
 * beyond natts "missing". An attribute that does not fit throws the FormatError that says why.
 */
export function walkAttributes(tuple: Uint8Array, start: number, bits: Uint8Array | undefined, natts: number, desc: TupleDesc): { attrs: AttrSlot[]; end: number } {
  const n = desc.attrs.length;
  let spans = scratch.get(desc);
  if (!spans || spans.off.length < n) scratch.set(desc, (spans = new AttrSpans(Math.max(1, n))));
  const bad = spans.walk(tuple, 0, tuple.length, start, bits ?? tuple, bits ? 0 : -1, natts, n, desc.attrs);
  if (bad >= 0) throw misfit(tuple, spans.end, desc.attrs[bad]!);
  const attrs: AttrSlot[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const attnum = desc.attrs[i]!.attnum;
    if (i >= natts) attrs[i] = { attnum, isnull: !desc.attrs[i]!.missing, missing: true, off: -1, len: 0 };
    else if (spans.isnull[i]) attrs[i] = { attnum, isnull: true, missing: false, off: -1, len: 0 };
    else {
      const off = spans.off[i]!;
      const len = spans.len[i]!;
      const a = desc.attrs[i]!;
      if (a.len === -1) attrs[i] = { attnum, isnull: false, missing: false, off, len, varlena: varlenaAt(tuple, off, attnum) };
      else if (a.len === -2) attrs[i] = { attnum, isnull: false, missing: false, off, len, cstring: true };
      else attrs[i] = { attnum, isnull: false, missing: false, off, len };
    }
  }
  return { attrs, end: spans.end };
}

function varlenaAt(tuple: Uint8Array, off: number, attnum: number): VarlenaHeader {
  try {
    return readVarlenaHeader(tuple, off, tuple.length);
  } catch (e) {
    throw e instanceof FormatError ? e.at({ attnum }) : e;
  }
}

/** Why attribute `a`, which would begin at or after `at`, does not fit the tuple. */
function misfit(tuple: Uint8Array, at: number, a: AttrDesc): FormatError {
  const al = alignBytes(a.align);
  const aligned = (at + al - 1) & ~(al - 1);
  if (a.len > 0) return attrOverrun(a.attnum, aligned, a.len, tuple.length);
  if (a.len === -1) {
    const off = at < tuple.length && tuple[at] === 0 ? aligned : at;
    if (off >= tuple.length) return attrOverrun(a.attnum, off, 1, tuple.length);
    const vh = varlenaAt(tuple, off, a.attnum);
    return attrOverrun(a.attnum, off, vh.total, tuple.length);
  }
  if (a.len === -2) {
    let e = aligned;
    while (e < tuple.length && tuple[e] !== 0) e++;
    return attrOverrun(a.attnum, aligned, e - aligned + 1, tuple.length);
  }
  return new FormatError("HEAP_BAD_ATTLEN", `attribute ${a.attnum} has attlen ${a.len}`, { attnum: a.attnum });
}

function attrOverrun(attnum: number, off: number, len: number, tupleLen: number): FormatError {
  return new FormatError("HEAP_ATTR_OVERRUN", `attribute ${attnum} at offset ${off} (${len} bytes) extends past the end of the tuple (${tupleLen} bytes)`, { attnum, offset: off });
}
