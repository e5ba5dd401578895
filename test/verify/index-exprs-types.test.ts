// formats/expr on the wider types and functions (numeric, float4/8, date, timestamp[tz], name,
// oid, uuid; casts, comparisons, arithmetic, text functions, date_trunc / date_part / extract),
// against real PostgreSQL 15 and 18 servers: every expression and predicate an index stores is
// evaluated offline for every row and compared with what the server computes for it; heapallindexed
// then checks every such index with no finding and no not-checked note; a heap value changed
// behind the indexes' backs is found. The function OIDs the evaluator knows are read back from
// each server's pg_proc (present and immutable: only immutable functions can be in an index).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { parseNodeTree } from "../../formats/catalog/node-tree.js";
import { compileExpr, decodeExprValue, encodeExprValue, evaluatedFunctionOids, exprType, type ExprValue, type Numeric } from "../../formats/expr/evaluate.js";
import { numericString } from "../../formats/expr/values.js";
import { nameIn, numericIn, uuidIn } from "../../formats/datum/input.js";
import { INPUT_FUNCTIONS } from "../../formats/datum/input-catalog.js";

/** [index name, expression list, predicate or ""] */
const INDEXES: [string, string, string][] = [
  ["n_arith", "(n + 1.25), (n - i4), (n * 2.5), abs(n)", ""],
  ["n_casts", "(i4::numeric), (i8::numeric * n), (i2::numeric)", "n > -1e20 AND n < 1e20"],
  ["n_div", "(n / 7), (n / 3.3), (i4::numeric / n), (n / 0.0007), (n % 7), (n % 2.5), (i8::numeric % n), (1 / n), (n / 123456789.123), (0.000001 / n), (n / 99999999999999999999)", ""],
  ["n_typmod", "(n::numeric(10,2)), (n::numeric(20,8)), (n::numeric(12,-3)), (n::numeric(8,0)), (i8::numeric(30,2))", "n > -1e6 AND n < 1e6"],
  ["n_to_int", "(n::int4), (n::int8), (n::int2)", "n > -30000 AND n < 30000"],
  ["to_float", "(n::float8), (i8::float8), (i4::float8), (i2::float8), (f4::float8), (i4::real), (n::real)", "n > -1e30 AND n < 1e30"],
  ["f_arith", "(f8 + 1.5::float8), (f8 * f8), (f4 / 3::real), (f4 - f4), abs(f8), abs(f4), (f8::real), (f4 * f8), (f8 - f4)", "f8 > -1e30 AND f8 < 1e30"],
  ["f_cmp", "id", "f8 < 1e6 AND f4 <> 0 AND NOT f8 = 'NaN'"],
  ["d_arith", "(d - date '2000-01-01'), (d::timestamp), (ts::date), (d + 30), (d - 7)", "d > '-infinity' AND d < 'infinity'"],
  ["ts_trunc", "date_trunc('month', ts), date_trunc('week', ts), date_trunc('hour', ts), date_trunc('quarter', ts), date_trunc('milliseconds', ts)", ""],
  ["ts_trunc_years", "date_trunc('year', ts), date_trunc('decade', ts), date_trunc('century', ts), date_trunc('millennium', ts), date_trunc('Day', ts)", ""],
  ["ts_scale", "(ts::timestamp(0)), (ts::timestamp(1)), (ts::timestamp(3)), (tz::timestamptz(2)), (ts::timestamp(6))", ""],
  ["ts_part", "date_part('year', ts), date_part('dow', ts), date_part('epoch', ts), date_part('second', ts), date_part('doy', ts), date_part('minute', ts), date_part('microseconds', ts)", "ts > '-infinity' AND ts < 'infinity'"],
  ["ts_part2", "date_part('month', ts), date_part('decade', ts), date_part('century', ts), date_part('millennium', ts), date_part('isodow', ts), date_part('hour', ts), date_part('quarter', ts)", "ts > '-infinity' AND ts < 'infinity'"],
  ["ts_extract", "extract(year from ts), extract(second from ts), extract(epoch from ts), extract(milliseconds from ts), extract(hour from ts), extract(dow from ts), extract(century from ts), extract(microseconds from ts)", ""],
  ["d_extract", "extract(year from d), extract(century from d), extract(epoch from d), extract(doy from d), extract(dow from d)", ""],
  ["txt_len", "length(t), char_length(bc), octet_length(t), length(bc), octet_length(bc)", ""],
  ["txt_sub", "substr(t, 2, 3), substring(t from 3), substr(t, -1, 4), left(t, 4), right(t, -2), left(t, -3), right(t, 5)", ""],
  ["txt_trim", "btrim(t), ltrim(t, 'x '), rtrim(t), btrim(t, 'xy'), ltrim(t), rtrim(t, 'z ')", ""],
  ["txt_md5", "md5(t), lower(vc), upper(bc::text)", ""],
  ["txt_casts", "(t::name), (nm::text), (bc::text), (vc::varchar(5)), (t::char(6)), (nm::varchar)", ""],
  ["via_io", "(i4::text), (n::text), (u::text), (i8::text || '/' || o::text)", ""],
  ["from_text", "(btrim(substr(vc, 4, 2), '-')::int4), (n::text::numeric), (n::text::float8), (u::text::uuid), (o::text::oid), (((i4 > 0)::text)::bool), (i2::text::int8), (n::text::real)", ""],
  ["jsonb_casts", "((j->'n')::numeric), ((j->'n')::float8), ((j->'n')::int8), ((j->>'s')), ((j->'n')::int4)", "j->'n' IS NOT NULL"],
  ["misc_types", "coalesce(u, '00000000-0000-0000-0000-000000000000'), coalesce(o, 0::oid), coalesce(nm, 'none'::name), coalesce(tz, 'epoch'::timestamptz)", ""],
  ["int_casts", "((i4 % 1000)::int2), ((i8 % 30000)::smallint), abs(i4), abs(i2), abs(i8)", ""],
  ["cmp_pred", "id", "n > 10.5 AND d >= '2000-06-01' AND ts < '2010-01-01' AND tz >= '1995-01-01 00:00+00' AND nm > 'name_5' AND u < '8fffffff-0000-0000-0000-000000000000'"],
  ["cmp_pred2", "id", "t > 'm' COLLATE \"C\" OR bc = 'ab' OR o <= 5000000 OR vc < 'k'"],
  ["cmp_pred3", "id, i4", "(bc < 'b5' AND f4 >= 2.5::real) OR (f8 <= 0 AND n <> 0) OR u = '8f14e45f-ceea-167a-5a36-dedd4bea2543' OR ts::date = '2000-10-29' OR (d - 3) > '2001-01-01'"],
];

