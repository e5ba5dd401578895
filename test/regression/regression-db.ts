// The differential suite (test/inspect/differential.ts) on PostgreSQL's own regression database:
// every page header, heap line pointer, tuple header and btree item against pageinspect, every
// value against COPY TO, on a cluster no one here wrote. Not part of the CI suite (building the
// database needs PostgreSQL's source tree and a C compiler): scripts/regression-db.sh builds it
// and runs this file with PGDISK_REGRESSION_PGDATA set to the stopped cluster (copied, never
// changed) and PGDISK_REGRESSION_FOREIGN to the OIDs of the types whose output function is in
// the regression suite's own regress.so.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { differentialSuite } from "../inspect/differential.js";
import { runVerify } from "../../verify/run.js";

const source = process.env.PGDISK_REGRESSION_PGDATA;
if (!source) throw new Error("set PGDISK_REGRESSION_PGDATA to a stopped regression cluster (scripts/regression-db.sh does)");
const foreign = new Set((process.env.PGDISK_REGRESSION_FOREIGN ?? "").split(",").filter(Boolean).map(Number));

differentialSuite(
  async () => {
    const parent = mkdtempSync(join(tmpdir(), "pgdisk-regress-diff-"));
    chmodSync(parent, 0o755);
    execFileSync("cp", ["-a", source, join(parent, "data")]);
    return { root: parent, pgdata: join(parent, "data") };
  },
  { db: "regression", minHeapItems: 100_000, minBtreeItems: 100_000, minRows: 50_000, minToasted: 10, ams: ["btree", "hash", "gist", "gin", "spgist", "brin"], foreignOutputTypes: foreign },
);

// verify as pg_amcheck --heapallindexed --parent-check would run it, and more: every relation of
// every database, indexes of every access method, nothing left "not checked"
test("verify checks every relation of the regression cluster and finds nothing", async () => {
  const run = await runVerify({ pgdata: source }, { jobs: 2 });
  const findings = run.reports.flatMap((r) => r.findings.map((f) => `${r.name}: ${f.code} ${f.message}`));
  assert.deepEqual(findings.slice(0, 20), [], `${findings.length} findings`);
  assert.equal(run.summary.notChecked, 0);
  const ams = new Set(run.reports.map((r) => r.am));
  for (const am of ["heap", "btree", "hash", "gist", "gin", "spgist", "brin", "sequence"]) assert.ok(ams.has(am), `${am} relations verified`);
  const indexes = run.reports.filter((r) => r.am === "btree");
  assert.ok(indexes.length > 500 && indexes.every((r) => r.checks.includes("heapallindexed")), "every btree index probed from its heap");
});
