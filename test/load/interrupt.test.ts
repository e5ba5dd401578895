// `pgdisk load` killed (SIGKILL from inside, at named points and after every record of its
// journal, PGDATA/pgdisk_journal). While staging, every file of the cluster is as it was and only
// pgdisk's staging files are added; a new run loads normally. During the switch, a stock server
// refuses to start (pg_control is fenced); `pgdisk load --pgdata DIR` finishes the load from the
// staged files with the bytes of an uninterrupted load (md5, owner and mode of every file), and
// `pgdisk load --abort --pgdata DIR` gives every file its original bytes back, after which the
// server starts as before. The server agrees on the loaded result: the rows, pg_amcheck clean.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { copyRoot, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { assertServerRefuses, fileDigests, migrateCli } from "../migrate/helpers.js";
import { ROOT } from "../toast/cluster-helpers.js";
import { tableDigest } from "./helpers.js";

const DB = "app";
const NEW = 2000;
let srv: PgServer;
let dir = "";
let file = "";
const roots: string[] = [];
/** every file of the cluster before any load, and after an uninterrupted one */
let original: Map<string, string>;
let loaded: Map<string, string>;
let loadedRows: { rows: number; md5: string };
/** journal records of an uninterrupted load */
let records = 0;

/** md5, owner and mode of every file under a data directory by relative path, pgdisk's lock aside. */
function digests(pgdata: string): Map<string, string> {
  const m = new Map([...fileDigests(pgdata)].map(([k, v]) => [k.slice(pgdata.length), v]));
  m.delete("/postmaster.pid");
  return m;
}

function copy(tag: string): string {
  const root = copyRoot(srv.root, tag);
  roots.push(root);
  return join(root, "data");
}

function run(args: string[], fault?: string): { status: number | null; signal: string | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "cli", "main.ts"), "load", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...(fault ? { PGDISK_FAULT_AT: fault } : {}) },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const load = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "-d", DB, "-t", "k", "-q", ...more, file];

/** The server starts on the cluster: `want` rows (the loaded digest when given), pg_amcheck clean. */
function assertServerAgrees(pgdata: string, want: { rows: number; md5?: string }): void {
  const s = PgServer.attach(join(pgdata, ".."));
  s.start();
  try {
    const got = tableDigest(s, DB, "k", "id");
    assert.equal(got.rows, want.rows);
    if (want.md5) assert.equal(got.md5, want.md5);
    const check = s.toolResult("pg_amcheck", [...s.connArgs(DB), "--heapallindexed", "--parent-check"]);
    assert.equal(check.status, 0, check.stdout + check.stderr);
  } finally {
    s.stop();
  }
}

/** While a load is unfinished, a load into another table, pgdisk migrate --in-place and a dry run are refused, saying what to run. */
function assertOthersRefused(pgdata: string, k: number): void {
  const other = run(["--pgdata", pgdata, "-d", DB, "-t", "pg_class", "-q", file]);
  assert.equal(other.status, 1, `record ${k}: a load into another table is refused`);
  assert.match(other.stderr, /JOURNAL_PLAN_MISMATCH.*pgdisk load --abort/s);
  const dry = run([...load(pgdata), "--dry-run"]);
  assert.equal(dry.status, 1, `record ${k}: a dry run is refused`);
  assert.match(dry.stderr, /CLUSTER_JOURNAL_PRESENT.*pgdisk load --pgdata/s);
  const migrate = migrateCli(["--pgdata", pgdata, "--in-place", "--btree", "prefix", "-q"]);
  assert.equal(migrate.status, 1, `record ${k}: migrate --in-place is refused`);
  assert.match(migrate.stderr, /JOURNAL_PLAN_MISMATCH.*pgdisk load --pgdata/s);
}

