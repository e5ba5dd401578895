// Type output offline, against the server's own output functions: for a table per group of
// types (with edge values) and for the catalogs holding such values, `pgdisk inspect dump`
// of the stopped cluster must print, column by column, what `COPY ... TO STDOUT` printed
// (COPY format), and the same values in the JSON dump; the text dump must show no value as
// undecoded hex.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { jsonRows } from "./json-rows.js";
import { QUOTED_KEYWORDS } from "../../formats/datum/keywords.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
const DB = "postgres";

/** Each group: setup SQL, then the tables whose dump is compared. */
const GROUPS: { name: string; sql: string; tables: string[] }[] = [
  {
    name: "reg* types",
    sql: `
      CREATE ROLE "Mixed Role"; CREATE ROLE alice;
      CREATE SCHEMA s2;
      CREATE TABLE public.pg_class_twin (a int); CREATE TABLE s2.hidden (a int); CREATE TABLE "Odd Name" (a int);
      CREATE TABLE s2."select" (a int); CREATE TABLE s2.pg_class (a int);
      CREATE TYPE s2.color AS ENUM ('red'); CREATE TYPE public.textrange AS RANGE (subtype = text);
      CREATE DOMAIN posint AS int CHECK (VALUE > 0);
      CREATE FUNCTION s2.f(int) RETURNS int LANGUAGE sql AS 'select 1';
      CREATE FUNCTION public.abs(text) RETURNS int LANGUAGE sql AS 'select 1';
      CREATE FUNCTION public.int4in(text) RETURNS int LANGUAGE sql AS 'select 1';
      CREATE OPERATOR s2.=== (leftarg = int, rightarg = int, function = int4eq);
      CREATE COLLATION s2.mycoll (locale = 'C'); CREATE COLLATION public."Upper Coll" (locale = 'C');
      CREATE TEXT SEARCH CONFIGURATION s2.mycfg (copy = english);
      CREATE TEXT SEARCH DICTIONARY s2.mydict (template = simple);
      CREATE TABLE regs (p regproc, pp regprocedure, o regoper, oo regoperator, c regclass, t regtype, r regrole, n regnamespace, cf regconfig, d regdictionary, co regcollation);
      INSERT INTO regs VALUES
        ('int4out', 'abs(int4)', '||/', '+(int4,int4)', 'pg_class', 'int4[]', 'postgres', 'public', 'english', 'simple', '"C"'),
        ('abs(int4)'::regprocedure, 'public.abs(text)', 's2.===', 's2.===(int4,int4)', 's2.hidden', 's2.color', '"Mixed Role"', 's2', 's2.mycfg', 's2.mydict', 's2.mycoll'),
        ('s2.f', 's2.f(int)', 0, 0, '"Odd Name"', 'posint', 'alice', 'pg_catalog', 'simple', 'english_stem', 'default'),
        (0, 0, '-(NONE,int4)'::regoperator, '-(NONE,int4)', 's2.select', 'textrange', 0, 0, 0, 0, 0),
        (99999, 99999, 99999, 99999, 99999, 99999, 99999, 99999, 99999, 99999, 99999),
        ('pg_catalog.int4in', 'public.int4in(text)', '~~(text,text)'::regoperator, '~~(text,text)', 'pg_class_twin', 'character varying(3)[]', 'pg_read_all_data', 'information_schema', 'german', 'german_stem', 'ucs_basic'),
        ('public.int4in', 'pg_catalog.timestamptz(timestamp with time zone,integer)', '!~(text,text)'::regoperator, '@@(tsvector,tsquery)', 'pg_toast.pg_toast_1255', 'bpchar', NULL, 'pg_toast', NULL, NULL, '"en-x-icu"'),
        ('array_in', 'array_in(cstring,oid,int4)', NULL, '=(bool,bool)', 's2.pg_class', 'timestamptz[]', NULL, NULL, NULL, NULL, '"Upper Coll"'),
        ('int4pl', 'int4pl(int4,int4)', NULL, NULL, 'pg_catalog.pg_class', 'bit varying', NULL, NULL, NULL, NULL, NULL),
        (NULL, 'array_cat(anycompatiblearray,anycompatiblearray)', NULL, NULL, NULL, 's2.color[]', NULL, NULL, NULL, NULL, NULL),
        (NULL, NULL, NULL, NULL, NULL, 'int2vector', NULL, NULL, NULL, NULL, NULL),
        (NULL, NULL, NULL, NULL, NULL, '"char"', NULL, NULL, NULL, NULL, NULL);
      CREATE TABLE reg_arrays (a regclass[], b regtype[], c regrole[]);
      INSERT INTO reg_arrays VALUES (ARRAY['pg_class', '"Odd Name"', 's2."select"', 0]::regclass[], '{int4,text,s2.color,numeric}', ARRAY['postgres', '"Mixed Role"']::regrole[]);`,
    tables: ["regs", "reg_arrays"],
  },
  {
    name: "aclitem",
    sql: `
      CREATE ROLE "quote""d"; CREATE ROLE "Ünï";
      GRANT SELECT, INSERT ON "Odd Name" TO "Mixed Role" WITH GRANT OPTION;
      GRANT UPDATE ON "Odd Name" TO PUBLIC; GRANT DELETE ON "Odd Name" TO "quote""d"; GRANT TRUNCATE ON "Odd Name" TO "Ünï";
      GRANT ALL ON SCHEMA s2 TO alice WITH GRANT OPTION;
      GRANT EXECUTE ON FUNCTION s2.f(int) TO alice; REVOKE EXECUTE ON FUNCTION s2.f(int) FROM PUBLIC;
      GRANT CONNECT, TEMP ON DATABASE postgres TO alice;
      GRANT SET, ALTER SYSTEM ON PARAMETER work_mem TO alice;
      ALTER DEFAULT PRIVILEGES IN SCHEMA s2 GRANT SELECT ON TABLES TO "Mixed Role";
      ALTER DEFAULT PRIVILEGES FOR ROLE alice REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
      CREATE TABLE acls (a aclitem, b aclitem[]);
      INSERT INTO acls SELECT unnest(relacl), relacl FROM pg_class WHERE relname = 'Odd Name';
      INSERT INTO acls VALUES ('=r/postgres', '{}'), (makeaclitem(99999, 10, 'SELECT', true), NULL), (makeaclitem(10, 99998, 'UPDATE', false), '{=/postgres}');
      INSERT INTO acls SELECT unnest(nspacl), nspacl FROM pg_namespace WHERE nspname = 's2';
      INSERT INTO acls SELECT unnest(paracl), paracl FROM pg_parameter_acl;`,
    tables: ["acls"],
  },
  {
    name: "ranges and multiranges",
    sql: `
      CREATE TYPE public.vcrange AS RANGE (subtype = varchar);
      CREATE TYPE public.floatrange AS RANGE (subtype = float8);
      CREATE TABLE rng (a textrange, b vcrange, c floatrange, m int4multirange, n nummultirange, d datemultirange, ts tsmultirange, tz tstzmultirange, i8 int8multirange, tm textmultirange, fm floatmultirange);
      INSERT INTO rng VALUES
        ('[a,"b c")', '[,z]', '[1.5,2)', '{}', '{[1.5,2.5],(3,)}', '{[2000-01-01,2000-02-01),[2001-01-01,)}', '{[2000-01-01 10:00,2000-01-01 11:00)}', '{(,2000-01-01 00:00+00)}', '{[1,2),[3,4),[5,6),[7,8),[9,10),[11,12)}', '{[a,b),["x\\\\y","z""")}', '{[-Infinity,0),(1e300,Infinity]}'),
        ('empty', 'empty', 'empty', '{[1,3),[5,9)}', '{[-1e30,0.000001)}', '{(,)}', '{}', '{[-infinity,infinity]}', '{(,)}', '{}', '{}'),
        ('(,)', '("",)', '(-0,0]', '{(,5),[10,20),[30,)}', NULL, NULL, NULL, NULL, NULL, '{(,"")}', NULL),
        (textrange(repeat('x', 300), NULL), NULL, NULL, (SELECT range_agg(int4range(i, i + 1)) FROM generate_series(0, 100, 3) i), (SELECT range_agg(numrange(i, i + 0.5)) FROM generate_series(0, 20) i), NULL, NULL, NULL, NULL, (SELECT range_agg(textrange(i::text, i::text || 'z')) FROM generate_series(10, 30, 2) i), NULL);`,
    tables: ["rng"],
  },
  {
    name: "tsquery",
    sql: `
      CREATE TABLE tsq (q tsquery, qa tsquery[]);
      INSERT INTO tsq (q) VALUES (''), ('a'), ('fat & (cat | rat)'), ('!a'), ('!(a & b)'), ('!!a'), ('a <-> b'), ('a <3> b'), ('(a <-> b) <-> c'), ('a <-> (b <-> c)'),
        ('a:*AB & b:C | c:D'), ($$'it''s' & 'back\\\\slash' & 'sp ace'$$), ('a | b & c'), ('(a | b) & c'), ('!a <-> b'), ('!(a <-> b)'), ('(a & b) <-> c'), ('a <-> (b | c)'),
        ('a:* <0> b'), ('ünï:A'), ('!(!a | b) & !c'), (to_tsquery('english', 'The & quick <-> brown & !foxes:*')), (phraseto_tsquery('english', 'the quick brown fox')),
        (websearch_to_tsquery('english', '"big dog" or -cat')), ('a <16384> b');
      INSERT INTO tsq VALUES ('x & y', ARRAY['a | b', '!c', '']::tsquery[]);`,
    tables: ["tsq"],
  },
  {
    name: "jsonpath",
    sql: `
      CREATE TABLE jp (p jsonpath, pa jsonpath[]);
      INSERT INTO jp (p) VALUES ('$'), ('strict $.a'), ('$.a.b[*].c'), ('$.*'), ('$.**'), ('$.**{2}'), ('$.**{2 to 5}'), ('$.**{last}'), ('$.**{1 to last}'), ('$.**{last to 1}'),
        ('$[0, 1 to 3, last - 1]'), ('$.a ? (@.b > 1 && @.c == "x\\"y" || !(@.d < 2))'), ('$.a + 1'), ('1 + 2 * 3'), ('(1 + 2) * 3'), ('-$.a'), ('+$.a.b'), ('- (1 + 2)'),
        ('$.a.type().size().abs().floor().ceiling().double().keyvalue()'), ('$.d.datetime()'), ('$.d.datetime("HH24:MI")'), ('$ ? (@ like_regex "^a.*b$" flag "ims")'),
        ('$ ? (@ like_regex "x")'), ('$ ? (@ like_regex "a" flag "xq")'), ('$ ? (@ starts with "ab")'), ('$ ? ((@ > 0) is unknown)'), ('$ ? (exists (@.a))'), ('$var'), ('$"my var".x'),
        ('null'), ('true'), ('false'), ('"str\\n\\ttab\\u0001"'), ('1.5e10'), ('-1.5'), ('(1).a'), ('$.a[1.2]'), ('$."ünï code"'), ('lax $.a'), ('$.a % 2 / 3'),
        ('$ ? (@ == null || @ == true)'), ('$.g ? (@ < $x && @ != 1)'), ('$[*] ? (@.a[last] > 0)'), ('$ ? (!(@ > 1) && (@ < 5 || @ > 10))'), ('1 - -2'), ('1 - (2 - 3)'),
        ('(1 - 2) - 3'), ('$.a[$.b to $.c]'), ('$.**{0 to 2147483647}'), ('0.000000000000000001'), ('-0');
      INSERT INTO jp VALUES ('$.x', ARRAY['$.a ? (@ > 1)', 'strict $[*]']::jsonpath[]);`,
    tables: ["jp"],
  },
  {
    name: "extended statistics",
    sql: `
      CREATE TABLE stx (a int, b int, c int, t text);
      INSERT INTO stx SELECT i % 10, i % 20, i % 7, (i % 5)::text FROM generate_series(1, 2000) i;
      CREATE STATISTICS stx_all (ndistinct, dependencies, mcv) ON a, b, c FROM stx;
      CREATE STATISTICS stx_pair (ndistinct, dependencies) ON a, t FROM stx;
      CREATE STATISTICS stx_expr ON (a + b), (c * 2), lower(t) FROM stx;
      ANALYZE stx;`,
    tables: ["pg_statistic_ext_data", "pg_statistic_ext"],
  },
];

