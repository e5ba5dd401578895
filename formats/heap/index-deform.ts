// Attributes of an index tuple (IndexTupleData, src/include/access/itup.h): data at 8, or at 16
// after the 4-byte null bitmap; the same alignment rules as heap tuples.
import type { TupleDesc } from "./descriptor.js";
import { walkAttributes, type AttrSlot } from "./deform.js";

const INDEX_NULL_MASK = 0x8000;

/** Deform the first `natts` key attributes of an index tuple (fewer after suffix truncation). */
export function deformIndexTuple(tuple: Uint8Array, desc: TupleDesc, natts = desc.attrs.length): AttrSlot[] {
  const tInfo = tuple[6] | (tuple[7] << 8);
  const hasNulls = (tInfo & INDEX_NULL_MASK) !== 0;
  const start = hasNulls ? 16 : 8;
  const end = Math.min(tuple.length, tInfo & 0x1fff);
  const view = tuple.subarray(0, end);
  const used: TupleDesc = { attrs: desc.attrs.slice(0, natts) };
  return walkAttributes(view, start, hasNulls ? tuple.subarray(8, 12) : undefined, natts, used).attrs;
}
