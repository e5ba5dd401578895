// MultiXacts from a real server: two sessions share-lock the same rows (a MultiXact of lockers),
// one of them then updates some of them (a MultiXact whose update member is the updater).
// pgdisk reads pg_multixact offsets and members: every updated version's MultiXact names, as
// its update XID, the xmin of the version that replaced it; lock-only MultiXacts have none;
// the cluster verifies clean.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer, pgAvailable } from "../../samples/pg-server.js";
import { PsqlSession } from "../pg/session.js";
import { runVerify } from "../../verify/run.js";
import { MultiXactReader } from "../../verify/heap/multixact.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { HEAP_XMAX_IS_MULTI, HTH } from "../../formats/heap/tuple-header.js";
import { xmaxLockedOnly } from "../../verify/heap/tuple-walk.js";
import { Damager } from "./damage.js";

const DB = "mxdb";
let srv: PgServer | undefined;

before(async () => {
  if (!pgAvailable()) return;
  srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE DATABASE ${DB}`);
  srv.sql("CREATE TABLE parent (id int PRIMARY KEY, v int, pad text); INSERT INTO parent SELECT g, g, repeat('p', 50) FROM generate_series(1, 200) g; CREATE INDEX parent_v ON parent (v);", DB);
  // lockers that roll back: a lock-only MultiXact of aborted members (first: later scans would
  // prune the versions the update below leaves dead)
  const c = new PsqlSession(srv, DB);
  const e = new PsqlSession(srv, DB);
  await c.run("BEGIN; SELECT count(*) FROM (SELECT * FROM parent WHERE id BETWEEN 100 AND 120 FOR SHARE) s;");
  await e.run("BEGIN; SELECT count(*) FROM (SELECT * FROM parent WHERE id BETWEEN 100 AND 120 FOR SHARE) s;");
  await c.run("ROLLBACK;");
  await e.run("ROLLBACK;");
  const a = new PsqlSession(srv, DB);
  const b = new PsqlSession(srv, DB);
  await a.run("BEGIN; SELECT count(*) FROM (SELECT * FROM parent WHERE id <= 40 FOR KEY SHARE) s;");
  await b.run("BEGIN; SELECT count(*) FROM (SELECT * FROM parent WHERE id <= 40 FOR KEY SHARE) s;");
  // B updates rows A also locks: the new xmax is a MultiXact of A's locker and B's update
  await b.run("UPDATE parent SET v = v + 1000 WHERE id <= 20;");
  await a.run("COMMIT;");
  await b.run("COMMIT;");
  for (const s of [a, b, c, e]) s.close();
  srv.sql("CHECKPOINT;", DB);
  srv.stop();
});
after(() => srv?.destroy());

test("MultiXact update members are the xmin of the replacing version", { skip: !pgAvailable() && "PostgreSQL 15 is not installed" }, () => {
  const cluster = new Cluster(srv!.pgdata);
  const cp = cluster.control.control.fields.checkPointCopy;
  assert.ok(cp.nextMulti > 2, `MultiXacts were created (nextMulti ${cp.nextMulti})`);
  const mx = new MultiXactReader(srv!.pgdata, cluster.control.blcksz, cp.nextMulti, cp.nextMultiOffset, cluster.profile.slru);
  const d = new Damager(srv!.pgdata, DB);
  const path = d.path("parent");
  let updated = 0;
  let lockOnly = 0;
  d.items(
    path,
    (page, dv, it) => {
      const im = dv.getUint16(it.off + HTH.t_infomask, true);
      if (!(im & HEAP_XMAX_IS_MULTI)) return false;
      const r = mx.updateXid(dv.getUint32(it.off + HTH.t_xmax, true));
      assert.ok(r.ok, r.ok ? "" : r.why);
      if (xmaxLockedOnly(im)) {
        lockOnly++;
        assert.equal(r.xid, 0, "a lock-only MultiXact has no update member");
        return false;
      }
      updated++;
      // the replacing version is named by t_ctid
      const blk = dv.getUint16(it.off + HTH.t_ctid, true) * 65536 + dv.getUint16(it.off + HTH.t_ctid + 2, true);
      const off = dv.getUint16(it.off + HTH.t_ctid + 4, true);
      const np = blk === it.blk ? page : d.page(path, blk);
      const ndv = new DataView(np.buffer, np.byteOffset, np.byteLength);
      const nt = ndv.getUint32(24 + (off - 1) * 4, true) & 0x7fff;
      assert.equal(r.xid, ndv.getUint32(nt + HTH.t_xmin, true));
      return false;
    },
    Infinity,
  );
  assert.equal(updated, 20);
  assert.ok(lockOnly >= 20, `lock-only MultiXacts: ${lockOnly}`);
});

test("a cluster with MultiXacts verifies clean", { skip: !pgAvailable() && "PostgreSQL 15 is not installed" }, async () => {
  const run = await runVerify({ pgdata: srv!.pgdata, database: DB }, { jobs: 1 });
  const bad = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.name}: ${f.code} ${f.message}`));
  assert.deepEqual(bad, []);
});
