// CPU of the COPY unload's scan alone, in one process (no process start, no output I/O): the
// rows of the bench table `wide` (bench/dump/table.ts) written into a buffer that is reused
// when full, `--passes` times; each pass prints its CPU seconds, the garbage collections during
// it and the bytes written. The first pass includes V8's warm-up; compare the later ones.
//   npx tsx bench/dump/copy-pass.ts [--rows 300000] [--dir /tmp/pgdisk-bench-wide-300000] [--passes 6]
import { PerformanceObserver } from "node:perf_hooks";
import { argValue } from "../common.js";
import { resolveByName } from "../../inspect/dump/target.js";
import { dumpRelation, emptySummary } from "../../inspect/dump/dump.js";
import { COPY_TEXT, CopyFieldWriter, type RowOut } from "../../inspect/dump/copy-rows.js";
import { WIDE_DB, WIDE_TABLE, wideTable } from "./table.js";

const rows = Number(argValue("--rows", "300000"));
const dir = argValue("--dir", `/tmp/pgdisk-bench-wide-${rows}`);
const passes = Number(argValue("--passes", "6"));

/** Output that is thrown away: the buffer starts over when full (but for the row being written, `keep`), the bytes are counted. */
class DiscardOut implements RowOut {
  buf = new Uint8Array(1 << 20);
  pos = 0;
  bytes = 0;
  keep = -1;
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const k = this.keep >= 0 ? this.keep : this.pos;
    this.bytes += k;
    const kept = this.pos - k;
    if (kept + n > this.buf.length) {
      const bigger = new Uint8Array(kept + n);
      bigger.set(this.buf.subarray(k, this.pos));
      this.buf = bigger;
    } else this.buf.copyWithin(0, k, this.pos);
    this.pos = kept;
    if (this.keep >= 0) this.keep = 0;
  }
}

async function main(): Promise<void> {
  const srv = await wideTable(dir, rows); // built and stopped, or a stopped cluster found in dir
  let gcs = 0;
  new PerformanceObserver((l) => void (gcs += l.getEntries().length)).observe({ entryTypes: ["gc"] });
  const r = resolveByName(srv.pgdata, WIDE_DB, WIDE_TABLE);
  for (let pass = 1; pass <= passes; pass++) {
    const out = new DiscardOut();
    gcs = 0;
    const c0 = process.cpuUsage();
    for (const e of dumpRelation(r, { detoast: true, copyTo: new CopyFieldWriter(out, COPY_TEXT) }, emptySummary(), { records: true })) void e;
    const c = process.cpuUsage(c0);
    // the observer reports the pass's collections on a later turn of the event loop
    await new Promise((done) => setTimeout(done, 50));
    console.log(`pass ${pass}: ${((c.user + c.system) / 1e6).toFixed(2)} s CPU, ${gcs} garbage collections, ${out.bytes + out.pos} bytes`);
  }
}

await main();
