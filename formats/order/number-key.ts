// Btree orders that are the order of one JavaScript number, for a sort without comparator calls
// (the loader's radix sort): the opclasses whose support function 1 compares one signed or
// unsigned integer (btint2cmp, btint4cmp, date_cmp, btoidcmp, btint8cmp, timestamp_cmp; the same
// order as scalar.ts's cmpInt16, cmpInt32, cmpUint32, cmpInt64). An int8 past 2^53 is not exact as
// a double: its key is NaN, and the caller falls back to the comparator. Source:
// src/backend/access/nbtree/nbtcompare.c (PostgreSQL 15).
import { i16At, i32At, u32At } from "../schema/bytes.js";

export interface NumberKey {
  /** the type the opclass compares (the column must be of it) */
  typid: number;
  /** the key of the datum at d[off]: exact, or NaN */
  read: (d: Uint8Array, off: number) => number;
}

/** A little-endian int8 as a number; NaN when it is not exact as a double. */
function readInt8(d: Uint8Array, off: number): number {
  const lo = u32At(d, off);
  const hi = i32At(d, off + 4);
  return hi >= -0x200000 && hi < 0x200000 ? hi * 4294967296 + lo : NaN;
}

/** By pg_opclass.opcname of the built-in btree opclasses. */
export const NUMBER_KEY_OPCLASSES: ReadonlyMap<string, NumberKey> = new Map([
  ["int2_ops", { typid: 21, read: (d: Uint8Array, off: number) => i16At(d, off) }],
  ["int4_ops", { typid: 23, read: (d: Uint8Array, off: number) => i32At(d, off) }],
  ["date_ops", { typid: 1082, read: (d: Uint8Array, off: number) => i32At(d, off) }],
  ["oid_ops", { typid: 26, read: (d: Uint8Array, off: number) => u32At(d, off) }],
  ["int8_ops", { typid: 20, read: readInt8 }],
  ["timestamp_ops", { typid: 1114, read: readInt8 }],
  ["timestamptz_ops", { typid: 1184, read: readInt8 }],
]);
