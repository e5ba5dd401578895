// B-tree support function 1 (the ORDER proc) of the built-in opclasses, over on-disk datum
// bytes. Each comparator gets two datums as (buffer, offset, length) with the varlena header
// still on (length = whole datum), and returns <0, 0 or >0. Comparators exist where the order
// is defined by the bytes alone; text-like types only under the C/POSIX collation (bytewise).
// Sources: src/backend/access/nbtree/nbtcompare.c, utils/adt/{float,numeric,date,timestamp,
// varlena,varchar,name,uuid,oid,network,varbit}.c (PostgreSQL 15). The comparators that need
// the catalog are in compare-catalog.ts, the text search ones in compare-ts.ts, jsonb_cmp in
// compare-jsonb.ts.
import { decompressTcinfo } from "../compression/index.js";
import { dataViewCache } from "../page/word-view.js";
import { tidBlockAt } from "../page/item-pointer.js";

export type DatumCmp = (a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number) => number;

const sign = (x: number): number => (x < 0 ? -1 : x > 0 ? 1 : 0);
// Little-endian reads from the bytes (no DataView per call; scratch arrays for floats and int64).
const i16 = (b: Uint8Array, o: number): number => ((b[o] | (b[o + 1] << 8)) << 16) >> 16;
const i32 = (b: Uint8Array, o: number): number => b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24);
const u32 = (b: Uint8Array, o: number): number => i32(b, o) >>> 0;
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

/** int8 as a double is exact below 2^53; compare the two 32-bit halves to stay exact. */
function cmpI64(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  const ah = i32(a, ao + 4);
  const bh = i32(b, bo + 4);
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = u32(a, ao);
  const bl = u32(b, bo);
  return al === bl ? 0 : al < bl ? -1 : 1;
}
function cmpU64(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  const ah = u32(a, ao + 4);
  const bh = u32(b, bo + 4);
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = u32(a, ao);
  const bl = u32(b, bo);
  return al === bl ? 0 : al < bl ? -1 : 1;
}

const viewA = dataViewCache();
const viewB = dataViewCache();
let lastA: Uint8Array | null = null;
let lastB: Uint8Array | null = null;
let dvA: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
let dvB = dvA;

/**
 * memcmp of two byte ranges, then the shorter first (varstr_cmp under C, byteacmp). Long ranges
 * go four bytes at a time as big-endian words, whose unsigned order is memcmp's (keys often share
 * long prefixes: URLs, paths). Only the sign of the result is meaningful.
 */
export function cmpBytes(a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number): number {
  const n = Math.min(al, bl);
  let i = 0;
  if (n >= 12) {
    // views looked up once per byte array: reading .buffer per call costs more than short keys
    if (a !== lastA) {
      lastA = a;
      dvA = viewA(a.buffer);
    }
    if (b !== lastB) {
      lastB = b;
      dvB = viewB(b.buffer);
    }
    const da = dvA;
    const db = dvB;
    const pa = a.byteOffset + ao;
    const pb = b.byteOffset + bo;
    for (const e = n - 3; i < e; i += 4) {
      const x = da.getUint32(pa + i);
      const y = db.getUint32(pb + i);
      if (x !== y) return x < y ? -1 : 1;
    }
  }
  for (; i < n; i++) {
    const d = a[ao + i] - b[bo + i];
    if (d !== 0) return d;
  }
  return al - bl;
}

/**
 * A varlena's payload as [buffer, start, length]: after a 1- or 4-byte header, or decompressed
 * when index_form_tuple stored it compressed (keys above TOAST_INDEX_TARGET). Null for an
 * external pointer (never valid in an index) or undecodable bytes.
 */
export function payloadOf(b: Uint8Array, o: number, l: number): [Uint8Array, number, number] | null {
  const b0 = b[o];
  if (b0 === 0x01) return null;
  if (b0 & 1) return [b, o + 1, l - 1];
  if ((b0 & 3) === 2) {
    try {
      const raw = decompressTcinfo(b.subarray(o + 4, o + l));
      return [raw, 0, raw.length];
    } catch {
      return null;
    }
  }
  return [b, o + 4, l - 4];
}

