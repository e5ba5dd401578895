// amcheck's own TAP tests of indexes built by CREATE INDEX CONCURRENTLY, rebuilt offline:
// contrib/amcheck/t/002_cic.pl (pgbench inserting while CIC drops and rebuilds the index; CIC
// skipping a row deleted while another transaction is open) and t/003_cic_2pc.pl (CIC
// overlapping prepared transactions, a prepared transaction spanning a restart and one that
// stays prepared for good, pgbench with 2PC, CIC and REINDEX CONCURRENTLY). There is no damage:
// amcheck's bt_index_check / bt_index_parent_check with heapallindexed passes on the server, and
// pgdisk verify (heapallindexed on) must report no problem on the stopped cluster either.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { PsqlSession } from "../pg/session.js";
import { asAmcheck, pgdiskFindings, problems } from "./tap-oracle.js";
import type { Finding } from "../../formats/schema/errors.js";

interface Outcome {
  /** amcheck's check ran without an error */
  amcheckOk: boolean;
  pgdisk: Finding[];
  /** relations pgdisk checked, with the checks that ran ("public.idx: pages btree parent heapallindexed") */
  relations: string[];
}

const servers: PgServer[] = [];
const outcomes = new Map<string, Outcome>();

/** An advisory lock keeps one CIC at a time (two would deadlock), as in the TAP tests. */
const CIC_SCRIPT = `SELECT pg_try_advisory_lock(42)::integer AS gotlock \\gset
\\if :gotlock
  DROP INDEX CONCURRENTLY idx;
  CREATE INDEX CONCURRENTLY idx ON tbl(i);
  SELECT bt_index_check('idx', true);
  SELECT pg_advisory_unlock(42);
\\endif
`;

/** pgbench, 5 clients, 100 transactions, the given scripts (name -> text). */
function pgbench(srv: PgServer, scripts: Record<string, string>): void {
  const files = Object.entries(scripts).map(([name, text]) => {
    const f = join(srv.root, `${name}.sql`);
    writeForPg(f, text);
    return f;
  });
  const out = srv.tool("pgbench", ["--no-vacuum", "--client=5", "--transactions=100", ...files.flatMap((f) => ["-f", f]), "-h", srv.socketDir, "-p", String(srv.port), "-U", "postgres", "postgres"]);
  assert.match(out, /actually processed/);
}

function amcheckPasses(srv: PgServer, call: string): boolean {
  return srv.toolResult("psql", ["-X", "-v", "ON_ERROR_STOP=1", ...srv.connArgs(), "-c", `SELECT ${call}`]).status === 0;
}

/** Stop the server and verify the relations with pgdisk (heapallindexed on). */
async function record(srv: PgServer, name: string, amcheckOk: boolean, relations: string[]): Promise<void> {
  srv.stop();
  const reports = await pgdiskFindings(srv.pgdata, "postgres", relations);
  outcomes.set(name, { amcheckOk, pgdisk: reports.flatMap((r) => r.findings), relations: reports.map((r) => `${r.relation}: ${r.checks.join(" ")}`) });
  srv.start();
}

