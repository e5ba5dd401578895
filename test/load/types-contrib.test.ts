// `pgdisk load` of contrib extension types (formats/datum/input-contrib.ts, input-ltree.ts: citext,
// hstore, ltree, lquery, ltxtquery, cube and seg, and the xid
// family xid, cid, xid8) held to COPY FROM: one file goes through `pgdisk load` into a copy of a
// stopped PostgreSQL 15 cluster and through COPY FROM into a twin; the stored tuples' data bytes
// and every row's text must be the twin's. Bad values exit 2, naming line and column, and
// change nothing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { copyLine, type Field } from "../../samples/copy.js";
import { copyRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { fileDigests } from "../migrate/helpers.js";
import { heapTuples, pgdiskLoad, removeTwins, tableDigest } from "./helpers.js";

const DB = "app";
const ROWS = 1200;
const COLUMNS = ["n", "ct", "act", "x", "c", "x8", "h", "ah", "lt", "alt", "cu", "acu", "sg", "asg", "lq", "alq", "tq", "atq"];
const SETUP = `
create extension pageinspect;
create extension citext;
create extension hstore;
create extension ltree;
create extension cube;
create extension seg;
create table g (n int4, ct citext, act citext[], x xid, c cid, x8 xid8, h hstore, ah hstore[], lt ltree, alt ltree[], cu cube, acu cube[], sg seg, asg seg[], lq lquery, alq lquery[], tq ltxtquery, atq ltxtquery[]);
insert into g (n) values (0);
`;

const BAD_LQUERY: [string, RegExp][] = [
  ["a..b", /lquery syntax error at character 3/],
  ["a|", /lquery syntax error: Unexpected end of input|lquery syntax error/],
  ["a@b", /lquery syntax error at character 3/],
  ["*@", /lquery syntax error at character 2/],
  ["!", /lquery syntax error at character 2/],
  ["a.@", /lquery syntax error at character 3/],
  ["a{2,1}", /Low limit \(2\) is greater than high limit \(1\)/],
  ["a{70000}", /Low limit \(70000\) exceeds the maximum allowed \(65535\)/],
  ["*{1,70000}", /High limit \(70000\) exceeds the maximum allowed \(65535\)/],
  ["a{1", /lquery syntax error/],
  ["a{1}b", /lquery syntax error at character 5/],
  [`${"a".repeat(256)}`, /label string is too long/],
];
const BAD_LTXTQUERY: [string, RegExp][] = [
  ["a &", /operand syntax error/],
  ["", /operand syntax error/],
  ["a b", /syntax error/],
  ["(a", /syntax error/],
  ["a)", /syntax error/],
  ["a@b", /modifiers syntax error/],
  ["a\v& b", /syntax error/],
  ["a & ()", /operand syntax error/],
  [`${"a".repeat(256)}`, /operand is too long/],
];

let srv: PgServer;
let dir = "";
let loadedRoot = "";
let twinRoot = "";
let file = "";
let load: ReturnType<typeof pgdiskLoad>;

function rows(): Field[][] {
  const r = new Rng(20261203, "load-contrib");
  const nul = (s: string): Field => (r.chance(0.08) ? null : s);
  const word = (): string => r.pick(["a", "AbC", "abc", "Zz", "é", "É", "a b", "x,y", 'q"t', "", "back\\slash", `W${r.int(0, 99)}`]);
  const quoted = (w: string): string => (w === "" || /[ ,"\\{}]/.test(w) ? `"${w.replace(/["\\]/g, "\\$&")}"` : w);
  const u32 = (): string => String(r.pick([0, 1, 2, 3, r.int(0, 4294967295), 4294967295]));
  const u64 = (): string => r.pick(["0", "1", String(r.int(0, 4294967295)), `${r.int(1, 1844673)}${String(r.int(0, 999999999999)).padStart(13, "0")}`, "18446744073709551615"]);
  const hword = (): string => {
    const w = r.pick(["a", "b", "aa", "ab", "B", "key", "é", "x y", "q\"t", "", "sl\\ash", "NULL", "null", "=>", ",", "=", `k${r.int(0, 20)}`]);
    return r.chance(0.5) || /[ ,=>"\\]/.test(w) || w === "" ? `"${w.replace(/["\\]/g, "\\$&")}"` : w;
  };
  const hsp = (): string => r.pick(["", "", " ", "\t", "  "]);
  const hstore = (): string => {
    // up to 10 pairs: past 6 out of order with a duplicate key the server's unstable sort decides; keep those duplicates equal
    const n = r.int(0, r.chance(0.7) ? 6 : 10);
    const pairs: string[] = [];
    const seen = new Map<string, string>();
    for (let k = 0; k < n; k++) {
      const key = hword();
      let val = r.chance(0.15) ? r.pick(["NULL", "null", "NuLl"]) : hword();
      if (n > 6) val = seen.get(key.replace(/^"|"$/g, "")) ?? val;
      seen.set(key.replace(/^"|"$/g, ""), val);
      pairs.push(`${hsp()}${key}${hsp()}=>${r.chance(0.8) ? "" : " "}${val}${hsp()}`);
    }
    return pairs.join(",");
  };
  const label = (): string => (r.chance(0.02) ? "Z".repeat(255) : r.pick(["a", "B", "Top", "x_1", "_", "9", `n${r.int(0, 999)}`]));
  const ltree = (): string => (r.chance(0.05) ? "" : Array.from({ length: r.int(1, 6) }, label).join("."));
  const num = (): string => r.pick([String(r.int(-99, 99)), `${r.int(-9, 9)}.${r.int(0, 99)}`, `${r.int(1, 9)}e${r.int(-5, 5)}`, "-0", "0", ".5", "1.", "+3", "1.e2", "inf", "-Infinity", "NaN", "1e-310"]);
  const cube = (): string => {
    const d = r.int(0, 4);
    const corner = (): string[] => Array.from({ length: d }, num);
    const a = corner();
    const b = r.chance(0.3) ? [...a] : corner();
    const s1 = (): string => r.pick(["", " ", "\t"]);
    const c = (xs: string[]): string => `(${s1()}${xs.join(`${s1()},${s1()}`)}${s1()})`;
    if (d === 0) return r.pick(["()", "(),()", "[(),()]"]);
    return r.pick([`${c(a)},${s1()}${c(b)}`, `[${c(a)},${s1()}${c(b)}]`, c(a), a.join(","), ` ${c(a)} `]);
  };
  // a seg number in one of the spellings segscan.l reads, with its value (for ordering bounds)
  const segNum = (): [string, number] => {
    const sign = r.pick(["", "", "-", "+"]);
    const int = r.pick(["0", "1", "5", "12", "007", "123456", "1234567", "99999999", String(r.int(0, 9999))]);
    const frac = r.pick(["", "", ".0", ".5", ".50", ".000123", `.${r.int(0, 999999)}`, ".25000"]);
    const exp = r.pick(["", "", "", "e3", "E-2", "e+10", "e-30", "e38"]);
    const t = `${sign}${int}${frac}${exp}`;
    return Math.abs(Number(t)) > 3.4e38 || (Number(t) !== 0 && Math.abs(Number(t)) < 1.2e-38) ? ["1.5", 1.5] : [t, Number(t)];
  };
  const mark = (): string => r.pick(["", "", "", "<", ">", "~"]);
  const sp = (): string => r.pick(["", " ", "  ", "\t"]);
  const seg = (): string => {
    const [a, av] = segNum();
    const [b, bv] = segNum();
    const [lo, hi] = av <= bv ? [a, b] : [b, a];
    const dev = r.pick(["0", "0.3", "1", "2.50", "1e2", String(r.int(0, 99))]);
    return r.pick([
      `${mark()}${a}`,
      `${sp()}${mark()}${lo}${sp()}..${sp()}${mark()}${hi}${sp()}`,
      `${mark()}${lo}...${mark()}${hi}`,
      `${mark()}${a} ..`,
      `.. ${mark()}${b}`,
      `${a}${sp()}(+-)${sp()}${dev}`,
      `${mark()}${a} '+-' ${dev}`,
    ]);
  };
  const flags = (): string => r.pick(["", "", "", "@", "*", "%", "@*", "%@*", "*@"]);
  const qlabel = (): string => `${label()}${flags()}`;
  const counts = (): string => r.pick(["", "", "{2}", "{,3}", "{1,}", "{,}", "{0,5}", "{3,3}", "{007}", "{65535}"]);
  const lqLevel = (): string =>
    r.chance(0.25)
      ? `*${counts()}`
      : `${r.chance(0.2) ? "!" : ""}${Array.from({ length: r.int(1, 3) }, qlabel).join("|")}${counts()}`;
  const lquery = (): string => Array.from({ length: r.int(1, 5) }, lqLevel).join(".");
  const tqOperand = (depth: number): string => {
    const k = r.int(0, depth > 2 ? 1 : 4);
    if (k <= 1) return `${r.chance(0.2) ? "!" : ""}${qlabel()}`;
    if (k === 2) return `!(${tqExpr(depth + 1)})`;
    return `(${r.pick(["", " "])}${tqExpr(depth + 1)}${r.pick(["", " "])})`;
  };
  const tqExpr = (depth: number): string => {
    let e = tqOperand(depth);
    for (let k = r.int(0, 4); k > 0; k--) e += `${r.pick(["", " ", "  "])}${r.pick(["&", "|"])}${r.pick(["", " "])}${tqOperand(depth)}`;
    return e;
  };
  const out: Field[][] = [];
  for (let i = 0; i < ROWS; i++) {
    out.push([
      String(i + 1),
      nul(word()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : quoted(word()))).join(",")}}`),
      nul(u32()),
      nul(u32()),
      nul(u64()),
      nul(hstore()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${hstore().replace(/["\\]/g, "\\$&")}"`)).join(",")}}`),
      nul(ltree()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${ltree()}"`)).join(",")}}`),
      nul(cube()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${cube()}"`)).join(",")}}`),
      nul(seg()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${seg()}"`)).join(",")}}`),
      nul(lquery()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${lquery()}"`)).join(",")}}`),
      nul(tqExpr(0)),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.1) ? "NULL" : `"${tqExpr(0)}"`)).join(",")}}`),
    ]);
  }
  return out;
}

