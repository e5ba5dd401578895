// A worker thread of `pgdisk migrate -j N` (unit-pool.ts): it opens the cluster being written
// once, then converts and stages the units it is handed, one at a time (stageUnit), and posts
// back each staged unit, or its error as plain data; the main thread switches them in order.
import { parentPort, workerData } from "node:worker_threads";
import { Cluster } from "../formats/catalog/cluster.js";
import { ClusterContext } from "../verify/cluster-context.js";
import { FormatError } from "../formats/schema/errors.js";
import { stageUnit, type UnitJob } from "./unit-stage.js";
import type { PoolReply } from "./unit-pool.js";

const port = parentPort!;
const root = (workerData as { root: string }).root;
const cluster = new Cluster(root);
const checks = new ClusterContext(root);
const post = (m: PoolReply): void => port.postMessage(m);

port.on("message", (job: UnitJob) => {
  try {
    const staged = stageUnit(cluster, checks, job, (message) => post({ kind: "progress", message }));
    post({ kind: "staged", staged });
  } catch (e) {
    const f = e instanceof FormatError ? e : null;
    post({ kind: "error", key: job.unit.key, error: f ? { code: f.code, message: f.message, location: f.location, detail: f.detail } : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) } });
  }
});
