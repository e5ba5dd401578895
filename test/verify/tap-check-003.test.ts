// pg_amcheck's own TAP test src/bin/pg_amcheck/t/003_check.pl, rebuilt offline: three databases
// with five identical schemas of tables, sequences, a view, materialized views, partitions and
// indexes of every access method; then the TAP test's damage: relation files removed (tables,
// matviews, partitions, btree indexes, a TOAST relation, and in s5 a sequence and indexes amcheck
// does not check) and first pages overwritten with its line-pointer words. The oracle is the
// installed pg_amcheck on the very cluster: every relation it finds damaged, pgdisk finds damaged
// the same way (the same missing file; the same heap messages at the same block and offset;
// some error on a damaged btree index), and pgdisk reports no problem on any relation whose files
// were not touched, before the damage in all three databases and after it in every untouched one.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import type { Finding } from "../../formats/schema/errors.js";
import { asAmcheck, overwriteLinePointers, pgdiskFindings, problems } from "./tap-oracle.js";

const DBS = ["db1", "db2", "db3"];
const SCHEMAS = ["s1", "s2", "s3", "s4", "s5"];
/** The TAP test's words, written over the line pointers from byte 32 of block 0 on. */
const DAMAGE_WORDS = [0xaaa15550, 0xaaa0d550, 0x00010000, 0x00008000, 0x0000800f, 0x001e8000, 0xffffffff];
const FIRST_DAMAGED_LP = 3;

/** What the TAP test does to which relation: "remove" its main file, or "corrupt" its first page; "toast" removes its TOAST relation's file. */
const DAMAGE: Record<string, [string, "remove" | "corrupt" | "toast"][]> = {
  db1: [
    ["s1.t1_btree", "remove"], ["s1.t2_btree", "corrupt"],
    ["s2.t1", "remove"], ["s2.t2", "corrupt"],
    ["s3.t1", "remove"], ["s3.t2", "corrupt"], ["s3.t1_mv", "remove"], ["s3.p1_1", "remove"], ["s3.t2_mv", "corrupt"], ["s3.p2_1", "corrupt"], ["s3.t1_btree", "remove"], ["s3.t2_btree", "corrupt"],
    ["s4.t2", "toast"],
    ["s5.seq1", "remove"], ["s5.t1_hash", "remove"], ["s5.t1_gist", "remove"], ["s5.t1_gin", "remove"], ["s5.t1_brin", "remove"], ["s5.t1_spgist", "remove"],
    ["s5.seq2", "corrupt"], ["s5.t2_hash", "corrupt"], ["s5.t2_gist", "corrupt"], ["s5.t2_gin", "corrupt"], ["s5.t2_brin", "corrupt"], ["s5.t2_spgist", "corrupt"],
  ],
  db2: [["s1.t1", "remove"], ["s1.t1_btree", "remove"]],
  db3: [],
};

const schemaSql = (s: string): string => `CREATE SCHEMA ${s};
  CREATE SEQUENCE ${s}.seq1; CREATE SEQUENCE ${s}.seq2;
  CREATE TABLE ${s}.t1 (i integer, b box, ia int4[], ir int4range, t text);
  CREATE TABLE ${s}.t2 (i integer, b box, ia int4[], ir int4range, t text);
  CREATE VIEW ${s}.t2_view AS (SELECT i * 2, t FROM ${s}.t2);
  ALTER TABLE ${s}.t2 ALTER COLUMN t SET STORAGE EXTERNAL;
  INSERT INTO ${s}.t1 (i, b, ia, ir, t) (SELECT gs, box(point(gs, gs + 5), point(gs * 2, gs * 3)), array[gs, gs + 1]::int4[], int4range(gs, gs + 100), repeat('foo', gs) FROM generate_series(1, 10000, 3000) AS gs);
  INSERT INTO ${s}.t2 (i, b, ia, ir, t) (SELECT gs, box(point(gs, gs + 5), point(gs * 2, gs * 3)), array[gs, gs + 1]::int4[], int4range(gs, gs + 100), repeat('foo', gs) FROM generate_series(1, 10000, 3000) AS gs);
  CREATE MATERIALIZED VIEW ${s}.t1_mv AS SELECT * FROM ${s}.t1;
  CREATE MATERIALIZED VIEW ${s}.t2_mv AS SELECT * FROM ${s}.t2;
  CREATE TABLE ${s}.p1 (a int, b int) PARTITION BY list (a);
  CREATE TABLE ${s}.p2 (a int, b int) PARTITION BY list (a);
  CREATE TABLE ${s}.p1_1 PARTITION OF ${s}.p1 FOR VALUES IN (1, 2, 3);
  CREATE TABLE ${s}.p1_2 PARTITION OF ${s}.p1 FOR VALUES IN (4, 5, 6);
  CREATE TABLE ${s}.p2_1 PARTITION OF ${s}.p2 FOR VALUES IN (1, 2, 3);
  CREATE TABLE ${s}.p2_2 PARTITION OF ${s}.p2 FOR VALUES IN (4, 5, 6);
  ${["btree (i)", "hash (i)", "brin (i)", "gist (b)", "gin (ia)", "spgist (ir)"].map((am) => `CREATE INDEX t1_${am.split(" ")[0]} ON ${s}.t1 USING ${am}; CREATE INDEX t2_${am.split(" ")[0]} ON ${s}.t2 USING ${am};`).join("\n  ")}`;