before(async () => {
  // 002_cic.pl
  const a = await PgServer.create({ conf: ["lock_timeout = 180000"] });
  servers.push(a);
  a.sql("CREATE EXTENSION amcheck; CREATE TABLE tbl (i int); CREATE INDEX idx ON tbl (i);");
  pgbench(a, {
    insert: "BEGIN;\nINSERT INTO tbl VALUES(0);\nCOMMIT;\n",
    insert_savepoint: "BEGIN;\nSAVEPOINT s1;\nINSERT INTO tbl VALUES(0);\nCOMMIT;\n",
    cic: CIC_SCRIPT,
  });
  await record(a, "002: CIC under concurrent inserts", amcheckPasses(a, "bt_index_check('idx', true)"), ["public.tbl"]);
  a.sql("CREATE TABLE quebec (i int PRIMARY KEY); INSERT INTO quebec SELECT i FROM generate_series(1, 2) s(i);");
  const open = new PsqlSession(a);
  await open.run("BEGIN; SELECT pg_current_xact_id();");
  a.sql("DELETE FROM quebec WHERE i = 1;");
  // the index build skips the row deleted while the transaction above is open
  a.sql("CREATE INDEX CONCURRENTLY oscar ON quebec (i);");
  const parentOk = amcheckPasses(a, "bt_index_parent_check('oscar', heapallindexed => true)");
  await open.close();
  await record(a, "002: CIC after a row deleted under an open transaction", parentOk, ["public.quebec"]);
  a.stop();

  // 003_cic_2pc.pl
  const b = await PgServer.create({ conf: ["max_prepared_transactions = 10", "lock_timeout = 180000"] });
  servers.push(b);
  b.sql("CREATE EXTENSION amcheck; CREATE TABLE tbl (i int);");
  const main = new PsqlSession(b);
  await main.run("BEGIN; INSERT INTO tbl VALUES(0);");
  const cic = new PsqlSession(b);
  // CIC waits for the open transaction; the prepared ones below overlap it
  cic.send("CREATE INDEX CONCURRENTLY idx ON tbl(i);");
  await main.run("PREPARE TRANSACTION 'a';");
  await main.run("BEGIN; INSERT INTO tbl VALUES(0);");
  b.sql("COMMIT PREPARED 'a';");
  await main.run("PREPARE TRANSACTION 'b'; BEGIN; INSERT INTO tbl VALUES(0);");
  b.sql("COMMIT PREPARED 'b';");
  await main.run("PREPARE TRANSACTION 'c'; COMMIT PREPARED 'c';");
  assert.equal(await main.close(), 0, main.output);
  assert.equal(await cic.close(), 0, cic.output);
  await record(b, "003: CIC overlapping prepared transactions", amcheckPasses(b, "bt_index_check('idx', true)"), ["public.tbl"]);
  b.sql(`BEGIN; INSERT INTO tbl VALUES(0); PREPARE TRANSACTION 'spans_restart';
    BEGIN; CREATE TABLE unused (); PREPARE TRANSACTION 'persists_forever';`);
  b.stop();
  b.start();
  const reindex = new PsqlSession(b);
  reindex.send("DROP INDEX CONCURRENTLY idx; CREATE INDEX CONCURRENTLY idx ON tbl(i);");
  b.sql("COMMIT PREPARED 'spans_restart';");
  assert.equal(await reindex.close(), 0, reindex.output);
  // 'persists_forever' stays prepared: an in-progress transaction in the stopped cluster
  await record(b, "003: CIC after a prepared transaction spans a restart", amcheckPasses(b, "bt_index_check('idx', true)"), ["public.tbl"]);
  b.sql("REINDEX TABLE tbl;");
  pgbench(b, {
    twopc: "BEGIN;\nINSERT INTO tbl VALUES(0);\nPREPARE TRANSACTION 'c:client_id';\nCOMMIT PREPARED 'c:client_id';\n",
    twopc_savepoint: "BEGIN;\nSAVEPOINT s1;\nINSERT INTO tbl VALUES(0);\nPREPARE TRANSACTION 'c:client_id';\nCOMMIT PREPARED 'c:client_id';\n",
    cic: CIC_SCRIPT,
    ric: "SELECT pg_try_advisory_lock(42)::integer AS gotlock \\gset\n\\if :gotlock\n  REINDEX INDEX CONCURRENTLY idx;\n  SELECT bt_index_check('idx', true);\n  SELECT pg_advisory_unlock(42);\n\\endif\n",
  });
  await record(b, "003: pgbench with 2PC, CIC and REINDEX CONCURRENTLY", amcheckPasses(b, "bt_index_check('idx', true)"), ["public.tbl"]);
  b.stop();
});
after(() => {
  for (const s of servers) s.destroy();
});

for (const name of [
  "002: CIC under concurrent inserts",
  "002: CIC after a row deleted under an open transaction",
  "003: CIC overlapping prepared transactions",
  "003: CIC after a prepared transaction spans a restart",
  "003: pgbench with 2PC, CIC and REINDEX CONCURRENTLY",
]) {
  test(`TAP amcheck ${name}: amcheck passes the index, and pgdisk reports no problem`, () => {
    const o = outcomes.get(name)!;
    assert.ok(o.amcheckOk, "amcheck with heapallindexed passes on the server");
    // the table and its index were both checked, heapallindexed included
    assert.ok(o.relations.some((r) => /heapallindexed/.test(r)), `checked: ${o.relations.join(", ")}`);
    assert.deepEqual(problems(o.pgdisk).map((f) => `${f.code} ${asAmcheck(f)}`), []);
  });
}
