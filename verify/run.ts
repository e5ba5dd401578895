// Runs a verification: plans the relations, spreads them over worker threads (largest first),
// reports progress, and returns the reports in a stable order (database, tables, TOAST,
// indexes) with a summary. The exit status follows pg_amcheck: 0 clean, 2 corruption found;
// operational errors (no cluster, unknown names, a running server) are thrown as FormatError.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { FormatError } from "../formats/schema/errors.js";
import { ClusterContext } from "./cluster-context.js";
import { DEFAULT_VERIFY_OPTIONS, safeVerifyJobs, statusOf, type ProbePatch, type RelationReport, type VerifyOptions } from "./relation.js";
import { MainExchange } from "./entry-exchange.js";
import { WholeForkBuffer } from "./scan.js";
import { isNotChecked } from "../formats/codes/checks.js";
import { catalogProblemReports, checkDirectories } from "./directory.js";
import { groupUnits, planJobs, wholeDatabases, type PlannedJob, type TargetSpec, type Unit } from "./targets.js";
import { findPgdata } from "../formats/catalog/locate.js";
import { takeSpareWorker, workerUrl } from "./prespawn.js";

export interface RunOptions extends VerifyOptions {
  /** worker threads; 1 runs in this thread (default: automatic, see workerCount) */
  jobs?: number;
  /** verify a cluster whose pg_control says it is running */
  allowRunning?: boolean;
  /** a check that could not run (a "not checked" note) fails the run (exit 2), for CI */
  failOnNotChecked?: boolean;
  onProgress?: (p: Progress) => void;
}

export interface Progress {
  relationsDone: number;
  relations: number;
  pagesDone: number;
  pages: number;
}

export interface VerifySummary {
  relations: number;
  pages: number;
  corruptRelations: number;
  errors: number;
  warnings: number;
  infos: number;
  /** info findings saying a check could not run (catalog.ts NOT_CHECKED_CODES), among `infos` */
  notChecked: number;
  /** worker threads used */
  workers: number;
  ms: number;
  exitCode: 0 | 2;
}

export interface VerifyRun {
  pgdata?: string;
  reports: RelationReport[];
  summary: VerifySummary;
}

export const defaultJobs = (): number => Math.max(1, availableParallelism());

/**
 * Workers boot while this thread plans (startWorkers), so one costs little of the run's time: a
 * second thread already pays on the tiny sample (1.3 s instead of 1.7 s on the 2-core machine),
 * not on a single small table. Estimated cost is roughly milliseconds of one core (targets.ts).
 */
export const COST_PER_WORKER = 600;

/** The automatic worker count: at most `jobs`, one per COST_PER_WORKER of estimated work (at least one). */
export function workerCount(jobs: number, planned: readonly PlannedJob[]): number {
  const cost = planned.reduce((s, j) => s + j.cost, 0);
  return Math.max(1, Math.min(jobs, planned.length, Math.floor(cost / COST_PER_WORKER)));
}

export async function runVerify(spec: TargetSpec, options: Partial<RunOptions> = {}): Promise<VerifyRun> {
  const t0 = performance.now();
  const opts: RunOptions = { ...DEFAULT_VERIFY_OPTIONS, ...options };
  const pgdata = spec.pgdata ?? (spec.files?.length ? findPgdata(spec.files[0]) : undefined);
  if (!spec.pgdata && !spec.files?.length) throw new FormatError("USAGE", "name a data directory (--pgdata) or relation files");
  const ctx = pgdata ? new ClusterContext(pgdata) : null;
  if (ctx && !opts.allowRunning) refuseRunning(ctx);
  // workers boot (modules, cluster files) while this thread plans; unneeded ones are stopped
  const most = opts.jobs ?? defaultJobs();
  const early = ctx && most > 1 ? startWorkers(most - 1, pgdata, plain(opts)) : null;
  try {
    return await runPlanned(spec, opts, ctx, pgdata, early, t0);
  } catch (e) {
    early?.stop();
    throw e;
  }
}

