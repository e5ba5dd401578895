// A verification worker thread: opens the cluster once, verifies the relations it is sent and
// answers with their reports (one at a time, after a "ready"); page counts go back in batches
// for the progress display.
import { parentPort, workerData } from "node:worker_threads";
import { ClusterContext } from "./cluster-context.js";
import { safeVerifyJobs, type RelationJob, type VerifyOptions } from "./relation.js";

const { pgdata, opts } = workerData as { pgdata?: string; opts: VerifyOptions };
const ctx = pgdata ? new ClusterContext(pgdata) : null;
let pending = 0;
const flush = (): void => {
  if (pending) parentPort!.postMessage({ type: "pages", n: pending });
  pending = 0;
};

parentPort!.on("message", (m: { id: number; job: RelationJob }) => {
  const reports = safeVerifyJobs(m.job, {
    ctx,
    opts,
    onPages: (n) => {
      pending += n;
      if (pending >= 256) flush();
    },
  });
  flush();
  parentPort!.postMessage({ type: "done", id: m.id, reports });
});
// the cluster is open: ask for the first relation
parentPort!.postMessage({ type: "ready" });