function rowsSql(n: number): string {
  const rows: string[] = [];
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  for (let i = 1; i <= n; i++) {
    const nul = (k: number, v: string) => (i % k === 0 ? "NULL" : v);
    const i2 = nul(17, String(((i * 337) % 65535) - 32767));
    const i4 = nul(19, String(i * 7919 - 800000));
    const i8 = nul(23, `${BigInt(i) * 1234567891011n - 50000000000000n}`);
    const nv = i % 29 === 0 ? "'NaN'" : i % 31 === 0 ? "'Infinity'" : i % 37 === 0 ? "'-Infinity'" : nul(41, i % 3 === 0 ? `${q(`${i * 12.345}`)}::numeric(12,3)` : i % 3 === 1 ? `${q(`-${i}.${"0".repeat(i % 5)}${i * 7}`)}` : `${q(`${i * 1000003}e${(i % 9) - 4}`)}`);
    const f4 = i % 43 === 0 ? "'NaN'" : i % 47 === 0 ? "'-0'" : nul(13, `${i}::real / 7`);
    const f8 = i % 53 === 0 ? "'NaN'" : i % 59 === 0 ? "'Infinity'" : nul(11, `${i}::float8 * 1.1e10 / 3 - 1e11`);
    const d = i % 61 === 0 ? "'infinity'" : i % 67 === 0 ? "'-infinity'" : i % 71 === 0 ? "'0044-03-15 BC'" : nul(7, `date '2000-01-01' + ${i * 97 - 5000}`);
    const ts = i % 73 === 0 ? "'infinity'" : i % 89 === 0 ? "'1999-12-31 23:59:59.5'" : i % 97 === 0 ? "'1950-06-15 10:00:00.25'" : i % 101 === 0 ? "'2001-02-03 04:05:06.5'" : i % 79 === 0 ? "'0100-02-03 04:05:06.789 BC'" : i % 83 === 0 ? "'1000-12-31 23:59:59.5'" : nul(9, `timestamp '1999-12-31 23:59:59.999999' + ${i - 60} * interval '13 days 5 hours 7 min 11.123457 s'`);
    const tz = nul(8, `timestamptz '1990-06-15 12:00:00+00' + ${i} * interval '37 days 3 hours 0.5 s'`);
    const nm = nul(10, i % 4 === 0 ? q(`name_${i}_${"ü".repeat(40)}`) : q(`name_${i}`));
    const o = nul(12, String((i * 100000007) % 4294967295));
    const u = nul(14, `md5(${q(String(i))})::uuid`);
    const t = nul(6, q([`  row ${i}  `, `xxMiXeD-${i}zz `, `Ünïcödé ${i} 😀x`, `ab`, `y${i}x`, `${"long".repeat(i % 20)}${i}`][i % 6]!));
    const vc = nul(15, q(`Vc-${i}-${"q".repeat(i % 9)}`));
    const bc = nul(16, q(i % 5 === 0 ? "ab" : `b${i % 100}`));
    const j = nul(18, i % 5 === 0 ? `'{"m": 1}'` : `'{"n": ${[`${i}.25`, `-${i * 1000}`, `${i}e-3`, `${i * 7}`][i % 4]}, "s": "x${i}"}'`);
    rows.push(`(${i}, ${i2}, ${i4}, ${i8}, ${nv}, ${f4}, ${f8}, ${d}, ${ts}, ${tz}, ${nm}, ${o}, ${u}, ${t}, ${vc}, ${bc}, ${j})`);
  }
  return rows.join(",\n");
}

