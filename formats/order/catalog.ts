// B-tree support functions 1 whose order depends on the catalog: enum_cmp (pg_enum sort
// orders), btarraycmp (the element type's default btree comparator), range_cmp and
// multirange_cmp (pg_range's subtype opclass and collation), btrecordcmp (each attribute's
// default btree comparator). Each is built for the key column's own type from an OrderCatalog,
// the few catalog facts they need, so formats/ stays pure and the comparators stay plain
// functions of the bytes. Sources: src/backend/utils/adt/{enum,arrayfuncs,rangetypes,
// multirangetypes,rowtypes}.c, utils/cache/typcache.c, catalog/index.c GetDefaultOpClass
// (PostgreSQL 15).
import type { AttrDesc } from "../heap/descriptor.js";
import { walkAttributes } from "../heap/deform.js";
import { readArray } from "../datum/arrays.js";
import { multirangeSpans, RANGE_FLAGS, rangeBoundSpans } from "../datum/ranges.js";
import type { TypeInfo } from "../datum/types.js";
import { u16At, u32At } from "../schema/bytes.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "../heap/tuple-header.js";
import { payloadBytes, type DatumCmp } from "./bytes.js";
import { comparatorForProc } from "./procs.js";
import { cmpTsquery, cmpTsvector } from "./text-search.js";
import { jsonbComparator } from "./jsonb.js";

/** What the catalog-dependent comparators read from a database's catalogs. */
export interface OrderCatalog {
  /** pg_type facts of a type (typtype, typelem, typbasetype, typrelid, layout) */
  type(oid: number): (TypeInfo & { typtype: string; basetype: number; relid: number }) | undefined;
  /** pg_enum.enumsortorder of the enum value (pg_enum row OID) */
  enumSortOrder(oid: number): number | undefined;
  /** pg_range of a range type: subtype, the subtype's opclass support function 1, whether its collation compares bytewise */
  range(oid: number): { subtype: number; orderProc: number | undefined; bytewise: boolean } | undefined;
  /** the range type of a multirange type */
  multirangeRange(oid: number): number | undefined;
  /** support function 1 of the type's default btree opclass (lookup_type_cache's cmp_proc) */
  defaultOrderProc(typid: number): number | undefined;
  /** the attributes of a composite type */
  compositeAttrs(typid: number): AttrDesc[] | undefined;
  /** the database's default collation compares bytewise (jsonb compares its strings under it) */
  defaultCollationBytewise: boolean;
}

const ENUM_CMP = 3514;
const BTARRAYCMP = 382;
const RANGE_CMP = 3870;
const MULTIRANGE_CMP = 4273;
const BTRECORDCMP = 2987;
const TSVECTOR_CMP = 3622;
const TSQUERY_CMP = 3668;
const JSONB_CMP = 4044;

/** The procs this module implements (for the "not one pgdisk implements" note). */
export const CATALOG_ORDER_PROCS: ReadonlySet<number> = new Set([ENUM_CMP, BTARRAYCMP, RANGE_CMP, MULTIRANGE_CMP, BTRECORDCMP, JSONB_CMP]);

/**
 * The comparator of btree support function 1 `proc` for key values of type `typid` (the
 * index attribute's type), or null when pgdisk does not implement it or a part of the type
 * (an element, a subtype, an attribute) has no exact comparator.
 */
export function orderComparator(proc: number, bytewise: boolean, typid: number, cat: OrderCatalog, depth = 0): DatumCmp | null {
  const simple = comparatorForProc(proc, bytewise);
  if (simple) return simple;
  // the text search types compare without the catalog; they live in text-search.ts
  if (proc === TSVECTOR_CMP) return cmpTsvector;
  if (proc === TSQUERY_CMP) return cmpTsquery;
  if (proc === JSONB_CMP) return jsonbComparator(cat.defaultCollationBytewise);
  if (depth > 8) return null;
  typid = baseType(cat, typid);
  switch (proc) {
    case ENUM_CMP:
      return enumCmp(cat);
    case BTARRAYCMP:
      return arrayCmp(cat, bytewise, depth);
    case RANGE_CMP:
      return rangeCmp(cat, typid, depth);
    case MULTIRANGE_CMP: {
      const r = cat.multirangeRange(typid);
      return r === undefined ? null : multirangeCmp(cat, r, depth);
    }
    case BTRECORDCMP:
      return recordCmp(cat, typid, depth);
  }
  return null;
}