const cmpVarlenaBytes: DatumCmp = (a, ao, al, b, bo, bl) => {
  // plain 1- and 4-byte headers (nearly every key) compared in place, without payloadOf's arrays
  const a0 = a[ao];
  const b0 = b[bo];
  if (a0 !== 0x01 && b0 !== 0x01 && (a0 & 3) !== 2 && (b0 & 3) !== 2) {
    const ah = a0 & 1 ? 1 : 4;
    const bh = b0 & 1 ? 1 : 4;
    return cmpBytes(a, ao + ah, al - ah, b, bo + bh, bl - bh);
  }
  const x = payloadOf(a, ao, al);
  const y = payloadOf(b, bo, bl);
  if (!x || !y) return NaN;
  return cmpBytes(x[0], x[1], x[2], y[0], y[1], y[2]);
};

/** bpchar: trailing spaces do not count (bcTruelen). */
const cmpBpchar: DatumCmp = (a, ao, al, b, bo, bl) => {
  const x = payloadOf(a, ao, al);
  const y = payloadOf(b, bo, bl);
  if (!x || !y) return NaN;
  let an = x[2];
  let bn = y[2];
  while (an > 0 && x[0][x[1] + an - 1] === 0x20) an--;
  while (bn > 0 && y[0][y[1] + bn - 1] === 0x20) bn--;
  return cmpBytes(x[0], x[1], an, y[0], y[1], bn);
};

/** name (stored as cstring in name_ops indexes, or NAMEDATALEN bytes): up to the first NUL. */
const cmpCstring: DatumCmp = (a, ao, al, b, bo, bl) => {
  let an = 0;
  while (an < al && a[ao + an] !== 0) an++;
  let bn = 0;
  while (bn < bl && b[bo + bn] !== 0) bn++;
  return cmpBytes(a, ao, an, b, bo, bn);
};

function cmpFloat(x: number, y: number): number {
  // float4/8_cmp_internal: NaN sorts above everything and equals NaN; -0 = 0
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x > y ? 1 : x < y ? -1 : 0;
}

// ---- numeric (cmp_numerics over NumericData)
const NUMERIC_SIGN_MASK = 0xc000;
const NUMERIC_NEG = 0x4000;
const NUMERIC_SHORT = 0x8000;
const NUMERIC_SPECIAL = 0xc000;
const NUMERIC_EXT_SIGN_MASK = 0xf000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;

