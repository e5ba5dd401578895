// Issue #15, failure 4, and the rest of the pg_upgrade-grade gate (migrate/safety.ts, shared by
// every converter): a single-user backend (postmaster.pid holds the negative of its PID), a
// standby shut down in recovery (with and without standby.signal), a base backup never started
// (backup_label) and a cluster set up for targeted recovery (recovery.signal) are each refused
// with their own code and exit 1, before anything is written; so is a user who could read the
// cluster but could not give the files it writes to the cluster's owner.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PG_BIN, PgServer } from "../../samples/pg-server.js";
import { readControlFile } from "../../formats/catalog/control.js";
import { migrateCli, pgDir, removeDirs } from "./helpers.js";

let primary: PgServer;
let work = "";
let n = 0;

before(async () => {
  primary = await PgServer.create();
  primary.sql("create table t (id int primary key, body text); insert into t select g, repeat('x', 5000) from generate_series(1, 20) g; checkpoint;");
  work = pgDir("gate");
});
after(() => {
  primary?.destroy();
  removeDirs(work);
});

/** Both converters refuse the cluster with this code (exit 1) and create no output. */
function assertRefused(pgdata: string, code: RegExp): void {
  for (const args of [["toast", "-d", "postgres", "--all", "--to", "direct"], ["btree", "-d", "postgres", "--all", "--to", "prefix"]]) {
    const out = join(work, `out${n++}`, "data");
    const r = migrateCli([args[0]!, "--pgdata", pgdata, "--out", out, ...args.slice(1), "-q"]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, code);
    assert.equal(existsSync(out), false, "no output written");
  }
}

function basebackup(dir: string, extra: string[]): string {
  const pgdata = join(dir, "data");
  primary.tool("pg_basebackup", ["-h", primary.socketDir, "-p", String(primary.port), "-U", "postgres", "-D", pgdata, "-X", "stream", ...extra]);
  return pgdata;
}

test("a standby shut down in recovery: refused with standby.signal, and without it", () => {
  const root = pgDir("standby");
  basebackup(root, ["-R"]);
  const standby = PgServer.attach(root);
  standby.start();
  standby.stop();
  assert.equal(readControlFile(standby.pgdata).stateName, "DB_SHUTDOWNED_IN_RECOVERY");
  assertRefused(standby.pgdata, /CLUSTER_STANDBY_SIGNAL: .*standby\.signal is present.*pg_ctl promote/);
  rmSync(join(standby.pgdata, "standby.signal"));
  assertRefused(standby.pgdata, /CLUSTER_IN_RECOVERY: .*shut down while in recovery.*minRecoveryPoint/);
  removeDirs(root);
});

test("a base backup that was never started (backup_label) is refused", () => {
  const root = pgDir("backup");
  const pgdata = basebackup(root, []);
  assert.ok(existsSync(join(pgdata, "backup_label")));
  assertRefused(pgdata, /CLUSTER_BACKUP_LABEL: .*backup_label is present/);
  removeDirs(root);
});

test("a cluster with recovery.signal is refused", () => {
  primary.stop();
  const root = pgDir("recovery");
  execFileSync("cp", ["-a", primary.pgdata, join(root, "data")]);
  writeFileSync(join(root, "data", "recovery.signal"), "");
  assertRefused(join(root, "data"), /CLUSTER_RECOVERY_SIGNAL: .*recovery\.signal is present/);
  removeDirs(root);
  primary.start();
});

test("a single-user backend (negative PID in postmaster.pid) is refused", async () => {
  primary.stop();
  const single = spawn("runuser", ["-u", "postgres", "--", join(PG_BIN, "postgres"), "--single", "-D", primary.pgdata, "postgres"], { stdio: ["pipe", "ignore", "ignore"] });
  const exited = new Promise((r) => single.on("exit", r));
  try {
    const pidFile = join(primary.pgdata, "postmaster.pid");
    // wait for the backend to write its lock file (it does so before reading any input)
    while (!(existsSync(pidFile) && readFileSync(pidFile, "utf8").startsWith("-"))) await new Promise((r) => setTimeout(r, 50));
    assertRefused(primary.pgdata, /CLUSTER_SINGLE_USER_RUNNING: a single-user backend \(postgres --single, pid \d+\)/);
  } finally {
    single.stdin.end();
    await exited;
  }
  primary.start();
});

test("a user who is neither root nor the cluster's owner is refused before anything is written", () => {
  primary.stop();
  const root = pgDir("other-user");
  const pgdata = join(root, "data");
  execFileSync("cp", ["-a", primary.pgdata, pgdata]);
  execFileSync("chmod", ["-R", "a+rX", pgdata]); // readable by anyone, still owned by postgres
  chmodSync(root, 0o777);
  const out = join(root, "out");
  const r = migrateCli(["toast", "--pgdata", pgdata, "--out", out, "-d", "postgres", "--all", "--to", "direct", "-q"], { TMPDIR: root }, "nobody");
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /CLUSTER_OWNER_MISMATCH: .* belongs to uid \d+, but pgdisk runs as uid \d+/);
  assert.equal(existsSync(out), false);
  removeDirs(root);
  primary.start();
});