async function runPlanned(spec: TargetSpec, opts: RunOptions, ctx: ClusterContext | null, pgdata: string | undefined, early: EarlyWorkers | null, t0: number): Promise<VerifyRun> {
  const planned = planJobs(spec, ctx);
  const bs = ctx?.cluster.geometry.blockSize ?? 8192;
  const progress: Progress = { relationsDone: 0, relations: planned.length, pagesDone: 0, pages: Math.round(planned.reduce((s, j) => s + j.bytes, 0) / bs) };
  const workers = opts.jobs !== undefined ? Math.max(1, Math.min(opts.jobs, planned.length)) : workerCount(defaultJobs(), planned);
  const reports = new Map<PlannedJob, RelationReport>();
  const tick = (): void => opts.onProgress?.(progress);
  // exact entries stay in the thread that made them (they are not published for another's scan)
  const units = groupUnits(planned, opts.heapallindexed, workers, !opts.exactHeapallindexed);
  const done = (u: Unit, rs: RelationReport[]): void => {
    u.members.forEach((j, k) => reports.set(j, rs[k]));
    progress.relationsDone += u.members.length;
    tick();
  };
  if (workers <= 1) {
    early?.stop();
    const wholeBuffer = new WholeForkBuffer();
    const onPages = (n: number): void => ((progress.pagesDone += n), tick()); // one for the run (see worker.ts)
    for (const u of units) done(u, safeVerifyJobs(u.job, { ctx, opts: plain(opts), onPages, wholeBuffer }));
  } else {
    const patches = await runPool(units, workers, ctx, plain(opts), early ?? startWorkers(workers - 1, pgdata, plain(opts)), done, (n) => {
      progress.pagesDone += n;
      tick();
    });
    applyPatches(planned, reports, patches);
  }
  const ordered = [...planned].sort((a, b) => a.db - b.db || a.order - b.order || a.label.localeCompare(b.label)).map((j) => reports.get(j)!);
  // the files no relation above accounts for, database by database
  const env = { ctx, opts: plain(opts) };
  const dirs = wholeDatabases(spec, ctx).flatMap((w) => checkDirectories(w.cat, w.withShared, env));
  // the catalogs of the other databases checked: their left-out pages and tuples
  const dbs = ctx ? [...new Set(planned.flatMap((j) => (j.job.kind === "file" ? [] : [j.job.db])))].map((db) => ctx.database(db)) : [];
  const rest = catalogProblemReports(dbs, new Set(dirs.map((r) => r.file)), env);
  const all = [...dirs, ...rest, ...ordered];
  return { pgdata, reports: all, summary: summarize(all, workers, performance.now() - t0, !!opts.failOnNotChecked) };
}

/** heapallindexed results of indexes probed by their table's unit, into the indexes' reports. */
function applyPatches(planned: readonly PlannedJob[], reports: Map<PlannedJob, RelationReport>, patches: ProbePatch[]): void {
  if (!patches.length) return;
  const byOid = new Map<string, RelationReport>();
  for (const j of planned) if (j.job.kind === "catalog") byOid.set(`${j.job.db}:${j.job.oid}`, reports.get(j)!);
  for (const p of patches) {
    const r = byOid.get(`${p.db}:${p.oid}`);
    if (!r) continue;
    r.findings.push(...p.findings);
    Object.assign(r.stats, p.stats);
    r.status = statusOf(r.findings);
  }
}

function plain(o: RunOptions): VerifyOptions {
  return { heapallindexed: o.heapallindexed, ...(o.exactHeapallindexed ? { exactHeapallindexed: true } : {}), toast: o.toast, decompress: o.decompress, rootdescend: o.rootdescend, checksums: o.checksums, capPerCode: o.capPerCode };
}