before(async () => {
  srv = await stoppedCluster(SETUP, { db: DB });
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-contrib-"));
  chmodSync(dir, 0o755);
  file = join(dir, "g.tsv");
  writeForPg(file, rows().map(copyLine).join(""));
  loadedRoot = copyRoot(srv.root, "loaded");
  twinRoot = copyRoot(srv.root, "twin");
  load = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "g", "--json", file]);
});

after(() => removeTwins(srv, [loadedRoot, twinRoot], dir));

test("pgdisk load of contrib and xid-family values stores what COPY FROM stores", () => {
  assert.equal(load.status, 0, load.stderr);
  assert.equal(JSON.parse(load.stdout).rows, ROWS);
  const twin = PgServer.attach(twinRoot);
  twin.start();
  const loaded = PgServer.attach(loadedRoot);
  loaded.start();
  try {
    twin.sql(`copy g from '${file}';`, DB);
    assert.deepEqual(tableDigest(loaded, DB, "g", "n"), tableDigest(twin, DB, "g", "n"));
    const data = (s: PgServer): string[] => heapTuples(s, DB, "g").map((x) => x.data).sort();
    assert.deepEqual(data(loaded), data(twin));
    assert.equal(tableDigest(loaded, DB, "g", "n").rows, ROWS + 1);
  } finally {
    twin.stop();
    loaded.stop();
  }
});

