// The key layout of a B-tree index from the offline catalog: its pg_attribute rows (the stored
// key types, e.g. cstring for name_ops), pg_index.indoption (DESC, NULLS FIRST), and per key
// column the comparator of the ORDER proc that its opclass's operator family names in
// pg_amproc, where pgdisk implements that proc exactly: text-like procs only under a bytewise
// (C/POSIX) collation or the *_pattern_ops procs. A user's proc is never guessed from its type.
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../../formats/catalog/cluster.js";
import { comparatorForOrderProc, type DatumCmp } from "./compare.js";
import { INDOPTION_DESC, INDOPTION_NULLS_FIRST, type IndexKeys } from "./keys.js";

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
    const proc = opc ? cat.orderProc(opc.family, intype) : undefined;
    const cmp = proc === undefined ? null : comparatorForOrderProc(proc, bytewise);
    cmps.push(cmp);
    if (!cmp) {
      const tname = cat.types.get(intype)?.name ?? String(intype);
      const cname = coll ? (cat.collations().get(coll)?.name ?? String(coll)) : "";
      const why = proc === undefined ? ", no ORDER proc in pg_amproc" : comparatorForOrderProc(proc, true) ? "" : `, ORDER proc ${proc} is not one pgdisk implements`;
      notComparable.push(`${attrs[i]?.name ?? `#${i + 1}`} (${tname}${cname ? `, collation ${cname}` : ""}${why})`);
    }
    const opt = info.options[i] ?? 0;
    desc.push((opt & INDOPTION_DESC) !== 0);
    nullsFirst.push((opt & INDOPTION_NULLS_FIRST) !== 0);
  }
  return { keys: { attrs, natts: info.natts, nkeyatts: info.nkeyatts, cmps, desc, nullsFirst, heapkeyspace: true }, notComparable, opcintypes };
}

function collationIsBytewise(cat: DatabaseCatalog, oid: number): boolean {
  if (oid === 0 || oid === C_COLLATION_OID || oid === POSIX_COLLATION_OID) return true;
  if (oid === DEFAULT_COLLATION_OID) return bytewiseName(cat.db.collate);
  const c = cat.collations().get(oid);
  if (!c) return false;
  if (c.provider === "d") return bytewiseName(cat.db.collate);
  return c.provider === "c" && bytewiseName(c.collate);
}