before(async () => {
  srv = await stoppedCluster(
    `create extension amcheck;
     create table k (id int primary key, v text, n int8);
     create index k_v on k (v);
     insert into k select g, 'v' || (g % 17), g from generate_series(1, 200) g;`,
    { db: DB, checksums: true },
  );
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-int-"));
  chmodSync(dir, 0o755);
  file = join(dir, "rows.tsv");
  writeForPg(file, Array.from({ length: NEW }, (_, i) => `${1000 + i}\tw${i % 31}\t${i * 3}`).join("\n") + "\n");
  original = digests(srv.pgdata);
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("uninterrupted: the switch goes through the journal, which is gone after; pg_control keeps its name; the server agrees", () => {
  const pgdata = copy("int-plain");
  const r = run([...load(pgdata), "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { rows: number; journal: { records: number; resumed: boolean }; control: { action: string } };
  assert.equal(report.rows, NEW);
  assert.equal(report.journal.resumed, false);
  assert.equal(report.control.action, "unchanged");
  records = report.journal.records;
  // plan, fence, unit, at least a heap append and two index files, unit-done, commit
  assert.ok(records >= 8, `${records} journal records`);
  loaded = digests(pgdata);
  assert.deepEqual([...loaded.keys()].filter((k) => /pgdisk/.test(k)), [], "no journal, staging files or originals left");
  assert.equal(loaded.get("/global/pg_control"), original.get("/global/pg_control"), "pg_control as it was");
  const s = PgServer.attach(join(pgdata, ".."));
  s.start();
  loadedRows = tableDigest(s, DB, "k", "id");
  s.stop();
  assert.equal(loadedRows.rows, 200 + NEW);
  assertServerAgrees(pgdata, loadedRows);
});

test("killed while staging: every file as it was, only staging files added; a new run loads the same bytes", () => {
  for (const point of ["load-heap-staged", "load-staged"]) {
    const pgdata = copy(`int-${point}`);
    const r = run(load(pgdata), point);
    assert.equal(r.signal, "SIGKILL", `${point}: ${r.stderr}`);
    const now = digests(pgdata);
    for (const [path, digest] of original) assert.equal(now.get(path), digest, `${point}: ${path}`);
    const added = [...now.keys()].filter((p) => !original.has(p));
    assert.ok(added.length > 0, point);
    for (const p of added) assert.match(p, /\.pgdisk-load$/, `${point}: ${p}`);
    const again = run(load(pgdata));
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(digests(pgdata), loaded, `${point}: the rerun gives the bytes of an uninterrupted load`);
  }
});

test("kill -9 after every journal record: no stock server starts once the fence is up; pgdisk load --pgdata finishes to the same bytes", () => {
  assert.ok(records > 0);
  for (let k = 1; k <= records; k++) {
    const pgdata = copy(`int-kill-${k}`);
    const r = run(load(pgdata), `journal-${k}`);
    assert.equal(r.signal, "SIGKILL", `killed after record ${k}: ${r.stderr}`);
    assert.ok(existsSync(join(pgdata, "pgdisk_journal")), `record ${k}`);
    // record 2 announces the fence, which goes up right after it
    if (k > 2) assertServerRefuses(pgdata, "a cluster whose load switch is under way");
    if (k === 1 || k === 3 || k === records) assertOthersRefused(pgdata, k);
    // the first reruns name no input: the staged files are the load's; the others repeat the command
    const again = run(k % 2 ? ["--pgdata", pgdata, "--json"] : [...load(pgdata), "--json"]);
    assert.equal(again.status, 0, `record ${k}: ${again.stderr}`);
    const report = JSON.parse(again.stdout) as { rows: number; journal: { resumed: boolean } };
    assert.equal(report.rows, NEW);
    assert.equal(report.journal.resumed, true);
    assert.deepEqual(digests(pgdata), loaded, `record ${k}: the resumed load gives the bytes of an uninterrupted one`);
    if (k === records - 1) assertServerAgrees(pgdata, loadedRows);
  }
});

test("kill -9 after every journal record, then --abort: every file has its original bytes, the server starts as before", () => {
  for (let k = 1; k < records; k++) {
    const pgdata = copy(`int-abort-${k}`);
    const r = run(load(pgdata), `journal-${k}`);
    assert.equal(r.signal, "SIGKILL", `killed after record ${k}: ${r.stderr}`);
    const a = run(["--abort", "--pgdata", pgdata]);
    assert.equal(a.status, 0, a.stderr);
    assert.match(a.stdout, /undone, \d+ journal records/);
    assert.deepEqual(digests(pgdata), original, `record ${k}: abort restores every file`);
    if (k === records - 2) assertServerAgrees(pgdata, { rows: 200 });
  }
  // after the commit record there is no way back: abort refuses, the load finishes
  const pgdata = copy("int-abort-committed");
  assert.equal(run(load(pgdata), `journal-${records}`).signal, "SIGKILL");
  const refused = run(["--abort", "--pgdata", pgdata]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /JOURNAL_COMMITTED/);
  assert.equal(run(["--pgdata", pgdata]).status, 0);
  assert.deepEqual(digests(pgdata), loaded);
  const none = run(["--abort", "--pgdata", pgdata]);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /JOURNAL_MISSING/);
});
