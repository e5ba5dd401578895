// The catalog-dependent, network and text search comparators (enum_cmp with odd OIDs from
// ALTER TYPE ADD VALUE BEFORE, network_cmp, bit/varbit, btarraycmp with NULL elements, several
// dimensions and lower bounds, range_cmp with empty ranges, infinite and exclusive bounds,
// multirange_cmp, btrecordcmp with NULL attributes, tsvector_cmp, tsquery_cmp, jsonb_cmp) agree with real
// servers of PostgreSQL 15 and 18: pgdisk's comparator sorts the stored heap bytes into the order of the server's ORDER BY; btree
// indexes the server built (ascending and DESC NULLS FIRST) verify clean with no "order not
// checked" note; and a swap of two adjacent distinct keys in each is an item order violation.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { storedTuples } from "../../samples/toast-kit.js";
import { runVerify } from "../../verify/run.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { indexKeysFor } from "../../formats/catalog/index-keys.js";
import { Damager, swapAdjacentDistinct } from "./damage.js";

const DB = "cmpdb";
const N = 2500;

const SETUP = `
create type mood as enum ('sad', 'ok', 'happy');
alter type mood add value 'meh' before 'ok';
alter type mood add value 'ecstatic' after 'happy';
alter type mood add value 'angry' before 'sad';
alter type mood add value 'fine' before 'happy';
create type pair as (a int4, b float8, c int8[]);
`;

