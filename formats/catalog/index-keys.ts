// The key layout of a B-tree index from the offline catalog: its pg_attribute rows (the stored
// key types, e.g. cstring for name_ops), pg_index.indoption (DESC, NULLS FIRST), and per key
// column the comparator of its operator family's support function 1 (pg_amproc), where pgdisk
// implements that function exactly and the order is decidable from the bytes: text-like
// functions only under a bytewise (C/POSIX) collation, or the *_pattern_cmp ones. The
// catalog-dependent ones (enums, arrays, ranges, multiranges, composites, jsonb) get their
// facts from orderCatalogOf below.
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "./cluster.js";
import type { DatumCmp } from "../order/bytes.js";
import { CATALOG_ORDER_PROCS, orderComparator, type OrderCatalog } from "../order/catalog.js";
import { PG_ENUM_OID, PG_RANGE_OID } from "./bootstrap.js";
import { bytewiseLocale, collationIsBytewise as bytewiseCollation } from "../order/collation.js";
import { INDOPTION_DESC, INDOPTION_NULLS_FIRST, type IndexKeys } from "../nbtree/bt-compare.js";

/** BTORDER_PROC: the btree support function that compares two keys (nbtree.h) */
const BTORDER_PROC = 1;
const BTREE_AM_OID = 403;
/** the polymorphic opclass input types GetDefaultOpClass matches by typtype (enum, range, multirange, composite) and arrays */
const POLY_INTYPE: Readonly<Record<string, number>> = { e: 3500, r: 3831, m: 4537, c: 2249 };
const ANYARRAY = 2277;
const TEXT = 25;
const VARCHAR = 1043;

export interface IndexKeyPlan {
  keys: IndexKeys;
  /** "column (type, collation)" of key columns whose order cannot be checked */
  notComparable: string[];
  opcintypes: number[];
}

