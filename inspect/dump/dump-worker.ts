// A dump worker thread: renders the pages of one block range of one relation and sends the
// text back; the main thread keeps the output in order.
import { parentPort } from "node:worker_threads";
import { dumpBlocks, emptySummary, type DumpOptions } from "./dump.js";
import { resolveSpec, type RelationSpec } from "./target.js";
import { TextByteRenderer } from "./render-text-bytes.js";
import { ByteOut } from "./byte-out.js";
import { CopyRenderer, type CopyOptions } from "./render-copy.js";

export interface DumpJob {
  id: number;
  spec: RelationSpec;
  opts: DumpOptions;
  from: number;
  to: number;
  format: "text" | "json" | "copy";
  /** with format copy: COPY's text or CSV options */
  copy?: CopyOptions;
  colour: boolean;
  values: boolean;
}

// Chunk buffers the main thread has written out and handed back: reused, so a long dump does
// not allocate (and the main thread does not collect) a fresh megabyte per chunk.
const CHUNK = 1 << 20;
const pool: ArrayBuffer[] = [];
const alloc = (size: number): Buffer => {
  const ab = size === CHUNK ? pool.pop() : undefined;
  return ab ? Buffer.from(ab, 0, ab.byteLength) : Buffer.allocUnsafe(size);
};

parentPort!.on("message", (msg: DumpJob | { recycle: ArrayBuffer[] }) => {
  if ("recycle" in msg) {
    for (const ab of msg.recycle) if (ab.byteLength === CHUNK) pool.push(ab);
    return;
  }
  const job = msg;
  try {
    const r = resolveSpec(job.spec);
    const summary = emptySummary();
    const findings: unknown[] = [];
    let chunks: Uint8Array[];
    let empty: boolean;
    if (job.format === "text") {
      // Pages rendered straight to bytes from reused page records.
      const parts: Uint8Array[] = [];
      const out = new ByteOut((c) => void parts.push(c), CHUNK, alloc);
      const renderer = new TextByteRenderer(out, job.colour, { values: job.values, hex: job.opts.hex });
      for (const e of dumpBlocks(r, job.opts, job.from, job.to, summary, { records: true, textValues: true })) renderer.event(e);
      out.flush();
      chunks = parts;
      empty = out.written === 0;
    } else {
      // encoded into chunks as rendered: no string of the whole range, no second copy of it
      const parts: Uint8Array[] = [];
      const out = new ByteOut((c) => void parts.push(c), CHUNK, alloc);
      const write = (s: string): void => out.text(s);
      // COPY rows are written into `out` as the pages are scanned
      const copy = job.format === "copy" ? new CopyRenderer(out, job.copy) : undefined;
      const opts = copy ? { ...job.opts, copyTo: copy.writer } : job.opts;
      let first = true;
      for (const e of dumpBlocks(r, opts, job.from, job.to, summary, { records: !!copy })) {
        if (copy) continue;
        if (e.type === "page") {
          write(first ? JSON.stringify(e.page) : `,\n${JSON.stringify(e.page)}`);
          first = false;
        } else if (e.type === "finding") findings.push(e.finding);
      }
      out.flush();
      chunks = parts.length ? parts : [new Uint8Array(0)];
      empty = out.written === 0;
    }
    // The bytes move to the main thread without a copy (transferred, not cloned): ByteOut
    // gives each chunk a buffer of its own.
    const buffers = [...new Set(chunks.map((c) => c.buffer as ArrayBuffer))];
    parentPort!.postMessage({ id: job.id, chunks, empty, findings, summary }, buffers);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: { message: (e as Error).message, code: (e as { code?: string }).code, location: (e as { location?: unknown }).location } });
  }
});
