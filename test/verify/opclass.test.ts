// The order of an index's keys is checked with the comparator of the ORDER proc its operator
// family names in pg_amproc, never one guessed from the key type: a healthy index built with a
// user's descending int4 opclass gives no false order errors, and an index whose user comparator
// was swapped after the build (pg_amcheck's 005_opclass_damage.pl) is a note, not "clean".
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../pg/server.js";
import { runVerify } from "../../verify/run.js";

const DB = "opc";
let srv: PgServer;

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE DATABASE ${DB}`);
  srv.sql(
    `CREATE EXTENSION amcheck;
     CREATE FUNCTION int4_desc_cmp(int4, int4) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT btint4cmp($2, $1)';
     CREATE OPERATOR CLASS int4_desc_ops FOR TYPE int4 USING btree AS
       OPERATOR 1 >, OPERATOR 2 >=, OPERATOR 3 =, OPERATOR 4 <=, OPERATOR 5 <, FUNCTION 1 int4_desc_cmp(int4, int4);
     CREATE FUNCTION int4_asc_cmp(a int4, b int4) RETURNS int LANGUAGE sql IMMUTABLE AS $$
       SELECT CASE WHEN $1 = $2 THEN 0 WHEN $1 > $2 THEN 1 ELSE -1 END $$;
     CREATE OPERATOR CLASS int4_fickle_ops FOR TYPE int4 USING btree AS
       OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 int4_asc_cmp(int4, int4);
     CREATE TABLE t (i int4 NOT NULL, j int4 NOT NULL);
     INSERT INTO t SELECT g, (g * 7919) % 10007 FROM generate_series(1, 10000) g;
     CREATE INDEX t_desc_idx ON t (i int4_desc_ops);
     CREATE INDEX t_fickle_idx ON t (j int4_fickle_ops);
     CREATE INDEX t_plain_idx ON t (j);
     -- 005_opclass_damage.pl: the comparator is swapped after the index was built
     CREATE OR REPLACE FUNCTION int4_asc_cmp(a int4, b int4) RETURNS int LANGUAGE sql IMMUTABLE AS $$
       SELECT CASE WHEN $1 = $2 THEN 0 WHEN $1 > $2 THEN -1 ELSE 1 END $$;`,
    DB,
  );
  // the server's own verdict on the three indexes
  assert.equal(srv.sql("SELECT bt_index_check('t_desc_idx', true)", DB).trim(), "");
  assert.equal(srv.sql("SELECT bt_index_check('t_plain_idx', true)", DB).trim(), "");
  assert.throws(() => srv.sql("SELECT bt_index_check('t_fickle_idx', true)", DB), /item order invariant violated/);
  srv.stop();
});
after(() => srv?.stop());

async function findingsOf(index: string): Promise<{ code: string; message: string }[]> {
  const run = await runVerify({ pgdata: srv.pgdata, database: DB, relations: [index] }, { jobs: 1 });
  return run.reports.filter((r) => r.name.endsWith(index)).flatMap((r) => r.findings);
}

test("a user's descending opclass: no false order errors, the order is a note", async () => {
  const f = await findingsOf("t_desc_idx");
  assert.deepEqual(f.filter((x) => x.code !== "BT_ORDER_NOT_CHECKED"), []);
  const note = f.find((x) => x.code === "BT_ORDER_NOT_CHECKED");
  assert.ok(note, "the unchecked order is reported");
  assert.match(note.message, /i \(int4, ORDER proc \d+ is not one pgdisk implements\)/);
});

test("a swapped user comparator (005_opclass_damage.pl) is not reported clean", async () => {
  const f = await findingsOf("t_fickle_idx");
  assert.ok(f.some((x) => x.code === "BT_ORDER_NOT_CHECKED" && /ORDER proc \d+ is not one pgdisk implements/.test(x.message)), JSON.stringify(f));
});

test("a built-in opclass is still checked: no note, no finding", async () => {
  assert.deepEqual(await findingsOf("t_plain_idx"), []);
});
