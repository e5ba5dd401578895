// Contrib extension types offline, against the extensions' own output functions: on PostgreSQL
// 15 and 18, a table of hstore, citext, ltree, lquery, ltxtquery, cube and seg columns (and arrays),
// with edge values and many generated ones; `pgdisk inspect dump` of the stopped cluster must
// print, column by column, what `COPY ... TO STDOUT` printed (COPY format), the same values in
// the JSON dump, and no value as undecoded hex in the text dump.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { jsonRows } from "./json-rows.js";
import { datumToText, type TypeInfo } from "../../formats/datum/index.js";
import { FormatError } from "../../formats/schema/errors.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
const DB = "postgres";
const TABLE = "ext";

const SETUP = `
  CREATE EXTENSION hstore; CREATE EXTENSION citext; CREATE EXTENSION ltree; CREATE EXTENSION cube; CREATE EXTENSION seg;
  CREATE TABLE ext (id int, h hstore, c citext, l ltree, q lquery, cu cube,
    ha hstore[], ca citext[], la ltree[], qa lquery[], cua cube[], s seg, sa seg[], t ltxtquery, ta ltxtquery[]);
  INSERT INTO ext VALUES
    (1, '', '', '', '*', '(0)', '{}', '{}', '{}', '{}', '{}'),
    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, $$a=>1, b=>NULL, "x y"=>"q\\"uo\\\\te", ""=>"", "NULL"=>"NULL", "=>"=>",", "tab\tnl\nq'"=>"ünï ☃"$$,
        'MiXeD Case ünï', 'Top.Science.Astronomy_2', 'Top.*{1,2}.!foo|bar@%*', '(1, 2),(3, 4)',
        ARRAY[$$a=>b$$, $$"c"=>NULL, "d\\"q"=>"{x,y}"$$, '', NULL]::hstore[], ARRAY['A', 'b c', '', NULL, '"q"', 'x,y', 'NULL']::citext[],
        ARRAY['a.b', 'c', '', NULL]::ltree[], ARRAY['*', 'a.*{2}', NULL]::lquery[], ARRAY['(1)', '(1, 2),(3, 4)', NULL]::cube[]),
    (4, hstore('k', NULL), repeat('AbC', 4000), text2ltree(repeat('level_x.', 300) || 'end'), '*{2}', cube(array[1.5, -2.25, 0], array[1.5, -2.25, 0]),
        NULL, NULL, NULL, NULL, NULL),
    (5, hstore(ARRAY['b', 'a', 'c'], ARRAY['2', '1', NULL]), 'x', 'a', '*{,3}', cube('NaN'::float8),
        NULL, NULL, NULL, NULL, ARRAY[cube('Infinity'::float8, '-Infinity'::float8), cube(ARRAY['NaN', 1]::float8[], ARRAY['NaN', 1]::float8[])]),
    (6, hstore(repeat('key', 1000), repeat('val', 2000)), NULL, NULL, '*{2,}', cube(ARRAY[1e300, 1e-310, -0.0, 5e-324]::float8[]), NULL, NULL, NULL, NULL, NULL),
    (7, NULL, NULL, NULL, '*{1,4}.a{,}.b{1,}.c{,2}.d{3,5}.e{4}', cube(ARRAY[0.1, 0.2, 0.30000000000000004]::float8[], ARRAY[1e15, 1e16, 123456789012345678]::float8[]),
        NULL, NULL, NULL, NULL, NULL),
    (8, NULL, NULL, NULL, 'x%|y@|z*.!Top.*', cube(1, 2), NULL, NULL, NULL, NULL, NULL),
    (9, NULL, NULL, NULL, 'a|b|c|d.e*@%', cube(cube(1, 2), 3), NULL, NULL, NULL, NULL, NULL);
  INSERT INTO ext (id, h, c, l, q, cu, ha, ca, la, cua)
  SELECT i,
    (SELECT hstore(array_agg('k' || (i * j % 97) || chr(33 + (i + j) % 90)),
                   array_agg(CASE WHEN (i + j) % 7 = 0 THEN NULL ELSE repeat(chr(32 + (i * j) % 95), j % 5) || chr(160 + i % 300) END))
       FROM generate_series(1, i % 13) j),
    CASE WHEN i % 11 = 0 THEN NULL ELSE 'Cit' || repeat(chr(65 + i % 26) || chr(97 + i % 20), i % 9) || ' ' || i END,
    (SELECT text2ltree(string_agg('L' || (i * j % 1000) || CASE WHEN j % 3 = 0 THEN '_x' ELSE '' END, '.')) FROM generate_series(1, i % 40) j),
    (ARRAY['*', 'a.b', 'Top.*{' || i % 5 || '}.x', '!a' || i || '|b*', 'l' || i || '@.*{1,' || (i % 7 + 1) || '}', '*{' || i % 3 || ',}.z%'])[1 + i % 6]::lquery,
    CASE WHEN i % 4 = 0 THEN cube((SELECT array_agg((i * k) / 7.0::float8) FROM generate_series(1, 1 + i % 10) k))
         ELSE cube((SELECT array_agg(-(i + k) * 1.1::float8) FROM generate_series(1, 1 + i % 6) k),
                   (SELECT array_agg(((i * k) % 13) * 1e-3::float8 + k) FROM generate_series(1, 1 + i % 6) k)) END,
    CASE WHEN i % 5 = 0 THEN ARRAY[hstore('a', i::text), hstore('"q', NULL), NULL] END,
    CASE WHEN i % 6 = 0 THEN ARRAY[('C' || i)::citext, 'd e', NULL] END,
    CASE WHEN i % 7 = 0 THEN ARRAY[text2ltree('a.b' || i), text2ltree('')] END,
    CASE WHEN i % 8 = 0 THEN ARRAY[cube(i), cube(i, -i)] END
  FROM generate_series(10, 400) i;
  INSERT INTO ext (id, s) SELECT 1000 + row_number() OVER (), v::seg FROM unnest(ARRAY[
    '1', '-1.5', '5.0 .. 6.50', '<1 .. >2', '~3.14', '~1 .. ~2', '~1 .. >2', '.. 5', '3 ..', '1e10', '1.23e-7', '12345', '1234567',
    '0.000123', '0.00012', '-0.0', '0', '1 .. 1', '6.7e2', '~6.5e-3 .. <4.5e2', '5(+-)0.3', '8.00', '800', '8e2', '8.0e2', '-12.5e3',
    '99999', '100000', '0.0001', '0.00001', '-0.000123456789', '3.4e38', '1.0e-38', '<0.5', '>-7', '1.5 .. 1.50', '2 .. 1e5']) v;
  INSERT INTO ext (id, s, sa) SELECT 2000 + i, ((i * 1.37)::text || ' .. ' || (i * i * 2.1)::text)::seg,
    ARRAY[(-i * 1.1e-3)::text::seg, ('~' || (i * 31.4159)::text)::seg, NULL]
  FROM generate_series(1, 200) i;
  INSERT INTO ext (id, t) SELECT 3000 + row_number() OVER (), v::ltxtquery FROM unnest(ARRAY[
    'a', 'a & b', 'a | b', '!a', '!!a', '!(a | b)', '!(a & b)', 'a & (b | c)', '(a | b) & !c', 'a | b | c', 'a & b & c | d',
    'a | (b & c)', '((a))', 'Europe & Russia*@ & !Transportation', 'x% | y@ | z*', 'l_1 & top%@*', '!(a | !(b & c))',
    '(a | b) & (c | d) & !(e | f)', 'a & !b | !c & d']) v;
  INSERT INTO ext (id, t, ta) SELECT 4000 + i,
    (SELECT string_agg(CASE WHEN (i + j) % 5 = 0 THEN '!' ELSE '' END || 'w' || (i * j % 50) ||
       (ARRAY['', '%', '@', '*', '%@*'])[1 + (i + j) % 5], CASE WHEN (i * j) % 3 = 0 THEN ' | ' ELSE ' & ' END)
       FROM generate_series(1, 1 + i % 9) j)::ltxtquery,
    CASE WHEN i % 4 = 0 THEN ARRAY[('x' || i || ' | y')::ltxtquery, '!(a & b)', NULL] END
  FROM generate_series(1, 150) i;
  -- an impostor: a base type whose input function is called hstore_in but is textin (no library)
  CREATE SCHEMA fake; CREATE TYPE fake.t;
  CREATE FUNCTION fake.hstore_in(cstring) RETURNS fake.t LANGUAGE internal IMMUTABLE STRICT AS 'textin';
  CREATE FUNCTION fake.hstore_out(fake.t) RETURNS cstring LANGUAGE internal IMMUTABLE STRICT AS 'textout';
  CREATE TYPE fake.t (INPUT = fake.hstore_in, OUTPUT = fake.hstore_out, LIKE = text);
  CREATE TABLE imp (id int, v fake.t); INSERT INTO imp VALUES (1, 'a=>1');
  CHECKPOINT;`;

