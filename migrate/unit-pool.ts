// `pgdisk migrate -j N`: units converted and staged by N worker threads (unit-worker.ts), handed
// back in plan order. The main thread alone records the journal and switches each unit (engine.ts
// applyUnits), so the journal's records, their order and the result are those of -j 1; workers
// only write new files under temporary names. With -j 1 the same stageUnit runs in the main
// thread, one unit at a time.
import { Worker } from "node:worker_threads";
import type { Cluster } from "../formats/catalog/cluster.js";
import { FormatError } from "../formats/schema/errors.js";
import type { Code } from "../formats/codes/index.js";
import type { Location } from "../formats/schema/errors.js";
import { ClusterContext } from "../verify/cluster-context.js";
import { stageUnit, type StagedUnit, type UnitJob } from "./unit-stage.js";
import { discardStaged } from "./staged.js";
import { removeWriterLeftovers } from "./journal.js";

export type PoolReply =
  | { kind: "progress"; message: string }
  | { kind: "staged"; staged: StagedUnit }
  | { kind: "error"; key: string; error: { code?: Code; message: string; location?: Location; detail?: string } };

/** Staged units in plan order. */
export interface UnitStager {
  /** the next job's staged unit (jobs come back in the order given) */
  next(): Promise<StagedUnit>;
  /** stop: running workers ended, every staged unit not taken discarded (temporary files removed) */
  close(): Promise<void>;
}

/** With jobs > 1 and more than one unit: worker threads; else the main thread, one unit per next(). */
export function unitStager(jobs: number, cluster: Cluster, list: readonly UnitJob[], progress: (m: string) => void): UnitStager {
  if (jobs <= 1 || list.length <= 1) {
    let i = 0;
    let checks: ClusterContext | undefined;
    return { next: async () => stageUnit(cluster, (checks ??= new ClusterContext(cluster.pgdata)), list[i++]!, progress), close: async () => {} };
  }
  return new UnitPool(Math.min(jobs, list.length), cluster.pgdata, list, progress);
}

function workerFor(root: string): Worker {
  const url = new URL(import.meta.url.endsWith(".ts") ? "./unit-worker.ts" : "./unit-worker.js", import.meta.url);
  if (!url.pathname.endsWith(".ts")) return new Worker(url, { workerData: { root } });
  // from the sources (tests, tsx): a worker thread does not inherit tsx's hooks, so register them first
  const api = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true, workerData: { root } });
}

interface Slot {
  promise: Promise<StagedUnit>;
  resolve(s: StagedUnit): void;
  reject(e: unknown): void;
  taken: boolean;
  settled?: StagedUnit;
}

class UnitPool implements UnitStager {
  private readonly workers: Worker[] = [];
  private readonly slots: Slot[];
  private nextJob = 0;
  private taken = 0;
  private closed = false;
  private alive: number;

  constructor(
    n: number,
    root: string,
    private readonly list: readonly UnitJob[],
    private readonly progress: (m: string) => void,
  ) {
    this.alive = n;
    this.slots = list.map(() => {
      const s = { taken: false } as Slot;
      s.promise = new Promise<StagedUnit>((res, rej) => ((s.resolve = res), (s.reject = rej)));
      s.promise.catch(() => {}); // a failure is seen when its unit is taken (or dropped at close)
      return s;
    });
    for (let w = 0; w < n; w++) {
      const worker = workerFor(root);
      this.workers.push(worker);
      let current = -1;
      const give = (): void => {
        if (this.closed || this.nextJob >= list.length) {
          current = -1;
          return;
        }
        current = this.nextJob++;
        worker.postMessage(list[current]);
      };
      worker.on("message", (m: PoolReply) => {
        if (m.kind === "progress") return this.progress(m.message);
        const slot = this.slots[current]!;
        if (m.kind === "staged") {
          slot.settled = m.staged;
          slot.resolve(m.staged);
        } else slot.reject(m.error.code ? new FormatError(m.error.code, m.error.message, m.error.location, m.error.detail) : new Error(m.error.message));
        give();
      });
      let failure: unknown = null;
      worker.on("error", (e) => {
        failure ??= e;
        if (current >= 0) this.slots[current]!.reject(e);
      });
      worker.on("exit", (code) => {
        if (this.closed) return;
        const e = failure ?? new Error(`a migrate worker thread exited (${code})${current >= 0 ? ` while converting ${list[current]!.unit.key}` : ""}`);
        if (current >= 0) this.slots[current]!.reject(e);
        // the last worker gone: no unit left undispatched may wait for ever
        if (--this.alive === 0) for (let i = this.nextJob; i < list.length; i++) this.slots[i]!.reject(e);
      });
      give();
    }
  }

  next(): Promise<StagedUnit> {
    const slot = this.slots[this.taken++]!;
    slot.taken = true;
    return slot.promise;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    // units never taken: staged (their temporary files removed), or being written by a worker just terminated
    this.list.forEach((job, i) => {
      const slot = this.slots[i]!;
      if (slot.taken) return;
      if (slot.settled) discardStaged(slot.settled.staged);
      else if (i < this.nextJob) for (const f of job.unit.forks) removeWriterLeftovers(f);
    });
  }
}
