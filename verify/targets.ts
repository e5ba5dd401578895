// What `pgdisk verify` checks: every relation with storage of every database (shared catalogs
// once), one database, named relations (a table brings its TOAST relation, the TOAST index and
// its indexes), or lone files (found in the catalog when they sit inside a cluster).
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import type { DatabaseCatalog, RelationInfo } from "../formats/catalog/cluster.js";
import { parseSegmentPath } from "../formats/storage/relfile.js";
import type { ClusterContext } from "./cluster-context.js";
import type { RelationJob } from "./relation.js";
import { nullTestPredicate } from "./nbtree/heapallindexed.js";

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

// The file names of each directory planning looked at, listed once per planJobs call: most forks
// and segments do not exist, and a stat per candidate name was a quarter of planning.
let listings: Map<string, Set<string> | null> | null = null;
let sizes: Map<string, number> | null = null;

function exists(path: string): boolean {
  if (!listings) return true;
  const dir = dirname(path);
  let names = listings.get(dir);
  if (names === undefined) {
    try {
      names = new Set(readdirSync(dir));
    } catch {
      names = null; // unreadable: stat every name
    }
    listings.set(dir, names);
  }
  return !names || names.has(basename(path));
}

/** Bytes of a fork across its segment files (0 when it does not exist). */
function sizeOf(path: string): number {
  const known = sizes?.get(path);
  if (known !== undefined) return known;
  const total = forkBytes(path);
  sizes?.set(path, total);
  return total;
}

function forkBytes(path: string): number {
  let total = 0;
  for (let seg = 0; ; seg++) {
    const p = seg ? `${path}.${seg}` : path;
    // no exception for a missing file either (a thrown error per stat was a third of planning)
    const st = exists(p) ? statSync(p, { throwIfNoEntry: false }) : undefined;
    if (!st) return total;
    total += st.size;
  }
}

function planned(cat: DatabaseCatalog, rel: RelationInfo): PlannedJob {
  const kindOrder = rel.kind === "i" ? 2 : rel.kind === "t" ? 1 : 0;
  // every fork's pages are read (main, and fsm/vm/init for their checksums)
  const bytes = sizeOf(cat.path(rel)) + sizeOf(cat.path(rel, "fsm")) + sizeOf(cat.path(rel, "vm")) + sizeOf(cat.path(rel, "init"));
  const table = probesTable(cat, rel);
  const toast = rel.kind !== "i" && rel.kind !== "t" && rel.toastRelid ? rel.toastRelid : undefined;
  return { job: { kind: "catalog", db: cat.db.oid, oid: rel.oid }, db: rel.shared ? 0 : cat.db.oid, order: kindOrder * 1e10 + rel.oid, bytes, cost: estimateCost(cat, rel, bytes), label: `${cat.db.name}.${rel.namespaceName}.${rel.name}`, ...(table ? { table } : {}), ...(toast ? { toast } : {}) };
}

/**
 * The table whose heapallindexed scan a B-tree index shares, if it has one: expression indexes,
 * partial indexes with predicates pgdisk cannot evaluate and invalid indexes skip heapallindexed,
 * so they are scheduled on their own.
 */
function probesTable(cat: DatabaseCatalog, rel: RelationInfo): number | undefined {
  if (rel.kind !== "i" || rel.amName !== "btree") return undefined;
  const info = cat.indexes().get(rel.oid);
  if (!info || !info.valid || info.exprs || (info.pred && !nullTestPredicate(info.pred))) return undefined;
  return info.tableOid;
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
 * Scheduling units. With heapallindexed, the B-tree indexes of one table are checked together so
 * that one scan of the table probes them all, and the table's own check, in the same unit, feeds
 * those probes (one read of the table for both). A table whose indexes would make one unit longer
 * than half a thread's share of the run is split into up to `workers` units (largest first); a
 * table that is split, or whose unit would exceed a thread's share, is left to a unit of its own.
 * Its index units then publish their entries, and the table's unit probes them all from its one
 * scan (entry-exchange.ts); without the table in the run, or without `shareEntries` (exact
 * heapallindexed entries stay in the thread that made them), each index unit probes through a scan
 * of its own. A table's TOAST relation (with
 * its indexes) is checked first in the table's unit, its scan building the chunk map the table's
 * TOAST checks use.
 */
