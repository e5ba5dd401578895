// The index builds of a load in parallel (docs/load.md, "Speed"): after the heap pass each btree
// index is sorted, checked and built on its own, so with two or more indexes they are shared
// between the main thread and worker threads (one fewer than the cores). A worker re-opens the
// cluster read-only, resolves the same target and takes over the index tuples the main thread
// formed (their buffers moved, not copied). Results come back in index order, and of several
// failures the first index's is thrown, as a sequential build would.
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { Cluster } from "../../formats/catalog/cluster.js";
import { FormatError, type Location } from "../../formats/schema/errors.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import type { Code } from "../../formats/codes/index.js";
import { startWorker, workerModule } from "../../verify/thread-start.js";
import { resolveTarget } from "./target.js";
import { IndexLoader, type IndexLoadResult, type StoredTuples } from "./index-load.js";
import type { ClusterOwner } from "../file-owner.js";

/** Fewer new entries than this are built in the main thread (a worker's start costs more). */
export const PARALLEL_MIN_ENTRIES = 50_000;

export interface IndexJob {
  id: number;
  pgdata: string;
  database: string;
  table: string;
  columns?: string[];
  /** which of the target's indexes */
  index: number;
  tuples: StoredTuples;
  checksums: boolean;
  owner: ClusterOwner;
  dryRun?: boolean;
}

interface ErrorData {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  location?: Location;
  detail?: string;
}

/** What a worker is sent: the target to resolve ahead, or a job. */
export type WorkerMessage = { prepare: IndexTarget } | IndexJob;

export type IndexJobAnswer = { id: number; result: IndexLoadResult } | { id: number; error: ErrorData };

export function errorData(e: unknown): ErrorData {
  if (e instanceof FormatError) return { name: e.name, message: e.message, code: e.code, location: e.location, detail: e.detail };
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  return { name: "Error", message: String(e) };
}

function errorFrom(d: ErrorData): Error {
  if (d.code) return new FormatError(d.code as Code, d.message, d.location, d.detail);
  const e = new Error(d.message);
  e.stack = d.stack;
  return e;
}

/** The table a load's index builds are for: a worker resolves it when it starts (prepareTarget), while the rows are read. */
export interface IndexTarget {
  pgdata: string;
  database: string;
  table: string;
  columns?: string[];
}

/** The target this thread resolved last (the cluster is stopped and the catalog unchanged for the whole load). */
let prepared: { key: string; cluster: Cluster; cat: ReturnType<Cluster["database"]>; target: ReturnType<typeof resolveTarget> } | null = null;

function resolved(t: IndexTarget): NonNullable<typeof prepared> {
  const key = JSON.stringify([t.pgdata, t.database, t.table, t.columns ?? null]);
  if (prepared?.key === key) return prepared;
  const cluster = new Cluster(t.pgdata);
  const cat = cluster.database(t.database);
  prepared = { key, cluster, cat, target: resolveTarget(cat, t.table, t.columns) };
  return prepared;
}

/** Read the catalog and resolve the target ahead of the first job (an error here is left to the job, which reports it). */
export function prepareTarget(t: IndexTarget): void {
  try {
    resolved(t);
  } catch {
    prepared = null;
  }
}

/** One index of the load built in this thread (a worker's job). */
export function buildIndexJob(job: IndexJob): IndexLoadResult {
  const { cluster, cat, target } = resolved(job);
  const ix = target.indexes[job.index]!;
  const loader = new IndexLoader(cat, ix.rel, ix.info, target.desc.attrs, cluster.geometry);
  loader.importTuples(job.tuples);
  const heap = new RelationFork(cat.path(target.rel), cluster.geometry);
  try {
    return loader.build({ path: cat.path(ix.rel), checksums: job.checksums, owner: job.owner, heap: (b) => heap.readBlock(b), clog: cluster.clog, dryRun: job.dryRun });
  } finally {
    heap.close();
  }
}

/** Worker threads for index builds, started early (their start overlaps the heap pass). */
export class IndexThreads {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { resolve: (r: IndexLoadResult) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private turn = 0;
  /** a thread that failed (its module did not load, or it died): every later build is refused with it */
  private failed: Error | null = null;

  /** Threads for `indexes` index builds: one fewer than the cores, at most one per index after the first; each resolves `target` as it starts. */
  static forIndexes(indexes: number, target?: IndexTarget): IndexThreads {
    return new IndexThreads(Math.max(0, Math.min(indexes - 1, availableParallelism() - 1)), target);
  }

  private constructor(
    readonly count: number,
    target?: IndexTarget,
  ) {
    for (let i = 0; i < count; i++) {
      const w = startWorker(workerModule(import.meta.url, "index-worker"));
      if (target) w.postMessage({ prepare: target } satisfies WorkerMessage);
      w.on("message", (a: IndexJobAnswer) => {
        const p = this.waiting.get(a.id);
        this.waiting.delete(a.id);
        if ("result" in a) p?.resolve(a.result);
        else p?.reject(errorFrom(a.error));
      });
      const fail = (e: Error): void => {
        this.failed ??= e;
        for (const p of this.waiting.values()) p.reject(e);
        this.waiting.clear();
      };
      w.on("error", fail);
      w.on("exit", (code) => {
        if (code !== 0) fail(new Error(`index build thread exited with code ${code}`));
      });
      this.workers.push(w);
    }
  }

  /** Build one index in a worker (its tuples' buffers are moved there). */
  build(job: Omit<IndexJob, "id">): Promise<IndexLoadResult> {
    const id = this.nextId++;
    const w = this.workers[this.turn++ % this.workers.length]!;
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(this.failed);
      this.waiting.set(id, { resolve, reject });
      const t = job.tuples;
      const moved = [t.buf.buffer, t.start.buffer, t.len.buffer, t.line.buffer, ...(t.num ? [t.num.buffer] : [])].filter((b, i, all) => all.indexOf(b) === i) as ArrayBuffer[];
      w.postMessage({ ...job, id }, moved);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
