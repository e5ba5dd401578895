// The worker-thread dump writes exactly what the serial dump writes (text and JSON), in order,
// with the same summary, on a real cluster's relations cut into many small block ranges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { dumpRelation, emptySummary, planRelation, type DumpEvent, type DumpOptions } from "../../inspect/dump/dump.js";
import { ByteOut } from "../../inspect/dump/byte-out.js";
import { dumpParallel, type ParallelDumpStats } from "../../inspect/dump/parallel.js";
import { CopyRenderer } from "../../inspect/dump/render-copy.js";
import { resolveDatabase, type ResolvedRelation } from "../../inspect/dump/target.js";
import { TextRenderer } from "../../inspect/dump/render-text.js";
import { JsonRenderer } from "../../inspect/dump/render-json.js";

for (const format of ["text", "json"] as const) {
  test(`parallel ${format} dump equals the serial one`, async () => {
    const info = await tinySample();
    const rels = resolveDatabase(info.pgdata, "pgdisk_sample");
    const opts: DumpOptions = { detoast: true };
    const make = (write: (s: string) => void, bytes: (b: Uint8Array) => void) =>
      format === "json" ? new JsonRenderer(write, bytes) : new TextRenderer(write, false, { values: true });
    let serial = "";
    const r1 = make((s) => (serial += s), () => assert.fail("no bytes in a serial dump"));
    const s1 = emptySummary();
    for (const r of rels) for (const e of dumpRelation(r, opts, s1)) r1.event(e as DumpEvent);
    r1.event({ type: "end", summary: s1 });

    let par = "";
    const dec = new TextDecoder();
    const r2 = make((s) => (par += s), (b) => (par += dec.decode(b, { stream: true })));
    const s2 = await dumpParallel(rels, opts, { jobs: 2, format, colour: false, values: true, unitBlocks: 37 }, {
      event: (e) => r2.event(e),
      fragmentBytes: (b, empty, continued) => {
        if (r2 instanceof JsonRenderer) r2.fragmentBytes(b, empty, continued);
        else par += dec.decode(b, { stream: true });
        return true; // decoded (copied): the workers may reuse the buffers
      },
    });
    r2.event({ type: "end", summary: s2 });
    assert.deepEqual(s2, s1);
    assert.ok(s1.pages > 1000);
    assert.equal(par.length, serial.length);
    assert.ok(par === serial, "identical output");
    if (format === "json") assert.equal(JSON.parse(par).summary.pages, s1.pages);
  });
}

test("a parallel COPY dump with TOAST resolved holds ranges of bounded output, equal to the serial dump", async () => {
  const info = await tinySample();
  const rels = resolveDatabase(info.pgdata, "pgdisk_sample").filter((r) => r.rel?.name === "toast_docs");
  assert.equal(rels.length, 1);
  const opts: DumpOptions = { detoast: true };
  const serial = copyOf(rels[0], opts);
  let par = "";
  const dec = new TextDecoder();
  const r2 = new CopyRenderer(new ByteOut(() => {}));
  const stats: ParallelDumpStats = { units: 0, largestUnitBytes: 0, peakWaitingBytes: 0 };
  const unitBytes = 1 << 20;
  await dumpParallel(rels, opts, { jobs: 2, format: "copy", colour: false, values: true, unitBytes }, { event: (e) => r2.event(e), fragmentBytes: (b) => ((par += dec.decode(b, { stream: true })), true) }, stats);
  assert.ok(par === serial, "identical output");
  // 1024-block ranges would make the whole table one range of all its values; sized by the
  // TOAST relation, a range is a few blocks: at most the budget (times the values' compression)
  // and the range's largest block (a block can hold a value of megabytes: the least a range holds)
  const total = Buffer.byteLength(serial);
  assert.ok(total > 8 * unitBytes, `${total} bytes of COPY output`);
  assert.ok(stats.units >= 8, `${stats.units} ranges`);
  let largestBlock = 0;
  const pages = planRelation(rels[0], opts).to;
  for (let b = 0; b < pages; b++) largestBlock = Math.max(largestBlock, Buffer.byteLength(copyOf(rels[0], { ...opts, blocks: { from: b, to: b + 1 } })));
  assert.ok(stats.largestUnitBytes <= 4 * unitBytes + largestBlock, `largest range ${stats.largestUnitBytes} bytes, largest block ${largestBlock}`);
  // what waits to be written: a bounded number of ranges, not the table
  assert.ok(stats.peakWaitingBytes <= 4 * 2 * (4 * unitBytes + largestBlock), `waiting ${stats.peakWaitingBytes} bytes`);
});

/** The serial COPY dump of a relation. */
function copyOf(rel: ResolvedRelation, opts: DumpOptions): string {
  const chunks: Uint8Array[] = [];
  const out = new ByteOut((c) => void chunks.push(c));
  const r = new CopyRenderer(out);
  for (const e of dumpRelation(rel, { ...opts, copyTo: r.writer }, emptySummary(), { records: true })) r.event(e);
  out.flush();
  return Buffer.concat(chunks).toString("utf8");
}
