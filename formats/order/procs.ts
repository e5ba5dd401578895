// B-tree support function 1 (the ORDER proc) of the built-in opclasses: which on-disk
// comparator of formats/order/ implements a pg_proc function or an opclass input type, and
// which types' opfamilies declare equalimage (deduplication safe). Comparators exist where the
// order is defined by the bytes alone; text-like types only under the C/POSIX collation
// (bytewise). The ones that need the catalog (enum, array, range, multirange, record, jsonb,
// the text search types) are chosen in catalog.ts. Sources: src/include/catalog/pg_proc.dat,
// pg_amproc.dat, src/backend/access/nbtree/nbtcompare.c (PostgreSQL 15).
import type { DatumCmp } from "./bytes.js";
import { cmpFloat4, cmpFloat8, cmpInt16, cmpInt32, cmpInt64, cmpInterval, cmpItemPointer, cmpMacaddr, cmpMacaddr8, cmpTimetz, cmpUint32, cmpUint64, cmpUint8, cmpUuid } from "./scalar.js";
import { cmpNumeric } from "./numeric.js";
import { cmpBpchar, cmpCstring, cmpVarlenaBytes } from "./text.js";
import { cmpInet } from "./network.js";
import { cmpBits } from "./bits.js";
import { cmpOidvector } from "./oidvector.js";

/**
 * The btree support functions 1 (BTORDER_PROC) pgdisk implements exactly: PostgreSQL 15's
 * built-in comparison functions (pg_proc.dat OIDs), each with the type whose comparator
 * comparatorFor picks and whether it is a *_pattern_cmp (bytewise under every collation). Any other function (a
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
      return cmpUint8;
    case 21: // int2
      return cmpInt16;
    case 23: // int4
    case 1082: // date
      return cmpInt32;
    case 20: // int8
    case 1083: // time
    case 1114: // timestamp
    case 1184: // timestamptz
    case 790: // money
      return cmpInt64;
    case 26: // oid
    case 24: // regproc
    case 2202: // regprocedure
    case 2203: // regoper
    case 2205: // regclass
    case 2206: // regtype
    case 28: // xid (no btree opclass, kept for catalog indexes declared with oid_ops)
      return cmpUint32;
    case 3220: // pg_lsn
    case 5069: // xid8
      return cmpUint64;
    case 700: // float4
      return cmpFloat4;
    case 701: // float8
      return cmpFloat8;
    case 1700:
      return cmpNumeric;
    case 1186: // interval
      return cmpInterval;
    case 1266: // timetz: time adjusted by zone, then zone
      return cmpTimetz;
    case 2950: // uuid
      return cmpUuid;
    case 829: // macaddr
      return cmpMacaddr;
    case 774: // macaddr8
      return cmpMacaddr8;
    case 27: // tid: block (hi, lo halves) then offset
      return cmpItemPointer;
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
