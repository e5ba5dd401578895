// `pgdisk load` killed (SIGKILL from inside, at named points): before the switch, every file of
// the cluster is as it was and only pgdisk's own staging files and lock are added, and a new run
// loads normally; during the switch, the recorded plan (PGDATA/pgdisk-load.plan.json) run again
// with applyPlan completes the load: the server starts, the rows are there, pg_amcheck is clean.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { copyRoot, removeRoot, stoppedCluster } from "../nbtree/build-helpers.js";
import { fileDigests } from "../migrate/helpers.js";
import { ROOT } from "../toast/cluster-helpers.js";
import { applyPlan, readPlanFile } from "../../migrate/load/plan.js";
import { LOAD_PLAN_FILE } from "../../migrate/load/engine.js";

const DB = "app";
const NEW = 2000;
let srv: PgServer;
let dir = "";
let file = "";
const roots: string[] = [];

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
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(pgdata: string, fault?: string): { status: number | null; signal: string | null; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "cli", "main.ts"), "load", "--pgdata", pgdata, "-d", DB, "-t", "k", "-q", file], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...(fault ? { PGDISK_FAULT_AT: fault } : {}) },
  });
  return { status: r.status, signal: r.signal, stderr: r.stderr };
}

function assertLoaded(root: string): void {
  const s = PgServer.attach(root);
  s.start();
  try {
    assert.deepEqual(s.rows("select count(*), count(distinct id), sum(n) from k", DB), [[String(200 + NEW), String(200 + NEW), String((200 * 201) / 2 + (3 * NEW * (NEW - 1)) / 2)]]);
    assert.deepEqual(s.rows("select count(*) from k where v = 'w5'", DB), [[String(Math.ceil((NEW - 5) / 31))]]);
    const check = s.toolResult("pg_amcheck", [...s.connArgs(DB), "--heapallindexed", "--parent-check"]);
    assert.equal(check.status, 0, check.stdout + check.stderr);
  } finally {
    s.stop();
  }
}

test("killed before the switch: every file as it was, only staging files added; a new run loads", () => {
  const root = copyRoot(srv.root, "int-staged");
  roots.push(root);
  const pgdata = join(root, "data");
  const beforeKill = fileDigests(pgdata);
  const r = run(pgdata, "load-staged");
  assert.equal(r.signal, "SIGKILL", r.stderr);
  const afterKill = fileDigests(pgdata);
  for (const [path, digest] of beforeKill) assert.equal(afterKill.get(path), digest, path);
  const added = [...afterKill.keys()].filter((p) => !beforeKill.has(p));
  assert.ok(added.length > 0);
  for (const p of added) assert.match(p, /\.pgdisk-(load|tmp)$|\/postmaster\.pid$/, p);
  assert.equal(existsSync(join(pgdata, LOAD_PLAN_FILE)), false);
  const again = run(pgdata);
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual([...fileDigests(pgdata).keys()].filter((p) => /\.pgdisk-|pgdisk-load\.plan|postmaster\.pid$/.test(p)), []);
  assertLoaded(root);
});

test("killed during the switch: the recorded plan, applied again, completes the load", () => {
  const root = copyRoot(srv.root, "int-switch");
  roots.push(root);
  const pgdata = join(root, "data");
  const r = run(pgdata, "load-switching");
  assert.equal(r.signal, "SIGKILL", r.stderr);
  const planFile = join(pgdata, LOAD_PLAN_FILE);
  const plan = readPlanFile(planFile);
  // the heap append (the first step) is done, the index replacements not yet
  const first = plan.steps[0]!;
  assert.equal(first.kind, "append-file");
  if (first.kind === "append-file") assert.equal(statSync(first.target).size, first.originalLength + first.length);
  assert.ok(plan.steps.slice(1).some((s) => s.kind === "replace-file" && existsSync(s.temp)));
  applyPlan(plan);
  applyPlan(plan); // idempotent: a second run changes nothing
  rmSync(planFile);
  rmSync(join(pgdata, "postmaster.pid"));
  assert.deepEqual([...fileDigests(pgdata).keys()].filter((p) => /\.pgdisk-/.test(p)), []);
  assertLoaded(root);
});
