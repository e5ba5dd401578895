// The key order of a B-tree index is its operator family's support function 1 (pg_amproc), not
// a guess from the opclass's input type: on a real PostgreSQL 15 cluster, a healthy index with a
// user-defined descending int4 opclass (amcheck: clean) gets no order errors, and an index whose
// comparison function was swapped after the build (pg_amcheck's 005_opclass_damage.pl; amcheck:
// corrupt) does not pass as checked: both get a counted BT_ORDER_NOT_CHECKED naming the function.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";

let srv: PgServer;
let amcheckFickle = "";

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE EXTENSION amcheck;
    CREATE FUNCTION int4_desc_cmp(int4, int4) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN $1 < $2 THEN 1 WHEN $1 > $2 THEN -1 ELSE 0 END $$;
    CREATE OPERATOR CLASS int4_desc_ops FOR TYPE int4 USING btree AS
      OPERATOR 1 > (int4, int4), OPERATOR 2 >= (int4, int4), OPERATOR 3 = (int4, int4), OPERATOR 4 <= (int4, int4), OPERATOR 5 < (int4, int4),
      FUNCTION 1 int4_desc_cmp(int4, int4);
    CREATE TABLE descending (x int4);
    INSERT INTO descending SELECT g FROM generate_series(1, 50000) g;
    CREATE INDEX descending_x_idx ON descending (x int4_desc_ops);
    SELECT bt_index_parent_check('descending_x_idx', true, true);

    CREATE FUNCTION int4_asc_cmp(a int4, b int4) RETURNS int LANGUAGE sql AS $$ SELECT CASE WHEN $1 = $2 THEN 0 WHEN $1 > $2 THEN 1 ELSE -1 END $$;
    CREATE OPERATOR CLASS int4_fickle_ops FOR TYPE int4 USING btree AS
      OPERATOR 1 < (int4, int4), OPERATOR 2 <= (int4, int4), OPERATOR 3 = (int4, int4), OPERATOR 4 >= (int4, int4), OPERATOR 5 > (int4, int4),
      FUNCTION 1 int4_asc_cmp(int4, int4);
    CREATE TABLE int4tbl (i int4);
    INSERT INTO int4tbl SELECT g FROM generate_series(1, 1000) g;
    CREATE INDEX fickleidx ON int4tbl USING btree (i int4_fickle_ops);
    CREATE OR REPLACE FUNCTION int4_asc_cmp(a int4, b int4) RETURNS int LANGUAGE sql AS $$ SELECT CASE WHEN $1 = $2 THEN 0 WHEN $1 > $2 THEN -1 ELSE 1 END $$;`);
  try {
    srv.sql("SELECT bt_index_check('fickleidx', true)");
  } catch (e) {
    amcheckFickle = String((e as Error).message);
  }
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

test("a user-defined descending opclass: no false order errors, a counted note", async () => {
  const run = await runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["descending"] }, { jobs: 1 });
  const idx = run.reports.find((r) => r.name === "descending_x_idx")!;
  assert.deepEqual(idx.findings.filter((f) => f.severity !== "info"), []);
  const note = idx.findings.find((f) => f.code === "BT_ORDER_NOT_CHECKED")!;
  assert.match(note.message, /is not checked for x \(int4, support function 1 is function \d+, not one pgdisk implements\)/);
  assert.equal(run.summary.exitCode, 0);
  assert.equal(run.summary.notChecked, 1);
});

test("a swapped comparison function (005_opclass_damage.pl): amcheck says corrupt, pgdisk does not pass it as checked", async () => {
  assert.match(amcheckFickle, /invariant violated/);
  const run = await runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["fickleidx"] }, { jobs: 1, failOnNotChecked: true });
  const idx = run.reports[0];
  assert.ok(idx.findings.some((f) => f.code === "BT_ORDER_NOT_CHECKED"), JSON.stringify(idx.findings));
  assert.equal(run.summary.exitCode, 2); // --fail-on-not-checked
});