interface Num {
  /** 0 finite, 1 NaN, 2 +Inf, 3 -Inf */
  special: number;
  neg: boolean;
  weight: number;
  at: number;
  ndigits: number;
}
function readNumeric(b0: Uint8Array, o: number, l: number, out: Num): Uint8Array | null {
  const p = payloadOf(b0, o, l);
  if (!p) return null;
  const [b, s, n] = p;
  if (n < 2) return null;
  const h = b[s] | (b[s + 1] << 8);
  const flag = h & NUMERIC_SIGN_MASK;
  if (flag === NUMERIC_SPECIAL) {
    const x = h & NUMERIC_EXT_SIGN_MASK;
    out.special = x === NUMERIC_NAN ? 1 : x === NUMERIC_PINF ? 2 : 3;
    return b;
  }
  out.special = 0;
  if (flag === NUMERIC_SHORT) {
    out.neg = (h & 0x2000) !== 0;
    out.weight = (h & 0x0040 ? -64 : 0) | (h & 0x003f);
    out.at = s + 2;
    out.ndigits = (n - 2) >> 1;
  } else {
    if (n < 4) return null;
    out.neg = flag === NUMERIC_NEG;
    out.weight = i16(b, s + 2);
    out.at = s + 4;
    out.ndigits = (n - 4) >> 1;
  }
  return b;
}
const NA: Num = { special: 0, neg: false, weight: 0, at: 0, ndigits: 0 };
const NB: Num = { special: 0, neg: false, weight: 0, at: 0, ndigits: 0 };
/** cmp_abs_common: compare digit arrays aligned by weight (zeros where one has none). */
function cmpAbs(a: Uint8Array, x: Num, b: Uint8Array, y: Num): number {
  const hi = Math.max(x.weight, y.weight);
  const lo = Math.min(x.weight - x.ndigits + 1, y.weight - y.ndigits + 1);
  for (let w = hi; w >= lo; w--) {
    const ia = x.weight - w;
    const ib = y.weight - w;
    const da = ia >= 0 && ia < x.ndigits ? i16(a, x.at + 2 * ia) : 0;
    const db = ib >= 0 && ib < y.ndigits ? i16(b, y.at + 2 * ib) : 0;
    if (da !== db) return da < db ? -1 : 1;
  }
  return 0;
}
const cmpNumeric: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const a = readNumeric(a0, ao, al, NA);
  const b = a && readNumeric(b0, bo, bl, NB);
  if (!a || !b) return NaN;
  if (NA.special || NB.special) {
    // NaN > +Inf > finite > -Inf
    const rank = (n: Num): number => (n.special === 1 ? 3 : n.special === 2 ? 2 : n.special === 3 ? 0 : 1);
    const ra = rank(NA);
    const rb = rank(NB);
    if (ra !== rb) return ra - rb;
    if (ra !== 1) return 0;
  }
  const za = NA.ndigits === 0 || allZero(a, NA);
  const zb = NB.ndigits === 0 || allZero(b, NB);
  if (za || zb) {
    if (za && zb) return 0;
    if (za) return NB.neg ? 1 : -1;
    return NA.neg ? -1 : 1;
  }
  if (NA.neg !== NB.neg) return NA.neg ? -1 : 1;
  const c = cmpAbs(a, NA, b, NB);
  return NA.neg ? -c : c;
};
function allZero(b: Uint8Array, n: Num): boolean {
  for (let i = 0; i < n.ndigits; i++) if (i16(b, n.at + 2 * i) !== 0) return false;
  return true;
}

/** interval_cmp_value: time + day * USECS_PER_DAY + month * 30 * USECS_PER_DAY, as a 128-bit span. */
function intervalSpan(b: Uint8Array, o: number): bigint {
  const time = i64(b, o);
  const day = BigInt(i32(b, o + 8));
  const month = BigInt(i32(b, o + 12));
  const day_us = 86400000000n;
  return time + day * day_us + month * 30n * day_us;
}

/** oidvector: the vector length first, then elementwise (btoidvectorcmp). */
const cmpOidvector: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y) return NaN;
  const [a, as, an] = x;
  const [b, bs, bn] = y;
  if (an < 20 || bn < 20) return NaN;
  const da = i32(a, as + 12);
  const db = i32(b, bs + 12);
  if (da !== db) return da - db;
  for (let i = 0; i < da; i++) {
    const x = u32(a, as + 20 + 4 * i);
    const y = u32(b, bs + 20 + 4 * i);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/** bitncmp: the first `n` bits of two addresses (network order), as memcmp then the high bits of the next byte. */
function bitncmp(a: Uint8Array, ao: number, b: Uint8Array, bo: number, n: number): number {
  const bytes = n >> 3;
  const c = cmpBytes(a, ao, bytes, b, bo, bytes);
  if (c !== 0 || (n & 7) === 0) return c;
  const mask = (0xff << (8 - (n & 7))) & 0xff;
  return (a[ao + bytes] & mask) - (b[bo + bytes] & mask);
}

/** network_cmp (inet and cidr): family, then the common prefix of the shorter netmask, then the netmask, then every address bit. */
const cmpInet: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y || x[2] < 2 || y[2] < 2) return NaN;
  const [a, as] = x;
  const [b, bs] = y;
  const fa = a[as];
  const fb = b[bs];
  if (fa !== fb) return fa - fb;
  const maxbits = fa === 2 ? 32 : 128;
  if (x[2] < 2 + maxbits / 8 || y[2] < 2 + maxbits / 8) return NaN;
  const ba = a[as + 1];
  const bb = b[bs + 1];
  const c = bitncmp(a, as + 2, b, bs + 2, Math.min(ba, bb));
  if (c !== 0) return c;
  if (ba !== bb) return ba - bb;
  return bitncmp(a, as + 2, b, bs + 2, maxbits);
};

