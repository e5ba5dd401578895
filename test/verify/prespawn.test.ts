// `pgdisk verify` starts its worker threads before loading the rest of the CLI (prespawn.ts):
// how many it starts for which arguments, and that the real binary's runs use them (the report
// says how many threads ran) or leave them without keeping the process alive (one thread, a
// bare relation file, an error).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { readdirSync } from "node:fs";
import { workersFor } from "../../verify/prespawn.js";
import { tinySample } from "../fixtures/sample.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");

test("workers to start: one per core but the main thread's, or per -j/--jobs", () => {
  const cores = Math.max(1, availableParallelism());
  assert.equal(workersFor(["--pgdata", "x"]), cores - 1);
  assert.equal(workersFor(["--pgdata", "x", "-j", "3"]), 2);
  assert.equal(workersFor(["-j4", "--pgdata", "x"]), 3);
  assert.equal(workersFor(["--jobs", "1"]), 0);
  assert.equal(workersFor(["--jobs=5"]), 4);
  assert.equal(workersFor(["--jobs", "--pgdata"]), cores - 1); // not a number: the default
});

test("the binary's verify runs use the started workers, or exit without them", async () => {
  const s = await tinySample();
  const run = (...args: string[]) => spawnSync(BIN, ["verify", ...args], { encoding: "utf8", timeout: 120_000 });
  const three = run("--pgdata", s.pgdata, "--jobs", "3", "--format", "json");
  assert.equal(three.status, 0, three.stderr);
  const report = JSON.parse(three.stdout) as { summary: { workers: number; errors: number }; relations: unknown[] };
  assert.equal(report.summary.workers, 3);
  assert.equal(report.summary.errors, 0);
  const one = run("--pgdata", s.pgdata, "--jobs", "1", "--format", "json");
  assert.equal(one.status, 0, one.stderr);
  assert.equal((JSON.parse(one.stdout) as { relations: unknown[] }).relations.length, report.relations.length);
  // workers started for nothing: a bare file, a bad data directory
  const db = join(s.pgdata, "base", readdirSync(join(s.pgdata, "base")).sort().at(-1)!);
  const file = join(db, readdirSync(db).find((f) => /^\d+$/.test(f))!);
  const bare = run(file, "--jobs", "2");
  assert.equal(bare.status, 0, bare.stderr);
  const bad = run("--pgdata", join(s.pgdata, "no-such-dir"), "--jobs", "2");
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /CLUSTER_NOT_FOUND/);
});