test("bad contrib and xid-family values exit 2 with the server's error or a refusal by name; nothing changes", () => {
  const pgdata = srv.pgdata;
  const before0 = fileDigests(pgdata);
  const at = (col: number, v: string): string => COLUMNS.map((_, k) => (k === 0 ? "1" : k === col ? v : "\\N")).join("\t") + "\n";
  for (const [line, pattern] of [
    // PostgreSQL 15 reads these with strtoul and no checks, 16 checks them: refused by name
    [at(3, "0x10"), /pgdisk reads xid input only as decimal digits within 0..4294967295: "0x10" \(input line 1, column x/],
    [at(3, "4294967296"), /pgdisk reads xid input only as decimal digits within 0..4294967295: "4294967296"/],
    [at(3, " 5"), /pgdisk reads xid input only as decimal digits/],
    [at(4, "-1"), /pgdisk reads cid input only as decimal digits within 0..4294967295: "-1" \(input line 1, column c/],
    [at(5, "18446744073709551616"), /pgdisk reads xid8 input only as decimal digits within 0..18446744073709551615: "18446744073709551616" \(input line 1, column x8/],
    [at(5, "abc"), /pgdisk reads xid8 input only as decimal digits/],
    [at(6, "a=>"), /Unexpected end of string \(input line 1, column h/],
    [at(6, "a=1"), /Syntax error near "1" at position 2 \(input line 1, column h/],
    [at(6, "a= >1"), /Syntax error near " " at position 2/],
    [at(6, "a=>1 b=>2"), /Syntax error near "b" at position 5/],
    [at(6, '"a=>1'), /Unexpected end of string/],
    [at(6, "=>1"), /Syntax error near "=" at position 0/],
    [at(6, "g=>1,f=>1,e=>1,d=>1,c=>1,b=>1,a=>1,a=>2"), /pgdisk cannot tell which value of duplicate hstore key "a" the server keeps/],
    [at(8, "a..b"), /ltree syntax error at character 3 \(input line 1, column lt/],
    [at(8, ".a"), /ltree syntax error at character 1 \(input line 1, column lt/],
    [at(8, "a."), /ltree syntax error \(input line 1, column lt/],
    [at(8, "a b"), /ltree syntax error at character 2/],
    [at(8, `x.${"a".repeat(256)}`), /label string is too long \(input line 1, column lt/],
    [at(8, "a-b"), /pgdisk reads ltree labels only of A-Z, a-z, 0-9 and _/],
    [at(8, "a.bé"), /pgdisk reads ltree labels only of A-Z, a-z, 0-9 and _/],
    [at(10, "((1),(2))"), /invalid input syntax for cube \(input line 1, column cu/],
    [at(10, ""), /invalid input syntax for cube/],
    [at(10, "(1),(2,3)"), /invalid input syntax for cube/],
    [at(10, "(1,2"), /invalid input syntax for cube/],
    [at(10, "1,(2)"), /invalid input syntax for cube/],
    [at(10, `(${Array.from({ length: 101 }, () => "1").join(",")})`), /invalid input syntax for cube/],
    [at(10, "(1e999)"), /"1e999" is out of range for type double precision \(input line 1, column cu/],
    [at(12, "2 .. 1"), /swapped boundaries: 2 is greater than 1 \(input line 1, column sg/],
    [at(12, "1.5e7 .. -3"), /swapped boundaries: 1\.5e\+07 is greater than -3/],
    [at(12, "1 . 2"), /bad seg representation \(input line 1, column sg/],
    [at(12, ".."), /bad seg representation/],
    [at(12, "1."), /bad seg representation/],
    [at(12, "~"), /bad seg representation/],
    [at(12, "1 (+-) ~2"), /bad seg representation/],
    [at(12, "1 2"), /bad seg representation/],
    [at(12, "1e39"), /"1e39" is out of range for type real \(input line 1, column sg/],
    ...BAD_LQUERY.map(([v, re]) => [at(14, v), re] as const),
    ...BAD_LTXTQUERY.map(([v, re]) => [at(16, v), re] as const),
    [at(14, "a-b"), /pgdisk reads lquery labels only of A-Z, a-z, 0-9 and _/],
    [at(16, "a & é"), /pgdisk reads ltxtquery labels only of A-Z, a-z, 0-9 and _/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "g", "-"], line);
    assert.equal(r.status, 2, `${line} ${r.stderr}`);
    assert.match(r.stderr, pattern);
  }
  assert.deepEqual(fileDigests(pgdata), before0);
});

test("the server reads xid spellings pgdisk refuses in its own way, and refuses the bad hstore, ltree, lquery, ltxtquery, cube and seg values", () => {
  const s = PgServer.attach(twinRoot);
  s.start();
  try {
    // PostgreSQL 15 reads without checks (strtoul(str, NULL, 0) for xid and cid, a saturating
    // strtou64 for xid8): hex, wrapped and saturated values and text read as 0 are all stored,
    // where 16 refuses them; pgdisk refuses every such spelling rather than pick one reading
    const q = (sql: string): string => s.sql(sql, DB).trim();
    assert.equal(q("select '0x10'::xid::text"), "16");
    assert.equal(q("select '4294967296'::xid::text"), "0");
    assert.equal(q("select '-1'::cid::text"), "4294967295");
    assert.equal(q("select '18446744073709551616'::xid8::text"), "18446744073709551615");
    assert.equal(q("select 'abc'::xid8::text"), "0");
    for (const [text, pattern] of [
      ["a=>", /Unexpected end of string/],
      ["a=1", /Syntax error near "1" at position 2/],
      ["a= >1", /Syntax error near " " at position 2/],
      ["a=>1 b=>2", /Syntax error near "b" at position 5/],
      ['"a=>1', /Unexpected end of string/],
      ["=>1", /Syntax error near "=" at position 0/],
    ] as const) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select '${text}'::hstore`]);
      assert.notEqual(r.status, 0, text);
      assert.match(r.stderr, pattern, text);
    }
    for (const text of ["((1),(2))", "", "(1),(2,3)", "(1,2", "1,(2)", `(${Array.from({ length: 101 }, () => "1").join(",")})`, "(1e999)"]) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select '${text}'::cube`]);
      assert.notEqual(r.status, 0, text);
      assert.match(r.stderr, /invalid input syntax for cube|"1e999" is out of range for type double precision/, text);
    }
    for (const [text, pattern] of [
      ["2 .. 1", /swapped boundaries: 2 is greater than 1/],
      ["1.5e7 .. -3", /swapped boundaries: 1\.5e\+07 is greater than -3/],
      ["1 . 2", /bad seg representation/],
      ["..", /bad seg representation/],
      ["1.", /bad seg representation/],
      ["~", /bad seg representation/],
      ["1 (+-) ~2", /bad seg representation/],
      ["1 2", /bad seg representation/],
      ["1e39", /"1e39" is out of range for type real/],
    ] as const) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select '${text}'::seg`]);
      assert.notEqual(r.status, 0, text);
      assert.match(r.stderr, pattern, text);
    }
    for (const [type, bad] of [["lquery", BAD_LQUERY], ["ltxtquery", BAD_LTXTQUERY]] as const) {
      for (const [text, pattern] of bad) {
        const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select '${text}'::${type}`]);
        assert.notEqual(r.status, 0, text);
        assert.match(r.stderr.replace(/\nDETAIL: +/, ": "), pattern, text);
      }
    }
    // PostgreSQL 15 refuses "-" (16 takes it) and, in this C-locale database, "é"
    for (const [text, pattern] of [
      ["a..b", /ltree syntax error at character 3/],
      [".a", /ltree syntax error at character 1/],
      ["a.", /ltree syntax error/],
      ["a b", /ltree syntax error at character 2/],
      [`x.${"a".repeat(256)}`, /label string is too long/],
      ["a-b", /ltree syntax error at character 2/],
      ["a.bé", /ltree syntax error at character 4/],
    ] as const) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `select '${text}'::ltree`]);
      assert.notEqual(r.status, 0, text);
      assert.match(r.stderr, pattern, text);
    }
  } finally {
    s.stop();
  }
});
