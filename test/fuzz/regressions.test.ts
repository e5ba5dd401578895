// Failures the fuzzer found, minimised (bench/fuzz/run.ts prints them in this form), replayed
// through every entry point on the tiny sample. The sample's pages are the same on every build
// (test/samples/determinism.test.ts), so a patch lands on the same bytes each time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ControlFileData } from "../../formats/storage/control-file.js";
import { crc32c } from "../../formats/storage/crc32c.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { ENTRY_POINTS, fuzzTargets, openDescriptors, patchedFile, runEntry, type BlockPatches } from "../../samples/fuzz/campaign.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { itemIdWord, pageView } from "../../formats/page/page.js";
import { lpOff } from "../../formats/page/item-id.js";

interface Case {
  found: string;
  relation: string;
  blocks: BlockPatches[];
  /** finding codes the damage must be reported with */
  reported?: string[];
}

const CASES: Case[] = [
  {
    found: "seed 20261201 round 132: tsvector lexeme with invalid UTF-8 threw TypeError from a fatal TextDecoder",
    relation: "archive.places",
    blocks: [{ block: 80, patches: [{ offset: 1427, bytes: [225], what: "item 16 attr 9 bytes" }], checksum: true }],
  },
  {
    found: "seed 20261201 round 131: the same, reached through a random byte",
    relation: "archive.places",
    blocks: [{ block: 89, patches: [{ offset: 4160, bytes: [226], what: "random bytes" }], checksum: true }],
  },
  {
    found: "catalog seed 2 round 193: a pg_index row with a NULL indkey made heapallindexed throw a TypeError (Int32Array.from(null))",
    relation: "pg_catalog.pg_index",
    blocks: [{ block: 1, patches: [{ offset: 3264, bytes: [127], what: "item 51 null bitmap" }], checksum: true }],
    reported: ["CATALOG_INDEX_ROW_INVALID"],
  },
  {
    found: "catalog seed 2 round 253: a pg_index row naming a column its table lacks made heapallindexed throw a TypeError",
    relation: "pg_catalog.pg_index",
    blocks: [{ block: 2, patches: [{ offset: 3672, bytes: [0], what: "random bytes" }], checksum: false }],
    reported: ["CATALOG_INDEX_ROW_INVALID", "PAGE_CHECKSUM_MISMATCH"],
  },
  {
    found: "catalog seed 20261201 round 17: pg_attribute rows of a GIN index lost to a damaged page made the GIN key plan throw a TypeError",
    relation: "pg_catalog.pg_attribute",
    blocks: [{ block: 67, patches: [{ offset: 10, bytes: [18, 167], what: "header.pd_flags" }], checksum: true }],
  },
];

const sample = tinySampleCopyForFile();

for (const c of CASES) {
  test(`fuzz regression: ${c.relation}, ${c.found}`, async () => {
    const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
    const target = fuzzTargets(o.pgdata, o.database).find((t) => t.name === c.relation)!;
    const original = new Uint8Array(readFileSync(target.path));
    const patched = patchedFile(original, c.blocks);
    for (const b of c.blocks) for (const p of b.patches) assert.notDeepEqual([...original.subarray(b.block * 8192 + p.offset, b.block * 8192 + p.offset + p.bytes.length)], p.bytes, "the patch changes the page");
    writeFileSync(target.path, patched);
    try {
      const tally = { errors: new Map<string, number>(), findings: new Map<string, number>() };
      for (const entry of ENTRY_POINTS) assert.equal(await runEntry(entry, o, target, c.blocks.map((b) => b.block), tally), null, entry);
      for (const code of c.reported ?? []) assert.ok(tally.findings.has(code), `${code} reported; findings: ${[...tally.findings.keys()].join(" ")}`);
    } finally {
      writeFileSync(target.path, original);
    }
  });
}

test("fuzz regression: a dump with TOAST resolved closes the TOAST relation's files (EMFILE after ~500 rounds)", async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  const target = fuzzTargets(o.pgdata, o.database).find((t) => t.name === "toast_docs")!;
  const tally = { errors: new Map<string, number>(), findings: new Map<string, number>() };
  const before = openDescriptors();
  for (let i = 0; i < 20; i++) for (const entry of ENTRY_POINTS) assert.equal(await runEntry(entry, o, target, [0, 2, 4], tally), null);
  assert.equal(openDescriptors() - before, 0, "file descriptors left open");
  assert.ok(before > 0, "/proc/self/fd is readable");
});

test("fuzz regression: pg_control saying BLCKSZ 23 (CRC right) is refused, not a RangeError in the catalog reader", () => {
  const file = join(sample.pgdata, "global", "pg_control");
  const original = readFileSync(file);
  const bytes = new Uint8Array(original);
  const dv = new DataView(bytes.buffer);
  dv.setUint32(ControlFileData.offsets.blcksz, 23, true);
  dv.setUint32(ControlFileData.offsets.crc, crc32c(bytes.subarray(0, ControlFileData.offsets.crc)), true);
  writeFileSync(file, bytes);
  try {
    assert.throws(() => new Cluster(sample.pgdata).database("pgdisk_sample"), (e: unknown) => e instanceof FormatError && e.code === "CONTROL_BAD_GEOMETRY" && /block size 23/.test(e.message));
  } finally {
    writeFileSync(file, original);
  }
});

test("fuzz regression: browse closes a relation's file when the damaged catalog cannot describe it (catalog seed 1 round 1)", async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  const targets = fuzzTargets(o.pgdata, o.database);
  const attribute = targets.find((t) => t.name === "pg_catalog.pg_attribute")!;
  assert.ok(attribute.catalog, "pg_attribute is a catalog target");
  const original = new Uint8Array(readFileSync(attribute.path));
  // t_hoff of the first tuple of block 0 past the tuple: pg_attribute cannot be read whole
  const damaged = original.slice();
  damaged[lpOff(itemIdWord(pageView(damaged.subarray(0, 8192)), 1)) + HTH.t_hoff] = 0xf8;
  writeFileSync(attribute.path, damaged);
  try {
    const tally = { errors: new Map<string, number>(), findings: new Map<string, number>() };
    const before = openDescriptors();
    for (const name of ["toast_docs", "web_links_pkey"]) {
      const through = targets.find((t) => t.name === name)!;
      for (const entry of ENTRY_POINTS) assert.equal(await runEntry(entry, o, attribute, [0], tally, through), null, entry);
    }
    assert.ok(tally.errors.has("HEAP_BAD_T_HOFF"), `errors: ${[...tally.errors.keys()].join(" ")}`);
    assert.equal(openDescriptors() - before, 0, "file descriptors left open");
  } finally {
    writeFileSync(attribute.path, original);
  }
});