function baseType(cat: OrderCatalog, typid: number): number {
  for (let i = 0; i < 32; i++) {
    const t = cat.type(typid);
    if (!t || t.typtype !== "d") return typid;
    typid = t.basetype;
  }
  return typid;
}

/** The default btree comparator of a type (lookup_type_cache's cmp_proc), as array_cmp and record_cmp use it. */
function defaultComparator(cat: OrderCatalog, typid: number, bytewise: boolean, depth: number): DatumCmp | null {
  const base = baseType(cat, typid);
  const proc = cat.defaultOrderProc(base);
  return proc === undefined ? null : orderComparator(proc, bytewise, base, cat, depth + 1);
}

/** enum_cmp: two even OIDs compare as OIDs (values created in order), else by pg_enum.enumsortorder. */
function enumCmp(cat: OrderCatalog): DatumCmp {
  return (a, ao, _al, b, bo) => {
    const x = u32At(a, ao);
    const y = u32At(b, bo);
    if (x === y) return 0;
    if ((x & 1) === 0 && (y & 1) === 0) return x < y ? -1 : 1;
    const sx = cat.enumSortOrder(x);
    const sy = cat.enumSortOrder(y);
    if (sx === undefined || sy === undefined) return NaN;
    return sx < sy ? -1 : sx > sy ? 1 : 0;
  };
}

/**
 * array_cmp: element by element with the element type's default comparator (a NULL element
 * after every value, two NULLs equal), then the element count, the number of dimensions, the
 * dimensions and the lower bounds.
 */
function arrayCmp(cat: OrderCatalog, bytewise: boolean, depth: number): DatumCmp {
  const byElem = new Map<number, DatumCmp | null>();
  const types = (oid: number): TypeInfo | undefined => cat.type(oid);
  return (a0, ao, al, b0, bo, bl) => {
    const pa = payloadBytes(a0, ao, al);
    const pb = payloadBytes(b0, bo, bl);
    if (!pa || !pb) return NaN;
    let x, y;
    try {
      x = readArray(pa, types);
      y = readArray(pb, types);
    } catch {
      return NaN;
    }
    if (x.elemtype !== y.elemtype) return NaN;
    const n = Math.min(x.datums.length, y.datums.length);
    if (n > 0) {
      let cmp = byElem.get(x.elemtype);
      if (cmp === undefined) {
        cmp = defaultComparator(cat, x.elemtype, bytewise, depth);
        byElem.set(x.elemtype, cmp);
      }
      if (!cmp) return NaN;
      for (let i = 0; i < n; i++) {
        const ea = x.datums[i];
        const eb = y.datums[i];
        if (ea === null || eb === null) {
          if (ea === eb) continue;
          return ea === null ? 1 : -1;
        }
        const r = cmp(ea, 0, ea.length, eb, 0, eb.length);
        if (Number.isNaN(r)) return NaN;
        if (r !== 0) return r < 0 ? -1 : 1;
      }
    }
    if (x.datums.length !== y.datums.length) return x.datums.length < y.datums.length ? -1 : 1;
    if (x.dims.length !== y.dims.length) return x.dims.length < y.dims.length ? -1 : 1;
    for (let i = 0; i < x.dims.length; i++) if (x.dims[i] !== y.dims[i]) return x.dims[i] < y.dims[i] ? -1 : 1;
    for (let i = 0; i < x.lbounds.length; i++) if (x.lbounds[i] !== y.lbounds[i]) return x.lbounds[i] < y.lbounds[i] ? -1 : 1;
    return 0;
  };
}

