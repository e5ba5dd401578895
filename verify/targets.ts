// What `pgdisk verify` checks: every relation with storage of every database (shared catalogs
// once), one database, named relations (a table brings its TOAST relation, the TOAST index and
// its indexes), or lone files (found in the catalog when they sit inside a cluster).
import { existsSync, statSync } from "node:fs";
import { basename, relative, resolve, sep } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import type { DatabaseCatalog, RelationInfo } from "../formats/catalog/cluster.js";
import { parseSegmentPath } from "../formats/storage/relfile.js";
import type { ClusterContext } from "./cluster-context.js";
import type { RelationJob } from "./relation.js";

export interface TargetSpec {
  pgdata?: string;
  database?: string;
  /** relation names (schema-qualified or not) in `database` */
  relations?: string[];
  /** lone relation files */
  files?: string[];
}

export interface PlannedJob {
  job: RelationJob;
  /** database OID (0 for lone files), for ordering and grouping */
  db: number;
  /** sort key inside a database: tables first, then their TOAST, then indexes */
  order: number;
  bytes: number;
  /** estimated work in about milliseconds (schedules the largest first; see estimateCost) */
  cost: number;
  /** a B-tree index: its table's OID (indexes of one table can share heapallindexed's table scan) */
  table?: number;
  /** a table with a TOAST relation: that relation's OID (the two are checked in one unit, sharing its scan) */
  toast?: number;
  label: string;
}

const STORAGE_KINDS = "rtmiS";

/** Bytes of a fork across its segment files (0 when it does not exist). */
function sizeOf(path: string): number {
  let total = 0;
  for (let seg = 0; ; seg++) {
    try {
      total += statSync(seg ? `${path}.${seg}` : path).size;
    } catch {
      return total;
    }
  }
}

function planned(cat: DatabaseCatalog, rel: RelationInfo): PlannedJob {
  const kindOrder = rel.kind === "i" ? 2 : rel.kind === "t" ? 1 : 0;
  // every fork's pages are read (main, and fsm/vm/init for their checksums)
  const bytes = sizeOf(cat.path(rel)) + sizeOf(cat.path(rel, "fsm")) + sizeOf(cat.path(rel, "vm")) + sizeOf(cat.path(rel, "init"));
  const table = rel.kind === "i" && rel.amName === "btree" ? cat.indexes().get(rel.oid)?.tableOid : undefined;
  const toast = rel.kind !== "i" && rel.kind !== "t" && rel.toastRelid ? rel.toastRelid : undefined;
  return { job: { kind: "catalog", db: cat.db.oid, oid: rel.oid }, db: rel.shared ? 0 : cat.db.oid, order: kindOrder * 1e10 + rel.oid, bytes, cost: estimateCost(cat, rel, bytes), label: `${cat.db.name}.${rel.namespaceName}.${rel.name}`, ...(table ? { table } : {}), ...(toast ? { toast } : {}) };
}

/** What the scheduler hands out: one relation, or B-tree indexes of one table checked together. */
export interface Unit {
  job: RelationJob;
  /** the planned relations it reports on, in the job's order */
  members: PlannedJob[];
  cost: number;
  bytes: number;
}

/**
 * Scheduling units: with heapallindexed, the B-tree indexes of one table are checked together
 * so that one scan of the table probes them all; a table whose indexes would make one unit
 * longer than its share of the run is split into up to `workers` units (largest first).
 */
