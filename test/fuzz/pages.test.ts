// The fuzz campaign's seeded budget (samples/fuzz): structure-aware mutations of the tiny
// sample's pages (user relations and system catalogs), read by dump, verify, browse's engine,
// the listing and value reading, and in rounds of their own by the converters. Any failure is
// printed minimised, ready to become a case in regressions.test.ts. bench/fuzz runs the long one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { fuzzTargets, failedEntry, minimise, runCampaign, type FuzzFailure } from "../../samples/fuzz/campaign.js";
import { fuzzControlFiles } from "../../samples/fuzz/control-files.js";

const sample = tinySampleCopyForFile();
const ROUNDS = Number(process.env.PGDISK_FUZZ_ROUNDS ?? 60);
const SEED = Number(process.env.PGDISK_FUZZ_SEED ?? 20261201);
const CATALOG_ROUNDS = Number(process.env.PGDISK_FUZZ_CATALOG_ROUNDS ?? 20);
const CONVERTER_ROUNDS = Number(process.env.PGDISK_FUZZ_CONVERTER_ROUNDS ?? 12);

test(`fuzz: ${ROUNDS} rounds of mutated pages, no reader fails`, { timeout: 900_000 }, async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  const targets = fuzzTargets(o.pgdata, o.database);
  assert.ok(targets.some((t) => t.kind === "btree") && targets.some((t) => t.rel.kind === "t") && targets.some((t) => t.rel.kind === "r"), "heap, TOAST and B-tree targets");
  const r = await runCampaign({ ...o, seed: SEED, rounds: ROUNDS, blocksPerRound: 16, rssLimitBytes: 2 * 2 ** 30 });
  assert.deepEqual(await failureReports(o, r.failures), [], `${r.failures.length} failures`);
  assert.equal(r.rounds, ROUNDS);
  assert.ok(r.pages >= ROUNDS, `${r.pages} mutated pages`);
  // the mutations reach the checks: findings of several kinds, not only checksum failures
  assert.ok(r.findings.size >= 10, `finding codes: ${[...r.findings.keys()].join(" ")}`);
});

test(`fuzz: ${CATALOG_ROUNDS} rounds of mutated catalog pages, no reader fails`, { timeout: 900_000 }, async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  const catalogs = fuzzTargets(o.pgdata, o.database).filter((t) => t.catalog);
  // the catalogs the offline catalog is built from (pg_enum is empty in the sample: no pages)
  for (const name of ["pg_class", "pg_attribute", "pg_type", "pg_namespace", "pg_index", "pg_am", "pg_database", "pg_opclass", "pg_amproc", "pg_collation"]) assert.ok(catalogs.some((t) => t.name === `pg_catalog.${name}`), name);
  const r = await runCampaign({ ...o, seed: SEED, rounds: CATALOG_ROUNDS, blocksPerRound: 16, rssLimitBytes: 2 * 2 ** 30, catalogsOnly: true });
  assert.deepEqual(await failureReports(o, r.failures), [], `${r.failures.length} failures`);
  assert.equal(r.rounds, CATALOG_ROUNDS);
  // damage is reported: verify's catalog findings, and precise errors of the strict readers
  assert.ok(r.findings.has("CATALOG_TUPLE_UNREADABLE"), `finding codes: ${[...r.findings.keys()].join(" ")}`);
  assert.ok(r.errors.size >= 2, `error codes: ${[...r.errors.keys()].join(" ")}`);
});

test(`fuzz: ${CONVERTER_ROUNDS} rounds read by the writers too (migrate toast, migrate btree into an output copy, load --dry-run)`, { timeout: 900_000 }, async () => {
  const o = { pgdata: sample.pgdata, database: "pgdisk_sample" };
  // two blocks a round: damage the page checks let through reaches the converters' own reading
  const r = await runCampaign({ ...o, seed: SEED, rounds: CONVERTER_ROUNDS, blocksPerRound: 2, rssLimitBytes: 2 * 2 ** 30, converters: true });
  assert.deepEqual(await failureReports(o, r.failures), [], `${r.failures.length} failures`);
  // every writer ran on damaged input: refused it (no output left), or converted (loaded) what it read
  const ran = [...r.conversions.keys()].join(", ");
  assert.ok(ran.includes("migrate-toast") && ran.includes("migrate-btree") && ran.includes("load "), `writer runs: ${ran}`);
});

/** The first failures, minimised where an entry point failed: ready for regressions.test.ts. */
async function failureReports(o: { pgdata: string; database: string }, failures: FuzzFailure[]): Promise<string[]> {
  const targets = fuzzTargets(o.pgdata, o.database);
  const reports: string[] = [];
  for (const f of failures.slice(0, 5)) {
    const target = targets.find((t) => t.name === f.relation)!;
    const through = targets.find((t) => t.name === f.through);
    const entry = failedEntry(f);
    const m = entry ? await minimise(o, target, entry, f.blocks, through) : null;
    reports.push(`${f.entry} on ${f.relation}${through ? ` (through ${through.name})` : ""}, seed ${f.seed} round ${f.round}\n${JSON.stringify(m?.blocks ?? f.blocks)}\n${(m?.error ?? f.error).slice(0, 1500)}`);
  }
  return reports;
}

test("fuzz: 300 mutated pg_control and pg_filenode.map files, no reader fails", () => {
  const r = fuzzControlFiles({ pgdata: sample.pgdata, database: "pgdisk_sample", seed: SEED, rounds: 300 });
  assert.deepEqual(r.failures.slice(0, 3).map((f) => `round ${f.round} ${f.file} ${JSON.stringify(f.patches)} crc fixed ${f.crcFixed}\n${f.error.slice(0, 1200)}`), []);
  // the mutations reach past the CRC check: decoders refuse values, not only checksums
  assert.ok([...r.errors.keys()].some((c) => c !== "CONTROL_BAD_CRC" && c !== "RELMAP_BAD_CRC"), `error codes: ${[...r.errors.keys()].join(" ")}`);
});
