// amcheck's own TAP test contrib/amcheck/t/001_verify_heapam.pl, rebuilt offline: the same table
// (1,000 rows whose text goes to TOAST, a row updated twice under savepoints), the same
// line-pointer damage on its first page (six line pointers overwritten with the TAP test's
// values), the same all-frozen variant and the same sequence. The oracle is verify_heapam of the
// installed amcheck on the very cluster: on the clean relations it reports nothing and pgdisk
// must report no problem; on the damaged page pgdisk must report every problem it reports, at
// the same block and offset, in the same words.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import type { Finding } from "../../formats/schema/errors.js";
import { asAmcheck, overwriteLinePointers, pgdiskFindings, problems, verifyHeapamRows } from "./tap-oracle.js";

/** The TAP test's line pointer words, written from line pointer 3 on (byte 32 of the page). */
const DAMAGE_WORDS = [0xaaa15550, 0xaaa0d550, 0x00010000, 0x00008000, 0x0000800f, 0x001e8000];
const FIRST_DAMAGED_LP = 3;

interface Outcome {
  amcheck: string[];
  pgdisk: Finding[];
}

let srv: PgServer;
const outcomes = new Map<string, Outcome>();

function freshTable(): void {
  srv.sql(`DROP TABLE IF EXISTS test CASCADE;
    CREATE TABLE test (a integer, b text);
    ALTER TABLE test SET (autovacuum_enabled = false);
    ALTER TABLE test ALTER b SET STORAGE external;
    INSERT INTO test (a, b) (SELECT gs, repeat('b', gs * 10) FROM generate_series(1, 1000) gs);
    BEGIN;
    SAVEPOINT s1; SELECT 1 FROM test WHERE a = 42 FOR UPDATE; UPDATE test SET b = b WHERE a = 42; RELEASE s1;
    SAVEPOINT s1; SELECT 1 FROM test WHERE a = 42 FOR UPDATE; UPDATE test SET b = b WHERE a = 42;
    COMMIT;`);
}

const corruptFirstPage = (path: string): void => overwriteLinePointers(path, DAMAGE_WORDS, FIRST_DAMAGED_LP);

/** amcheck's verdict on the running server, then pgdisk's on the stopped cluster; the server is left running. */
async function record(name: string, relation: string, damage?: (path: string) => void): Promise<void> {
  const path = join(srv.pgdata, srv.rows(`SELECT pg_relation_filepath('${relation}')`)[0][0]!);
  srv.stop();
  damage?.(path);
  srv.start();
  const amcheck = verifyHeapamRows(srv, relation);
  srv.stop();
  const pgdisk = (await pgdiskFindings(srv.pgdata, "postgres", [relation])).flatMap((r) => r.findings);
  outcomes.set(name, { amcheck, pgdisk });
  srv.start();
}

before(async () => {
  srv = await PgServer.create({ conf: ["autovacuum = off"] });
  srv.sql("CREATE EXTENSION amcheck");
  freshTable();
  await record("plain", "test");
  freshTable();
  await record("plain corrupted", "test", corruptFirstPage);
  freshTable();
  srv.sql("VACUUM (FREEZE, DISABLE_PAGE_SKIPPING) test");
  await record("all-frozen", "test");
  await record("all-frozen corrupted", "test", corruptFirstPage);
  srv.sql(`CREATE SEQUENCE test_seq INCREMENT BY 13 MINVALUE 17 START WITH 23;
    SELECT nextval('test_seq'); SELECT setval('test_seq', currval('test_seq') + nextval('test_seq'));`);
  await record("sequence", "test_seq");
  srv.sql("SELECT nextval('test_seq')");
  await record("sequence advanced", "test_seq");
  srv.sql("SELECT setval('test_seq', 102)");
  await record("sequence set", "test_seq");
  srv.sql("ALTER SEQUENCE test_seq RESTART WITH 51");
  await record("sequence reset", "test_seq");
  srv.stop();
});
after(() => srv?.destroy());

for (const name of ["plain", "all-frozen", "sequence", "sequence advanced", "sequence set", "sequence reset"]) {
  test(`TAP amcheck 001: ${name}: amcheck and pgdisk find nothing`, () => {
    const o = outcomes.get(name)!;
    assert.deepEqual(o.amcheck, [], "verify_heapam is clean");
    assert.deepEqual(problems(o.pgdisk).map(asAmcheck), [], "pgdisk reports no problem");
  });
}

for (const name of ["plain corrupted", "all-frozen corrupted"]) {
  test(`TAP amcheck 001: ${name}: every problem amcheck reports, pgdisk reports with its location and words`, () => {
    const o = outcomes.get(name)!;
    // the TAP test's five messages, one per line-pointer check
    for (const re of [/redirection to item at offset \d+ precedes minimum offset/, /redirection to item at offset \d+ exceeds maximum offset/, /is not maximally aligned/, /is less than the minimum tuple header size/, /ends beyond maximum page offset/]) {
      assert.ok(o.amcheck.some((m) => re.test(m)), `amcheck reports ${re.source}:\n${o.amcheck.join("\n")}`);
    }
    const ours = new Set(o.pgdisk.map(asAmcheck));
    assert.deepEqual(o.amcheck.filter((a) => !ours.has(a)), [], `pgdisk reported:\n${[...ours].join("\n")}`);
    // and only on the damaged line pointers or what they pointed to: nothing on the rest of the page
    const damaged = new Set(DAMAGE_WORDS.map((_, i) => FIRST_DAMAGED_LP + i));
    assert.deepEqual(problems(o.pgdisk).filter((f) => f.location.block === 0 && f.location.item !== undefined && !damaged.has(f.location.item) && !f.code.startsWith("TOAST_")).map(asAmcheck), []);
  });
}
