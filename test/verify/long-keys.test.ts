// heapallindexed on keys stored compressed inline whose raw size passes what the 13-bit size
// field of t_info can hold (8,191 bytes): index_form_tuple compresses such keys in the index,
// the heap holds them compressed too, and both sides of the comparison are normalised to the
// raw value. On a real PostgreSQL 15 cluster (pg_amcheck: clean), raw keys of 8,172 and 8,173
// bytes (a normal form of 8,184 and 8,192 bytes), 10,000 and 36,036 bytes verify clean; with
// one key changed behind the index's back, the finding sits under the index, located in it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";

let srv: PgServer;
const LENGTHS = [8172, 8173, 10000, 36036];

before(async () => {
  srv = await PgServer.create({ checksums: true });
  // repeat() of a short pattern compresses well: heap and index both keep it compressed inline
  const rows = LENGTHS.map((n, i) => `(${i + 1}, left(repeat('pgdisk-long-key-' || ${i}, ${Math.ceil(n / 17) + 1}), ${n}))`).join(", ");
  await srv.sql(`CREATE TABLE long_keys (id int PRIMARY KEY, v text);
    INSERT INTO long_keys VALUES ${rows};
    CREATE INDEX long_keys_v_idx ON long_keys (v);
    CREATE EXTENSION amcheck;`);
  const lens = await srv.rows(`SELECT octet_length(v) AS raw, pg_column_size(v) AS stored FROM long_keys ORDER BY id`);
  assert.deepEqual(lens.map((r) => Number(r[0])), LENGTHS);
  assert.ok(lens.every((r) => Number(r[1]) < 2000), `stored compressed inline: ${JSON.stringify(lens)}`);
  await srv.sql(`SELECT bt_index_parent_check('long_keys_v_idx', true, true)`); // amcheck: clean
  await srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

test("long compressed inline keys: heapallindexed is clean, plain and exact", async () => {
  for (const exactHeapallindexed of [false, true]) {
    const run = await runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["long_keys"] }, { jobs: 1, exactHeapallindexed });
    const bad = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.name}: ${f.code} ${f.message}`));
    assert.deepEqual(bad, [], `exact: ${exactHeapallindexed}`);
    const idx = run.reports.find((r) => r.name === "long_keys_v_idx")!;
    assert.ok(idx.checks.includes("heapallindexed"));
    assert.equal(idx.stats.heapTuplesProbed, LENGTHS.length);
  }
});
