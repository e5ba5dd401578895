// The hand-written independent cluster (test/pg/independent.ts) has the shapes it promises.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildIndependentCluster, INDEPENDENT_DB, type IndependentCluster } from "../pg/independent.js";

let c: IndependentCluster;
let parent = "";
let controlData = "";

before(async () => {
  parent = mkdtempSync(join(tmpdir(), "pgdisk-indep-"));
  chmodSync(parent, 0o755);
  c = await buildIndependentCluster(join(parent, "cluster"));
  controlData = c.server.tool("pg_controldata", [c.pgdata]);
  c.server.start();
});
after(() => {
  c?.server.stop();
  rmSync(parent, { recursive: true, force: true });
});

const rel = (schema: string, name: string) => {
  const r = c.relations.find((x) => x.schema === schema && x.name === name);
  assert.ok(r, `${schema}.${name}`);
  return r;
};

test("stopped cleanly", () => {
  assert.match(controlData, /Database cluster state:\s+shut down\n/);
});

test("catalog-heavy: many tables, views, sequences, a matview, partitions, an unlogged table", () => {
  const kinds = (k: string) => c.relations.filter((r) => r.schema === "catalog_heavy" && r.kind === k).length;
  assert.ok(kinds("r") >= 60);
  assert.ok(kinds("v") >= 12);
  assert.ok(kinds("S") >= 10);
  assert.equal(kinds("m"), 1);
  assert.equal(kinds("p"), 2);
  const parts = c.server.rows("SELECT count(*) FROM pg_inherits WHERE inhparent = 'catalog_heavy.readings'::regclass", INDEPENDENT_DB);
  assert.equal(Number(parts[0][0]), 4);
  const scratch = rel("catalog_heavy", "scratch");
  const [[persistence, path]] = c.server.rows("SELECT relpersistence, pg_relation_filepath('catalog_heavy.scratch') FROM pg_class WHERE oid = 'catalog_heavy.scratch'::regclass", INDEPENDENT_DB);
  assert.equal(persistence, "u");
  assert.ok(existsSync(join(c.pgdata, `${path}_init`)), "unlogged table has an init fork");
  assert.equal(scratch.rows, 500);
});

test("rewritten relations: relfilenode differs from oid, for the TOASTed table and its toast", () => {
  const blobs = rel("shapes", "blobs");
  assert.notEqual(blobs.relfilenode, blobs.oid);
  assert.ok(blobs.toast, "blobs has a toast table");
  assert.notEqual(blobs.toast.relfilenode, blobs.toast.oid);
  const [[toasted]] = c.server.rows(`SELECT count(*) FROM pg_toast.pg_toast_${blobs.oid}`, INDEPENDENT_DB);
  assert.ok(Number(toasted) > 0, "toast chunks survive VACUUM FULL");
  for (const n of ["refilled", "clustered"]) assert.notEqual(rel("shapes", n).relfilenode, rel("shapes", n).oid, n);
});

test("odd shapes: zero columns, 120 columns, exotic types", () => {
  assert.equal(rel("shapes", "no_columns").rows, 25);
  const [[natts]] = c.server.rows("SELECT relnatts FROM pg_class WHERE oid = 'shapes.wide'::regclass", INDEPENDENT_DB);
  assert.equal(Number(natts), 121);
  assert.equal(rel("exotic", "things").rows, 60);
  assert.equal(rel("Odd Schema", "Mixed Case Table").rows, 3);
});