function pgdisk(...args: string[]): string {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `pgdisk ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** COPY text's escapes undone (\N stays as null). */
function copyField(f: string): string | null {
  if (f === "\\N") return null;
  return f.replace(/\\(.)/g, (_, c: string) => ({ t: "\t", n: "\n", r: "\r", b: "\b", f: "\f", v: "\v" })[c] ?? c);
}

/** Every mismatching field of two COPY outputs, named by row and column. */
function copyMismatches(cols: string[], want: string, got: string): string[] {
  const w = want.split("\n");
  const g = got.split("\n");
  const out: string[] = [];
  if (w.length !== g.length) out.push(`server printed ${w.length - 1} rows, pgdisk ${g.length - 1}`);
  for (let i = 0; i < Math.min(w.length, g.length); i++) {
    const wf = w[i]!.split("\t");
    const gf = g[i]!.split("\t");
    wf.forEach((f, k) => {
      if (gf[k] !== f) out.push(`row ${i + 1} ${cols[k]}: server ${JSON.stringify(f).slice(0, 300)}, pgdisk ${JSON.stringify(gf[k])?.slice(0, 300)}`);
    });
  }
  return out;
}


for (const version of [15, 18]) {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer;
    let want = "";
    let cols: string[] = [];
    before(async () => {
      srv = await PgServer.create(version === 15 ? {} : { version });
      srv.sql(SETUP);
      want = srv.sql(`COPY ${TABLE} TO STDOUT`);
      cols = srv.rows(`SELECT attname FROM pg_attribute WHERE attrelid = '${TABLE}'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`).map((r) => r[0]!);
      srv.stop();
    });
    after(() => srv?.destroy());

    const dump = (format: string): string => pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", DB, "-t", TABLE, "--format", format, "--detoast", "--jobs", "1");

    test("COPY dump prints what the server's COPY printed", () => {
      assert.ok(want.split("\n").length > 300, "the server printed the rows");
      const mism = copyMismatches(cols, want, dump("copy"));
      assert.deepEqual(mism.slice(0, 20), [], `${mism.length} fields differ`);
    });

    test("JSON dump carries the same values; text dump shows none as hex", () => {
      const wantRows = want
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => l.split("\t").map(copyField));
      const got = jsonRows(dump("json"));
      assert.equal(got.length, wantRows.length, "JSON rows");
      const jsonMism = wantRows.flatMap((r, i) => r.flatMap((v, k) => (got[i]![k] === v ? [] : [`row ${i + 1} ${cols[k]}: server ${JSON.stringify(v)?.slice(0, 200)}, pgdisk ${JSON.stringify(got[i]![k])?.slice(0, 200)}`])));
      assert.deepEqual(jsonMism.slice(0, 20), [], `${jsonMism.length} JSON values differ`);
      const text = dump("text");
      assert.match(text, /Top\.Science\.Astronomy_2/);
      assert.doesNotMatch(text, /= '[a-z_0-9]+:\\\\x/, "a value printed as undecoded hex");
    });

    test("a type whose input function is named hstore_in but is not hstore's is not decoded as hstore", () => {
      const out = pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", DB, "-t", "imp", "--format", "copy", "--jobs", "1");
      assert.equal(out, `1\tt:\\\\x${Buffer.from("a=>1").toString("hex")}\n`);
    });
  });
}

test("a cube shorter than its dimensions say is EXTENSION_TYPE_MALFORMED", () => {
  const cube: TypeInfo = { oid: 90000, name: "cube", len: -1, byval: false, align: "d", elem: 0, typtype: "b", inputFunction: "cube_in" };
  // header: 3 dimensions, not a point, and no coordinates
  assert.throws(
    () => datumToText(Uint8Array.of(3, 0, 0, 0), cube.oid, -1, (oid) => (oid === cube.oid ? cube : undefined)),
    (e: unknown) => e instanceof FormatError && e.code === "EXTENSION_TYPE_MALFORMED",
  );
});

test("an ltxtquery whose operator has no operands, or that is truncated, is EXTENSION_TYPE_MALFORMED", () => {
  const ltxtq: TypeInfo = { oid: 90001, name: "ltxtquery", len: -1, byval: false, align: "i", elem: 0, typtype: "b", inputFunction: "ltxtq_in" };
  const types = (oid: number) => (oid === ltxtq.oid ? ltxtq : undefined);
  const malformed = (e: unknown) => e instanceof FormatError && e.code === "EXTENSION_TYPE_MALFORMED";
  // size 1, then one ITEM: type OPR (3), left 0, val '&', flag, length, distance 0
  const lone = Uint8Array.of(1, 0, 0, 0, 3, 0, 0, 0, 0x26, 0, 0, 0, 0, 0, 0, 0);
  assert.throws(() => datumToText(lone, ltxtq.oid, -1, types), malformed);
  // size 2 but only one item's bytes
  assert.throws(() => datumToText(Uint8Array.of(2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0), ltxtq.oid, -1, types), malformed);
  // one VAL item whose label has no NUL before the end
  const label = Uint8Array.of(1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x61);
  assert.throws(() => datumToText(label, ltxtq.oid, -1, types), malformed);
  assert.equal(datumToText(Uint8Array.of(...label, 0), ltxtq.oid, -1, types), "a");
});

test("a gtrgm key of trigrams that is not a whole number of trigrams is EXTENSION_TYPE_MALFORMED", () => {
  const gtrgm: TypeInfo = { oid: 90002, name: "gtrgm", len: -1, byval: false, align: "i", elem: 0, typtype: "b", inputFunction: "gtrgm_in" };
  const types = (oid: number) => (oid === gtrgm.oid ? gtrgm : undefined);
  // flag ARRKEY, then "ab " and one byte too many
  assert.throws(() => datumToText(Uint8Array.of(1, 0x61, 0x62, 0x20, 0x63), gtrgm.oid, -1, types), (e: unknown) => e instanceof FormatError && e.code === "EXTENSION_TYPE_MALFORMED");
  // a multi-byte trigram (its 3-byte hash) as pg_trgm's show_trgm prints it; a signature as bit counts
  assert.equal(datumToText(Uint8Array.of(1, 0x61, 0x62, 0x20, 0xc3, 0x0f, 0x6e), gtrgm.oid, -1, types), '{"ab ",0xc30f6e}');
  assert.equal(datumToText(Uint8Array.of(2, 0xff, 0x01), gtrgm.oid, -1, types), "9 true bits, 7 false bits");
  assert.equal(datumToText(Uint8Array.of(4), gtrgm.oid, -1, types), "all true bits");
});
