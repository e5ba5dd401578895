// IndexTupleData (src/include/access/itup.h) and nbtree's reuse of t_tid for pivot and posting
// tuples (src/include/access/nbtree.h). Helpers take the tuple's bytes (lp_len long) and read
// through the declaration's offsets with a DataView.
import { bytes, defineStruct, nest, register, u16, type InferStruct } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { ItemPointerData, readTid, type Tid } from "../page/item-pointer.js";
import { maxAlign } from "../page/page.js";

export const IndexTupleData = register(
  defineStruct("IndexTupleData", "src/include/access/itup.h", [
    nest("t_tid", ItemPointerData, "heap TID (non-pivot); downlink + natts (pivot); posting offset + nTIDs (posting)"),
    u16("t_info", "size (0x1FFF) | INDEX_AM_RESERVED_BIT 0x2000 | INDEX_VAR_MASK 0x4000 | INDEX_NULL_MASK 0x8000"),
  ] as const),
);
export type IndexTuple = InferStruct<typeof IndexTupleData>;
export const SizeOfIndexTupleData = IndexTupleData.size; // 8
const IT = IndexTupleData.offsets;
const TID_POSID = IT.t_tid + ItemPointerData.offsets.ip_posid;

/** IndexAttributeBitMapData: the null bitmap after the header when INDEX_NULL_MASK is set (1 = present). */
export const IndexAttributeBitMapData = register(
  defineStruct("IndexAttributeBitMapData", "src/include/access/itup.h", [
    bytes("bits", 4, "one bit per attribute (INDEX_MAX_KEYS = 32), 1 = not null"),
  ] as const),
);
export const INDEX_MAX_KEYS = 32;

export const INDEX_SIZE_MASK = 0x1fff;
export const INDEX_AM_RESERVED_BIT = 0x2000;
export const INDEX_VAR_MASK = 0x4000;
export const INDEX_NULL_MASK = 0x8000;
/** nbtree's name for INDEX_AM_RESERVED_BIT. */
export const INDEX_ALT_TID_MASK = INDEX_AM_RESERVED_BIT;

export const BT_OFFSET_MASK = 0x0fff;
export const BT_STATUS_OFFSET_MASK = 0xf000;
export const BT_PIVOT_HEAP_TID_ATTR = 0x1000;
export const BT_IS_POSTING = 0x2000;

/** sizeof(ItemPointerData) */
export const SizeOfItemPointerData = ItemPointerData.size; // 6

export const indexTupleSize = (tInfo: number): number => tInfo & INDEX_SIZE_MASK;
/** IndexInfoFindDataOffset: 8, or 16 with a null bitmap. */
export const indexDataOffset = (tInfo: number): number =>
  tInfo & INDEX_NULL_MASK ? maxAlign(SizeOfIndexTupleData + IndexAttributeBitMapData.size) : maxAlign(SizeOfIndexTupleData);

function view(t: Uint8Array): DataView {
  return new DataView(t.buffer, t.byteOffset, t.byteLength);
}
function need(t: Uint8Array, n: number, what: string): void {
  if (t.length < n) throw new FormatError("INDEX_TUPLE_TRUNCATED", `${what} needs ${n} bytes, tuple has ${t.length}`, { offset: t.length });
}

export const tInfoOf = (t: Uint8Array): number => (need(t, 8, "IndexTupleData"), view(t).getUint16(IT.t_info, true));
/** t_info straight from the bytes (little-endian u16 at IndexTupleData.offsets.t_info), no checks. */
export const tInfoRaw = (t: Uint8Array): number => t[IT.t_info]! | (t[IT.t_info + 1]! << 8);
/** IndexTupleSize of the index tuple at `at` (t_info's size bits). */
export const indexTupleSizeAt = (b: Uint8Array, at: number): number => IndexTupleData.get.t_info(b, at) & INDEX_SIZE_MASK;
/** ip_posid of t_tid straight from the bytes, no checks. */
export const posidRaw = (t: Uint8Array): number => t[TID_POSID]! | (t[TID_POSID + 1]! << 8);
export const posidOf = (t: Uint8Array): number => (need(t, 8, "IndexTupleData"), view(t).getUint16(TID_POSID, true));

/** BTreeTupleIsPivot: INDEX_ALT_TID_MASK without BT_IS_POSTING (reliable on version-4 indexes only). */
export function isPivot(t: Uint8Array): boolean {
  return (tInfoOf(t) & INDEX_ALT_TID_MASK) !== 0 && (posidOf(t) & BT_IS_POSTING) === 0;
}
/** BTreeTupleIsPosting: INDEX_ALT_TID_MASK and BT_IS_POSTING. */
export function isPosting(t: Uint8Array): boolean {
  return (tInfoOf(t) & INDEX_ALT_TID_MASK) !== 0 && (posidOf(t) & BT_IS_POSTING) !== 0;
}
export const hasNulls = (t: Uint8Array): boolean => (tInfoOf(t) & INDEX_NULL_MASK) !== 0;
export const hasVarwidths = (t: Uint8Array): boolean => (tInfoOf(t) & INDEX_VAR_MASK) !== 0;
export const keyDataOffset = (t: Uint8Array): number => indexDataOffset(tInfoOf(t));

