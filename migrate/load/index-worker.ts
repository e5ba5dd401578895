// A worker thread of `pgdisk load` that builds btree indexes (index-threads.ts): each message is
// one index's job, answered with its result or its error as plain data; a first message may
// name the target to resolve ahead of the jobs.
import { parentPort } from "node:worker_threads";
import { buildIndexJob, errorData, prepareTarget, type IndexJobAnswer, type WorkerMessage } from "./index-threads.js";

parentPort!.on("message", (m: WorkerMessage) => {
  // the catalog read ahead, while the main thread reads the rows (no answer)
  if ("prepare" in m) return prepareTarget(m.prepare);
  const job = m;
  let answer: IndexJobAnswer;
  try {
    answer = { id: job.id, result: buildIndexJob(job) };
  } catch (e) {
    answer = { id: job.id, error: errorData(e) };
  }
  parentPort!.postMessage(answer);
});
