// HeapTupleHeaderData: src/include/access/htup_details.h. The fixed part is 23 bytes; the
// null bitmap t_bits follows when HEAP_HASNULL is set, and t_hoff (MAXALIGNed) gives the data start.
import { defineStruct, nest, register, u16, u32, u8, type InferStruct } from "../schema/index.js";
import { ItemPointerData } from "../page/item-pointer.js";

export const HeapTupleHeaderData = register(
  defineStruct("HeapTupleHeaderData", "src/include/access/htup_details.h", [
    u32("t_xmin", "inserting transaction ID"),
    u32("t_xmax", "deleting or locking transaction ID or MultiXactId, 0 if none"),
    u32("t_field3", "t_cid (command ID, possibly combo) or t_xvac (old VACUUM FULL)"),
    nest("t_ctid", ItemPointerData, "this tuple's TID, or that of its newer version"),
    u16("t_infomask2", "number of attributes (0x07FF) | HEAP_KEYS_UPDATED | HEAP_HOT_UPDATED | HEAP_ONLY_TUPLE"),
    u16("t_infomask", "flag bits (HEAP_HASNULL, ..., HEAP_MOVED_IN)"),
    u8("t_hoff", "offset of the user data: header + null bitmap + padding, MAXALIGNed"),
  ] as const),
);
export type HeapTupleHeader = InferStruct<typeof HeapTupleHeaderData>;
export const SizeofHeapTupleHeader = HeapTupleHeaderData.size; // 23
export const HTH = HeapTupleHeaderData.offsets;

export const HEAP_HASNULL = 0x0001;
export const HEAP_HASVARWIDTH = 0x0002;
export const HEAP_HASEXTERNAL = 0x0004;
export const HEAP_HASOID_OLD = 0x0008;
export const HEAP_XMAX_KEYSHR_LOCK = 0x0010;
export const HEAP_COMBOCID = 0x0020;
export const HEAP_XMAX_EXCL_LOCK = 0x0040;
export const HEAP_XMAX_LOCK_ONLY = 0x0080;
export const HEAP_XMAX_SHR_LOCK = 0x0050;
export const HEAP_LOCK_MASK = 0x0050;
export const HEAP_XMIN_COMMITTED = 0x0100;
export const HEAP_XMIN_INVALID = 0x0200;
export const HEAP_XMIN_FROZEN = 0x0300;
export const HEAP_XMAX_COMMITTED = 0x0400;
export const HEAP_XMAX_INVALID = 0x0800;
export const HEAP_XMAX_IS_MULTI = 0x1000;
export const HEAP_UPDATED = 0x2000;
export const HEAP_MOVED_OFF = 0x4000;
export const HEAP_MOVED_IN = 0x8000;
export const HEAP_MOVED = 0xc000;
export const HEAP_XACT_MASK = 0xfff0;

export const HEAP_NATTS_MASK = 0x07ff;
export const HEAP_KEYS_UPDATED = 0x2000;
export const HEAP_HOT_UPDATED = 0x4000;
export const HEAP_ONLY_TUPLE = 0x8000;
export const HEAP2_XACT_MASK = 0xe000;

/** Raw flag names, in pageinspect's heap_tuple_infomask_flags order. */
export const INFOMASK_FLAGS: [number, string][] = [
  [HEAP_HASNULL, "HEAP_HASNULL"],
  [HEAP_HASVARWIDTH, "HEAP_HASVARWIDTH"],
  [HEAP_HASEXTERNAL, "HEAP_HASEXTERNAL"],
  [HEAP_HASOID_OLD, "HEAP_HASOID_OLD"],
  [HEAP_XMAX_KEYSHR_LOCK, "HEAP_XMAX_KEYSHR_LOCK"],
  [HEAP_COMBOCID, "HEAP_COMBOCID"],
  [HEAP_XMAX_EXCL_LOCK, "HEAP_XMAX_EXCL_LOCK"],
  [HEAP_XMAX_LOCK_ONLY, "HEAP_XMAX_LOCK_ONLY"],
  [HEAP_XMIN_COMMITTED, "HEAP_XMIN_COMMITTED"],
  [HEAP_XMIN_INVALID, "HEAP_XMIN_INVALID"],
  [HEAP_XMAX_COMMITTED, "HEAP_XMAX_COMMITTED"],
  [HEAP_XMAX_INVALID, "HEAP_XMAX_INVALID"],
  [HEAP_XMAX_IS_MULTI, "HEAP_XMAX_IS_MULTI"],
  [HEAP_UPDATED, "HEAP_UPDATED"],
  [HEAP_MOVED_OFF, "HEAP_MOVED_OFF"],
  [HEAP_MOVED_IN, "HEAP_MOVED_IN"],
];
export const INFOMASK2_FLAGS: [number, string][] = [
  [HEAP_KEYS_UPDATED, "HEAP_KEYS_UPDATED"],
  [HEAP_HOT_UPDATED, "HEAP_HOT_UPDATED"],
  [HEAP_ONLY_TUPLE, "HEAP_ONLY_TUPLE"],
];

/** Flag names of both masks, with the combined names (XMIN_FROZEN, XMAX_SHR_LOCK) pageinspect shows. */
export function infomaskNames(infomask: number, infomask2: number): { raw: string[]; combined: string[] } {
  const raw = INFOMASK_FLAGS.filter(([b]) => infomask & b).map(([, n]) => n);
  raw.push(...INFOMASK2_FLAGS.filter(([b]) => infomask2 & b).map(([, n]) => n));
  const combined: string[] = [];
  if ((infomask & HEAP_XMAX_SHR_LOCK) === HEAP_XMAX_SHR_LOCK) combined.push("HEAP_XMAX_SHR_LOCK");
  if ((infomask & HEAP_XMIN_FROZEN) === HEAP_XMIN_FROZEN) combined.push("HEAP_XMIN_FROZEN");
  if ((infomask & HEAP_MOVED) === HEAP_MOVED) combined.push("HEAP_MOVED");
  return { raw, combined };
}