interface RangeOrder {
  sub: TypeInfo;
  cmp: DatumCmp;
}

function rangeOrder(cat: OrderCatalog, rangeType: number, depth: number): RangeOrder | null {
  const r = cat.range(rangeType);
  const sub = r && cat.type(r.subtype);
  if (!r || !sub || r.orderProc === undefined) return null;
  const cmp = orderComparator(r.orderProc, r.bytewise, r.subtype, cat, depth + 1);
  return cmp ? { sub, cmp } : null;
}

/**
 * range_cmp_bounds over two lower or two upper bounds (`lower` says which) of ranges with
 * flags fa, fb whose values (when finite) are at the spans: infinity first (lower) or last
 * (upper), then the values, then an exclusive lower bound after an inclusive one and an
 * exclusive upper bound before an inclusive one.
 */
function cmpBounds(o: RangeOrder, lower: boolean, a: Uint8Array, fa: number, sa: [number, number, number] | null, b: Uint8Array, fb: number, sb: [number, number, number] | null): number {
  const inf = lower ? RANGE_FLAGS.lbInf : RANGE_FLAGS.ubInf;
  const inc = lower ? RANGE_FLAGS.lbInc : RANGE_FLAGS.ubInc;
  const ia = (fa & inf) !== 0;
  const ib = (fb & inf) !== 0;
  if (ia || ib) {
    if (ia && ib) return 0;
    if (ia) return lower ? -1 : 1;
    return lower ? 1 : -1;
  }
  if (!sa || !sb) return NaN;
  const r = o.cmp(a, sa[0], sa[1] - sa[0], b, sb[0], sb[1] - sb[0]);
  if (r !== 0) return r;
  const ca = (fa & inc) !== 0;
  const cb = (fb & inc) !== 0;
  if (ca === cb) return 0;
  // the exclusive one: after for lower bounds, before for upper bounds
  return !ca ? (lower ? 1 : -1) : lower ? -1 : 1;
}

/** One range's lower and upper bounds compared with another's (range_cmp for non-empty ranges). */
function cmpRangeBounds(o: RangeOrder, a: Uint8Array, aFrom: number, aEnd: number, fa: number, b: Uint8Array, bFrom: number, bEnd: number, fb: number): number {
  const sa = rangeBoundSpans(a, aFrom, aEnd, fa, o.sub.len, o.sub.align);
  const sb = rangeBoundSpans(b, bFrom, bEnd, fb, o.sub.len, o.sub.align);
  const c = cmpBounds(o, true, a, fa, sa.lower, b, fb, sb.lower);
  if (c !== 0) return c;
  return cmpBounds(o, false, a, fa, sa.upper, b, fb, sb.upper);
}

/** range_cmp: empty ranges first, then the lower bounds, then the upper bounds. */
function rangeCmp(cat: OrderCatalog, rangeType: number, depth: number): DatumCmp | null {
  const o = rangeOrder(cat, rangeType, depth);
  if (!o) return null;
  return (a0, ao, al, b0, bo, bl) => {
    const a = payloadBytes(a0, ao, al);
    const b = payloadBytes(b0, bo, bl);
    if (!a || !b || a.length < 5 || b.length < 5) return NaN;
    const fa = a[a.length - 1];
    const fb = b[b.length - 1];
    const ea = (fa & RANGE_FLAGS.empty) !== 0;
    const eb = (fb & RANGE_FLAGS.empty) !== 0;
    if (ea || eb) return ea && eb ? 0 : ea ? -1 : 1;
    try {
      return cmpRangeBounds(o, a, 4, a.length - 1, fa, b, 4, b.length - 1, fb);
    } catch {
      return NaN;
    }
  };
}

