// Header-field helpers shared by the heap checks, read straight from the page (no per-tuple
// objects): infomask logic as htup_details.h defines it.
import {
  HEAP_LOCK_MASK,
  HEAP_XMAX_EXCL_LOCK,
  HEAP_XMAX_INVALID,
  HEAP_XMAX_IS_MULTI,
  HEAP_XMAX_LOCK_ONLY,
  HEAP_XMIN_COMMITTED,
  HEAP_XMIN_INVALID,
  HEAP_XMIN_FROZEN,
  HEAP_HOT_UPDATED,
  HTH,
  SizeofHeapTupleHeader,
} from "../../formats/heap/tuple-header.js";
import { ItemPointerData, tidBlockAt } from "../../formats/page/item-pointer.js";

export const T_XMIN = HTH.t_xmin;
export const T_XMAX = HTH.t_xmax;
export const T_FIELD3 = HTH.t_field3;
export const T_CTID = HTH.t_ctid;
export const T_INFOMASK2 = HTH.t_infomask2;
export const T_INFOMASK = HTH.t_infomask;
export const T_HOFF = HTH.t_hoff;
export const T_BITS = SizeofHeapTupleHeader;

/** HEAP_XMAX_IS_LOCKED_ONLY */
export const xmaxLockedOnly = (infomask: number): boolean =>
  (infomask & HEAP_XMAX_LOCK_ONLY) !== 0 || (infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK)) === HEAP_XMAX_EXCL_LOCK;

/** HeapTupleHeaderXminCommitted (frozen counts as committed) */
export const xminHintCommitted = (infomask: number): boolean => (infomask & HEAP_XMIN_COMMITTED) !== 0;
/** HeapTupleHeaderXminInvalid: XMIN_INVALID without XMIN_COMMITTED */
export const xminHintInvalid = (infomask: number): boolean => (infomask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID)) === HEAP_XMIN_INVALID;

/** HeapTupleHeaderGetXmin: FrozenTransactionId (2) when HEAP_XMIN_FROZEN, else the raw xmin. */
export const tupleXmin = (dv: DataView, at: number): number =>
  (dv.getUint16(at + T_INFOMASK, true) & HEAP_XMIN_FROZEN) === HEAP_XMIN_FROZEN ? 2 : dv.getUint32(at + T_XMIN, true);

/** HeapTupleHeaderIsHotUpdated: the flag, and neither xmax nor xmin known invalid. */
export const isHotUpdated = (infomask: number, infomask2: number): boolean =>
  (infomask2 & HEAP_HOT_UPDATED) !== 0 && (infomask & HEAP_XMAX_INVALID) === 0 && !xminHintInvalid(infomask);

/** The t_ctid of the tuple at `at`: its block and offset. */
export const ctidBlock = (page: Uint8Array, at: number): number => tidBlockAt(page, at + T_CTID);
export const ctidOffset = (dv: DataView, at: number): number => dv.getUint16(at + T_CTID + ItemPointerData.offsets.ip_posid, true);