/** bit_cmp (bit and varbit): memcmp of the common bytes, then the bit length. */
const cmpBits: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y || x[2] < 4 || y[2] < 4) return NaN;
  const na = x[2] - 4;
  const nb = y[2] - 4;
  const n = Math.min(na, nb);
  const c = cmpBytes(x[0], x[1] + 4, n, y[0], y[1] + 4, n);
  if (c !== 0) return c;
  return sign(i32(x[0], x[1]) - i32(y[0], y[1]));
};

/**
 * The btree support functions 1 (BTORDER_PROC) pgdisk implements exactly: PostgreSQL 15's
 * built-in comparison functions (pg_proc.dat OIDs), each with the type its comparator below reads
 * and whether it is a *_pattern_cmp (bytewise under every collation). Any other function (a
 * user-defined opclass, a type pgdisk has no comparator for) leaves the key order unchecked.
 */
const BUILTIN_ORDER_PROCS: ReadonlyMap<number, { type: number; pattern: boolean }> = new Map(
  ([
    // [pg_proc OID, type, *_pattern_cmp]: bool, char, int2/4/8, oid, tid, oidvector, float4/8, numeric, money
    [1693, 16], [358, 18], [350, 21], [351, 23], [842, 20], [356, 26], [2794, 27], [404, 30], [354, 700], [355, 701], [1769, 1700], [377, 790],
    // date, time, timestamp, timestamptz, interval, timetz; uuid, macaddr, macaddr8, pg_lsn, xid8
    [1092, 1082], [1107, 1083], [2045, 1114], [1314, 1184], [1315, 1186], [1358, 1266], [2960, 2950], [836, 829], [4119, 774], [3251, 3220], [5096, 5069],
    // bytea, name, text, bpchar, bttext_pattern_cmp, btbpchar_pattern_cmp
    [1954, 17], [359, 19], [360, 25], [1078, 1042], [2166, 25, true], [2180, 1042, true],
    // network_cmp (inet_ops, cidr_ops), bitcmp, varbitcmp
    [926, 869], [1596, 1560], [1672, 1562],
  ] as [number, number, boolean?][]).map(([proc, type, pattern]) => [proc, { type, pattern: !!pattern }]),
);

/** The comparator of btree support function 1 `proc` (pg_amproc), or null when pgdisk does not implement that function. */
export function comparatorForProc(proc: number, bytewiseCollation: boolean): DatumCmp | null {
  const p = BUILTIN_ORDER_PROCS.get(proc);
  return p ? comparatorFor(p.type, p.pattern ? "_pattern_ops" : "", bytewiseCollation) : null;
}