export function groupUnits(planned: PlannedJob[], heapallindexed: boolean, workers: number, shareEntries = true): Unit[] {
  const single = (j: PlannedJob): Unit => ({ job: j.job, members: [j], cost: j.cost, bytes: j.bytes });
  const units: Unit[] = [];
  const key = (db: number, oid: number): string => `${db}:${oid}`;
  const oidOf = (j: PlannedJob): number => (j.job as { oid: number }).oid;
  const byOid = new Map<string, PlannedJob>();
  const toastOf = new Map<string, PlannedJob>(); // owner key -> its TOAST relation's job
  for (const j of planned) if (j.job.kind === "catalog") byOid.set(key(j.job.db, j.job.oid), j);
  for (const j of planned) {
    if (j.job.kind !== "catalog" || j.toast === undefined) continue;
    const t = byOid.get(key(j.job.db, j.toast));
    if (t) toastOf.set(key(j.job.db, j.job.oid), t);
  }
  // index bins per table, the costliest first
  const bins = new Map<string, PlannedJob[][]>();
  const detached = new Set<string>();
  if (heapallindexed) {
    const byTable = new Map<string, PlannedJob[]>();
    for (const j of planned) if (j.table !== undefined && j.job.kind === "catalog") byTable.set(key(j.job.db, j.table), [...(byTable.get(key(j.job.db, j.table)) ?? []), j]);
    const total = planned.reduce((s, j) => s + j.cost, 0);
    for (const [k, list] of byTable) {
      const cost = list.reduce((s, j) => s + j.cost, 0);
      const n = Math.max(1, Math.min(list.length, workers, Math.ceil(cost / (total / Math.max(1, 2 * workers)))));
      const bs: PlannedJob[][] = Array.from({ length: n }, () => []);
      const load = new Array<number>(n).fill(0);
      for (const j of [...list].sort((a, b) => b.cost - a.cost)) {
        const b = load.indexOf(Math.min(...load));
        bs[b].push(j);
        load[b] += j.cost;
      }
      bins.set(k, bs.sort((x, y) => y.reduce((s, j) => s + j.cost, 0) - x.reduce((s, j) => s + j.cost, 0)));
      // Split or above a thread's share: the table's own check is a unit of its own. Measured
      // on 2 threads (large sample): one unit of the table and all its indexes saved reads but
      // made the other thread idle at the end, and in the host's noisy phases it, or the
      // table's check feeding one bin's probes, ran 10-20 % slower than small units, which let
      // the threads balance when one core is slower than the other. The bins publish their
      // entries for the table's unit instead (docs/verify-performance.md).
      const tableCost = byOid.get(k)?.cost ?? 0;
      if (shareEntries && workers > 1 && (n > 1 || cost + tableCost > total / workers)) detached.add(k);
    }
  }
  const used = new Set<PlannedJob>();
  const stagesCost = (ss: { indexes: PlannedJob[]; heap?: PlannedJob }[]): number =>
    // an index's estimate includes a scan of its table, shared here: about a fifth of it
    ss.reduce((s, st) => s + st.indexes.reduce((a, j) => a + j.cost, 0) * (st.indexes.length > 1 || st.heap ? 0.85 : 1) + (st.heap?.cost ?? 0), 0);
  const group = (db: number, ss: { indexes: PlannedJob[]; heap?: PlannedJob; remote?: number[] }[], publish = false): Unit => {
    const members = ss.flatMap((st) => [...st.indexes, ...(st.heap ? [st.heap] : [])]);
    for (const m of members) used.add(m);
    const stages = ss.map((st) => ({ indexes: st.indexes.map(oidOf), ...(st.heap ? { heap: oidOf(st.heap) } : {}), ...(st.remote?.length ? { remote: st.remote } : {}) }));
    return { job: { kind: "group", db, stages, ...(publish ? { publish } : {}) }, members, cost: stagesCost(ss), bytes: members.reduce((s, j) => s + j.bytes, 0) };
  };
  // A detached table in the run is read once for all its probes: its index units publish their
  // entries (GroupJob.publish) and the table's unit probes them (GroupStage.remote), on the main
  // thread (run.ts). Tables whose indexes all skip heapallindexed have no bins.
  const remoteOf = new Map<string, number[]>();
  const shares = (k: string): boolean => workers > 1 && detached.has(k) && !!bins.get(k)?.some((b) => b.length);
  // the first bin of a table's indexes and the table; for its TOAST relation likewise, first
  const stage = (k: string, heap: PlannedJob | undefined): { indexes: PlannedJob[]; heap?: PlannedJob; remote?: number[] } => {
    if (heap && shares(k)) remoteOf.set(k, bins.get(k)!.flat().map(oidOf));
    return { indexes: detached.has(k) ? [] : (bins.get(k)?.[0] ?? []), ...(heap ? { heap } : {}), ...(remoteOf.has(k) && heap ? { remote: remoteOf.get(k) } : {}) };
  };
  const owned = new Set(toastOf.values()); // TOAST relations whose owner is in the run go with it
  for (const j of planned) {
    if (j.job.kind !== "catalog" || used.has(j) || j.table !== undefined || owned.has(j)) continue;
    const k = key(j.job.db, j.job.oid);
    const t = toastOf.get(k);
    if (t && !used.has(t)) {
      units.push(group(j.job.db, [stage(key(j.job.db, oidOf(t)), t), stage(k, j)]));
    } else if (shares(k)) {
      units.push(group(j.job.db, [stage(k, j)]));
    } else if (bins.get(k)?.[0]?.length && !detached.has(k)) {
      units.push(group(j.job.db, [stage(k, j)]));
    }
  }
  // the other bins (and bins of tables not in the run): indexes alone
  for (const [k, bs] of bins) {
    const db = Number(k.split(":")[0]);
    for (const indexes of bs) {
      const rest = indexes.filter((j) => !used.has(j));
      if (rest.length && remoteOf.has(k)) units.push(group(db, [{ indexes: rest }], true));
      else if (rest.length === 1) {
        used.add(rest[0]);
        units.push(single(rest[0]));
      } else if (rest.length > 1) units.push(group(db, [{ indexes: rest }]));
    }
  }
  for (const j of planned) if (!used.has(j)) units.push(single(j));
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
    const table = probesTable(cat, rel);
    const heap = table !== undefined ? cat.classes.get(table) : undefined;
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
  listings = new Map();
  sizes = new Map();
  try {
    return planListed(spec, ctx);
  } finally {
    listings = null;
    sizes = null;
  }
}

