// The plan of a `pgdisk migrate` run, made on the input before anything is written: the
// databases, the relations each format converts there (the one selector, select.ts), and the
// units of work in the order they are applied. A unit is one table's TOAST conversion or one
// btree index's conversion; it names the relation files it reads and may replace, so that the
// input check, the journal and the progress figures all work from the same list.
import { statSync } from "node:fs";
import { FormatError } from "../formats/schema/errors.js";
import type { Cluster, DatabaseCatalog, RelationInfo } from "../formats/catalog/cluster.js";
import type { InputRelationFile } from "./input-check.js";
import { selectIndexes, selectTables, type Skipped } from "./select.js";
import type { TargetFlavour } from "./toast/plan.js";
import type { ConvertMode, TargetFormat } from "./btree/convert.js";
import type { PrefixPolicyName } from "../formats/nbtree/prefix-policy.js";
import { existingSegments } from "../formats/storage/relfile.js";

export interface BtreeTarget {
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
}

/** What to convert: the formats' targets and the filters (undefined: every database, every relation). */
export interface MigrateTargets {
  toast?: TargetFlavour;
  btree?: BtreeTarget;
  /** database names (undefined: every database of the cluster) */
  databases?: string[];
  /** tables whose TOAST values are converted ("name" or "schema.name"; undefined: every one) */
  tables?: string[];
  /** btree indexes converted (undefined: every one) */
  indexes?: string[];
}

export interface PlanUnit {
  /** "toast:db/schema.table" or "btree:db/schema.index": stable across runs (the journal keys on it) */
  key: string;
  kind: "toast" | "btree";
  database: string;
  relOid: number;
  name: string;
  /** segment 0 of every fork the unit may replace or remove, main forks first */
  forks: string[];
  /** the files the unit reads, checked before anything is written */
  reads: InputRelationFile[];
  /** bytes of the main forks read (for progress) */
  bytes: number;
}

export interface PlanDatabase {
  database: string;
  tables: RelationInfo[];
  indexes: RelationInfo[];
  skipped: Skipped[];
}

export interface MigratePlan {
  databases: PlanDatabase[];
  units: PlanUnit[];
  bytes: number;
}

const qualified = (r: RelationInfo): string => `${r.namespaceName}.${r.name}`;

/** Bytes of every segment of a fork. */
export function forkBytes(path: string): number {
  return existingSegments(path).reduce((n, p) => n + statSync(p).size, 0);
}

/** The TOAST relation and TOAST index of a table (undefined when it has none with storage). */
export function toastRelationsOf(cat: DatabaseCatalog, rel: RelationInfo): { toast?: RelationInfo; index?: RelationInfo } {
  const toast = cat.classes.get(rel.toastRelid);
  const ix = toast && cat.toastIndexOf(toast.oid);
  const index = ix ? cat.classes.get(ix.indexOid) : undefined;
  return { toast: toast && toast.filenode !== 0 ? toast : undefined, index: index && index.filenode !== 0 ? index : undefined };
}

function toastUnit(cat: DatabaseCatalog, rel: RelationInfo): PlanUnit {
  const { toast, index } = toastRelationsOf(cat, rel);
  const reads: InputRelationFile[] = [{ path: cat.path(rel), am: "heap", relName: qualified(rel) }];
  const forks = [cat.path(rel)];
  if (toast) {
    reads.push({ path: cat.path(toast), am: "heap", relName: qualified(toast) });
    forks.push(cat.path(toast), cat.path(toast, "vm"), cat.path(toast, "fsm"));
  }
  if (index) {
    reads.push({ path: cat.path(index), am: "btree", relName: qualified(index) });
    forks.push(cat.path(index), cat.path(index, "fsm"));
  }
  const bytes = reads.reduce((n, f) => n + forkBytes(f.path), 0);
  return { key: `toast:${cat.db.name}/${qualified(rel)}`, kind: "toast", database: cat.db.name, relOid: rel.oid, name: qualified(rel), forks, reads, bytes };
}

function btreeUnit(cat: DatabaseCatalog, rel: RelationInfo): PlanUnit {
  const path = cat.path(rel);
  return {
    key: `btree:${cat.db.name}/${qualified(rel)}`,
    kind: "btree",
    database: cat.db.name,
    relOid: rel.oid,
    name: qualified(rel),
    forks: [path, cat.path(rel, "fsm")],
    reads: [{ path, am: "btree", relName: qualified(rel) }],
    bytes: forkBytes(path),
  };
}

/** Names of `names` that resolve in the catalog (a name found in no database is an error, see planMigration). */
function presentNames(cat: DatabaseCatalog, names: readonly string[], found: Set<string>): string[] {
  return names.filter((n) => {
    try {
      cat.findRelation(n);
    } catch (e) {
      if (e instanceof FormatError && e.code === "RELATION_NOT_FOUND") return false;
      throw e;
    }
    found.add(n);
    return true;
  });
}

/** Resolve the targets on a cluster (the input): every database named (or all), every relation selected, the units in order. */
export function planMigration(cluster: Cluster, t: MigrateTargets): MigratePlan {
  if (!t.toast && !t.btree) throw new FormatError("USAGE", "nothing to convert: give --toast direct|plain, --btree prefix|plain, or both");
  const names = t.databases?.length ? t.databases : cluster.databases().map((d) => d.name);
  const strict = names.length === 1;
  const found = new Set<string>();
  const databases: PlanDatabase[] = [];
  const units: PlanUnit[] = [];
  for (const name of names) {
    const cat = cluster.database(name);
    const filter = (list: string[] | undefined): string[] | undefined => (list && !strict ? presentNames(cat, list, found) : list);
    const tables = t.toast ? selectTables(cat, filter(t.tables)) : { rels: [], skipped: [] };
    const indexes = t.btree ? selectIndexes(cat, filter(t.indexes)) : { rels: [], skipped: [] };
    databases.push({ database: cat.db.name, tables: tables.rels, indexes: indexes.rels, skipped: [...tables.skipped, ...indexes.skipped] });
    units.push(...tables.rels.map((r) => toastUnit(cat, r)), ...indexes.rels.map((r) => btreeUnit(cat, r)));
  }
  if (!strict) {
    for (const n of [...(t.toast ? (t.tables ?? []) : []), ...(t.btree ? (t.indexes ?? []) : [])]) {
      if (!found.has(n)) throw new FormatError("RELATION_NOT_FOUND", `relation "${n}" does not exist in any of the databases ${names.join(", ")}`, {});
    }
  }
  return { databases, units, bytes: units.reduce((n, u) => n + u.bytes, 0) };
}