/** Built-in comparators by the type they compare (and, for text and bpchar, whether bytewise as the pattern opclasses). */
export function comparatorFor(opcintype: number, opcname: string, bytewiseCollation: boolean): DatumCmp | null {
  switch (opcintype) {
    case 16: // bool
    case 18: // "char": unsigned
      return (a, ao, _al, b, bo) => a[ao] - b[bo];
    case 21: // int2
      return (a, ao, _al, b, bo) => sign(i16(a, ao) - i16(b, bo));
    case 23: // int4
    case 1082: // date
      return (a, ao, _al, b, bo) => sign(i32(a, ao) - i32(b, bo));
    case 20: // int8
    case 1083: // time
    case 1114: // timestamp
    case 1184: // timestamptz
    case 790: // money
      return (a, ao, _al, b, bo) => cmpI64(a, ao, b, bo);
    case 26: // oid
    case 24: // regproc
    case 2202: // regprocedure
    case 2203: // regoper
    case 2205: // regclass
    case 2206: // regtype
    case 28: // xid (no btree opclass, kept for catalog indexes declared with oid_ops)
      return (a, ao, _al, b, bo) => sign(u32(a, ao) - u32(b, bo));
    case 3220: // pg_lsn
    case 5069: // xid8
      return (a, ao, _al, b, bo) => cmpU64(a, ao, b, bo);
    case 700: // float4
      return (a, ao, _al, b, bo) => cmpFloat(f32(a, ao), f32(b, bo));
    case 701: // float8
      return (a, ao, _al, b, bo) => cmpFloat(f64(a, ao), f64(b, bo));
    case 1700:
      return cmpNumeric;
    case 1186: // interval
      return (a, ao, _al, b, bo) => {
        const x = intervalSpan(a, ao);
        const y = intervalSpan(b, bo);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    case 1266: // timetz: time adjusted by zone, then zone
      return (a, ao, _al, b, bo) => {
        const ta = i64(a, ao) + BigInt(i32(a, ao + 8)) * 1000000n;
        const tb = i64(b, bo) + BigInt(i32(b, bo + 8)) * 1000000n;
        if (ta !== tb) return ta < tb ? -1 : 1;
        return sign(i32(a, ao + 8) - i32(b, bo + 8));
      };
    case 2950: // uuid
      return (a, ao, _al, b, bo) => cmpBytes(a, ao, 16, b, bo, 16);
    case 829: // macaddr
      return (a, ao, _al, b, bo) => cmpBytes(a, ao, 6, b, bo, 6);
    case 774: // macaddr8
      return (a, ao, _al, b, bo) => cmpBytes(a, ao, 8, b, bo, 8);
    case 27: // tid: block (hi, lo halves) then offset
      return (a, ao, _al, b, bo) => {
        const x = tidBlockAt(a, ao);
        const y = tidBlockAt(b, bo);
        if (x !== y) return x < y ? -1 : 1;
        return (a[ao + 4] | (a[ao + 5] << 8)) - (b[bo + 4] | (b[bo + 5] << 8));
      };
    case 17: // bytea
      return cmpVarlenaBytes;
    case 869: // inet
    case 650: // cidr
      return cmpInet;
    case 1560: // bit
    case 1562: // varbit
      return cmpBits;
    case 30: // oidvector
      return cmpOidvector;
    case 25: // text, varchar_ops and text_ops on varchar
    case 1043:
      return opcname.endsWith("_pattern_ops") || bytewiseCollation ? cmpVarlenaBytes : null;
    case 1042: // bpchar
      return opcname.endsWith("_pattern_ops") || bytewiseCollation ? cmpBpchar : null;
    case 19: // name (name_ops stores cstring)
      return bytewiseCollation ? cmpCstring : null;
  }
  return null;
}

/** Opclass input types whose btree opfamily has BTEQUALIMAGE_PROC in PostgreSQL 15 (pg_amproc.dat). */
export const EQUALIMAGE_TYPES: ReadonlySet<number> = new Set([
  1560, 16, 1042, 17, 18, 1082, 1114, 1184, 869, 650, 21, 23, 20, 829, 26, 30, 25, 19, 1083, 1266, 1562, 790, 27, 2950, 3220, 774, 3500, 5069, 1043, 24, 2202, 2203, 2205, 2206,
]);

/** Opclass input types known NOT to support deduplication (no equalimage support). */
export const NOT_EQUALIMAGE_TYPES: ReadonlySet<number> = new Set([1700, 700, 701, 1186, 2277, 3802, 3614, 3615, 2249, 3831, 4537]);
