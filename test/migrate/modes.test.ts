// Files pgdisk writes take the cluster's modes, not a fixed 0600: in a group-readable cluster
// (initdb -g: PGDATA 0750, files 0640) every file and directory of the outputs is 0640/0750 and
// owned by the cluster's owner, and PostgreSQL starts on the plain output with no chown or chmod.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { migrateCli, ownersUnder, pgDir, pgIds, removeDirs } from "./helpers.js";

let srv: PgServer;
let work = "";

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql("create table docs (id int primary key, body text); alter table docs alter column body set storage external; insert into docs select g, repeat(md5(g::text), 100) from generate_series(1, 80) g; checkpoint;");
  srv.stop();
  // what initdb -g makes: group may read (PostgreSQL takes its umask from PGDATA's mode)
  execFileSync("find", [srv.pgdata, "-type", "d", "-exec", "chmod", "0750", "{}", "+"]);
  execFileSync("find", [srv.pgdata, "-type", "f", "-exec", "chmod", "0640", "{}", "+"]);
  work = pgDir("modes");
});
after(() => {
  srv?.destroy();
  removeDirs(work);
});

function assertGroupModes(out: string): void {
  const { uid, gid } = pgIds();
  for (const e of ownersUnder(out)) {
    assert.deepEqual([e.uid, e.gid], [uid, gid], e.path);
    if (e.kind === "file") assert.equal(e.mode, 0o640, e.path);
    if (e.kind === "dir") assert.equal(e.mode, 0o750, e.path);
  }
}

test("a group-readable cluster: outputs with 0640 files and 0750 directories, and the server starts on them", () => {
  const direct = join(work, "direct", "data");
  const r = migrateCli(["toast", "--pgdata", srv.pgdata, "--out", direct, "-d", "postgres", "-t", "docs", "--to", "direct", "--measure", "0", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  assertGroupModes(direct);
  const plain = join(work, "plain", "data");
  const b = migrateCli(["toast", "--pgdata", direct, "--out", plain, "-d", "postgres", "-t", "docs", "--to", "plain", "--measure", "0", "-q"]);
  assert.equal(b.status, 0, b.stderr);
  assertGroupModes(plain);
  const out = PgServer.attach(join(plain, ".."), { asIs: true });
  out.start();
  try {
    assert.equal(out.sql("select count(*), sum(length(body)) from docs").trim(), "80\t256000");
  } finally {
    out.stop();
  }
});
