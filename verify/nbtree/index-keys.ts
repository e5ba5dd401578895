// The key layout of a B-tree index from the offline catalog: its pg_attribute rows (the stored
// key types, e.g. cstring for name_ops), pg_index.indoption (DESC, NULLS FIRST), and per key
// column the comparator of its operator family's support function 1 (pg_amproc), where pgdisk
// implements that function exactly and the order is decidable from the bytes: text-like
// functions only under a bytewise (C/POSIX) collation, or the *_pattern_cmp ones.
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../../formats/catalog/cluster.js";
import { comparatorForProc, type DatumCmp } from "./compare.js";
import { INDOPTION_DESC, INDOPTION_NULLS_FIRST, type IndexKeys } from "./keys.js";

/** BTORDER_PROC: the btree support function that compares two keys (nbtree.h) */
const BTORDER_PROC = 1;
const C_COLLATION_OID = 950;
const POSIX_COLLATION_OID = 951;
const DEFAULT_COLLATION_OID = 100;
const bytewiseName = (c: string | null | undefined): boolean => c === "C" || c === "POSIX";

export interface IndexKeyPlan {
  keys: IndexKeys;
  /** "column (type, collation)" of key columns whose order cannot be checked */
  notComparable: string[];
  opcintypes: number[];
}

export function indexKeysFor(cat: DatabaseCatalog, index: RelationInfo, info: IndexInfo): IndexKeyPlan {
  const attrs = cat.descriptor(index.oid).attrs.slice(0, info.natts);
  const opclasses = cat.opclasses();
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
    const cmp = proc !== undefined ? comparatorForProc(proc, bytewise) : null;
    cmps.push(cmp);
    if (!cmp) {
      const tname = cat.types.get(intype)?.name ?? String(intype);
      const cname = coll ? (cat.collations().get(coll)?.name ?? String(coll)) : "";
      const why = proc === undefined ? ", no support function 1 in pg_amproc" : comparatorForProc(proc, true) ? "" : `, support function 1 is function ${proc}, not one pgdisk implements`;
      notComparable.push(`${attrs[i]?.name ?? `#${i + 1}`} (${tname}${cname ? `, collation ${cname}` : ""}${why})`);
    }
    const opt = info.options[i] ?? 0;
    desc.push((opt & INDOPTION_DESC) !== 0);
    nullsFirst.push((opt & INDOPTION_NULLS_FIRST) !== 0);
  }
  return { keys: { attrs, natts: info.natts, nkeyatts: info.nkeyatts, cmps, desc, nullsFirst, heapkeyspace: true }, notComparable, opcintypes };
}

export function collationIsBytewise(cat: DatabaseCatalog, oid: number): boolean {
  if (oid === 0 || oid === C_COLLATION_OID || oid === POSIX_COLLATION_OID) return true;
  if (oid === DEFAULT_COLLATION_OID) return bytewiseName(cat.db.collate);
  const c = cat.collations().get(oid);
  if (!c) return false;
  if (c.provider === "d") return bytewiseName(cat.db.collate);
  return c.provider === "c" && bytewiseName(c.collate);
}
