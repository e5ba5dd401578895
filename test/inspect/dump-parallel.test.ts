// The worker-thread dump writes exactly what the serial dump writes (text and JSON), in order,
// with the same summary, on a real cluster's relations cut into many small block ranges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { dumpRelation, emptySummary, type DumpEvent, type DumpOptions } from "../../inspect/dump/dump.js";
import { dumpParallel } from "../../inspect/dump/parallel.js";
import { resolveDatabase } from "../../inspect/dump/target.js";
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
    const r2 = make((s) => (par += s), (b) => (par += dec.decode(b)));
    const s2 = await dumpParallel(rels, opts, { jobs: 2, format, colour: false, values: true, unitBlocks: 37 }, {
      event: (e) => r2.event(e),
      fragmentBytes: (b, empty) => {
        if (r2 instanceof JsonRenderer) r2.fragmentBytes(b, empty);
        else par += dec.decode(b);
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
