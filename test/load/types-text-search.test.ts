// `pgdisk load` of tsvector, tsquery and composite types (formats/datum/input-textsearch.ts,
// input-record.ts) held to COPY FROM: one file goes through `pgdisk load` into a copy of a
// stopped cluster and through COPY FROM into a twin; the stored tuples' data bytes and every
// row's text must be the twin's. Bad values exit 2 with the server's wording, naming line and
// column, and change nothing; the server refuses the same values.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NPM_SERVER_VERSIONS, PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { copyLine, type Field } from "../../samples/copy.js";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { fileDigests } from "../migrate/helpers.js";
import { assertTwinsAgree, loadTwins, pgdiskLoad, removeTwins, storedValues, tableDigest, type LoadTwins } from "./helpers.js";

const DB = "app";
/** the oldest and newest stock servers: their composite datums carry the standard header */
const VERSIONS = [NPM_SERVER_VERSIONS[0]!, NPM_SERVER_VERSIONS[NPM_SERVER_VERSIONS.length - 1]!];
const ROWS = 1200;
const COLUMNS = 8;
const TYPES = `
create type pair as (x int, t text);
create type comp as (t text, i int, gone int, n numeric(10,3), p pair, a int[]);
alter type comp drop attribute gone;
create table ts (n int4, v tsvector, q tsquery, av tsvector[], aq tsquery[], c comp, ac comp[], p pair);
insert into ts (n) values (0);
`;
const SETUP = `create extension pageinspect;\n${TYPES}\ncreate type snap as (i int, s regclass);\ncreate table sn (id int, s snap);`;

let t: LoadTwins;

/** An array element or composite field in double quotes, " and \ escaped with a backslash. */
const quoted = (s: string): string => `"${s.replace(/["\\]/g, "\\$&")}"`;