export function groupUnits(planned: PlannedJob[], heapallindexed: boolean, workers: number): Unit[] {
  const single = (j: PlannedJob): Unit => ({ job: j.job, members: [j], cost: j.cost, bytes: j.bytes });
  const units: Unit[] = [];
  // a table and its TOAST relation: one unit, whose one scan of the TOAST relation serves both
  const byOid = new Map<string, PlannedJob>();
  for (const j of planned) if (j.job.kind === "catalog") byOid.set(`${j.job.db}:${j.job.oid}`, j);
  const paired = new Set<PlannedJob>();
  for (const j of planned) {
    if (j.toast === undefined || j.job.kind !== "catalog") continue;
    const t = byOid.get(`${j.job.db}:${j.toast}`);
    if (!t || paired.has(t)) continue;
    paired.add(t).add(j);
    units.push({ job: { kind: "withToast", db: j.job.db, oid: j.job.oid, toastOid: j.toast }, members: [t, j], cost: t.cost + j.cost, bytes: t.bytes + j.bytes });
  }
  const rest = paired.size ? planned.filter((j) => !paired.has(j)) : planned;
  if (!heapallindexed) return [...units, ...rest.map(single)];
  const byTable = new Map<string, PlannedJob[]>();
  for (const j of rest) {
    if (j.table === undefined || j.job.kind !== "catalog") units.push(single(j));
    else {
      const key = `${j.job.db}:${j.table}`;
      byTable.set(key, [...(byTable.get(key) ?? []), j]);
    }
  }
  const total = planned.reduce((s, j) => s + j.cost, 0);
  for (const list of byTable.values()) {
    if (list.length === 1) {
      units.push(single(list[0]));
      continue;
    }
    const cost = list.reduce((s, j) => s + j.cost, 0);
    const k = Math.max(1, Math.min(list.length, workers, Math.ceil(cost / (total / Math.max(1, 2 * workers)))));
    const bins: PlannedJob[][] = Array.from({ length: k }, () => []);
    const load = new Array<number>(k).fill(0);
    for (const j of [...list].sort((a, b) => b.cost - a.cost)) {
      const b = load.indexOf(Math.min(...load));
      bins[b].push(j);
      load[b] += j.cost;
    }
    for (const members of bins) {
      if (members.length === 1) units.push(single(members[0]));
      else {
        const first = members[0].job as { db: number };
        // the shared scan: about a fifth of each member's estimate is its own table scan
        units.push({ job: { kind: "indexes", db: first.db, oids: members.map((m) => (m.job as { oid: number }).oid) }, members, cost: members.reduce((s, m) => s + m.cost, 0) * 0.85, bytes: members.reduce((s, m) => s + m.bytes, 0) });
      }
    }
  }
  return units;
}

/**
 * A relation's verification time, roughly in milliseconds of one core (fitted on the large
 * sample): bytes are not work, a B-tree index with heapallindexed costs its pages' checks plus a
 * scan of its table and a probe per live tuple, and a table with TOAST values reads them through
 * its TOAST relation.
 */
function estimateCost(cat: DatabaseCatalog, rel: RelationInfo, bytes: number): number {
  const mb = bytes / 1e6;
  if (rel.kind === "i") {
    if (rel.amName !== "btree") return 1 + mb * 0.5;
    const info = cat.indexes().get(rel.oid);
    const heap = info ? cat.classes.get(info.tableOid) : undefined;
    if (!heap) return 1 + mb * 8;
    return 1 + mb * 8 + (sizeOf(cat.path(heap)) / 1e6) * 0.5 + Math.max(0, heap.tuples) * 0.0006;
  }
  if (rel.kind === "S") return 1 + mb * 0.5;
  const toast = rel.toastRelid ? cat.classes.get(rel.toastRelid) : undefined;
  return 1 + mb * 0.8 + (toast ? (sizeOf(cat.path(toast)) / 1e6) * 2 : 0);
}

const hasStorage = (r: RelationInfo): boolean => r.filenode !== 0 && STORAGE_KINDS.includes(r.kind) && r.persistence !== "t";

/** Every relation with storage of one database; shared catalogs only when `withShared`. */
export function databaseJobs(cat: DatabaseCatalog, withShared: boolean): PlannedJob[] {
  return [...cat.classes.values()].filter((r) => hasStorage(r) && (withShared || !r.shared)).map((r) => planned(cat, r));
}

