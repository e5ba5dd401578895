// Issue #15, failure 2: an interrupted conversion never leaves an output a stock server starts
// on. pgdisk is killed (SIGKILL, from inside at named points, so the point is exact) while
// copying, after the copy, after a relation, and just before the fence comes down: each time
// `pg_ctl start` on the output fails, naming pgdisk's PG_VERSION fence (or, killed before PG_VERSION was copied, saying it is no cluster directory), and pgdisk
// refuses the output as an input. SIGINT and SIGTERM stop cleanly instead: exit 128 + signal, a
// message, and the output (its tablespace directory included) removed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { DB, fileDigests, linkedCluster, migrateCli, pgDir, removeDirs, type LinkedCluster } from "./helpers.js";

let c: LinkedCluster;
let work = "";
let digests: Map<string, string>;

before(async () => {
  c = await linkedCluster();
  work = pgDir("interrupt");
  digests = fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);
});
after(() => removeDirs(work, c?.srv.root));

const toastArgs = (out: string): string[] => ["toast", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "direct", "--measure", "0", "-q"];
const btreeArgs = (out: string): string[] => ["btree", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "plain", "-q"];

for (const point of ["copy-started", "copied", "toast-heap-committed", "relation-done", "before-unfence"]) {
  test(`kill -9 at ${point}: a stock server refuses to start on the output, and pgdisk refuses it as an input`, () => {
    for (const [kind, args] of [["toast", toastArgs], ["btree", btreeArgs]] as const) {
      if (point === "toast-heap-committed" && kind === "btree") continue; // a point of migrate toast only
      const root = pgDir(`kill-${point}-${kind}`);
      const out = join(root, "data");
      const r = migrateCli(args(out), { PGDISK_FAULT_AT: point });
      assert.equal(r.signal, "SIGKILL", `${kind}: killed at ${point} (status ${r.status}: ${r.stderr})`);
      assert.ok(existsSync(join(out, "PGDISK_INCOMPLETE")), "the marker says the output is incomplete");
      const srv = PgServer.attach(root, { asIs: true });
      const log = join(root, "start.log");
      const start = srv.toolResult("pg_ctl", ["-D", out, "-o", `-p ${srv.port} -k ${srv.socketDir}`, "-l", log, "-w", "-t", "30", "start"]);
      assert.notEqual(start.status, 0, `${kind} at ${point}: the server must not start`);
      const why = (existsSync(log) ? readFileSync(log, "utf8") : "") + start.stderr + start.stdout;
      // the fence of PG_VERSION (copied first, fenced at once), or no PG_VERSION yet
      assert.match(why, point === "copy-started" ? /not a database cluster directory/ : /version 0-pgdisk-fenced:\d+:/, why);
      if (point !== "copy-started") {
        const again = migrateCli(toastArgs(join(root, "again")).map((a) => (a === c.srv.pgdata ? out : a)));
        assert.equal(again.status, 1);
        assert.match(again.stderr, /CLUSTER_INCOMPLETE_OUTPUT: .*did not finish writing/);
      }
      removeDirs(root, `${out}.tblspc`);
      // the input's lock outlives a kill -9: pgdisk's (third line), replaced by the next run (lock.test.ts)
      const lock = join(c.srv.pgdata, "postmaster.pid");
      assert.equal(readFileSync(lock, "utf8").split("\n")[2], "pgdisk");
      rmSync(lock);
    }
    assert.deepEqual(fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir), digests, "the input is unchanged");
  });
}

for (const [signal, point, status] of [["SIGINT", "copied", 130], ["SIGTERM", "relation-done", 143], ["SIGINT", "copy-started", 130]] as const) {
  test(`${signal} at ${point}: a clean stop, exit ${status}, the output and its tablespace directory removed`, () => {
    for (const args of [toastArgs, btreeArgs]) {
      const root = pgDir(`sig-${point}`);
      const out = join(root, "data");
      const r = migrateCli(args(out), { PGDISK_FAULT_AT: `${point}:${signal}` });
      assert.equal(r.status, status, r.stderr);
      assert.match(r.stderr, new RegExp(`${signal} received: stopping`));
      assert.match(r.stderr, /INTERRUPTED: stopped by .*was removed/s);
      assert.equal(existsSync(out), false);
      assert.equal(existsSync(`${out}.tblspc`), false);
      removeDirs(root);
    }
  });
}
