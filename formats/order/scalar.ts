// The fixed-length comparators: bool, "char", the integers, oid and its aliases, pg_lsn, xid8,
// float4/8, date, time, timestamp(tz), money, interval, timetz, uuid, macaddr(8) and tid, each
// over the little-endian datum bytes at an offset (no DataView or subarray per call). Sources:
// src/backend/access/nbtree/nbtcompare.c, utils/adt/{float,date,timestamp,uuid,mac,mac8,pg_lsn,
// xid,tid}.c (PostgreSQL 15).
import { i16At, i32At, u32At, u16At } from "../schema/bytes.js";
import { tidBlockAt } from "../page/item-pointer.js";
import { cmpBytes, type DatumCmp } from "./bytes.js";

const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
// floats and int64 read through one scratch word (no allocation per call)
const scratch = new Uint8Array(8);
const scratchF32 = new Float32Array(scratch.buffer, 0, 1);
const scratchF64 = new Float64Array(scratch.buffer, 0, 1);
const scratchI64 = new BigInt64Array(scratch.buffer, 0, 1);
function load(b: Uint8Array, o: number, n: number): void {
  for (let i = 0; i < n; i++) scratch[i] = b[o + i];
}
const f32 = (b: Uint8Array, o: number): number => (load(b, o, 4), scratchF32[0]);
const f64 = (b: Uint8Array, o: number): number => (load(b, o, 8), scratchF64[0]);
const i64 = (b: Uint8Array, o: number): bigint => (load(b, o, 8), scratchI64[0]);

/** int8 as a double is exact below 2^53 only: compare the two 32-bit halves to stay exact. */
function cmpI64(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  const ah = i32At(a, ao + 4);
  const bh = i32At(b, bo + 4);
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = u32At(a, ao);
  const bl = u32At(b, bo);
  return al === bl ? 0 : al < bl ? -1 : 1;
}
function cmpU64(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  const ah = u32At(a, ao + 4);
  const bh = u32At(b, bo + 4);
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = u32At(a, ao);
  const bl = u32At(b, bo);
  return al === bl ? 0 : al < bl ? -1 : 1;
}

/** float4/8_cmp_internal: NaN sorts above everything and equals NaN; -0 = 0. */
function cmpFloat(x: number, y: number): number {
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x > y ? 1 : x < y ? -1 : 0;
}

/** bool and "char" (unsigned): one byte. */
export const cmpUint8: DatumCmp = (a, ao, _al, b, bo) => a[ao] - b[bo];
/** int2 */
export const cmpInt16: DatumCmp = (a, ao, _al, b, bo) => sign(i16At(a, ao) - i16At(b, bo));
/** int4, date */
export const cmpInt32: DatumCmp = (a, ao, _al, b, bo) => sign(i32At(a, ao) - i32At(b, bo));
/** int8, time, timestamp, timestamptz, money */
export const cmpInt64: DatumCmp = (a, ao, _al, b, bo) => cmpI64(a, ao, b, bo);
/** oid and its reg* aliases, xid: unsigned 32 bits */
export const cmpUint32: DatumCmp = (a, ao, _al, b, bo) => sign(u32At(a, ao) - u32At(b, bo));
/** pg_lsn, xid8: unsigned 64 bits */
export const cmpUint64: DatumCmp = (a, ao, _al, b, bo) => cmpU64(a, ao, b, bo);
export const cmpFloat4: DatumCmp = (a, ao, _al, b, bo) => cmpFloat(f32(a, ao), f32(b, bo));
export const cmpFloat8: DatumCmp = (a, ao, _al, b, bo) => cmpFloat(f64(a, ao), f64(b, bo));

/** interval_cmp_value: time + day * USECS_PER_DAY + month * 30 * USECS_PER_DAY, as a 128-bit span. */
function intervalSpan(b: Uint8Array, o: number): bigint {
  const time = i64(b, o);
  const day = BigInt(i32At(b, o + 8));
  const month = BigInt(i32At(b, o + 12));
  const day_us = 86400000000n;
  return time + day * day_us + month * 30n * day_us;
}
export const cmpInterval: DatumCmp = (a, ao, _al, b, bo) => {
  const x = intervalSpan(a, ao);
  const y = intervalSpan(b, bo);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** timetz_cmp_internal: the time adjusted by its zone, then the zone. */
export const cmpTimetz: DatumCmp = (a, ao, _al, b, bo) => {
  const ta = i64(a, ao) + BigInt(i32At(a, ao + 8)) * 1000000n;
  const tb = i64(b, bo) + BigInt(i32At(b, bo + 8)) * 1000000n;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return sign(i32At(a, ao + 8) - i32At(b, bo + 8));
};

/** uuid_cmp, macaddr_cmp, macaddr8_cmp: memcmp of the fixed bytes. */
export const cmpUuid: DatumCmp = (a, ao, _al, b, bo) => cmpBytes(a, ao, 16, b, bo, 16);
export const cmpMacaddr: DatumCmp = (a, ao, _al, b, bo) => cmpBytes(a, ao, 6, b, bo, 6);
export const cmpMacaddr8: DatumCmp = (a, ao, _al, b, bo) => cmpBytes(a, ao, 8, b, bo, 8);

/** bttidcmp: the block (hi, lo halves) then the offset. */
export const cmpItemPointer: DatumCmp = (a, ao, _al, b, bo) => {
  const x = tidBlockAt(a, ao);
  const y = tidBlockAt(b, bo);
  if (x !== y) return x < y ? -1 : 1;
  return u16At(a, ao + 4) - u16At(b, bo + 4);
};
