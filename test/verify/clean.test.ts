// A clean PostgreSQL 15 cluster verifies clean: every table, index, TOAST relation and system
// catalog of every database of the tiny sample (dead tuples, HOT chains and redirects in
// accounts, pglz/lz4 values, every index AM), with all checks on, gives no error and no
// warning; the only notes are the checks that cannot apply, and each is named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";

test("the tiny sample cluster verifies clean, all relations, all checks", async () => {
  const s = await tinySample();
  const run = await runVerify({ pgdata: s.pgdata }, { jobs: 2 });
  const bad = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.database}.${r.name}: ${f.code} ${f.message}`));
  assert.deepEqual(bad, []);
  assert.equal(run.summary.exitCode, 0);
  const notes = run.reports.flatMap((r) => r.findings.map((f) => `${r.name}: ${f.code}`));
  // GIN indexes get the entry and posting tree checks, hash, BRIN, GiST, SP-GiST and sequences their structure checks; the expression ((doc->>'status')) and the partial
  // (status = 'error') index are evaluated offline, so heapallindexed runs on them too
  assert.ok(notes.every((n) => /: REL_NOT_CHECKED_AM$/.test(n)), notes.join("\n"));
  for (const n of ["web_links_doc_status_idx", "web_links_errors_idx"]) assert.ok(run.reports.find((r) => r.name === n)!.checks.includes("heapallindexed"), n);
  const am = new Set(run.reports.filter((r) => r.findings.some((f) => f.code === "REL_NOT_CHECKED_AM")).map((r) => r.am));
  assert.deepEqual([...am].sort(), []);
  const gins = run.reports.filter((r) => r.am === "gin");
  assert.ok(gins.length > 0 && gins.every((r) => r.checks.includes("gin") && r.stats.heapTids! > 0), "GIN indexes checked");
  for (const a of ["hash", "brin", "gist", "spgist"]) {
    const rs = run.reports.filter((r) => r.am === a);
    assert.ok(rs.length > 0 && rs.every((r) => r.checks.includes(a)), a);
  }

  const dbs = new Set(run.reports.map((r) => r.database));
  assert.deepEqual([...dbs].sort(), ["pgdisk_sample", "postgres", "template0", "template1"]);
  const heaps = run.reports.filter((r) => r.am === "heap");
  assert.ok(heaps.every((r) => r.checks.includes("heap")));
  assert.ok(heaps.some((r) => r.relkind === "t") && heaps.some((r) => r.schema === "pg_catalog"), "TOAST relations and catalogs");
  const btrees = run.reports.filter((r) => r.am === "btree");
  assert.ok(btrees.length > 400);
  assert.ok(btrees.every((r) => r.checks.includes("btree") && r.checks.includes("parent")));
  assert.equal(btrees.filter((r) => r.checks.includes("heapallindexed")).length, btrees.length);
  const get = (name: string) => run.reports.find((r) => r.database === "pgdisk_sample" && r.name === name)!;
  assert.ok(get("toast_docs").stats.toastValues >= 20, "TOAST values followed");
  assert.ok(get("accounts").stats.tuples > get("accounts_pkey").stats.heapTuplesProbed, "dead versions are checked but not probed");
  assert.ok(get("web_links_status_idx").stats.indexEntries! > get("web_links_status_idx").stats.leafTuples!, "posting lists split for heapallindexed");
});
