// Everything a btree rebuild needs to know about one index, from the offline catalog: its
// descriptor, key count, reloptions (fillfactor, deduplicate_items), and per key column how
// attributes compare (equalimage opclasses by BTEQUALIMAGE_PROC, collations by determinism).
import type { Cluster, DatabaseCatalog, IndexInfo, RelationInfo } from "../../formats/catalog/cluster.js";
import { readCatalog, type CatalogRow } from "../../formats/catalog/rows.js";
import { PG_AMPROC_OID, PG_COLLATION_OID, PG_OPCLASS_OID } from "../../formats/catalog/bootstrap.js";
import type { AttrDesc, TupleDesc } from "../../formats/heap/descriptor.js";
import { FormatError } from "../../formats/schema/errors.js";
import { SEMANTIC_EQ_TYPES, type AttEqKind } from "../../formats/nbtree/att-equal.js";
import { BTREE_DEFAULT_FILLFACTOR } from "../../formats/nbtree/build.js";
import type { KeySpec } from "../../formats/nbtree/pivot.js";

const BTEQUALIMAGE_PROC = 4;
/** pg_proc OIDs (pg_proc.dat): btequalimage always says yes, btvarstrequalimage yes for deterministic collations. */
const F_BTEQUALIMAGE = 5051;
const F_BTVARSTREQUALIMAGE = 5050;
const DEFAULT_COLLATION_OID = 100;

export interface BtreeIndexInfo {
  rel: RelationInfo;
  index: IndexInfo;
  /** schema-qualified index name */
  name: string;
  tableName: string;
  desc: TupleDesc;
  spec: KeySpec;
  fillfactor: number;
  deduplicateItems: boolean;
  /** key columns whose equality cannot be decided from bytes (see att-equal.ts) */
  uncertainColumns: string[];
}

interface OpclassRow {
  family: number;
  intype: number;
}

/** Catalog lookups shared by every index of one database. */
export class BtreeCatalog {
  private opc?: Map<number, OpclassRow>;
  private amproc?: Map<string, number>;
  private coll?: Map<number, boolean>;

  constructor(readonly cat: DatabaseCatalog) {}

  private scan(oid: number, desc: TupleDesc): CatalogRow[] {
    const rel = this.cat.classes.get(oid);
    if (!rel) throw new FormatError("CATALOG_MISSING", `pg_class has no row for catalog ${oid}`, {});
    const fork = this.cat.cluster.openFork(this.cat.path(rel));
    try {
      return readCatalog(fork, desc, { clog: this.cat.cluster.clog });
    } finally {
      fork.close();
    }
  }

  private opclass(oid: number): OpclassRow | undefined {
    this.opc ??= new Map(this.scan(PG_OPCLASS_OID, this.cat.cluster.profile.catalogs.pg_opclass).map((r) => [r.oid as number, { family: r.opcfamily as number, intype: r.opcintype as number }]));
    return this.opc.get(oid);
  }
  private equalImageProc(family: number, type: number): number | undefined {
    this.amproc ??= new Map(
      this.scan(PG_AMPROC_OID, this.cat.cluster.profile.catalogs.pg_amproc)
        .filter((r) => r.amprocnum === BTEQUALIMAGE_PROC && r.amproclefttype === r.amprocrighttype)
        .map((r) => [`${r.amprocfamily}/${r.amproclefttype}`, r.amproc as number]),
    );
    return this.amproc.get(`${family}/${type}`);
  }
  private deterministic(collation: number): boolean {
    if (collation === 0 || collation === DEFAULT_COLLATION_OID) return true;
    this.coll ??= new Map(this.scan(PG_COLLATION_OID, this.cat.cluster.profile.catalogs.pg_collation).map((r) => [r.oid as number, r.collisdeterministic as boolean]));
    return this.coll.get(collation) ?? false;
  }
  private baseType(oid: number): number {
    for (let i = 0; i < 10; i++) {
      const t = this.cat.type(oid);
      if (!t || t.type !== "d" || !t.basetype) return oid;
      oid = t.basetype;
    }
    return oid;
  }