export function summarize(reports: RelationReport[], workers: number, ms: number, failOnNotChecked = false): VerifySummary {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  let notChecked = 0;
  for (const r of reports) {
    for (const f of r.findings) {
      f.severity === "error" ? errors++ : f.severity === "warning" ? warnings++ : infos++;
      if (isNotChecked(f.code)) notChecked++;
    }
  }
  return {
    relations: reports.filter((r) => r.am !== "directory").length,
    pages: reports.reduce((s, r) => s + r.blocks, 0),
    corruptRelations: reports.filter((r) => r.status === "corrupt").length,
    errors,
    warnings,
    infos,
    notChecked,
    workers,
    ms: Math.round(ms),
    exitCode: errors > 0 || (failOnNotChecked && notChecked > 0) ? 2 : 0,
  };
}

/** A server writing the files while we read them gives torn pages and moving targets. */
function refuseRunning(ctx: ClusterContext): void {
  const running = ctx.cluster.control.stateName === "DB_IN_PRODUCTION" && existsSync(join(ctx.pgdata, "postmaster.pid"));
  if (running) {
    throw new FormatError("CLUSTER_RUNNING", `${ctx.pgdata} belongs to a running server (pg_control says "in production" and postmaster.pid exists); stop it, verify a copy, or pass --allow-running`, { file: ctx.pgdata });
  }
}

/** Jobs this thread takes itself while it dispatches (catalog relations of a page or two). */
const TINY_COST = 3;
/** ... and every job of a database with at most this share of the estimated work. */
const SMALL_DB_SHARE = 0.05;

/**
 * Verify on `n` executors: this thread and n - 1 worker threads (this thread has its code warm
 * and every catalog loaded; a worker costs about a second of one core to start and load its
 * own, so it is not spent on dispatching). The relations go out the most expensive first
 * (estimated cost, not bytes: an index's heapallindexed costs far more per byte than a table
 * scan), each executor claiming the next through one shared atomic counter, so no executor
 * waits for a message round trip. This thread first verifies the tiny relations and those of
 * databases with little work (whose catalogs a worker would otherwise load), then joins in. It
 * also checks each table whose indexes' entries other units publish (entry-exchange.ts), as
 * soon as all of them are in.
 */
interface EarlyWorkers {
  workers: Worker[];
  /** per worker, the main thread's end of the channel its published index entries come by */
  ports: MessagePort[];
  next: Int32Array;
  /** errors a worker raised before the pool listened */
  errors: unknown[];
  stop(): void;
}

/** What a worker needs before its job list: workerData, or the first message of a prespawned one. */
export interface WorkerInit {
  pgdata: string | undefined;
  opts: VerifyOptions;
  /** the shared counter jobs are claimed by */
  next: Int32Array;
  /** the worker's end of the channel its published index entries go by */
  entries: MessagePort;
}

/** Start `k` workers that open the cluster and then wait for their job list (runPool sends it). */
function startWorkers(k: number, pgdata: string | undefined, opts: VerifyOptions): EarlyWorkers {
  const next = new Int32Array(new SharedArrayBuffer(4));
  const errors: unknown[] = [];
  const workers: Worker[] = [];
  const ports: MessagePort[] = [];
  for (let i = 0; i < k; i++) {
    const ch = new MessageChannel();
    const init: WorkerInit = { pgdata, opts, next, entries: ch.port2 };
    // one the CLI started before loading (prespawn.ts), else a new one
    const spare = takeSpareWorker();
    const w = spare ? spare.worker : new Worker(workerUrl(), { workerData: init, transferList: [ch.port2] });
    if (spare) {
      if (spare.error) errors.push(spare.error);
      w.postMessage({ init }, [ch.port2]);
    }
    w.on("error", (e) => errors.push(e));
    workers.push(w);
    ports.push(ch.port1);
  }
  const stop = (): void => {
    workers.forEach((w) => void w.terminate());
    ports.forEach((p) => p.close());
  };
  return { workers, ports, next, errors, stop };
}