/** A table with its TOAST relation, the TOAST index and its indexes; an index alone. */
export function relationJobs(cat: DatabaseCatalog, name: string): PlannedJob[] {
  const rel = cat.findRelation(name);
  if (!hasStorage(rel)) throw new FormatError("RELATION_HAS_NO_STORAGE", `relation "${name}" (relkind ${rel.kind}) has no storage to verify`, {});
  const out = [planned(cat, rel)];
  if (rel.kind === "i") return out;
  const withIndexes = (r: RelationInfo): void => {
    for (const ix of cat.indexesOf(r.oid)) {
      const ir = cat.classes.get(ix.indexOid);
      if (ir && hasStorage(ir)) out.push(planned(cat, ir));
    }
  };
  if (rel.toastRelid) {
    const t = cat.classes.get(rel.toastRelid);
    if (t && hasStorage(t)) {
      out.push(planned(cat, t));
      withIndexes(t);
    }
  }
  withIndexes(rel);
  return out;
}

export function planJobs(spec: TargetSpec, ctx: ClusterContext | null): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  for (const f of spec.files ?? []) jobs.push(...fileJobs(f, ctx));
  if (ctx && spec.relations?.length) {
    const cat = ctx.database(spec.database ?? defaultDatabase(ctx));
    for (const r of spec.relations) jobs.push(...relationJobs(cat, r));
  } else if (ctx && spec.database) {
    jobs.push(...databaseJobs(ctx.database(spec.database), true));
  } else if (ctx && !spec.files?.length) {
    let shared = true;
    for (const d of ctx.cluster.databases()) {
      jobs.push(...databaseJobs(ctx.database(d.oid), shared));
      shared = false;
    }
  }
  // one job per relation (a table's index named twice, shared catalogs)
  const seen = new Set<string>();
  return jobs.filter((j) => {
    const key = j.job.kind === "file" ? `f:${j.job.path}` : j.job.kind === "indexes" ? `${j.db}:${j.job.oids.join(",")}` : j.job.kind === "withToast" ? `${j.db}:${j.job.toastOid},${j.job.oid}` : `${j.db}:${j.job.oid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The one database besides the templates and postgres, else postgres. */
function defaultDatabase(ctx: ClusterContext): string {
  const dbs = ctx.cluster.databases().filter((d) => !d.isTemplate);
  const user = dbs.filter((d) => d.name !== "postgres");
  if (user.length === 1) return user[0].name;
  if (dbs.some((d) => d.name === "postgres") && user.length === 0) return "postgres";
  throw new FormatError("USAGE", `name the database of the relations with -d (databases: ${dbs.map((d) => d.name).join(", ")})`);
}


/** A file inside a cluster becomes its catalog relation; otherwise a lone-file job. */
function fileJobs(file: string, ctx: ClusterContext | null): PlannedJob[] {
  if (!existsSync(file)) throw new FormatError("FILE_NOT_FOUND", `file ${file} does not exist`, { file });
  if (statSync(file).isDirectory()) throw new FormatError("FILE_IS_DIRECTORY", `${file} is a directory; name a relation file, or use --pgdata`, { file });
  const lone: PlannedJob = { job: { kind: "file", path: file }, db: 0, order: 0, bytes: sizeOf(file), cost: 1 + sizeOf(file) / 1e6, label: file };
  const m = /^(\d+)$/.exec(basename(parseSegmentPath(file).base));
  if (!ctx || !m) return [lone];
  const pgdata = resolve(ctx.pgdata);
  const parts = relative(pgdata, resolve(file)).split(sep);
  if (parts[0] === ".." ) return [lone];
  try {
    let cat: DatabaseCatalog | undefined;
    if (parts[0] === "base" && parts.length === 3) cat = ctx.database(Number(parts[1]));
    else if (parts[0] === "global") cat = ctx.database(ctx.cluster.databases()[0].oid);
    const filenode = Number(m[1]);
    const rel = cat ? [...cat.classes.values()].find((c) => c.filenode === filenode && (parts[0] === "global") === c.shared) : undefined;
    return cat && rel ? [planned(cat, rel)] : [lone];
  } catch {
    return [lone];
  }
}
