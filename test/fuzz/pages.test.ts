// The fuzz campaign's seeded budget (samples/fuzz): structure-aware mutations of the tiny
// sample's pages, read by dump, verify and browse's engine. Any failure is
// printed minimised, ready to become a case in regressions.test.ts. bench/fuzz runs the long one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { fuzzTargets, failedEntry, minimise, runCampaign } from "../../samples/fuzz/campaign.js";
import { fuzzControlFiles } from "../../samples/fuzz/control-files.js";

const sample = tinySampleCopyForFile();
const ROUNDS = Number(process.env.PGDISK_FUZZ_ROUNDS ?? 60);
const SEED = Number(process.env.PGDISK_FUZZ_SEED ?? 20261201);

test(`fuzz: ${ROUNDS} rounds of mutated pages, no reader fails`, { timeout: 900_000 }, async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  const targets = fuzzTargets(o.pgdata, o.database);
  assert.ok(targets.some((t) => t.kind === "btree") && targets.some((t) => t.rel.kind === "t") && targets.some((t) => t.rel.kind === "r"), "heap, TOAST and B-tree targets");
  const r = await runCampaign({ ...o, seed: SEED, rounds: ROUNDS, blocksPerRound: 16, rssLimitBytes: 2 * 2 ** 30 });
  const reports: string[] = [];
  for (const f of r.failures.slice(0, 5)) {
    const target = targets.find((t) => t.name === f.relation)!;
    const entry = failedEntry(f);
    const m = entry ? await minimise(o, target, entry, f.blocks) : null;
    reports.push(`${f.entry} on ${f.relation}, seed ${f.seed} round ${f.round}\n${JSON.stringify(m?.blocks ?? f.blocks)}\n${(m?.error ?? f.error).slice(0, 1500)}`);
  }
  assert.deepEqual(reports, [], `${r.failures.length} failures`);
  assert.equal(r.rounds, ROUNDS);
  assert.ok(r.pages >= ROUNDS, `${r.pages} mutated pages`);
  // the mutations reach the checks: findings of several kinds, not only checksum failures
  assert.ok(r.findings.size >= 10, `finding codes: ${[...r.findings.keys()].join(" ")}`);
});

test("fuzz: 300 mutated pg_control and pg_filenode.map files, no reader fails", () => {
  const r = fuzzControlFiles({ pgdata: sample.pgdata, database: "pgdisk_sample", seed: SEED, rounds: 300 });
  assert.deepEqual(r.failures.slice(0, 3).map((f) => `round ${f.round} ${f.file} ${JSON.stringify(f.patches)} crc fixed ${f.crcFixed}\n${f.error.slice(0, 1200)}`), []);
  // the mutations reach past the CRC check: decoders refuse values, not only checksums
  assert.ok([...r.errors.keys()].some((c) => c !== "CONTROL_BAD_CRC" && c !== "RELMAP_BAD_CRC"), `error codes: ${[...r.errors.keys()].join(" ")}`);
});