const BINARY: Record<number, string> = { 700: "float4send", 701: "float8send", 1082: "date_send", 1114: "timestamp_send", 1184: "timestamptz_send" };
const COLUMNS: [string, number][] = [["i2", 21], ["i4", 23], ["i8", 20], ["n", 1700], ["f4", 700], ["f8", 701], ["d", 1082], ["ts", 1114], ["tz", 1184], ["nm", 19], ["o", 26], ["u", 2950], ["t", 25], ["vc", 1043], ["bc", 1042], ["j", 3802]];
const enc = new TextEncoder();
const fromHexBE = (h: string): Uint8Array => Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16))).reverse();
const toHexBE = (b: Uint8Array): string => Array.from(b).reverse().map((x) => x.toString(16).padStart(2, "0")).join("");

/** A column's text (as the query below selects it) as the ExprValue formats/expr reads from the heap datum. */
function columnValue(s: string | null, typ: number): ExprValue {
  if (s === null) return null;
  if (BINARY[typ]) return decodeExprValue(fromHexBE(s), 0, s.length / 2, typ);
  const b = typ === 3802 ? INPUT_FUNCTIONS.get(3802)!(s, { typmod: -1 }) : typ === 1700 ? numericIn(s, { typmod: -1 }) : typ === 19 ? nameIn(s, { typmod: -1 }) : typ === 2950 ? uuidIn(s, { typmod: -1 }) : typ === 21 || typ === 23 || typ === 20 || typ === 26 ? null : enc.encode(s);
  if (b) return decodeExprValue(b, 0, b.length, typ);
  return typ === 20 ? BigInt(s) : Number(s);
}
/** The server expression that prints a value of `typ` the way `shown` prints ours. */
const wrap = (e: string, typ: number): string => (BINARY[typ] ? `encode(${BINARY[typ]}(${e}), 'hex')` : [25, 1043, 1042, 19].includes(typ) ? `(${e})` : `(${e})::text`);
function shown(v: ExprValue, typ: number): string | null {
  if (v === null) return null;
  if (BINARY[typ]) return toHexBE(encodeExprValue(v, typ));
  if (typ === 1700) return numericString(v as Numeric);
  return String(v);
}

/** The expressions of pg_index.indexprs (none for an index of plain columns). */
const exprList = (text: string) => {
  if (!text) return [];
  const l = parseNodeTree(text);
  return Array.isArray(l) ? l : [l];
};