/**
 * The databases verified whole (a database named alone, or the whole cluster), each with
 * whether its run covers the shared catalogs: their relation directories are matched against
 * pg_class (directory.ts).
 */
export function wholeDatabases(spec: TargetSpec, ctx: ClusterContext | null): { cat: DatabaseCatalog; withShared: boolean }[] {
  if (!ctx || spec.relations?.length) return [];
  if (spec.database) return [{ cat: ctx.database(spec.database), withShared: true }];
  if (spec.files?.length) return [];
  return ctx.cluster.databases().map((d, k) => ({ cat: ctx.database(d.oid), withShared: k === 0 }));
}

function planListed(spec: TargetSpec, ctx: ClusterContext | null): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  for (const f of spec.files ?? []) jobs.push(...fileJobs(f, ctx));
  if (ctx && spec.relations?.length) {
    const cat = ctx.database(spec.database ?? defaultDatabase(ctx));
    for (const r of spec.relations) jobs.push(...relationJobs(cat, r));
  } else for (const w of wholeDatabases(spec, ctx)) jobs.push(...databaseJobs(w.cat, w.withShared));
  // one job per relation (a table's index named twice, shared catalogs)
  const seen = new Set<string>();
  return jobs.filter((j) => {
    const key = j.job.kind === "file" ? `f:${j.job.path}` : j.job.kind === "catalog" ? `${j.db}:${j.job.oid}` : JSON.stringify(j.job);
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
