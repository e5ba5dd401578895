// A dump worker thread: renders the pages of one block range of one relation and sends the
// text back; the main thread keeps the output in order.
import { parentPort } from "node:worker_threads";
import { dumpBlocks, emptySummary, type DumpOptions } from "./dump.js";
import { resolveSpec, type RelationSpec } from "./target.js";
import { TextRenderer } from "./render-text.js";
import { CopyRenderer } from "./render-copy.js";

export interface DumpJob {
  id: number;
  spec: RelationSpec;
  opts: DumpOptions;
  from: number;
  to: number;
  format: "text" | "json" | "copy";
  colour: boolean;
  values: boolean;
}

const encoder = new TextEncoder();

parentPort!.on("message", (job: DumpJob) => {
  try {
    const r = resolveSpec(job.spec);
    const summary = emptySummary();
    const parts: string[] = [];
    const write = (s: string): void => void parts.push(s);
    const renderer = job.format === "text" ? new TextRenderer(write, job.colour, { values: job.values }) : job.format === "copy" ? new CopyRenderer(write) : undefined;
    const findings: unknown[] = [];
    let first = true;
    for (const e of dumpBlocks(r, job.opts, job.from, job.to, summary)) {
      if (renderer) renderer.event(e);
      else if (e.type === "page") {
        parts.push(first ? JSON.stringify(e.page) : `,\n${JSON.stringify(e.page)}`);
        first = false;
      } else if (e.type === "finding") findings.push(e.finding);
    }
    // UTF-8 bytes move to the main thread without a copy (transferred, not cloned).
    const bytes = encoder.encode(parts.join(""));
    parentPort!.postMessage({ id: job.id, bytes, empty: parts.length === 0, findings, summary }, [bytes.buffer]);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: { message: (e as Error).message, code: (e as { code?: string }).code, location: (e as { location?: unknown }).location } });
  }
});
