// The byte renderer over reused page records writes exactly the text the string renderer writes
// for the plain DumpPage objects, on every relation of a real cluster, in every text mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { dumpRelation, emptySummary, type DumpOptions } from "../../inspect/dump/dump.js";
import { resolveDatabase } from "../../inspect/dump/target.js";
import { TextRenderer } from "../../inspect/dump/render-text.js";
import { TextByteRenderer } from "../../inspect/dump/render-text-bytes.js";
import { ByteOut } from "../../inspect/dump/byte-out.js";
import { TEXT_VALUE_CHARS } from "../../inspect/dump/text-values.js";

// textValues: heap values written as value lines during the scan (what `inspect dump` does in
// text mode) instead of DumpValues; preview: values decoded only as far as the text shows them
const modes = [
  { values: true, hex: false, colour: false, textValues: true, preview: true },
  { values: true, hex: false, colour: false, textValues: true, preview: false },
  { values: true, hex: false, colour: false, textValues: false, preview: false },
  { values: false, hex: false, colour: false, textValues: false, preview: false },
  { values: false, hex: true, colour: false, textValues: false, preview: false },
  { values: true, hex: false, colour: true, textValues: true, preview: true },
];

for (const m of modes) {
  test(`byte renderer equals string renderer: values ${m.values}, hex ${m.hex}, colour ${m.colour}, value lines ${m.textValues}, preview ${m.preview}`, async () => {
    const info = await tinySample();
    const rels = resolveDatabase(info.pgdata, "pgdisk_sample", { includeSystem: true });
    const opts: DumpOptions = { detoast: true, values: m.values, hex: m.hex, ...(m.preview ? { previewChars: TEXT_VALUE_CHARS + 1 } : {}) };
    let expected = "";
    const strings = new TextRenderer((s) => (expected += s), m.colour, m);
    const s1 = emptySummary();
    for (const r of rels) for (const e of dumpRelation(r, opts, s1)) strings.event(e);

    const chunks: Uint8Array[] = [];
    const out = new ByteOut((c) => void chunks.push(c), 1 << 16); // small chunks: many buffer turnovers
    const bytes = new TextByteRenderer(out, m.colour, m);
    const s2 = emptySummary();
    for (const r of rels) for (const e of dumpRelation(r, opts, s2, { records: true, textValues: m.textValues })) bytes.event(e);
    out.flush();
    const got = Buffer.concat(chunks).toString("utf8");

    assert.deepEqual(s2, s1);
    assert.ok(s1.items > 10000, `a real workload (${s1.items} items)`);
    if (got !== expected) {
      let i = 0;
      while (got[i] === expected[i]) i++;
      assert.fail(`first difference at char ${i}:\n got: ${JSON.stringify(got.slice(i - 80, i + 80))}\nwant: ${JSON.stringify(expected.slice(i - 80, i + 80))}`);
    }
    if (m.colour) assert.ok(got.includes("\u001b["), "colour codes present");
    else assert.ok(!got.includes("\u001b["), "no colour codes");
    if (!m.values) assert.equal(got.includes("        data "), m.hex, "key bytes only with --hex");
  });
}

test("colour changes nothing but escape codes", async () => {
  const info = await tinySample();
  const rels = resolveDatabase(info.pgdata, "pgdisk_sample");
  const render = (colour: boolean): string => {
    const chunks: Uint8Array[] = [];
    const out = new ByteOut((c) => void chunks.push(c));
    const r = new TextByteRenderer(out, colour, { values: true });
    for (const rel of rels) for (const e of dumpRelation(rel, { detoast: false }, emptySummary(), { records: true })) r.event(e);
    out.flush();
    return Buffer.concat(chunks).toString("utf8");
  };
  // eslint-disable-next-line no-control-regex
  assert.equal(render(true).replace(/\u001b\[[0-9;]*m/g, ""), render(false));
});