let srv: PgServer;
/** pgdisk's findings per database and relation ("schema.name"), before and after the damage */
const before_: Map<string, Map<string, Finding[]>> = new Map();
const after_: Map<string, Map<string, Finding[]>> = new Map();
/** pg_amcheck's reports per database after the damage: relation -> messages ("block B, offset O: m", or the bare message) */
const amcheck = new Map<string, Map<string, string[]>>();
let amcheckCleanBefore = -1;
/** relations whose files the damage touched, with those that read them (a table's indexes, a TOAST relation's table) */
const touched = new Map<string, Set<string>>();
/** removed files (relative to PGDATA) per database */
const removed = new Map<string, string[]>();

async function pgdiskByRelation(db: string): Promise<Map<string, Finding[]>> {
  return new Map((await pgdiskFindings(srv.pgdata, db)).map((r) => [r.relation, r.findings]));
}

const corruptFirstPage = (path: string): void => overwriteLinePointers(path, DAMAGE_WORDS, FIRST_DAMAGED_LP);

/** pg_amcheck's report lines: `heap table "db.s.t", block 0, offset 3:` or `btree index "db.s.i":`, then the message. */
function parseAmcheck(out: string): Map<string, Map<string, string[]>> {
  const m = new Map<string, Map<string, string[]>>();
  for (const x of out.matchAll(/^(?:heap table|btree index) "([^".]+)\.([^"]+)"(?:, (block \d+, offset \d+(?:, attribute \d+)?))?:\n\s+(.+)$/gm)) {
    const [, db, rel, where, msg] = x;
    if (!m.has(db)) m.set(db, new Map());
    const list = m.get(db)!.get(rel) ?? [];
    list.push(where ? `${where}: ${msg}` : msg);
    m.get(db)!.set(rel, list);
  }
  return m;
}

before(async () => {
  srv = await PgServer.create({ conf: ["autovacuum = off"] });
  for (const db of DBS) {
    srv.sql(`CREATE DATABASE ${db}`);
    srv.sql(`CREATE SCHEMA amcheck_schema; CREATE EXTENSION amcheck WITH SCHEMA amcheck_schema;
      CREATE TABLE amcheck_schema.pg_database (junk text); CREATE TABLE amcheck_schema.pg_namespace (junk text); CREATE TABLE amcheck_schema.pg_class (junk text);
      ${SCHEMAS.map(schemaSql).join("\n")}`, db);
  }
  amcheckCleanBefore = srv.toolResult("pg_amcheck", ["-h", srv.socketDir, "-p", String(srv.port), "-U", "postgres", "-d", "db1", "-d", "db2", "-d", "db3"]).status;
  const plan: { db: string; path: string; how: "remove" | "corrupt" }[] = [];
  for (const db of DBS) {
    const t = new Set<string>();
    for (const [rel, how] of DAMAGE[db]) {
      const target = how === "toast" ? `(SELECT reltoastrelid FROM pg_class WHERE oid = '${rel}'::regclass)` : `'${rel}'::regclass`;
      const [file] = srv.rows(`SELECT pg_relation_filepath(${target})`, db)[0];
      plan.push({ db, path: file!, how: how === "corrupt" ? "corrupt" : "remove" });
      t.add(rel);
      // what reads the damaged files: the table of an index, the indexes of a table, a table's TOAST relation
      for (const [n] of srv.rows(`SELECT n.nspname || '.' || c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE i.indrelid = '${rel}'::regclass`, db)) t.add(n!);
      for (const [n] of srv.rows(`SELECT n.nspname || '.' || c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE i.indexrelid = '${rel}'::regclass`, db)) t.add(n!);
      for (const [n] of srv.rows(`SELECT 'pg_toast.' || t.relname FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.oid = '${rel}'::regclass`, db)) t.add(n!);
      for (const [n] of srv.rows(`SELECT 'pg_toast.' || t.relname FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid JOIN pg_index i ON i.indrelid = t.oid JOIN pg_class x ON x.oid = i.indexrelid WHERE c.oid = '${rel}'::regclass UNION SELECT 'pg_toast.' || x.relname FROM pg_class c JOIN pg_index i ON i.indrelid = c.reltoastrelid JOIN pg_class x ON x.oid = i.indexrelid WHERE c.oid = '${rel}'::regclass`, db)) t.add(n!);
    }
    touched.set(db, t);
  }
  srv.stop();
  for (const db of DBS) before_.set(db, await pgdiskByRelation(db));
  for (const p of plan) {
    const file = join(srv.pgdata, p.path);
    if (p.how === "remove") {
      rmSync(file);
      removed.set(p.db, [...(removed.get(p.db) ?? []), p.path]);
    } else corruptFirstPage(file);
  }
  srv.start();
  const r = srv.toolResult("pg_amcheck", ["-h", srv.socketDir, "-p", String(srv.port), "-U", "postgres", "-d", "db1", "-d", "db2", "-d", "db3"]);
  assert.equal(r.status, 2, `pg_amcheck finds the damage: ${r.stderr}`);
  for (const [db, m] of parseAmcheck(r.stdout)) amcheck.set(db, m);
  srv.stop();
  for (const db of DBS) after_.set(db, await pgdiskByRelation(db));
});
after(() => srv?.destroy());

