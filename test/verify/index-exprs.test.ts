// heapallindexed on expression and partial indexes: the stored trees (pg_index.indexprs,
// indpred) are evaluated offline (formats/expr) for every live heap tuple. On a real
// PostgreSQL 15 cluster (amcheck with heapallindexed: clean) every supported index is checked,
// with as many heap tuples probed as the server counts rows in its predicate; an expression
// outside the evaluator is one counted note naming it; a value changed behind the index's back
// (so that its expression, or its predicate, now gives another answer) is found.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";

let srv: PgServer;
/** index name -> the rows of its predicate (the server's count) */
const expected = new Map<string, number>();
let heapFile = "";

const INDEXES: [name: string, def: string, where: string][] = [
  ["x_lower", "lower(b)", ""],
  ["x_upper_partial", "upper(b)", "a > 3 AND b IS NOT NULL"],
  ["x_arith_concat", "(a + 1), (b || '-x')", "b = 'same' OR a IS NULL"],
  ["x_jsonb_text", "(j->>'k')", ""],
  ["x_jsonb_path", "(j #>> '{n,m}')", ""],
  ["x_jsonb_obj", "(j->'n')", ""],
  ["x_coalesce", "coalesce(b, 'none'), id", ""],
  ["x_mixed", "id, (a * 2)", "NOT (a < 10) AND b <> 'skip-me'"],
  ["x_int8", "(big + 1)", "big >= 0"],
  ["x_div_mod", "(a / 3), (a % -7), (big / (-2)::bigint), (big % 5::bigint)", "(id / 4) % 2 = 0"],
];

before(async () => {
  srv = await PgServer.create();
  const rows: string[] = [];
  for (let i = 1; i <= 600; i++) {
    const a = i % 7 === 0 ? "NULL" : String(i % 40);
    const b = i % 11 === 0 ? "NULL" : i % 5 === 0 ? "'same'" : i % 13 === 0 ? "'Ünïcödé Straße " + i + "'" : `'Row-${i}-MiXeD'`;
    const j = i % 9 === 0 ? "NULL" : i % 4 === 0 ? `'{"k": null, "n": {"m": ${i}}}'` : i % 3 === 0 ? `'{"k": [1, "two", {"x": ${i}}], "n": 5}'` : `'{"k": "v${i % 17}", "n": {"m": "t${i}", "o": true}}'`;
    rows.push(`(${i}, ${a}, ${b}, ${j}, ${i * 1000003})`);
  }
  rows.push(`(601, 50, 'skip-me', NULL, 1)`);
  srv.sql(`CREATE TABLE t (id int PRIMARY KEY, a int, b text, j jsonb, big bigint);
    INSERT INTO t VALUES ${rows.join(", ")};
    ${INDEXES.map(([n, d, w]) => `CREATE INDEX ${n} ON t (${d})${w ? ` WHERE ${w}` : ""};`).join("\n")}
    CREATE INDEX x_initcap ON t (initcap(b));
    CREATE EXTENSION amcheck;`);
  for (const [n, , w] of INDEXES) {
    srv.sql(`SELECT bt_index_parent_check('${n}', true, true)`);
    expected.set(n, Number(srv.rows(`SELECT count(*) FROM t${w ? ` WHERE ${w}` : ""}`)[0]![0]));
  }
  heapFile = join(srv.pgdata, srv.rows("SELECT pg_relation_filepath('t')")[0]![0]!);
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

const verifyT = () => runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["t", ...INDEXES.map((i) => i[0]), "x_initcap"] }, { jobs: 1 });

test("expression and partial indexes: heapallindexed runs on each and finds nothing", async () => {
  const run = await verifyT();
  const bad = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.name}: ${f.code} ${f.message}`));
  assert.deepEqual(bad, []);
  for (const [n] of INDEXES) {
    const r = run.reports.find((x) => x.name === n)!;
    assert.ok(r.checks.includes("heapallindexed"), `${n}: ${r.checks.join(",")} ${JSON.stringify(r.findings)}`);
    assert.equal(r.stats.heapTuplesProbed, expected.get(n), n);
    assert.equal(r.stats.indexEntries, expected.get(n), n);
  }
});

test("an expression outside the evaluator is a counted note naming the function", async () => {
  const run = await verifyT();
  const r = run.reports.find((x) => x.name === "x_initcap")!;
  assert.ok(!r.checks.includes("heapallindexed"));
  const notes = r.findings.filter((f) => f.code === "BT_HEAPALLINDEXED_SKIPPED");
  assert.equal(notes.length, 1);
  assert.match(notes[0]!.message, /function 872 cannot be evaluated offline/);
});

test("a value changed behind the index's back is found through the expression and the predicate", async () => {
  const orig = readFileSync(heapFile);
  try {
    const buf = Buffer.from(orig);
    // lower/upper/concat see another value; the partial index x_mixed now covers row 601
    for (const [from, to] of [["Row-17-MiXeD", "Row-17-MiXeE"], ["skip-me", "skip-mf"]]) {
      const at = buf.indexOf(from);
      assert.ok(at > 0 && buf.indexOf(from, at + 1) < 0, `one ${from} in the heap`);
      buf.write(to, at);
    }
    writeFileSync(heapFile, buf);
    const run = await verifyT();
    const missing = (n: string) => run.reports.find((x) => x.name === n)!.findings.filter((f) => f.code === "BT_HEAP_TUPLE_NOT_INDEXED").length;
    // rows 17 and 601 in lower, upper (both satisfy a > 3) and coalesce; only 601 in x_mixed
    assert.equal(missing("x_lower"), 2);
    assert.equal(missing("x_upper_partial"), 2);
    assert.equal(missing("x_coalesce"), 2);
    assert.equal(missing("x_mixed"), 1);
    assert.equal(missing("x_arith_concat"), 0);
    assert.equal(missing("x_jsonb_text"), 0);
  } finally {
    writeFileSync(heapFile, orig);
  }
});