// [table, type, SQL expression over g (1..N), extra edge values]
const TYPES: [string, string, string, string[]][] = [
  ["t_enum", "mood", "(enum_range(null::mood))[1 + (g * 7) % 7]", []],
  [
    "t_inet",
    "inet",
    "case g % 4 when 0 then ('10.' || g % 256 || '.' || g * 7 % 256 || '.' || g * 13 % 256 || '/' || g % 33)::inet when 1 then ('2001:db8:' || to_hex(g % 4096) || '::' || to_hex(g) || '/' || (g * 7) % 129)::inet when 2 then ('192.168.' || g % 4 || '.' || g % 256)::inet else ('::ffff:10.0.' || g % 3 || '.' || g % 256 || '/' || (96 + g % 33))::inet end",
    ["'0.0.0.0/0'", "'::/0'", "'255.255.255.255'", "'::'", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'", "'10.0.0.0/8'", "'10.0.0.1/8'", "'10.0.0.1/32'", "'128.0.0.0/1'", "'127.255.255.255/1'"],
  ],
  ["t_cidr", "cidr", "case g % 2 when 0 then network(('10.' || g % 256 || '.' || g * 7 % 256 || '.' || g * 13 % 256 || '/' || g % 33)::inet)::cidr else network(('2001:db8:' || to_hex(g % 65536) || '::/' || (g * 3) % 129)::inet)::cidr end", ["'0.0.0.0/0'", "'::/0'", "'10.0.0.0/7'", "'10.0.0.0/8'"]],
  ["t_bit", "bit(12)", "((g * 2654435761::int8) % 4096)::bit(12)", []],
  ["t_varbit", "varbit", "substring(((g * 2654435761::int8) % 4294967296)::bit(32)::varbit from 1 for g % 33)", ["B''", "B'0'", "B'00'", "B'1'", "B'10000000'", "B'100000000'"]],
  [
    "t_i4a",
    "int4[]",
    "case g % 6 when 0 then array[g % 7, g % 3] when 1 then array[g % 7, null, g % 11] when 2 then array[[g % 3, g % 5], [g % 2, null]] when 3 then '{}'::int4[] when 4 then array[g % 7] else array[-g, g * 100000] end",
    ["'[0:1]={1,2}'", "'[2:3]={1,2}'", "'{NULL}'", "'{NULL,NULL}'", "'{1,NULL}'", "'{{1}}'", "'{1}'", "'{{1,2},{3,4}}'", "'{1,2,3,4}'", "'{-2147483648}'", "'{2147483647}'"],
  ],
  ["t_texta", "text[]", "array[substr(md5(g::text), 1, g % 6), case when g % 4 = 0 then null else substr(md5((g * 3)::text), 1, g % 5) end]", ["'{}'", "'{\"\"}'", "'{a,b}'", "'{a}'", "'{NULL}'"]],
  ["t_enuma", "mood[]", "array[(enum_range(null::mood))[1 + g % 7], (enum_range(null::mood))[1 + (g * 3) % 7]]", ["'{}'", "'{meh}'"]],
  [
    "t_i4r",
    "int4range",
    "case g % 7 when 0 then 'empty'::int4range else int4range(case when g % 5 = 0 then null else g % 50 end, case when g % 11 = 0 then null else g % 50 + g % 9 end) end",
    ["'(,)'", "'[1,2)'", "'[,5)'", "'[5,)'"],
  ],
  [
    "t_numr",
    "numrange",
    "case when g % 13 = 0 then numrange(null, (g % 7)::numeric, '(]') when g % 17 = 0 then numrange((g % 7)::numeric, null) else numrange((g % 40) / 4.0, (g % 40) / 4.0 + g % 5, (array['[]', '(]', '()', '[)'])[1 + g % 4]) end",
    ["'empty'", "'(,)'", "'[1,1]'", "'(1,2)'", "'[1,2)'", "'(1,2]'", "'[1,2]'", "'(NaN,)'::numrange"],
  ],
  ["t_dater", "daterange", "daterange(date '2020-01-01' + g % 100, case when g % 9 = 0 then null else date '2020-01-01' + g % 100 + g % 17 end)", ["'empty'", "'[-infinity,infinity]'", "'(,infinity)'"]],
  ["t_i4mr", "int4multirange", "case g % 5 when 0 then '{}'::int4multirange else int4multirange(int4range(g % 20, g % 20 + g % 4), int4range(g % 20 + 10 + g % 3, g % 20 + 12 + g % 6)) end", ["'{(,)}'", "'{[1,2)}'", "'{[1,2),[3,4)}'", "'{[,3),[5,)}'"]],
  [
    "t_tsv",
    "tsvector",
    "case g % 3 when 0 then to_tsvector('simple', substr(md5(g::text), 1, 2 + g % 5) || ' ' || substr(md5((g * 7)::text), 1, 1 + g % 3)) when 1 then setweight(to_tsvector('simple', 'a' || g % 9 || ' b ' || 'a' || g % 9), (array['A', 'B', 'C', 'D'])[1 + g % 4]::\"char\") else strip(to_tsvector('simple', 'w' || g % 17 || ' x' || g % 5)) end",
    ["''::tsvector", "'a'::tsvector", "'a:1'::tsvector", "'a:1A'::tsvector", "'a:1,2'::tsvector", "'a:2'::tsvector", "'ab'::tsvector", "'a b'::tsvector"],
  ],
  [
    "t_tsq",
    "tsquery",
    "case g % 4 when 0 then ('w' || g % 13)::tsquery when 1 then ('w' || g % 7 || ' & x' || g % 5)::tsquery when 2 then ('!w' || g % 7 || ' | (x' || g % 3 || ' <' || 1 + g % 3 || '> y' || g % 4 || ')')::tsquery else ('w' || g % 5 || ':' || (array['A', 'B', '*', 'AB'])[1 + g % 4])::tsquery end",
    ["''::tsquery", "'a'::tsquery", "'b'::tsquery", "'a & b'::tsquery", "'b & a'::tsquery", "'a <-> b'::tsquery", "'a <2> b'::tsquery", "'!a'::tsquery", "'a:*'::tsquery"],
  ],
  [
    "t_jsonb",
    "jsonb",
    "case g % 8 when 0 then to_jsonb(g % 50) when 1 then to_jsonb(substr(md5(g::text), 1, g % 4)) when 2 then jsonb_build_object('k' || g % 3, g % 5, 'a', (g % 2 = 0)) when 3 then jsonb_build_array(g % 4, 'x' || g % 3, null) when 4 then jsonb_build_object(repeat('z', g % 4), jsonb_build_array(g % 3)) when 5 then to_jsonb((g % 7) / 4.0) when 6 then jsonb_build_array() else jsonb_build_array(jsonb_build_object('n', g % 3)) end",
    ["'null'", "'true'", "'false'", "'[]'", "'{}'", "'\"\"'", "'0'", "'-0.0'", "'1e30'", "'[null]'", "'[[]]'", "'[{}]'", "'{\"a\": null}'", "'{\"b\": 1, \"aa\": 1}'", "'[1, [2]]'", "'[1, 2]'"],
  ],
  ["t_pair", "pair", "row(case when g % 7 = 0 then null else g % 10 end, (g % 13) / 4.0, case when g % 5 = 0 then null else array[g % 3] end)::pair", ["row(null, null, null)::pair", "row(1, 'NaN', '{}')::pair", "row(1, '-Infinity', '{1}')::pair"]],
];

for (const version of [15, 18]) {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer | undefined;
    before(async () => {
      srv = await PgServer.create({ checksums: true, ...(version === 15 ? {} : { version }) });
      srv.sql(`CREATE DATABASE ${DB}`);
      const sql = [SETUP];
      for (const [t, type, expr, edges] of TYPES) {
        sql.push(`CREATE TABLE ${t} (v ${type});`);
        sql.push(`INSERT INTO ${t} SELECT ${expr} FROM generate_series(1, ${N}) g;`);
        for (const e of edges) sql.push(`INSERT INTO ${t} VALUES (${e});`);
        sql.push(`INSERT INTO ${t} VALUES (NULL), (NULL);`);
        sql.push(`CREATE INDEX ${t}_asc ON ${t} (v);`);
        sql.push(`CREATE INDEX ${t}_desc ON ${t} (v DESC NULLS FIRST);`);
      }
      // two key columns: the enum decides first, the array breaks its ties
      sql.push("CREATE TABLE t_two (e mood, a int4[]); INSERT INTO t_two SELECT (enum_range(null::mood))[1 + g % 7], array[g % 13] FROM generate_series(1, 3000) g; CREATE INDEX t_two_ea ON t_two (e DESC, a);");
      sql.push("VACUUM ANALYZE; CHECKPOINT;");
      srv.sql(sql.join("\n"), DB);
      // ADD VALUE BEFORE gave some labels odd OIDs: enum_cmp must read pg_enum.enumsortorder for them
      assert.ok(Number(srv.rows("select count(*) from pg_enum where enumtypid = 'mood'::regtype and oid::int8 % 2 = 1", DB)[0]![0]) >= 2);
      // the server's order of every row, NULLs last (ties by ctid)
      orders = new Map(TYPES.map(([t]) => [t, srv!.rows(`SELECT ctid FROM ${t} ORDER BY v, ctid`, DB).map((r) => r[0]!)]));
      srv.stop();
    });
    after(() => srv?.destroy());
    let orders = new Map<string, string[]>();

    test("pgdisk's comparator sorts the stored values into the server's ORDER BY order", () => {
      const cat = new Cluster(srv!.pgdata).database(DB);
      const wrong: string[] = [];
      for (const [t] of TYPES) {
        const rel = cat.findRelation(t);
        const desc = cat.descriptor(rel.oid);
        const idx = cat.findRelation(`${t}_asc`);
        const cmp = indexKeysFor(cat, idx, cat.indexes().get(idx.oid)!).keys.cmps[0];
        assert.ok(cmp, `${t}: a comparator`);
        const vals: { ctid: string; block: number; item: number; d: Uint8Array | null }[] = [];
        for (const { block, item, tuple } of storedTuples(cat, rel)) {
          const s = deformHeapTuple(tuple, desc).attrs[0]!;
          vals.push({ ctid: `(${block},${item})`, block, item, d: s.isnull ? null : tuple.slice(s.off, s.off + s.len) });
        }
        let nan = 0;
        vals.sort((x, y) => {
          if (!x.d || !y.d) return (x.d ? -1 : y.d ? 1 : 0) || x.block - y.block || x.item - y.item;
          const r = cmp(x.d, 0, x.d.length, y.d, 0, y.d.length);
          if (Number.isNaN(r)) nan++;
          return r || x.block - y.block || x.item - y.item;
        });
        const want = orders.get(t)!;
        assert.equal(vals.length, want.length, t);
        const got = vals.map((v) => v.ctid);
        const at = got.findIndex((c, i) => c !== want[i]);
        if (nan || at >= 0) wrong.push(`${t}: ${nan} incomparable, first difference at ${at}: ${got.slice(at, at + 3)} vs ${want.slice(at, at + 3)}`);
      }
      assert.deepEqual(wrong, []);
    });

    test("the server's indexes verify clean, every key order checked", async () => {
      const run = await runVerify({ pgdata: srv!.pgdata, database: DB, relations: [...TYPES.map(([t]) => t), "t_two"] }, { jobs: 2, rootdescend: true });
      const errors = run.reports.flatMap((r) => r.findings.filter((f) => f.severity !== "info").map((f) => `${r.name}: ${f.code} ${f.message} ${f.detail ?? ""}`));
      assert.deepEqual(errors, []);
      const notChecked = run.reports.flatMap((r) => r.findings.filter((f) => f.code === "BT_ORDER_NOT_CHECKED").map((f) => `${r.name}: ${f.message}`));
      assert.deepEqual(notChecked, []);
      const names = run.reports.map((r) => r.name);
      for (const [t] of TYPES) assert.ok(names.includes(`${t}_asc`) && names.includes(`${t}_desc`), t);
      // real trees: levels above the leaves, so high keys and parent checks ran
      const multi = run.reports.filter((r) => r.name.endsWith("_asc") && (r.stats.levels ?? 0) >= 2);
      assert.ok(multi.length >= TYPES.length - 4, run.reports.map((r) => `${r.name}:${r.stats.levels}`).join(" "));
    });

    test("a swap of two adjacent distinct keys is an order violation for every comparator", async () => {
      const d = new Damager(srv!.pgdata, DB);
      const missed: string[] = [];
      for (const ix of [...TYPES.flatMap(([t]) => [`${t}_asc`, `${t}_desc`]), "t_two_ea"]) {
        assert.ok(swapAdjacentDistinct(d, d.path(ix)), `${ix}: two distinct adjacent keys`);
        const run = await runVerify({ pgdata: srv!.pgdata, database: DB, relations: [ix] }, { jobs: 1, heapallindexed: false });
        d.restore();
        const codes = run.reports.flatMap((r) => r.findings.map((f) => f.code));
        if (!codes.includes("BT_ITEM_ORDER")) missed.push(`${ix}: ${codes.join(",")}`);
      }
      assert.deepEqual(missed, []);
    });
  });
}
