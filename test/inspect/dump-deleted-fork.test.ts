// Two dump cases checked against a real PostgreSQL 15 cluster: deleted B-tree pages (VACUUM after
// a mass delete) hold BTDeletedPageData, not index tuples, so they list no items, as
// bt_page_items shows none; and `--fork fsm|vm` with -d and no -t dumps that fork of every
// relation that has one, never the main fork in its place.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
let srv: PgServer;
/** blocks of the index bt_page_stats calls deleted, each with its bt_page_items row count */
let deleted: { blk: number; items: number }[] = [];
/** relations (schema.name) with an fsm / vm fork, from pg_relation_size */
let withFsm: string[] = [];
let withVm: string[] = [];

function pgdisk(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE EXTENSION pageinspect;
    CREATE TABLE gone (id int) WITH (autovacuum_enabled = off);
    INSERT INTO gone SELECT g FROM generate_series(1, 100000) g;
    CREATE INDEX gone_id_idx ON gone (id);
    DELETE FROM gone WHERE id > 2000;
    VACUUM gone;`);
  const n = Number(srv.rows("SELECT pg_relation_size('gone_id_idx') / 8192")[0][0]);
  deleted = srv
    .rows(`SELECT b, (SELECT count(*) FROM bt_page_items('gone_id_idx', b)) FROM generate_series(1, ${n - 1}) b WHERE (bt_page_stats('gone_id_idx', b)).type IN ('d', 'D')`)
    .map((r) => ({ blk: Number(r[0]), items: Number(r[1]) }));
  const forks = (fork: string): string[] => srv.rows(`SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid >= 16384 AND c.relkind IN ('r','t','i','m','S') AND pg_relation_size(c.oid, '${fork}') > 0 ORDER BY 1`).map((r) => r[0]!);
  withFsm = forks("fsm");
  withVm = forks("vm");
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

test("deleted btree pages list no items, as bt_page_items", () => {
  assert.ok(deleted.length > 100, `deleted pages: ${deleted.length}`);
  assert.ok(deleted.every((d) => d.items === 0));
  const r = pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "gone_id_idx", "--format", "json", "-j", "1");
  assert.equal(r.status, 0, r.stderr);
  const pages = JSON.parse(r.stdout).relations[0].pages as { block: number; kind: string; items: unknown[]; meta?: { safexid: string } }[];
  const dumped = pages.filter((p) => p.kind === "deleted");
  assert.deepEqual(dumped.map((p) => p.block), deleted.map((d) => d.blk));
  for (const p of dumped) {
    assert.deepEqual(p.items, [], `block ${p.block}`);
    assert.match(p.meta!.safexid, /^0:\d+$/);
  }
  // the text dump too
  const text = pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "gone_id_idx", "-b", `${deleted[0].blk}:${deleted[0].blk + 1}`);
  assert.equal(text.status, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /UNUSED/);
});

test("--fork without -t dumps that fork of every relation that has one", () => {
  for (const [fork, expected] of [["fsm", withFsm], ["vm", withVm]] as const) {
    assert.ok(expected.includes("public.gone"), `${fork}: ${expected.join(", ")}`);
    const r = pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "--fork", fork, "--format", "json", "-j", "1");
    assert.equal(r.status, 0, r.stderr);
    const rels = JSON.parse(r.stdout).relations as { target: { relation: string; fork: string; file: string }; pages: { am: string }[] }[];
    assert.deepEqual(rels.map((x) => x.target.relation).sort(), [...expected].sort());
    for (const x of rels) {
      assert.equal(x.target.fork, fork);
      assert.ok(x.target.file.endsWith(`_${fork}`), x.target.file);
      assert.ok(x.pages.every((p) => p.am === fork), `${x.target.relation}: ${[...new Set(x.pages.map((p) => p.am))]}`);
    }
  }
});
