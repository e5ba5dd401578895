// Text dumps decode long values only in part: on every value of a real cluster, the preview is
// a prefix of the full text, longer than the limit when cut (with the full length when it is
// announced), and the full text otherwise.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { dumpRelation, emptySummary } from "../../inspect/dump/dump.js";
import { resolveDatabase } from "../../inspect/dump/target.js";
import type { DumpValue } from "../../inspect/dump/model.js";

function values(rels: ReturnType<typeof resolveDatabase>, previewChars?: number): DumpValue[] {
  const out: DumpValue[] = [];
  for (const r of rels) {
    for (const e of dumpRelation(r, { detoast: true, previewChars }, emptySummary())) {
      if (e.type !== "page") continue;
      for (const it of e.page.items) for (const v of it.heap?.values ?? []) out.push(v);
    }
  }
  return out;
}

test("value previews are exact prefixes of the full text", async () => {
  const info = await tinySample();
  const rels = resolveDatabase(info.pgdata, "pgdisk_sample").filter((r) => r.rel?.kind !== "i");
  const limit = 40;
  const full = values(rels);
  const cut = values(rels, limit);
  assert.equal(cut.length, full.length);
  let truncated = 0;
  let withLength = 0;
  const kinds = new Set<string>();
  for (let i = 0; i < full.length; i++) {
    const f = full[i]!;
    const c = cut[i]!;
    assert.equal(c.name, f.name);
    if (f.value === undefined) {
      assert.equal(c.value, undefined);
      continue;
    }
    assert.ok(f.value.startsWith(c.value!), `${f.name} (${f.type}): preview is a prefix`);
    if (c.truncated) {
      truncated++;
      kinds.add(f.type);
      assert.ok(c.value!.length > limit, `${f.name}: a cut preview is longer than the limit`);
      assert.ok(f.value.length > c.value!.length, `${f.name}: the full text is longer`);
      if (c.fullLength !== undefined) {
        withLength++;
        assert.equal(c.fullLength, f.value.length, `${f.name} (${f.type}): the announced length is the full text's`);
      }
    } else assert.equal(c.value, f.value, `${f.name} (${f.type}): uncut previews are the whole text`);
  }
  assert.ok(truncated > 100, `many long values cut (${truncated})`);
  assert.ok(withLength > 50, `bytea and character values announce their length (${withLength})`);
  // bytea, character types, jsonb and arrays all take the short path in the sample
  for (const t of ["text", "bytea", "jsonb"]) assert.ok(kinds.has(t), `${t} values were cut: ${[...kinds].join(", ")}`);
  assert.ok([...kinds].some((t) => t.endsWith("[]")), `arrays were cut: ${[...kinds].join(", ")}`);
});