test("TAP pg_amcheck 003: before the damage, pg_amcheck and pgdisk find nothing in any database", () => {
  assert.equal(amcheckCleanBefore, 0, "pg_amcheck exit status");
  for (const db of DBS) {
    const found = [...before_.get(db)!].flatMap(([rel, fs]) => problems(fs).map((f) => `${db} ${rel}: ${f.code} ${asAmcheck(f)}`));
    assert.deepEqual(found, [], db);
  }
});

test("TAP pg_amcheck 003: every relation pg_amcheck finds damaged, pgdisk finds damaged the same way", () => {
  assert.ok((amcheck.get("db1")?.size ?? 0) >= 8, `pg_amcheck's reports: ${JSON.stringify([...(amcheck.get("db1") ?? [])])}`);
  const missed: string[] = [];
  for (const [db, rels] of amcheck) {
    const ours = [...after_.get(db)!.values()].flat();
    for (const [rel, msgs] of rels) {
      const mine = after_.get(db)!.get(rel) ?? [];
      for (const m of msgs) {
        const file = /could not open file "([^"]+)": No such file or directory/.exec(m)?.[1];
        // a missing file: pgdisk names the same file missing (under whichever relation reads it)
        if (file) {
          if (!ours.some((f) => f.code === "REL_FILE_MISSING" && f.location.file?.endsWith(file))) missed.push(`${db} ${rel}: ${m}`);
        } else if (/lacks a main relation fork/.test(m)) {
          if (!mine.some((f) => f.code === "REL_FILE_MISSING")) missed.push(`${db} ${rel}: ${m}`);
        } else if (/^block \d+, offset \d+/.test(m)) {
          // a heap message at a location: the same words at the same place
          if (!mine.some((f) => asAmcheck(f) === m)) missed.push(`${db} ${rel}: ${m}`);
        } else if (!problems(mine).length) missed.push(`${db} ${rel}: ${m}`);
      }
    }
  }
  assert.deepEqual(missed, [], "pgdisk missed");
});

test("TAP pg_amcheck 003: pgdisk reports every removed file, and no problem on a relation the damage did not touch", () => {
  const wrong: string[] = [];
  for (const db of DBS) {
    const reports = after_.get(db)!;
    const ours = [...reports.values()].flat();
    for (const file of removed.get(db) ?? []) if (!ours.some((f) => f.code === "REL_FILE_MISSING" && f.location.file?.endsWith(file))) wrong.push(`${db}: ${file} not reported missing`);
    for (const [rel, fs] of reports) {
      if (touched.get(db)!.has(rel)) continue;
      for (const f of problems(fs)) wrong.push(`${db} ${rel}: ${f.code} ${f.message}`);
    }
  }
  assert.deepEqual(wrong, []);
});
