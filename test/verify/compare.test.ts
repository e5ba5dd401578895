// The on-disk key comparators agree with PostgreSQL's own B-tree order: a real server builds
// multi-level indexes over edge values of every type pgdisk compares (NaN, infinities, -0,
// numeric scales, intervals that justify differently, trailing blanks, multi-byte text ...),
// ascending and DESC NULLS FIRST; pgdisk verifies them clean with no "order not checked" note,
// and a swap of two adjacent distinct keys in each is caught as an item order violation.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer, pgAvailable } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { pageView } from "../../formats/page/page.js";
import { readBTOpaque } from "../../formats/nbtree/opaque.js";
import { Damager, swapAdjacentDistinct } from "./damage.js";

const DB = "cmpdb";
let srv: PgServer | undefined;

// [type, SQL expression over g (1..n) giving varied values, extra edge values]
const TYPES: [string, string, string[]][] = [
  ["bool", "g % 2 = 0", []],
  ["int2", "((g * 7919) % 65535 - 32767)::int2", ["-32768", "32767", "0"]],
  ["int4", "(g * 104729) % 2000000000 - 1000000000", ["-2147483648", "2147483647"]],
  ["int8", "(g::int8 * 1000000007) % 9000000000000000000 - 4500000000000000000", ["-9223372036854775808", "9223372036854775807", "4294967296", "-4294967296"]],
  ["oid", "(g * 2654435761::int8 % 4294967295)::oid", ["0", "4294967295", "2147483648"]],
  ["float4", "((g * 7.31) - 5000) / 3.0", ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'0'", "1.17549435e-38", "-3.4e38"]],
  ["float8", "((g * 13.7) - 9000) / 7.0", ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'0'", "5e-324", "-1.7976931348623157e308"]],
  ["numeric", "((g * 104729) % 100003 - 50000)::numeric / (10 ^ (g % 7))", ["'NaN'", "'Infinity'", "'-Infinity'", "0", "0.000", "1.10", "1.1", "-0.0001", "123456789012345678901234567890.123456789", "-99999999999999999999", "1e-20", "10000", "9999.9999"]],
  ["date", "date '2000-01-01' + ((g * 37) % 20000 - 10000)", ["'infinity'", "'-infinity'", "'4713-01-01 BC'"]],
  ["time", "time '00:00' + ((g * 7919) % 86400) * interval '1 second' + (g % 1000) * interval '1 microsecond'", ["'24:00'", "'00:00'"]],
  ["timestamp", "timestamp '2001-01-01' + ((g * 104729) % 100000000 - 50000000) * interval '1 second'", ["'infinity'", "'-infinity'"]],
  ["timestamptz", "timestamptz '2001-01-01 UTC' + ((g * 104729) % 100000000 - 50000000) * interval '1 second'", ["'infinity'", "'-infinity'"]],
  ["interval", "make_interval(months => g % 25, days => (g * 7) % 61, secs => (g * 13) % 90000)", ["'1 mon'", "'30 days'", "'720 hours'", "'-1 day'", "'1 day -24 hours'"]],
  ["uuid", "md5(g::text)::uuid", ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"]],
  ["bytea", "decode(md5(g::text), 'hex') || decode(repeat('ab', g % 9), 'hex')", ["''::bytea", "'\\x00'", "'\\xff'", "'\\x0000'"]],
  ["text", "md5(g::text) || repeat('x', g % 200)", ["''", "' '", "'a'", "'a '", "'ä'", "'z'", "'Z'", "repeat('q', 3000)"]],
  ["varchar(400)", "substr(md5(g::text), 1, g % 32)", ["''", "'abc'"]],
  ["char(12)", "substr(md5(g::text), 1, g % 12)", ["''", "' '", "'a'", "'a  '"]],
  ["name", "md5(g::text)::name", ["''", "'pg_class'", "repeat('n', 63)"]],
  ['"char"', "chr(32 + g % 90)::\"char\"", []],
  ["oidvector", "(g % 5 || ' ' || g || ' ' || (g * 7) % 100)::oidvector", ["''::oidvector", "'1'::oidvector", "'4294967295 1'::oidvector"]],
  ["money", "(g * 12.34 - 10000)::numeric::money", []],
  ["pg_lsn", "(to_hex((g * 104729) % 2147483647) || '/' || to_hex(g * 7919))::pg_lsn", ["'0/0'", "'FFFFFFFF/FFFFFFFF'"]],
  ["timetz", "(time '00:00' + (g * 97 % 86400) * interval '1 second')::timetz", ["'12:00+02'", "'10:00+00'", "'12:00-02'"]],
];
const N = 3000;
const tname = (i: number): string => `t${i}`;

before(async () => {
  if (!pgAvailable()) return;
  srv = await PgServer.create({ checksums: true });
  srv.sql(`CREATE DATABASE ${DB}`);
  const sql: string[] = [];
  TYPES.forEach(([type, expr, edges], i) => {
    sql.push(`CREATE TABLE ${tname(i)} (v ${type});`);
    sql.push(`INSERT INTO ${tname(i)} SELECT ${expr} FROM generate_series(1, ${N}) g;`);
    for (const e of edges) sql.push(`INSERT INTO ${tname(i)} VALUES (${e});`);
    sql.push(`INSERT INTO ${tname(i)} VALUES (NULL), (NULL);`);
    sql.push(`CREATE INDEX ${tname(i)}_asc ON ${tname(i)} (v);`);
    if (type !== "bool" && type !== '"char"') sql.push(`CREATE INDEX ${tname(i)}_desc ON ${tname(i)} (v DESC NULLS FIRST);`);
  });
  // a key with no on-disk comparator (text under an ICU collation), and text columns under C and POSIX
  sql.push(`CREATE TABLE tj (v text COLLATE "und-x-icu"); INSERT INTO tj SELECT md5(g::text) FROM generate_series(1, 100) g; CREATE INDEX tj_idx ON tj (v);`);
  sql.push(`CREATE TABLE tc (v text COLLATE "C", w text COLLATE "POSIX"); INSERT INTO tc SELECT md5(g::text), md5((g * 3)::text) FROM generate_series(1, 500) g; CREATE INDEX tc_v ON tc (v); CREATE INDEX tc_w ON tc (w text_pattern_ops); CREATE INDEX tc_vw ON tc (v, w DESC);`);
  // deleted and recyclable pages, a shrunken (skinny) tree: what VACUUM leaves behind in real indexes
  sql.push("CREATE TABLE tdel (v int, w text); INSERT INTO tdel SELECT g, md5(g::text) FROM generate_series(1, 60000) g; CREATE INDEX tdel_v ON tdel (v); CREATE INDEX tdel_w ON tdel (w) INCLUDE (v); CREATE UNIQUE INDEX tdel_vw ON tdel (v, w);");
  sql.push("DELETE FROM tdel WHERE v BETWEEN 500 AND 58000; VACUUM tdel; INSERT INTO tdel SELECT g, md5(g::text) FROM generate_series(70000, 71000) g;");
  // partial indexes: a NULL test (the probe's own fast path) and a comparison (formats/expr)
  sql.push("INSERT INTO tdel SELECT g, NULL FROM generate_series(80000, 80500) g; CREATE INDEX tdel_partial ON tdel (v) WHERE w IS NOT NULL; CREATE INDEX tdel_partial2 ON tdel (v) WHERE v > 70500;");
  sql.push("VACUUM ANALYZE; CHECKPOINT;");
  srv.sql(sql.join("\n"), DB);
  srv.stop();
});
after(() => srv?.destroy());

test("pgdisk's comparators agree with the server's B-tree order for every comparable type", async () => {
  const run = await runVerify({ pgdata: srv!.pgdata, database: DB, relations: [...TYPES.map((_, i) => tname(i)), "tj", "tc", "tdel"] }, { jobs: 2, rootdescend: true });
  const errors = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.name}: ${f.code} ${f.message} ${f.detail ?? ""}`));
  assert.deepEqual(errors, []);
  const notChecked = run.reports.filter((r) => r.findings.some((f) => f.code === "BT_ORDER_NOT_CHECKED")).map((r) => r.name);
  assert.deepEqual(notChecked, ["tj_idx"]);
  // the indexes are real trees: levels above the leaves, so high keys and parent checks ran
  const asc = run.reports.filter((r) => r.name.endsWith("_asc"));
  assert.equal(asc.length, TYPES.length);
  assert.ok(asc.filter((r) => (r.stats.levels ?? 0) >= 2).length >= TYPES.length - 3, asc.map((r) => `${r.name}:${r.stats.levels}`).join(" "));
  const partial = run.reports.find((r) => r.name === "tdel_partial")!;
  assert.ok(partial.checks.includes("heapallindexed") && partial.stats.heapTuplesProbed! > 0 && partial.stats.heapTuplesProbed! < run.reports.find((r) => r.name === "tdel_v")!.stats.heapTuplesProbed!);
  const partial2 = run.reports.find((r) => r.name === "tdel_partial2")!;
  assert.ok(partial2.checks.includes("heapallindexed") && partial2.stats.heapTuplesProbed === partial2.stats.indexEntries && partial2.stats.indexEntries! > 0, JSON.stringify(partial2.stats));
  // the VACUUMed index really has deleted pages, and pgdisk walked around them
  const d = new Damager(srv!.pgdata, DB);
  const path = d.path("tdel_v");
  let deleted = 0;
  for (let blk = 1; blk < d.nblocks(path); blk++) if (readBTOpaque(pageView(d.page(path, blk))).btpo_flags & 4) deleted++;
  assert.ok(deleted > 50, `deleted pages: ${deleted}`);
});

test("a swap of two adjacent distinct keys is an order violation for every comparator", async () => {
  const d = new Damager(srv!.pgdata, DB);
  const names = [...TYPES.map((_, i) => `${tname(i)}_asc`), ...TYPES.map((_, i) => `${tname(i)}_desc`).filter((n) => d.cat.classes.size && [...d.cat.classes.values()].some((c) => c.name === n)), "tc_vw"];
  const missed: string[] = [];
  for (const ix of names) {
    const path = d.path(ix);
    const done = swapAdjacentDistinct(d, path);
    assert.ok(done, `${ix}: two distinct adjacent keys`);
    const run = await runVerify({ pgdata: srv!.pgdata, database: DB, relations: [ix] }, { jobs: 1, heapallindexed: false });
    d.restore();
    const codes = run.reports.flatMap((r) => r.findings.map((f) => f.code));
    if (!codes.includes("BT_ITEM_ORDER")) missed.push(`${ix}: ${codes.join(",")}`);
  }
  assert.deepEqual(missed, []);
});