/** multirange_cmp: range by range (the shorter multirange first when one runs out), each by its bounds. */
function multirangeCmp(cat: OrderCatalog, rangeType: number, depth: number): DatumCmp | null {
  const o = rangeOrder(cat, rangeType, depth);
  if (!o) return null;
  return (a0, ao, al, b0, bo, bl) => {
    const a = payloadBytes(a0, ao, al);
    const b = payloadBytes(b0, bo, bl);
    if (!a || !b) return NaN;
    try {
      const ra = multirangeSpans(a, o.sub.align);
      const rb = multirangeSpans(b, o.sub.align);
      for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
        if (i >= ra.length) return -1;
        if (i >= rb.length) return 1;
        const c = cmpRangeBounds(o, a, ra[i].begin, a.length, ra[i].flags, b, rb[i].begin, b.length, rb[i].flags);
        if (c !== 0) return c;
      }
      return 0;
    } catch {
      return NaN;
    }
  };
}

/** A composite datum's payload as a tuple buffer: HeapTupleHeader offsets count from the 4-byte-header start. */
function recordTuple(p: Uint8Array): { tuple: Uint8Array; natts: number; hoff: number; bits: Uint8Array | undefined } | null {
  if (p.length + 4 < SizeofHeapTupleHeader) return null;
  const tuple = new Uint8Array(p.length + 4);
  tuple.set(p, 4);
  const natts = u16At(tuple, HTH.t_infomask2) & HEAP_NATTS_MASK;
  const hoff = tuple[HTH.t_hoff];
  const bits = u16At(tuple, HTH.t_infomask) & HEAP_HASNULL ? tuple.subarray(SizeofHeapTupleHeader, SizeofHeapTupleHeader + ((natts + 7) >> 3)) : undefined;
  return { tuple, natts, hoff, bits };
}

/**
 * record_cmp over values of one composite type: attribute by attribute (dropped ones skipped)
 * with each attribute type's default comparator, NULL after every value, two NULLs equal (an
 * attribute past a tuple's natts is NULL, as heap_deform_tuple makes it). Collatable attributes are not compared (their
 * collation, pg_attribute.attcollation, is not read here), so a composite with one is unchecked.
 */
function recordCmp(cat: OrderCatalog, typid: number, depth: number): DatumCmp | null {
  const attrs = cat.compositeAttrs(typid);
  if (!attrs) return null;
  const cmps: (DatumCmp | null)[] = [];
  for (const a of attrs) {
    if (a.dropped) {
      cmps.push(null);
      continue;
    }
    const c = defaultComparator(cat, a.typid, false, depth);
    if (!c) return null;
    cmps.push(c);
  }
  const desc = { attrs };
  return (a0, ao, al, b0, bo, bl) => {
    const pa = payloadBytes(a0, ao, al);
    const pb = payloadBytes(b0, bo, bl);
    const x = pa && recordTuple(pa);
    const y = pb && recordTuple(pb);
    if (!x || !y) return NaN;
    let wa, wb;
    try {
      wa = walkAttributes(x.tuple, x.hoff, x.bits, x.natts, desc).attrs;
      wb = walkAttributes(y.tuple, y.hoff, y.bits, y.natts, desc).attrs;
    } catch {
      return NaN;
    }
    for (let i = 0; i < attrs.length; i++) {
      if (attrs[i].dropped) continue;
      const sa = wa[i];
      const sb = wb[i];
      // an attribute past a tuple's natts (added later by ALTER TYPE) is NULL
      const na = sa.isnull || sa.missing;
      const nb = sb.isnull || sb.missing;
      if (na || nb) {
        if (na && nb) continue;
        return na ? 1 : -1;
      }
      const r = cmps[i]!(x.tuple, sa.off, sa.len, y.tuple, sb.off, sb.len);
      if (Number.isNaN(r)) return NaN;
      if (r !== 0) return r < 0 ? -1 : 1;
    }
    return 0;
  };
}