/** The raw t_tid (for a pivot: downlink block + natts; for a posting tuple: posting offset + count). */
export const rawTid = (t: Uint8Array): Tid => (need(t, 8, "IndexTupleData"), readTid(view(t), IT.t_tid));

/** BTreeTupleGetPostingOffset: the posting list's byte offset, stored in the t_tid block field. */
export function postingOffset(t: Uint8Array): number {
  return rawTid(t).block;
}
/** BTreeTupleGetNPosting */
export const postingCount = (t: Uint8Array): number => posidOf(t) & BT_OFFSET_MASK;

/** The heap TIDs of a posting tuple, in stored order. Bounds-checked against the tuple bytes. */
export function postingTids(t: Uint8Array): Tid[] {
  if (!isPosting(t)) return [];
  const off = postingOffset(t);
  const n = postingCount(t);
  if (off + n * SizeOfItemPointerData > t.length) {
    throw new FormatError("BT_POSTING_OUT_OF_TUPLE", `posting list at ${off} with ${n} TIDs extends beyond the ${t.length}-byte tuple`, { offset: off });
  }
  const dv = view(t);
  const out: Tid[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = readTid(dv, off + i * SizeOfItemPointerData);
  return out;
}

/**
 * BTreeTupleGetHeapTID: a pivot's tiebreaker TID (last 6 bytes of IndexTupleSize, only with
 * BT_PIVOT_HEAP_TID_ATTR; null if truncated away), a posting tuple's first TID, else t_tid.
 */
export function heapTid(t: Uint8Array): Tid | null {
  const dv = view(t);
  if (isPivot(t)) {
    if ((posidOf(t) & BT_PIVOT_HEAP_TID_ATTR) === 0) return null;
    const end = indexTupleSize(tInfoOf(t));
    if (end > t.length || end < SizeOfIndexTupleData + SizeOfItemPointerData) {
      throw new FormatError("BT_PIVOT_TID_OUT_OF_TUPLE", `pivot heap TID at ${end - 6} lies outside the ${t.length}-byte tuple`, { offset: end - 6 });
    }
    return readTid(dv, end - SizeOfItemPointerData);
  }
  if (isPosting(t)) {
    const off = postingOffset(t);
    if (off + SizeOfItemPointerData > t.length) {
      throw new FormatError("BT_POSTING_OUT_OF_TUPLE", `posting list at ${off} lies beyond the ${t.length}-byte tuple`, { offset: off });
    }
    return readTid(dv, off);
  }
  return readTid(dv, IT.t_tid);
}

/** BTreeTupleGetMaxHeapTID (non-pivot tuples): the last posting TID, or t_tid. */
export function maxHeapTid(t: Uint8Array): Tid {
  if (isPosting(t)) {
    const tids = postingTids(t);
    return tids[tids.length - 1]!;
  }
  return rawTid(t);
}

/**
 * BTreeTupleGetNAtts: a pivot's stored key attribute count (t_tid offset & BT_OFFSET_MASK);
 * a non-pivot tuple always holds all `indnatts` attributes (the index's column count).
 */
export function nattsOf(t: Uint8Array, indnatts: number): number {
  return isPivot(t) ? posidOf(t) & BT_OFFSET_MASK : indnatts;
}

/** BTreeTupleGetDownLink (pivots on internal pages): the t_tid block. */
export const downlink = (t: Uint8Array): number => rawTid(t).block;

/** The null bitmap bytes (4), or null when INDEX_NULL_MASK is clear. */
export function nullBitmap(t: Uint8Array): Uint8Array | null {
  if (!hasNulls(t)) return null;
  need(t, SizeOfIndexTupleData + 4, "null bitmap");
  return t.subarray(SizeOfIndexTupleData, SizeOfIndexTupleData + 4);
}
/** Is attribute `attnum` (1-based) null? (att_isnull on the index bitmap; no bitmap: never null) */
export function attIsNull(t: Uint8Array, attnum: number): boolean {
  const bm = nullBitmap(t);
  if (!bm) return false;
  const i = attnum - 1;
  return (bm[i >> 3]! & (1 << (i & 7))) === 0;
}

/**
 * The key bytes shown by pageinspect's `data` column: from the data offset to IndexTupleSize,
 * minus the posting list (posting tuples) or the 8-byte MAXALIGNed heap TID (pivots that keep one).
 */
export function keyDataRange(t: Uint8Array): { start: number; end: number } {
  const info = tInfoOf(t);
  const start = indexDataOffset(info);
  let end = indexTupleSize(info);
  if (isPosting(t)) end = postingOffset(t);
  else if (isPivot(t) && (posidOf(t) & BT_PIVOT_HEAP_TID_ATTR) !== 0) end -= maxAlign(SizeOfItemPointerData);
  return { start, end };
}
