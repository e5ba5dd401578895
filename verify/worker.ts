// A verification worker thread: opens the cluster once, then claims relations from the shared
// list through the shared counter (the main thread claims from the same counter) and answers
// with their reports; page counts go back in batches for the progress display.
import { parentPort, workerData } from "node:worker_threads";
import { ClusterContext } from "./cluster-context.js";
import { safeVerifyJobs, type RelationJob, type VerifyOptions } from "./relation.js";

const { pgdata, opts, jobs, next } = workerData as { pgdata?: string; opts: VerifyOptions; jobs: RelationJob[]; next: Int32Array };
const ctx = pgdata ? new ClusterContext(pgdata) : null;
let pending = 0;
const flush = (): void => {
  if (pending) parentPort!.postMessage({ type: "pages", n: pending });
  pending = 0;
};

for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
  const reports = safeVerifyJobs(jobs[i]!, {
    ctx,
    opts,
    onPages: (n) => {
      pending += n;
      if (pending >= 256) flush();
    },
  });
  flush();
  parentPort!.postMessage({ type: "done", index: i, reports });
}
parentPort!.postMessage({ type: "end" });
