// The one relation selector of `pgdisk migrate` (and of its aliases `migrate toast` and `migrate
// btree`): which tables get their TOAST values converted and which btree indexes are converted,
// in one database's catalog. Named relations must exist and be of the right kind (an error);
// "every" relation leaves out system relations, pg_toast, temporary and invalid ones (skipped,
// with why).
import { FormatError } from "../formats/schema/errors.js";
import type { DatabaseCatalog, RelationInfo } from "../formats/catalog/cluster.js";

/** The first OID a user object gets (transam.h FirstNormalObjectId). */
export const FIRST_NORMAL_OBJECT_ID = 16384;

export interface Skipped {
  relation: string;
  reason: string;
}

export interface Selection {
  rels: RelationInfo[];
  skipped: Skipped[];
}

const qualifiedName = (c: RelationInfo): string => `${c.namespaceName}.${c.name}`;

/** User relations of the catalog matching `keep`, in OID order. */
function userRelations(cat: DatabaseCatalog, keep: (c: RelationInfo) => boolean): RelationInfo[] {
  return [...cat.classes.values()].filter((c) => c.oid >= FIRST_NORMAL_OBJECT_ID && c.filenode !== 0 && c.namespaceName !== "pg_toast" && keep(c)).sort((a, b) => a.oid - b.oid);
}

/** Named relations resolved once each (in the order named). */
function named(cat: DatabaseCatalog, names: readonly string[], check: (rel: RelationInfo, name: string) => void): RelationInfo[] {
  const rels: RelationInfo[] = [];
  for (const name of names) {
    const rel = cat.findRelation(name);
    check(rel, name);
    if (!rels.some((r) => r.oid === rel.oid)) rels.push(rel);
  }
  return rels;
}

/** Tables whose TOAST values are converted: the ones named, or (names undefined) every user table and materialized view with a TOAST relation. */
export function selectTables(cat: DatabaseCatalog, names: readonly string[] | undefined): Selection {
  if (names) {
    return {
      rels: named(cat, names, (rel, name) => {
        if (rel.kind !== "r" && rel.kind !== "m") throw new FormatError("NOT_A_TABLE", `"${name}" is not a table or materialized view (relkind ${rel.kind})`, {});
        if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `table "${name}" has no storage (a partitioned table); name its partitions`, {});
        if (!rel.toastRelid) throw new FormatError("NO_TOAST_RELATION", `table "${name}" has no TOAST relation`, {});
      }),
      skipped: [],
    };
  }
  const skipped: Skipped[] = [];
  const rels = userRelations(cat, (c) => c.kind === "r" || c.kind === "m").filter((c) => {
    const why = !c.toastRelid ? "no TOAST relation" : c.persistence === "t" ? "temporary table" : null;
    if (why) skipped.push({ relation: qualifiedName(c), reason: why });
    return !why;
  });
  return { rels, skipped };
}

/** Btree indexes converted: the ones named, or (names undefined) every user btree index (not in pg_toast, not invalid, not temporary). */
export function selectIndexes(cat: DatabaseCatalog, names: readonly string[] | undefined): Selection {
  if (names) {
    return {
      rels: named(cat, names, (rel, name) => {
        if (rel.kind !== "i" || rel.amName !== "btree") throw new FormatError("NOT_A_BTREE_INDEX", `"${name}" is ${rel.kind === "i" ? `a ${rel.amName} index` : `not an index (relkind ${rel.kind})`}; only btree indexes are converted`, {});
        if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `index "${name}" has no storage (a partitioned index); name its partitions' indexes`, {});
      }),
      skipped: [],
    };
  }
  const skipped: Skipped[] = [];
  const rels = userRelations(cat, (c) => c.kind === "i" && c.amName === "btree").filter((c) => {
    const ix = cat.indexes().get(c.oid);
    const why = ix && !ix.valid ? "invalid index (indisvalid false)" : c.persistence === "t" ? "temporary index" : null;
    if (why) skipped.push({ relation: qualifiedName(c), reason: why });
    return !why;
  });
  return { rels, skipped };
}
