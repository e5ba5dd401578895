// A check listed in a report ran; one that could not run is a counted note ("notes: N not
// checked", in text, JSON and JUnit, with its reason), and --fail-on-not-checked fails the run.
// On real clusters: an index verified alone whose table's file is missing, and a text index
// under a non-C (ICU) collation, whose key order pgdisk cannot check offline.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { Damager, infomask, setInfomask } from "./damage.js";
import { HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID, HTH } from "../../formats/heap/tuple-header.js";

const ENTRY = join(import.meta.dirname, "cli-entry.ts");
const ROOT = join(import.meta.dirname, "../..");
const copy = tinySampleCopyForFile();
let srv: PgServer;

function pgdisk(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--no-warnings", ENTRY, "verify", ...args], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

before(async () => {
  srv = await PgServer.create({ checksums: true });
  await srv.sql(`CREATE TABLE words (id int PRIMARY KEY, w text COLLATE "und-x-icu");
    INSERT INTO words SELECT g, md5(g::text) FROM generate_series(1, 2000) g;
    CREATE INDEX words_w_idx ON words (w);
    CHECKPOINT;`);
  await srv.stop();
});
after(() => srv?.destroy());

test("verify -i with the table's file missing: an error, and heapallindexed is not listed as run", async () => {
  const d = new Damager(copy.pgdata, "pgdisk_sample");
  const heap = d.path("web_links");
  renameSync(heap, `${heap}.away`);
  try {
    const run = await runVerify({ pgdata: copy.pgdata, database: "pgdisk_sample", relations: ["web_links_pkey"] }, { jobs: 1 });
    assert.equal(run.reports.length, 1);
    const r = run.reports[0];
    assert.deepEqual(r.checks, ["pages", "btree", "parent"]);
    assert.deepEqual(r.findings.map((f) => [f.code, f.location.file]), [["REL_FILE_MISSING", heap]]);
    assert.equal(run.summary.exitCode, 2);
  } finally {
    renameSync(`${heap}.away`, heap);
  }
});

test("verify -i with the table's pg_class row lost: heapallindexed is a counted note, not listed as run", async () => {
  const d = new Damager(copy.pgdata, "pgdisk_sample");
  const classPath = d.path("pg_class");
  // relname follows the oid at the tuple's data start (t_hoff)
  const rows = d.items(classPath, (p, _dv, x) => new TextDecoder().decode(p.subarray(x.off + p[x.off + HTH.t_hoff] + 4, x.off + p[x.off + HTH.t_hoff] + 14)) === "web_links\0", 100);
  assert.ok(rows.length > 0);
  try {
    // every version of the row: its inserter aborted
    for (const it of rows) d.patch(classPath, it.blk, (_p, dv) => setInfomask(dv, it, (infomask(dv, it) & ~HEAP_XMIN_COMMITTED) | HEAP_XMIN_INVALID));
    const run = await runVerify({ pgdata: copy.pgdata, database: "pgdisk_sample", relations: ["web_links_pkey"] }, { jobs: 1 });
    const r = run.reports.find((x) => x.name === "web_links_pkey")!;
    assert.deepEqual(r.checks, ["pages", "btree", "parent"]);
    assert.deepEqual(r.findings.map((f) => f.code), ["BT_HEAPALLINDEXED_SKIPPED"]);
    assert.match(r.findings[0].message, /its table \(oid \d+\) has no pg_class row$/);
    assert.equal(run.summary.notChecked, 1);
  } finally {
    d.restore();
  }
});

test("a table whose TOAST relation's file is missing: its TOAST check is a counted note, not listed as run", async () => {
  const d = new Damager(copy.pgdata, "pgdisk_sample");
  const toast = d.path(d.toastOf("toast_docs"));
  renameSync(toast, `${toast}.away`);
  try {
    const run = await runVerify({ pgdata: copy.pgdata, database: "pgdisk_sample", relations: ["toast_docs"] }, { jobs: 1, heapallindexed: false });
    const table = run.reports.find((r) => r.name === "toast_docs")!;
    assert.ok(!table.checks.includes("toast"), table.checks.join(", "));
    assert.deepEqual(table.findings.map((f) => f.code), ["TOAST_NOT_CHECKED"]);
    assert.equal(run.summary.notChecked, 1);
    // the TOAST relation itself: its file is missing
    assert.ok(run.reports.some((r) => r.findings.some((f) => f.code === "REL_FILE_MISSING" && f.location.file === toast)));
  } finally {
    renameSync(`${toast}.away`, toast);
  }
});

test("a non-C collation's skipped key order check is counted in text, JSON and JUnit", () => {
  const args = ["--pgdata", srv.pgdata, "-d", "postgres", "-t", "words", "-j", "1"];
  const text = pgdisk(...args);
  assert.equal(text.status, 0, text.stderr);
  // listed without -v, with its reason, and counted on the summary line
  assert.match(text.stdout, /^btree index "postgres\.public\.words_w_idx":\n {4}NOT CHECKED: \[BT_ORDER_NOT_CHECKED\] key order of index "postgres\.public\.words_w_idx" is not checked for w \(text, collation und-x-icu\): no on-disk comparator$/m);
  assert.match(text.stdout, /^pgdisk verify: 5 relations, \d+ pages: 0 errors, 0 warnings, notes: 1 not checked, /m);

  const json = JSON.parse(pgdisk(...args, "--format", "json").stdout);
  assert.equal(json.summary.notChecked, 1);
  assert.equal(json.summary.exitCode, 0);

  const junit = pgdisk(...args, "--format", "junit");
  assert.equal(junit.status, 0);
  assert.match(junit.stdout, /<testsuites name="pgdisk verify \(notes: 1 not checked\)" tests="5" failures="0" errors="0" skipped="1"/);
  assert.match(junit.stdout, /<testcase classname="postgres\.public" name="words_w_idx \(btree\)"[^>]*>\n {6}<skipped message="1 not checked: \[BT_ORDER_NOT_CHECKED\] key order/);
});

test("--fail-on-not-checked turns the note into a failure, exit 2", () => {
  const args = ["--pgdata", srv.pgdata, "-d", "postgres", "-t", "words", "-j", "1", "--fail-on-not-checked"];
  const text = pgdisk(...args);
  assert.equal(text.status, 2, text.stdout);
  assert.match(text.stdout, /notes: 1 not checked/);
  const json = JSON.parse(pgdisk(...args, "--format", "json").stdout);
  assert.equal(json.summary.exitCode, 2);
  const junit = pgdisk(...args, "--format", "junit");
  assert.equal(junit.status, 2);
  assert.match(junit.stdout, /failures="1" errors="0" skipped="0"/);
  assert.match(junit.stdout, /<failure message="1 not checked: \[BT_ORDER_NOT_CHECKED\] key order[^"]*" type="BT_ORDER_NOT_CHECKED">/);
});