async function runPool(units: Unit[], n: number, ctx: ClusterContext | null, opts: VerifyOptions, started: EarlyWorkers, done: (u: Unit, r: RelationReport[]) => void, pages: (n: number) => void): Promise<ProbePatch[]> {
  // tables probed from entries other units publish: this thread checks them once those are in
  const remoteOids = (u: Unit): number[] => (u.job.kind === "group" ? u.job.stages.flatMap((st) => st.remote ?? []) : []);
  const scans = units.filter((u) => remoteOids(u).length > 0);
  const sorted = [...units].filter((u) => !scans.includes(u)).sort((a, b) => b.cost - a.cost || b.bytes - a.bytes);
  const total = units.reduce((s, u) => s + u.cost, 0);
  const dbCost = new Map<number, number>();
  const dbOf = (u: Unit): number => (u.job.kind === "file" ? -1 : u.job.db);
  for (const u of units) dbCost.set(dbOf(u), (dbCost.get(dbOf(u)) ?? 0) + u.cost);
  const mine = (u: Unit): boolean => u.cost <= TINY_COST || (dbOf(u) >= 0 && dbCost.get(dbOf(u))! <= total * SMALL_DB_SHARE);
  const queue = sorted.filter((u) => !mine(u));
  const local = sorted.filter(mine);
  const next = started.next;
  let failed: unknown = started.errors[0] ?? null;
  // the workers this run uses; the others started early are stopped
  const workers = started.workers.slice(0, n - 1);
  for (const w of started.workers.slice(n - 1)) void w.terminate();
  const exchange = new MainExchange(started.ports.slice(0, n - 1));
  const patches: ProbePatch[] = [];
  const ready = (u: Unit): boolean => u.job.kind === "group" && remoteOids(u).every((oid) => exchange.has((u.job as { db: number }).db, oid));
  const finished = new Promise<void>((resolveAll, rejectAll) => {
    let live = workers.length;
    if (live <= 0 || failed) {
      if (failed) {
        for (const x of workers) void x.terminate();
        rejectAll(failed);
      } else resolveAll();
      return;
    }
    for (const w of workers) {
      w.postMessage({ jobs: queue.map((u) => u.job) });
      w.on("message", (m: { type: string; index?: number; reports?: RelationReport[]; n?: number }) => {
        if (m.type === "pages") pages(m.n!);
        else if (m.type === "done") done(queue[m.index!]!, m.reports!);
        else if (m.type === "end") {
          void w.terminate();
          if (--live === 0 && !failed) resolveAll();
        }
      });
      w.on("error", (e) => {
        if (failed) return;
        failed = e;
        for (const x of workers) void x.terminate();
        rejectAll(e);
      });
    }
  });
  const wholeBuffer = new WholeForkBuffer();
  const onPatch = (p: ProbePatch): number => patches.push(p);
  const run = async (u: Unit): Promise<void> => {
    done(u, safeVerifyJobs(u.job, { ctx, opts, onPages: pages, wholeBuffer, exchange, onPatch }));
    // let worker messages (reports, progress) in between relations
    await new Promise((r) => setImmediate(r));
  };
  try {
    while (local.length && !failed) await run(local.pop()!);
    // the queue, and each table scan as soon as the entries of all its indexes are in
    const waiting = [...scans];
    let i = -1;
    while (!failed) {
      const k = waiting.findIndex(ready);
      if (k >= 0) await run(waiting.splice(k, 1)[0]!);
      else if (i < queue.length && (i = Atomics.add(next, 0, 1)) < queue.length) await run(queue[i]!);
      else if (waiting.length) await new Promise((r) => setTimeout(r, 1));
      else break;
    }
  } catch (e) {
    for (const x of workers) void x.terminate();
    throw e;
  } finally {
    started.ports.forEach((p) => p.close());
  }
  await finished;
  return patches;
}

export { ClusterContext };