function rows(count = ROWS): Field[][] {
  const r = new Rng(20261203, "load-text-search");
  const nul = (s: string): Field => (r.chance(0.08) ? null : s);
  const words = ["a", "b", "ab", "abc", "fat", "rat", "cat", "é", "übel", "z9", "-x", "a-b", "x_y", "1", "2.5", "日本"];
  const lexeme = (): string =>
    r.pick([r.pick(words), r.pick(words), `'${r.pick(words)} ${r.pick(words)}'`, "'it''s'", "\\'q", "'a\\\\b'", "'&'", "'|'", "'('", "'<'", "'!'", "'::'", "'a,b'", `'"x"'`]);
  // positions past 16383 are clamped to it; the rows after the random ones hold those
  const position = (): string => String(r.pick([1, 2, 3, 5, 7, 100, 1000, 16382])) + r.pick(["", "", "A", "B", "C", "D", "a", "b", "*"]);
  const tsvector = (): string =>
    Array.from({ length: r.int(0, 6) }, () => (r.chance(0.5) ? `${lexeme()}:${Array.from({ length: r.int(1, 4) }, position).join(",")}` : lexeme())).join(r.pick([" ", "  ", "\t"]));
  const operand = (): string => (r.chance(0.3) ? `${lexeme()}:${Array.from({ length: r.int(0, 3) }, () => r.pick([..."aAbBcCdD*"])).join("")}` : lexeme());
  const tsquery = (d = 0): string => {
    const k = r.int(0, 99);
    if (d > 3 || k < 30) return operand();
    if (k < 40) return "!".repeat(r.int(1, 3)) + tsquery(d + 1);
    if (k < 55) return `(${r.pick(["", " "])}${tsquery(d + 1)}${r.pick(["", " "])})`;
    return tsquery(d + 1) + r.pick([" & ", " | ", "&", "|", " <-> ", "<->", " <2> ", " <0> ", " <16384> "]) + tsquery(d + 1);
  };
  const text = (): string => r.pick(["", "plain", "with space", 'a "quote"', "back\\slash", "(paren)", "a,b", "日本", "tab\there", "NULL", " lead"]);
  const field = (s: string | null): string => (s === null ? "" : r.chance(0.5) || /["\\(),\s]/.test(s) || s === "" ? quoted(s) : s);
  const pair = (): string => `(${r.chance(0.1) ? "" : String(r.int(-1000, 1000))},${field(r.chance(0.1) ? null : text())})`;
  const intArray = (): string => `{${Array.from({ length: r.int(0, 4) }, () => (r.chance(0.1) ? "NULL" : String(r.int(-99, 99)))).join(",")}}`;
  const numeric = (): string => r.pick([String(r.int(-9999, 9999)), `${r.int(0, 999)}.${r.int(0, 99999)}`, "0.0005", "-1.2345", "NaN"]);
  const comp = (): string =>
    `${r.pick(["", " "])}(${[
      field(r.chance(0.1) ? null : text()),
      r.chance(0.1) ? "" : String(r.int(-100000, 100000)),
      r.chance(0.1) ? "" : numeric(),
      r.chance(0.1) ? "" : quoted(pair()),
      r.chance(0.1) ? "" : quoted(intArray()),
    ].join(",")})${r.pick(["", " "])}`;
  const array = (elem: () => string): string => `{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : quoted(elem()))).join(",")}}`;
  const out: Field[][] = [];
  for (let i = 0; i < count; i++) {
    out.push([String(i + 1), nul(tsvector()), nul(tsquery()), nul(array(tsvector)), nul(array(tsquery)), nul(comp()), nul(array(comp)), nul(pair())]);
  }
  // the limits: positions cut at 256 and at 16383, long lexemes, phrase distance bounds
  out.push(["9001", Array.from({ length: 300 }, (_, k) => `w:${k + 1}`).join(" "), "a <16384> b", null, null, null, null, null]);
  out.push(["9002", `${"x".repeat(2046)}:1,2 y`, `${"q".repeat(2046)}:*`, null, null, null, null, null]);
  out.push(["9003", "w:16383A,16384B,99999 w:3", "!!!!a & !(b | c)", null, null, null, null, null]);
  out.push(["9005", "v:1,2,3,4,5,6,16383B,16384A w:16384B,16383A,9", "'x' <0> y", null, null, null, null, null]);
  out.push(["9004", "", "", "{}", "{}", "(,,,,)", "{}", "(,)"]);
  return out;
}

before(async () => {
  t = await loadTwins(SETUP, { db: DB, table: "ts", lines: rows(), tag: "ts" });
});

after(() => removeTwins(t?.srv, t ? [t.loadedRoot, t.twinRoot] : [], t?.dir ?? ""));

test("pgdisk load of tsvector, tsquery, composites and arrays of them stores what COPY FROM stores", () => {
  assertTwinsAgree(t, {
    db: DB,
    table: "ts",
    rows: ROWS + 5,
    order: "n",
    more: (loaded, twin) => {
      assert.equal(tableDigest(loaded, DB, "ts", "n").rows, ROWS + 6);
      // the composite's attributes read back through the server's own record_out and field access
      const fields = (s: PgServer): (string | null)[][] => s.rows("select ts.n, (c).t, (c).i, (c).n, ((c).p).t, (c).a, (ac[1]).p from ts order by 1", DB);
      assert.deepEqual(fields(loaded), fields(twin));
    },
  });
});

const BAD: [number, string, RegExp, string][] = [
  [1, "a:0", /wrong position info in tsvector: "a:0" \(input line 1, column v/, "tsvector"],
  [1, "'abc", /syntax error in tsvector: "'abc" \(input line 1, column v/, "tsvector"],
  [1, "a:1aa", /syntax error in tsvector: "a:1aa"/, "tsvector"],
  [1, "a\\", /there is no escaped character: "a\\"/, "tsvector"],
  [1, "x".repeat(2048), /word is too long \(2048 bytes, max 2047 bytes\) \(input line 1, column v/, "tsvector"],
  [2, "a &", /no operand in tsquery: "a &" \(input line 1, column q/, "tsquery"],
  [2, "a b", /syntax error in tsquery: "a b" \(input line 1, column q/, "tsquery"],
  [2, "(a", /syntax error in tsquery: "\(a"/, "tsquery"],
  [2, "a:x", /syntax error in tsquery: "a:x"/, "tsquery"],
  [2, "a <16385> b", /distance in phrase operator must be an integer value between zero and 16384 inclusive \(input line 1, column q/, "tsquery"],
  [2, "!".repeat(33) + "a", /tsquery stack too small/, "tsquery"],
  [3, '{"a:0"}', /wrong position info in tsvector: "a:0" \(input line 1, column av/, "tsvector[]"],
  [5, "(a,1", /malformed record literal: "\(a,1" \(input line 1, column c/, "comp"],
  [5, "a,1)", /malformed record literal: "a,1\)"/, "comp"],
  [5, '(a,1,2,"(1,x)",{},9)', /malformed record literal: "\(a,1,2,"\(1,x\)",\{\},9\)"/, "comp"],
  [5, "(a,1) x", /malformed record literal: "\(a,1\) x"/, "comp"],
  [5, "(a,x)", /invalid input syntax for type integer: "x" \(input line 1, column c/, "comp"],
  [5, "(a,1,12345678.5)", /numeric field overflow \(input line 1, column c/, "comp"],
  [5, '(a,1,2,"(1,2,3)")', /malformed record literal: "\(1,2,3\)"/, "comp"],
  [7, "(x,y)", /invalid input syntax for type integer: "x" \(input line 1, column p/, "pair"],
];

test("bad tsvector, tsquery and composite values exit 2 with the server's error; nothing changes", () => {
  const pgdata = t.srv.pgdata;
  const before0 = fileDigests(pgdata);
  const at = (col: number, v: string): string => copyLine(Array.from({ length: COLUMNS }, (_, k) => (k === 0 ? "1" : k === col ? v : null)));
  for (const [col, value, pattern] of BAD) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "ts", "-"], at(col, value));
    assert.equal(r.status, 2, `${value} ${r.stderr}`);
    assert.match(r.stderr, pattern, value);
  }
  // where the server's sort order decides which weight survives the position limit, pgdisk refuses by name
  const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "ts", "-"], at(1, "w:16384B,5,4,3,2,1,16383A"));
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /pgdisk cannot tell which weight the server keeps for position 16383/);
  // a 2047-byte lexeme: the system PostgreSQL 15.20 stores it, stock servers refuse it
  for (const [col, v] of [[1, "x".repeat(2047)], [2, "q".repeat(2047)]] as const) {
    const d = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "ts", "-"], at(col, v));
    assert.equal(d.status, 2, d.stderr);
    assert.match(d.stderr, /pgdisk does not load a lexeme of 2047 bytes: PostgreSQL builds differ/);
  }
  assert.deepEqual(fileDigests(pgdata), before0);
});

test("a composite made of a type pgdisk cannot encode is refused, naming column and type", () => {
  const before0 = fileDigests(t.srv.pgdata);
  const r = pgdiskLoad(["--pgdata", t.srv.pgdata, "-d", DB, "-t", "sn", "-"], "1\t(1,pg_class)\n");
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /column "s" of table "public.sn" has type snap, made of type regclass, a type pgdisk cannot encode from text yet/);
  assert.deepEqual(fileDigests(t.srv.pgdata), before0);
});

test("the server refuses the same bad values", () => {
  const s = PgServer.attach(t.twinRoot);
  s.start();
  try {
    for (const [, value, pattern, type] of BAD) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select $pgdisk$${value}$pgdisk$::${type}`]);
      assert.notEqual(r.status, 0, `${type} ${value}`);
      // the server's message, without pgdisk's "(input line ..., column ...)"
      const message = new RegExp(pattern.source.replace(/ \\\(input line 1, column \w+$/, ""));
      assert.match(r.stderr, message, `${type} ${value}`);
    }
  } finally {
    s.stop();
  }
});

for (const version of VERSIONS) {
  test(`PostgreSQL ${version} (stock): the same values stored as COPY FROM stores them`, async () => {
    const base = await PgServer.create({ version });
    const work = mkdtempSync(join(tmpdir(), `pgdisk-load-ts-v${version}-`));
    chmodSync(work, 0o755);
    let loaded = "";
    let twin = "";
    try {
      base.sql(`create database ${DB}`);
      base.sql(`${TYPES} checkpoint;`, DB);
      base.stop();
      const input = join(work, "ts.tsv");
      writeForPg(input, rows(300).map(copyLine).join(""));
      loaded = copyRoot(base.root, `ts-v${version}`);
      twin = copyRoot(base.root, `ts-v${version}-twin`);
      const r = pgdiskLoad(["--pgdata", join(loaded, "data"), "-d", DB, "-t", "ts", "--json", input]);
      assert.equal(r.status, 0, r.stderr);
      const t = PgServer.attach(twin, { version });
      t.start();
      t.sql(`copy ts from '${input}'; checkpoint;`, DB);
      t.stop();
      const values = (root: string): string[] => [...storedValues(DB, join(root, "data"), "ts").values()].map((v) => v.join(" ")).sort();
      assert.deepEqual(values(loaded), values(twin));
      const a = PgServer.attach(loaded, { version });
      const b = PgServer.attach(twin, { version });
      a.start();
      b.start();
      try {
        assert.deepEqual(tableDigest(a, DB, "ts", "n"), tableDigest(b, DB, "ts", "n"));
        const fields = (s: PgServer): (string | null)[][] => s.rows("select ts.n, (c).t, (c).n, ((c).p).t, (ac[1]).a from ts order by 1", DB);
        assert.deepEqual(fields(a), fields(b));
      } finally {
        a.stop();
        b.stop();
      }
    } finally {
      base.destroy();
      removeRoot(loaded || undefined);
      removeRoot(twin || undefined);
      rmSync(work, { recursive: true, force: true });
    }
  });
}