export function indexKeysFor(cat: DatabaseCatalog, index: RelationInfo, info: IndexInfo): IndexKeyPlan {
  const attrs = cat.descriptor(index.oid).attrs.slice(0, info.natts);
  const opclasses = cat.opclasses();
  const order = orderCatalogOf(cat);
  const cmps: (DatumCmp | null)[] = [];
  const desc: boolean[] = [];
  const nullsFirst: boolean[] = [];
  const notComparable: string[] = [];
  const opcintypes: number[] = [];
  for (let i = 0; i < info.nkeyatts; i++) {
    const opc = opclasses.get(info.opclasses[i]);
    const intype = opc?.intype ?? attrs[i]?.typid ?? 0;
    opcintypes.push(intype);
    const coll = info.collations[i] ?? 0;
    const bytewise = collationIsBytewise(cat, coll);
    // the order is the operator family's support function 1 for the opclass's type, as the server's
    const proc = opc ? cat.supportProc(opc.family, intype, intype, BTORDER_PROC) : undefined;
    const typid = attrs[i]?.typid ?? intype;
    const cmp = proc !== undefined ? orderComparator(proc, bytewise, typid, order) : null;
    cmps.push(cmp);
    if (!cmp) {
      const tname = cat.type(intype)?.name ?? String(intype);
      const cname = coll ? (cat.collations().get(coll)?.name ?? String(coll)) : "";
      const why = proc === undefined ? ", no support function 1 in pg_amproc" : orderComparator(proc, true, typid, order)
            ? ""
            : CATALOG_ORDER_PROCS.has(proc)
              ? `, support function 1 is function ${proc}, whose elements, subtype or attributes pgdisk cannot compare`
              : `, support function 1 is function ${proc}, not one pgdisk implements`;
      notComparable.push(`${attrs[i]?.name ?? `#${i + 1}`} (${tname}${cname ? `, collation ${cname}` : ""}${why})`);
    }
    const opt = info.options[i] ?? 0;
    desc.push((opt & INDOPTION_DESC) !== 0);
    nullsFirst.push((opt & INDOPTION_NULLS_FIRST) !== 0);
  }
  return { keys: { attrs, natts: info.natts, nkeyatts: info.nkeyatts, cmps, desc, nullsFirst, heapkeyspace: true }, notComparable, opcintypes };
}

/** The bytewise-collation rule (formats/order/collation.ts) over this database's pg_collation. */
export function collationIsBytewise(cat: DatabaseCatalog, oid: number): boolean {
  return bytewiseCollation(oid, cat.db.collate, (o) => cat.collations().get(o));
}

const orderCatalogs = new WeakMap<DatabaseCatalog, OrderCatalog>();

/** The catalog facts of the catalog-dependent comparators (formats/order/catalog.ts), each catalog read on first use. */
export function orderCatalogOf(cat: DatabaseCatalog): OrderCatalog {
  const known = orderCatalogs.get(cat);
  if (known) return known;
  let enums: Map<number, number> | undefined;
  let ranges: Map<number, { subtype: number; orderProc: number | undefined; bytewise: boolean }> | undefined;
  let multiranges: Map<number, number> | undefined;
  let defaults: Map<number, { family: number; intype: number }> | undefined;
  const loadRanges = (): void => {
    if (ranges) return;
    ranges = new Map();
    multiranges = new Map();
    const opc = cat.opclasses();
    for (const r of cat.catalogRows(PG_RANGE_OID, ["rngtypid", "rngsubtype", "rngmultitypid", "rngcollation", "rngsubopc"])) {
      const o = opc.get(r.rngsubopc as number);
      const sub = r.rngsubtype as number;
      ranges.set(r.rngtypid as number, { subtype: sub, orderProc: o && cat.supportProc(o.family, o.intype, o.intype, BTORDER_PROC), bytewise: collationIsBytewise(cat, r.rngcollation as number) });
      if (r.rngmultitypid) multiranges.set(r.rngmultitypid as number, r.rngtypid as number);
    }
  };
  const order: OrderCatalog = {
    defaultCollationBytewise: bytewiseLocale(cat.db.collate),
    type(oid) {
      const t = cat.type(oid);
      return t && { oid: t.oid, name: t.name, len: t.len, byval: t.byval, align: t.align, elem: t.elem, category: t.category, typtype: t.type, basetype: t.basetype, relid: t.relid };
    },
    enumSortOrder(oid) {
      enums ??= new Map(cat.catalogRows(PG_ENUM_OID, ["oid", "enumsortorder"]).map((r) => [r.oid as number, r.enumsortorder as number]));
      return enums.get(oid);
    },
    range(oid) {
      loadRanges();
      return ranges!.get(oid);
    },
    multirangeRange(oid) {
      loadRanges();
      return multiranges!.get(oid);
    },
    defaultOrderProc(typid) {
      if (!defaults) {
        defaults = new Map();
        for (const o of cat.opclasses().values()) if (o.method === BTREE_AM_OID && o.isDefault) defaults.set(o.intype, { family: o.family, intype: o.intype });
      }
      const t = cat.type(typid);
      // GetDefaultOpClass: the exact type, else a binary-coercible one (varchar as text, a polymorphic opclass)
      const d = defaults.get(typid) ?? (typid === VARCHAR ? defaults.get(TEXT) : undefined) ?? (t && POLY_INTYPE[t.type] !== undefined ? defaults.get(POLY_INTYPE[t.type]) : undefined) ?? (t && t.elem !== 0 && t.len === -1 && t.category === "A" ? defaults.get(ANYARRAY) : undefined);
      return d && cat.supportProc(d.family, d.intype, d.intype, BTORDER_PROC);
    },
    compositeAttrs(typid) {
      const t = cat.type(typid);
      return t && t.relid ? cat.descriptor(t.relid).attrs : undefined;
    },
  };
  orderCatalogs.set(cat, order);
  return order;
}
