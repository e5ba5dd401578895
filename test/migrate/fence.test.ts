// The Direct TOAST detector that decides pg_control's fence name looks at the parent tables'
// pointers (vartag 19), not only at chunk shapes: a direct output whose TOAST heap holds no
// chunk at all (here emptied) is still found, by the table naming the values.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { clusterHasDirectToast } from "../../migrate/control-name.js";
import { migrateCli, pgDir, removeDirs } from "./helpers.js";

let srv: PgServer;
let work = "";
let direct = "";

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql("create table docs (id int primary key, body text); alter table docs alter column body set storage external; insert into docs select g, repeat(md5(g::text), 100) from generate_series(1, 50) g; checkpoint;");
  srv.stop();
  work = pgDir("fence");
  direct = join(work, "direct", "data");
  const r = migrateCli(["toast", "--pgdata", srv.pgdata, "--out", direct, "-d", "postgres", "-t", "docs", "--to", "direct", "--measure", "0", "-q"]);
  assert.equal(r.status, 0, r.stderr);
});
after(() => {
  srv?.destroy();
  removeDirs(work);
});

test("a stock cluster has no Direct TOAST value; a direct one is found by its chunks and, with no chunk left, by its parent pointers", () => {
  assert.deepEqual(clusterHasDirectToast(srv.pgdata), { found: false });
  assert.equal(clusterHasDirectToast(direct).found, true);
  const copy = join(work, "nochunks");
  execFileSync("cp", ["-a", direct, copy]);
  const cat = new Cluster(copy).database("postgres");
  const rel = cat.findRelation("docs");
  truncateSync(cat.path(cat.classes.get(rel.toastRelid)!), 0);
  const found = clusterHasDirectToast(copy);
  assert.equal(found.found, true);
  assert.match(found.where!, /^postgres: public\.docs block \d+$/);
});
