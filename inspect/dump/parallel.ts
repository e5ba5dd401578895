// Dump across worker threads: relations are cut into block ranges that workers render; the
// main thread writes the fragments in order, with the relation headers and file findings.
import type { Worker } from "node:worker_threads";
import { startWorker } from "../../verify/thread-start.js";
import { FormatError, type Finding } from "../../formats/schema/errors.js";
import { addSummary, countFinding, emptySummary, planRelation, type DumpEvent, type DumpOptions } from "./dump.js";
import { specOf, type ResolvedRelation } from "./target.js";
import { isCode } from "../../formats/codes/index.js";
import type { DumpJob } from "./dump-worker.js";
import type { CopyOptions } from "./render-copy.js";
import type { DumpSummary } from "./model.js";
import { UNIT_OUTPUT_BYTES, unitBlocksFor } from "./unit-size.js";

export interface FragmentSink {
  /** relation headers and file-level findings, as in a serial dump */
  event(e: DumpEvent): void;
  /**
   * rendered pages of one block range (UTF-8), in order, in one or more chunks (`continued`:
   * not the range's first); true when the bytes may be reused
   */
  fragmentBytes(bytes: Uint8Array, empty: boolean, continued: boolean): boolean | void;
}

type Step = { kind: "event"; event: DumpEvent } | { kind: "unit"; job: DumpJob };

interface UnitResult {
  /** the rendered range, in order (text may come in several chunks) */
  chunks: Uint8Array[];
  empty: boolean;
  findings: Finding[];
  summary: DumpSummary;
  /** the worker that rendered it (buffers go back to it) */
  worker: Worker;
  /** bytes of its chunks */
  bytes: number;
}

/** What a parallel dump held: the output of finished ranges waiting to be written in order. */
export interface ParallelDumpStats {
  units: number;
  largestUnitBytes: number;
  peakWaitingBytes: number;
}

export async function dumpParallel(
  rels: ResolvedRelation[],
  opts: DumpOptions,
  o: { jobs: number; format: "text" | "json" | "copy"; colour: boolean; values: boolean; copy?: CopyOptions; unitBlocks?: number; unitBytes?: number },
  sink: FragmentSink,
  stats: ParallelDumpStats = { units: 0, largestUnitBytes: 0, peakWaitingBytes: 0 },
): Promise<DumpSummary> {
  const summary = emptySummary();
  const steps: Step[] = [];
  let id = 0;
  for (const r of rels) {
    const plan = planRelation(r, opts);
    steps.push({ kind: "event", event: { type: "relation", target: plan.target } });
    const spec = specOf(r);
    const unitBlocks = o.unitBlocks ?? unitBlocksFor(r, opts, plan.to - plan.from, o.unitBytes);
    for (let b = plan.from; b < plan.to; b += unitBlocks) {
      steps.push({ kind: "unit", job: { id: id++, spec, opts, from: b, to: Math.min(plan.to, b + unitBlocks), format: o.format, copy: o.copy, colour: o.colour, values: o.values } });
    }
    if (plan.tail) steps.push({ kind: "event", event: { type: "finding", finding: plan.tail } });
  }
  const units = steps.filter((s): s is Extract<Step, { kind: "unit" }> => s.kind === "unit").map((s) => s.job);
  stats.units = units.length;
  const results = new Map<number, UnitResult>();
  /** bytes of the finished ranges waiting to be written */
  let waitingBytes = 0;
  const workerUrl = new URL(import.meta.url.endsWith(".ts") ? "./dump-worker.ts" : "./dump-worker.js", import.meta.url);
  const workers = Array.from({ length: Math.max(1, Math.min(o.jobs, units.length)) }, () => startWorker(workerUrl));
  let nextStep = 0;
  const flush = (): void => {
    while (nextStep < steps.length) {
      const st = steps[nextStep];
      if (st.kind === "event") {
        if (st.event.type === "finding") countFinding(summary, st.event.finding);
        sink.event(st.event);
      } else {
        const r = results.get(st.job.id);
        if (!r) return;
        results.delete(st.job.id);
        waitingBytes -= r.bytes;
        const reusable = new Set<ArrayBuffer>();
        r.chunks.forEach((c, i) => {
          if (sink.fragmentBytes(c, r.chunks.length === 1 && r.empty, i > 0) === true) reusable.add(c.buffer as ArrayBuffer);
        });
        // written out: the worker gets its buffers back for its next chunks
        if (reusable.size) r.worker.postMessage({ recycle: [...reusable] }, [...reusable]);
        for (const f of r.findings) sink.event({ type: "finding", finding: f });
        addSummary(summary, r.summary);
      }
      nextStep++;
    }
  };
  try {
    let nextUnit = 0;
    // Bound memory: a worker takes a new range only while few finished ranges, and few bytes
    // of them, wait to be written (a range's output is sized by unitBlocksFor).
    const maxWaiting = o.jobs * 4;
    const maxWaitingBytes = o.jobs * 4 * (o.unitBytes ?? UNIT_OUTPUT_BYTES);
    const room = (): boolean => results.size <= maxWaiting && waitingBytes <= maxWaitingBytes;
    await new Promise<void>((resolve, reject) => {
      let running = 0;
      const feed = (w: Worker): void => {
        if (nextUnit >= units.length || !room()) return;
        running++;
        w.postMessage(units[nextUnit++]);
      };
      const idle: Worker[] = [];
      for (const w of workers) {
        w.on("message", (m: { id: number; error?: { message: string; code?: string; location?: object } } & UnitResult) => {
          running--;
          if (m.error) {
            reject(new FormatError(m.error.code && isCode(m.error.code) ? m.error.code : "DUMP_WORKER_FAILED", m.error.message, m.error.location ?? {}));
            return;
          }
          const bytes = m.chunks.reduce((n, c) => n + c.byteLength, 0);
          results.set(m.id, { ...m, bytes, worker: w });
          waitingBytes += bytes;
          stats.peakWaitingBytes = Math.max(stats.peakWaitingBytes, waitingBytes);
          stats.largestUnitBytes = Math.max(stats.largestUnitBytes, bytes);
          flush();
          idle.push(w);
          while (idle.length && nextUnit < units.length && room()) feed(idle.shift()!);
          if (running === 0 && nextUnit >= units.length) resolve();
        });
        w.on("error", reject);
        feed(w);
      }
      if (units.length === 0) resolve();
    });
    flush();
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return summary;
}
