// While pgdisk converts a cluster, no server starts on the input: pgdisk holds its postmaster.pid
// for the whole run (stopped at a fault point with SIGSTOP here, so the moment is exact), and
// releases it at the end. A lock pgdisk left behind when killed is replaced by the next run; a
// stale lock of a server is refused rather than removed behind the user's back.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { ROOT } from "../toast/cluster-helpers.js";
import { DB, fileDigests, linkedCluster, migrateCli, pgDir, removeDirs, type LinkedCluster } from "./helpers.js";

let c: LinkedCluster;
let work = "";
let digests: Map<string, string>;
const lockFile = (): string => join(c.srv.pgdata, "postmaster.pid");

before(async () => {
  c = await linkedCluster();
  work = pgDir("lock");
  digests = fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);
});
after(() => removeDirs(work, c?.srv.root));

const args = (out: string): string[] => ["toast", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "direct", "--measure", "0", "-q"];

function processState(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0]!;
}

test("a server cannot start on the input while pgdisk converts it; the lock is gone afterwards", async () => {
  const out = join(work, "held", "data");
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test", "toast", "migrate-cli.ts"), ...args(out)], { cwd: ROOT, env: { ...process.env, PGDISK_FAULT_AT: "copied:SIGSTOP" }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  try {
    while (processState(child.pid!) !== "T") await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(lockFile(), "utf8").split("\n")[0], String(child.pid), "pgdisk holds the input's postmaster.pid");
    const srv = PgServer.attach(join(c.srv.pgdata, ".."), { asIs: true });
    const start = srv.toolResult("pg_ctl", ["-D", c.srv.pgdata, "-o", `-p ${srv.port} -k ${srv.socketDir}`, "-l", join(work, "held.log"), "-w", "-t", "30", "start"]);
    assert.notEqual(start.status, 0, "the server must not start");
    assert.match(start.stderr + start.stdout, /postmaster\.pid|lock file/);
    const again = migrateCli(args(join(work, "second", "data")));
    assert.equal(again.status, 1);
    assert.match(again.stderr, /CLUSTER_LOCKED_BY_PGDISK: another pgdisk run \(pid \d+\) is converting/);
  } finally {
    process.kill(child.pid!, "SIGCONT");
  }
  assert.equal(await exited, 0, stderr);
  assert.equal(existsSync(lockFile()), false, "the lock is released");
  assert.deepEqual(fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir), digests);
});

test("pgdisk's own stale lock (a killed run) is replaced; a server's stale lock is refused", () => {
  writeFileSync(lockFile(), `999999999\n${c.srv.pgdata}\npgdisk\n`);
  const r = migrateCli(args(join(work, "stale-pgdisk", "data")));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(existsSync(lockFile()), false);
  writeFileSync(lockFile(), `999999999\n${c.srv.pgdata}\n1700000000\n`);
  const s = migrateCli(args(join(work, "stale-server", "data")));
  assert.equal(s.status, 1);
  assert.match(s.stderr, /CLUSTER_STALE_LOCK: .*names no live process/);
  assert.equal(existsSync(join(work, "stale-server", "data")), false);
  rmSync(lockFile());
  assert.deepEqual(fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir), digests);
});