/** Catalogs whose values need the catalog to print (ACLs, reg*, pg_node_tree, anyarray statistics). */
const CATALOGS = ["pg_class", "pg_proc", "pg_namespace", "pg_type", "pg_attribute", "pg_database", "pg_statistic", "pg_default_acl", "pg_parameter_acl", "pg_range", "pg_operator", "pg_index", "pg_rewrite"];

let srv: PgServer;
const serverCopy = new Map<string, string>();
const tableColumns = new Map<string, string[]>();
let serverKeywords: string[] = [];

before(async () => {
  srv = await PgServer.create();
  for (const g of GROUPS) srv.sql(g.sql);
  // statistics over a domain, an aclitem and arrays, for pg_statistic's anyarray columns
  srv.sql(`
    CREATE TABLE stats_src (d posint, a aclitem, r textrange, t text[], c s2.color);
    INSERT INTO stats_src SELECT 1 + i % 7, makeaclitem(10, 10, 'SELECT', i % 2 = 0), textrange(i::text, NULL), ARRAY[(i % 3)::text], 'red' FROM generate_series(1, 500) i;
    ANALYZE stats_src; ANALYZE regs; ANALYZE rng;
    CHECKPOINT;`);
  for (const t of [...GROUPS.flatMap((g) => g.tables), ...CATALOGS]) {
    serverCopy.set(t, srv.sql(`COPY ${t} TO STDOUT`));
    tableColumns.set(
      t,
      srv.rows(`SELECT attname FROM pg_attribute WHERE attrelid = '${t}'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`).map((r) => r[0]!),
    );
  }
  serverKeywords = srv.rows("SELECT word FROM pg_get_keywords() WHERE catcode <> 'U' ORDER BY word").map((r) => r[0]!);
  srv.stop();
});