  /** How key column i compares (_bt_allequalimage's per-column question, then our exact fallbacks). */
  eqKind(index: IndexInfo, i: number, attr: AttrDesc): AttEqKind {
    const opc = this.opclass(index.opclasses[i]!);
    if (opc) {
      const proc = this.equalImageProc(opc.family, opc.intype);
      if (proc === F_BTEQUALIMAGE) return "image";
      if (proc === F_BTVARSTREQUALIMAGE && this.deterministic(index.collations[i] ?? 0)) return "image";
    }
    return SEMANTIC_EQ_TYPES.get(this.baseType(attr.typid)) ?? SEMANTIC_EQ_TYPES.get(opc?.intype ?? 0) ?? "unknown";
  }

  /** The rebuild facts of one btree index. */
  info(rel: RelationInfo): BtreeIndexInfo {
    if (rel.kind !== "i" || rel.amName !== "btree") {
      throw new FormatError("NOT_A_BTREE_INDEX", `relation "${rel.namespaceName}.${rel.name}" is ${rel.kind === "i" ? `a ${rel.amName} index` : `not an index (relkind ${rel.kind})`}; only btree indexes are converted`, {});
    }
    const index = this.cat.indexes().get(rel.oid);
    if (!index) throw new FormatError("INDEX_NOT_IN_PG_INDEX", `index "${rel.name}" has no pg_index row`, {});
    const desc = this.cat.descriptor(rel.oid);
    if (desc.attrs.length !== index.natts) throw new FormatError("INDEX_DESCRIPTOR_MISMATCH", `index "${rel.name}" has ${desc.attrs.length} pg_attribute rows for indnatts ${index.natts}`, {});
    const eq: AttEqKind[] = [];
    const uncertainColumns: string[] = [];
    for (let i = 0; i < index.nkeyatts; i++) {
      const k = this.eqKind(index, i, desc.attrs[i]!);
      eq.push(k);
      if (k === "unknown") uncertainColumns.push(desc.attrs[i]!.name);
    }
    const opts = parseBtreeReloptions(rel.options);
    const table = this.cat.classes.get(index.tableOid);
    return {
      rel,
      index,
      name: `${rel.namespaceName}.${rel.name}`,
      tableName: table ? `${table.namespaceName}.${table.name}` : String(index.tableOid),
      desc,
      spec: { desc, nkeyatts: index.nkeyatts, eq },
      fillfactor: opts.fillfactor,
      deduplicateItems: opts.deduplicateItems,
      uncertainColumns,
    };
  }
}

/** parse_bool: on/off, true/false, yes/no, 1/0 and their unambiguous prefixes. */
function parseBool(v: string): boolean | undefined {
  const s = v.trim().toLowerCase();
  if (!s) return undefined;
  if ("true".startsWith(s) || "yes".startsWith(s) || s === "on" || s === "1") return true;
  if ("false".startsWith(s) || "no".startsWith(s) || s === "off" || s === "of" || s === "0") return false;
  return undefined;
}

/** The btree reloptions pgdisk uses: fillfactor (default 90) and deduplicate_items (default on). */
export function parseBtreeReloptions(options: string[] | null): { fillfactor: number; deduplicateItems: boolean } {
  let fillfactor = BTREE_DEFAULT_FILLFACTOR;
  let deduplicateItems = true;
  for (const o of options ?? []) {
    const eq = o.indexOf("=");
    const k = eq < 0 ? o : o.slice(0, eq);
    const v = eq < 0 ? "true" : o.slice(eq + 1);
    if (k === "fillfactor") {
      const n = Number(v);
      if (Number.isInteger(n) && n >= 10 && n <= 100) fillfactor = n;
      else throw new FormatError("BAD_RELOPTION", `fillfactor=${v} is not an integer in 10..100`, {});
    } else if (k === "deduplicate_items") {
      const b = parseBool(v);
      if (b === undefined) throw new FormatError("BAD_RELOPTION", `deduplicate_items=${v} is not a boolean`, {});
      deduplicateItems = b;
    }
  }
  return { fillfactor, deduplicateItems };
}

/** Resolve a database catalog of a cluster (kept here so callers need only this module). */
export function btreeCatalog(cluster: Cluster, database: string): BtreeCatalog {
  return new BtreeCatalog(cluster.database(database));
}
