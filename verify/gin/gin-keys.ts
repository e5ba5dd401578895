// The entry key layout and comparators of a GIN index from the offline catalog: per column the
// stored key type (the index's pg_attribute, i.e. opckeytype), and the compare function the
// server uses (ginutil.c initGinState): the opclass's GIN support function 1 if it has one,
// else the default btree comparator of the key type, under the column's collation.
import { FormatError } from "../../formats/schema/errors.js";
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../../formats/catalog/cluster.js";
import { ginKeyShape, type GinKeyShape } from "../../formats/am/gin.js";
import type { DatumCmp } from "../../formats/order/bytes.js";
import { comparatorFor, comparatorForProc } from "../../formats/order/procs.js";
import { collationIsBytewise } from "../../formats/catalog/index-keys.js";

const GIN_COMPARE_PROC = 1;
/** gin_compare_jsonb and gin_cmp_tslexeme: bytewise text order whatever the collation (jsonb_gin.c, tsginidx.c) */
const BYTEWISE_GIN_PROCS = new Set([3480, 3724]);
const TEXT_OID = 25;

export interface GinKeyPlan extends GinKeyShape {
  cmps: (DatumCmp | null)[];
  /** "column (type, ...)" of columns whose key order cannot be checked */
  notComparable: string[];
}

export function ginKeysFor(cat: DatabaseCatalog, index: RelationInfo, info: IndexInfo | undefined): GinKeyPlan {
  const attrs = cat.descriptor(index.oid).attrs;
  const natts = info?.natts ?? attrs.length;
  // a damaged catalog: the index's entries cannot be read without a descriptor for every column
  if (attrs.length < natts) throw new FormatError("INDEX_DESCRIPTOR_MISMATCH", `index "${index.name}" has ${attrs.length} pg_attribute rows but indnatts ${natts}`);
  const opclasses = cat.opclasses();
  const plan: GinKeyPlan = { ...ginKeyShape(attrs.slice(0, natts)), cmps: [], notComparable: [] };
  for (let i = 0; i < natts; i++) {
    const a = attrs[i]!;
    const opc = info ? opclasses.get(info.opclasses[i]!) : undefined;
    const bytewise = collationIsBytewise(cat, info?.collations[i] || 100);
    const proc = opc ? cat.supportProc(opc.family, opc.intype, opc.intype, GIN_COMPARE_PROC) : undefined;
    let cmp: DatumCmp | null;
    if (proc !== undefined) cmp = BYTEWISE_GIN_PROCS.has(proc) ? comparatorFor(TEXT_OID, "_pattern_ops", true) : comparatorForProc(proc, bytewise);
    else cmp = comparatorFor(a.typid, "", bytewise);
    plan.cmps.push(cmp);
    if (!cmp) {
      const tname = cat.type(a.typid)?.name ?? String(a.typid);
      plan.notComparable.push(`${a.name} (${tname}${proc !== undefined ? `, compare function ${proc}` : ", the type's default btree comparator"})`);
    }
  }
  return plan;
}
