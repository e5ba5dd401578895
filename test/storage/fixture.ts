// A PostgreSQL 15 cluster with data checksums and a database whose tables have visibility map and
// free space map forks in varied states, for the storage tests. Each test file builds its own.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";

export const DB = "storagedb";

/**
 * Tables:
 *  t_small  3000 rows, every 7th deleted, VACUUM: all-visible pages with varied free space.
 *  t_frozen VACUUM FREEZE: all-visible and all-frozen.
 *  t_mixed  VACUUM, then updates/deletes on some pages: VM bits cleared there.
 *  t_wide   fillfactor 10, > 32672 heap blocks: two VM pages and nine FSM leaf pages;
 *           deletes in bands and updates after VACUUM so both VM pages and several FSM leaves vary.
 *  t_unlogged  unlogged, with an index: _init forks (the index's holds a metapage).
 *  t_novac  never vacuumed (no VM fork).
 * pg_class and pg_database are rewritten (VACUUM FULL) so that the relation maps move.
 */
export async function buildCluster(): Promise<PgServer> {
  const srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE DATABASE ${DB}`);
  srv.sql(
    `
CREATE EXTENSION pg_visibility;
CREATE EXTENSION pg_freespacemap;
CREATE TABLE t_small (id int PRIMARY KEY, pad text);
INSERT INTO t_small SELECT g, repeat('s', 100 + g % 50) FROM generate_series(1, 3000) g;
DELETE FROM t_small WHERE id % 7 = 0 OR (id BETWEEN 1000 AND 1400);
VACUUM t_small;
CREATE TABLE t_frozen (id int, pad text);
INSERT INTO t_frozen SELECT g, repeat('f', 200) FROM generate_series(1, 2000) g;
VACUUM FREEZE t_frozen;
CREATE TABLE t_mixed (id int, pad text);
INSERT INTO t_mixed SELECT g, repeat('m', 80) FROM generate_series(1, 5000) g;
VACUUM t_mixed;
UPDATE t_mixed SET pad = 'changed' WHERE id % 500 = 0;
DELETE FROM t_mixed WHERE id BETWEEN 2000 AND 2100;
CREATE TABLE t_wide (id int) WITH (fillfactor = 10, autovacuum_enabled = off);
INSERT INTO t_wide SELECT g FROM generate_series(1, 780000) g;
DELETE FROM t_wide WHERE (id BETWEEN 100000 AND 140000 AND id % 3 = 0) OR (id BETWEEN 700000 AND 730000 AND id % 2 = 0) OR id % 9973 = 0;
VACUUM t_wide;
UPDATE t_wide SET id = -id WHERE id % 50021 = 0;
CREATE UNLOGGED TABLE t_unlogged (id int PRIMARY KEY, pad text);
INSERT INTO t_unlogged SELECT g, repeat('u', 300) FROM generate_series(1, 2000) g;
DELETE FROM t_unlogged WHERE id % 4 = 0;
VACUUM t_unlogged;
CREATE TABLE t_novac (id int);
INSERT INTO t_novac SELECT generate_series(1, 10);
VACUUM FULL pg_class;
CHECKPOINT;
`,
    DB,
  );
  srv.sql("VACUUM FULL pg_database; CHECKPOINT;");
  return srv;
}

/** A relation fork's bytes, segments concatenated (empty when the fork does not exist). */
export function readFork(path: string): Uint8Array {
  if (!existsSync(path)) return new Uint8Array(0);
  const parts: Uint8Array[] = [readFileSync(path)];
  for (let seg = 1; existsSync(`${path}.${seg}`); seg++) parts.push(readFileSync(`${path}.${seg}`));
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Relation data files (main/fsm/vm/init forks, any segment) under pgdata/global and pgdata/base. */
export function relationFiles(pgdata: string): { path: string; segno: number }[] {
  const out: { path: string; segno: number }[] = [];
  const dirs = [join(pgdata, "global"), ...readdirSync(join(pgdata, "base")).map((d) => join(pgdata, "base", d))];
  for (const dir of dirs) {
    for (const name of readdirSync(dir).sort()) {
      const m = /^\d+(?:_(?:fsm|vm|init))?(?:\.(\d+))?$/.exec(name);
      if (m) out.push({ path: join(dir, name), segno: m[1] ? Number(m[1]) : 0 });
    }
  }
  return out;
}
