// A worker thread of `pgdisk load` that builds btree indexes (index-threads.ts): each message is
// one index's job, answered with its result or its error as plain data.
import { parentPort } from "node:worker_threads";
import { buildIndexJob, errorData, type IndexJob, type IndexJobAnswer } from "./index-threads.js";

parentPort!.on("message", (job: IndexJob) => {
  let answer: IndexJobAnswer;
  try {
    answer = { id: job.id, result: buildIndexJob(job) };
  } catch (e) {
    answer = { id: job.id, error: errorData(e) };
  }
  parentPort!.postMessage(answer);
});
