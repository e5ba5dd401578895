// A verification worker thread: opens the cluster once (while the main thread plans), receives
// the job list, then claims relations from it through the shared counter (the main thread claims from the same counter) and answers
// with their reports; page counts go back in batches for the progress display.
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { ClusterContext } from "./cluster-context.js";
import { WholeForkBuffer } from "./scan.js";
import { safeVerifyJobs, type RelationJob } from "./relation.js";
import { WorkerExchange } from "./entry-exchange.js";
import type { WorkerInit } from "./run.js";

// a worker the CLI started early (prespawn.ts) gets its WorkerInit as the first message
const data = workerData as WorkerInit | { prespawned: true };
const init: WorkerInit = "prespawned" in data ? ((await new Promise((resolve) => parentPort!.once("message", resolve))) as { init: WorkerInit }).init : data;
const { pgdata, opts, next, entries } = init;
// index entries for the tables the main thread checks (entry-exchange.ts)
const exchange = new WorkerExchange(entries);
// started while the main thread plans: open the cluster now, then wait for the job list
const ctx = pgdata ? new ClusterContext(pgdata) : null;
// catalogs read while waiting for the job list (only while waiting: it arrives when planning ends)
let early: { message: { jobs: RelationJob[] } } | undefined;
ctx?.preload(() => (early ??= receiveMessageOnPort(parentPort as unknown as MessagePort) as typeof early) !== undefined);
const { jobs } = early ? early.message : await new Promise<{ jobs: RelationJob[] }>((resolve) => parentPort!.once("message", resolve));
const wholeBuffer = new WholeForkBuffer();
let pending = 0;
const flush = (): void => {
  if (pending) parentPort!.postMessage({ type: "pages", n: pending });
  pending = 0;
};

// one function for the whole run: the scans call it per page, and V8 inlines the callee into
// them; a closure per job deoptimised them when it died
const onPages = (n: number): void => {
  pending += n;
  if (pending >= 256) flush();
};

for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
  const reports = safeVerifyJobs(jobs[i]!, { ctx, opts, wholeBuffer, exchange, onPages });
  flush();
  parentPort!.postMessage({ type: "done", index: i, reports });
}
entries.close();
parentPort!.postMessage({ type: "end" });