function suite(version: number): void {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer;
    let heapFile = "";
    const expected = new Map<string, number>();
    const trees = new Map<string, { exprs: string; pred: string | null }>();
    /** per index: the server's [id, predicate, expression values...] rows */
    const server = new Map<string, (string | null)[][]>();
    let rows: (string | null)[][] = [];
    let procs: (string | null)[][] = [];

    before(async () => {
      srv = await PgServer.create({ version });
      srv.sql(`CREATE TABLE t (id int PRIMARY KEY, i2 smallint, i4 int, i8 bigint, n numeric, f4 real, f8 float8, d date, ts timestamp, tz timestamptz,
          nm name, o oid, u uuid, t text, vc varchar(20), bc char(8), j jsonb);
        INSERT INTO t VALUES ${rowsSql(400)};
        INSERT INTO t (id, t) VALUES (9001, 'Damage-Me-Here');
        INSERT INTO t (id, ts, f8) VALUES (9002, '2222-02-22 22:22:22.222222', 12345.678);
        CREATE EXTENSION amcheck;`);
      for (const [name, exprs, pred] of INDEXES) {
        srv.sql(`CREATE INDEX ${name} ON t (${exprs.split(/,\s(?![^()]*\))/).map((e) => (/^[a-z0-9_]+$/.test(e) ? e : `(${e})`)).join(", ")})${pred ? ` WHERE ${pred}` : ""}`);
        srv.sql(`SELECT bt_index_parent_check('${name}', true, true)`);
        const [[ex, pr]] = srv.rows(`SELECT indexprs, indpred FROM pg_index WHERE indexrelid = '${name}'::regclass`) as [string | null, string | null][];
        trees.set(name, { exprs: ex ?? "", pred: pr });
        expected.set(name, Number(srv.rows(`SELECT count(*) FROM t${pred ? ` WHERE ${pred}` : ""}`)[0]![0]));
      }
      for (const [name, exprs, pred] of INDEXES) {
        const parts = exprs.split(/,\s(?![^()]*\))/);
        const types = exprList(trees.get(name)!.exprs).map((e) => exprType(e));
        const p = pred || "true";
        const cols = parts.slice(0, types.length).map((e, k) => `CASE WHEN ${p} THEN ${wrap(e, types[k]!)} END`);
        server.set(name, srv.rows(`SELECT id, (${p})::text${cols.map((c) => `, ${c}`).join("")} FROM t ORDER BY id`));
      }
      rows = srv.rows(`SELECT id, ${COLUMNS.map(([c, typ]) => wrap(c, typ)).join(", ")} FROM t ORDER BY id`);
      procs = srv.rows(`SELECT oid, provolatile FROM pg_proc WHERE oid = ANY('{${evaluatedFunctionOids().join(",")}}') ORDER BY oid`);
      heapFile = join(srv.pgdata, srv.rows("SELECT pg_relation_filepath('t')")[0]![0]!);
      srv.sql("CHECKPOINT");
      srv.stop();
    });
    after(() => srv?.destroy());

    test("every function the evaluator knows is an immutable function of this server's pg_proc", () => {
      const want = evaluatedFunctionOids().filter((o) => version >= 14 || (o !== 6199 && o !== 6202));
      assert.deepEqual(procs.map((r) => Number(r[0])), want.sort((a, b) => a - b));
      assert.deepEqual(procs.filter((r) => r[1] !== "i"), []);
    });

    test("each expression and predicate, evaluated offline, gives the server's value for every row", () => {
      const ctx = { defaultCtypeIsC: true, defaultCollateIsC: true };
      let compared = 0;
      for (const [name] of INDEXES) {
        const { exprs, pred } = trees.get(name)!;
        const es = exprList(exprs).map((e) => ({ fn: compileExpr(e, ctx), typ: exprType(e) }));
        const p = pred ? compileExpr(parseNodeTree(pred), ctx) : null;
        const want = server.get(name)!;
        rows.forEach((r, k) => {
          const read = (attnum: number) => columnValue(r[attnum - 1]!, COLUMNS[attnum - 2]![1]);
          const reader = (attnum: number): ExprValue => (attnum === 1 ? Number(r[0]) : read(attnum));
          const w = want[k]!;
          const holds = p ? p(reader) : true;
          assert.equal(holds === null ? null : String(holds), w[1] === "true" ? "true" : w[1], `${name} predicate, row ${r[0]}`);
          if (holds !== true) return;
          es.forEach((e, j) => {
            assert.equal(shown(e.fn(reader), e.typ), w[2 + j], `${name} expression ${j + 1}, row ${r[0]}`);
            compared++;
          });
        });
      }
      assert.ok(compared > 5000, `${compared} values compared`);
    });

    const verifyT = () => runVerify({ pgdata: srv.pgdata, database: "postgres", relations: ["t", ...INDEXES.map((i) => i[0])] }, { jobs: 1 });

    test("heapallindexed checks each index with no finding and no not-checked note", async () => {
      const run = await verifyT();
      const bad = run.reports.flatMap((r) => r.findings.map((f) => `${r.name}: ${f.code} ${f.message}`));
      assert.deepEqual(bad, []);
      for (const [n] of INDEXES) {
        const r = run.reports.find((x) => x.name === n)!;
        assert.ok(r.checks.includes("heapallindexed"), `${n}: ${r.checks.join(",")}`);
        assert.equal(r.stats.heapTuplesProbed, expected.get(n), n);
        assert.equal(r.stats.indexEntries, expected.get(n), n);
      }
    });

    test("a text value changed behind the indexes' backs is found by each index over it", async () => {
      const orig = readFileSync(heapFile);
      try {
        const buf = Buffer.from(orig);
        const at = buf.indexOf("Damage-Me-Here");
        assert.ok(at > 0 && buf.indexOf("Damage-Me-Here", at + 1) < 0);
        buf.write("Damage-Me-Hera", at);
        writeFileSync(heapFile, buf);
        const run = await verifyT();
        const missing = (n: string) => run.reports.find((x) => x.name === n)!.findings.filter((f) => f.code === "BT_HEAP_TUPLE_NOT_INDEXED").length;
        for (const n of ["txt_md5", "txt_sub", "txt_casts", "txt_trim"]) assert.equal(missing(n), 1, n);
        // length(t) is the same for both values: the key bytes still match
        assert.equal(missing("txt_len"), 0);
        assert.equal(missing("n_arith"), 0);
      } finally {
        writeFileSync(heapFile, orig);
      }
    });

    test("a timestamp and a float8 changed behind the indexes' backs are found through date_trunc, date_part and float arithmetic", async () => {
      const orig = readFileSync(heapFile);
      try {
        const buf = Buffer.from(orig);
        // 2222-02-22 22:22:22.222222 as stored (microseconds since 2000-01-01), then one hour later
        const ts = Buffer.alloc(8);
        ts.writeBigInt64LE(BigInt(Date.UTC(2222, 1, 22, 22, 22, 22) - Date.UTC(2000, 0, 1)) * 1000n + 222222n);
        const f8 = Buffer.alloc(8);
        f8.writeDoubleLE(12345.678);
        for (const [from, to] of [[ts, (() => { const b = Buffer.alloc(8); b.writeBigInt64LE(ts.readBigInt64LE() + 3600000000n); return b; })()], [f8, (() => { const b = Buffer.alloc(8); b.writeDoubleLE(12345.679); return b; })()]]) {
          const at = buf.indexOf(from!);
          assert.ok(at > 0 && buf.indexOf(from!, at + 1) < 0, "one stored value");
          to!.copy(buf, at);
        }
        writeFileSync(heapFile, buf);
        const run = await verifyT();
        const missing = (n: string) => run.reports.find((x) => x.name === n)!.findings.filter((f) => f.code === "BT_HEAP_TUPLE_NOT_INDEXED").length;
        // date_trunc('hour') and the epoch see the change, the year-level truncations do not; d_arith's predicate excludes the row (d is NULL)
        assert.equal(missing("ts_trunc"), 1);
        assert.equal(missing("ts_part"), 1);
        assert.equal(missing("ts_trunc_years"), 0);
        assert.equal(missing("f_arith"), 1);
        assert.equal(missing("d_arith"), 0);
      } finally {
        writeFileSync(heapFile, orig);
      }
    });
  });
}

suite(15);
suite(18);