test("the keywords quote_identifier quotes are the server's", () => {
  assert.deepEqual([...QUOTED_KEYWORDS].sort(), serverKeywords);
});
after(() => srv?.destroy());

function pgdisk(...args: string[]): string {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `pgdisk ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const dump = (table: string, format: string): string => pgdisk("inspect", "dump", "--pgdata", srv.pgdata, "-d", DB, "-t", table, "--format", format, "--detoast", "--jobs", "1");

/** COPY text's escapes undone (\N stays as null). */
function copyField(f: string): string | null {
  if (f === "\\N") return null;
  return f.replace(/\\(.)/g, (_, c: string) => ({ t: "\t", n: "\n", r: "\r", b: "\b", f: "\f", v: "\v" })[c] ?? c);
}

/** Every mismatching field of two COPY outputs, named by row and column. */
function copyMismatches(table: string, want: string, got: string): string[] {
  const cols = tableColumns.get(table)!;
  const w = want.split("\n");
  const g = got.split("\n");
  const out: string[] = [];
  if (w.length !== g.length) out.push(`${table}: server printed ${w.length - 1} rows, pgdisk ${g.length - 1}`);
  for (let i = 0; i < Math.min(w.length, g.length); i++) {
    const wf = w[i]!.split("\t");
    const gf = g[i]!.split("\t");
    wf.forEach((f, k) => {
      if (gf[k] !== f) out.push(`${table} row ${i + 1} ${cols[k]}: server ${JSON.stringify(f)}, pgdisk ${JSON.stringify(gf[k])}`);
    });
  }
  return out;
}


for (const t of [...GROUPS.flatMap((g) => g.tables), ...CATALOGS]) {
  test(`${t}: COPY, JSON and text dumps print what the server prints`, () => {
    const want = serverCopy.get(t)!;
    assert.ok(want.length > 0, `${t} is empty on the server`);
    const mism = copyMismatches(t, want, dump(t, "copy"));
    assert.deepEqual(mism.slice(0, 20), [], `${mism.length} fields differ`);
    const wantRows = want
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => l.split("\t").map(copyField));
    const got = jsonRows(dump(t, "json"));
    assert.equal(got.length, wantRows.length, "JSON rows");
    const cols = tableColumns.get(t)!;
    const jsonMism = wantRows.flatMap((r, i) => r.flatMap((v, k) => (got[i]![k] === v ? [] : [`row ${i + 1} ${cols[k]}: server ${JSON.stringify(v)?.slice(0, 200)}, pgdisk ${JSON.stringify(got[i]![k])?.slice(0, 200)}`])));
    assert.deepEqual(jsonMism.slice(0, 20), [], `${jsonMism.length} JSON values differ`);
    const text = dump(t, "text");
    assert.doesNotMatch(text, /= '[a-z_0-9]+:\\\\x/, "a value printed as undecoded hex");
  });
}
