// `pgdisk load` of the geometric types, bit strings, pg_lsn, tid, money (formats/datum/
// input-geometry.ts, input-misc.ts) and user-defined ranges (input-types.ts) held to COPY FROM: one file goes through `pgdisk load` into a
// copy of a stopped cluster and through COPY FROM into a twin; the stored tuples' data bytes and
// every row's text must be the twin's. Bad values exit 2 with the server's wording, naming line
// and column, and change nothing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import type { Field } from "../../samples/copy.js";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { fileDigests } from "../migrate/helpers.js";
import { assertTwinsAgree, loadTwins, pgdiskLoad, removeTwins, type LoadTwins } from "./helpers.js";

const DB = "app";
const ROWS = 1500;
const SETUP = `
create extension pageinspect;
create type textrange as range (subtype = text);
create type floatrange as range (subtype = float8);
create type irange as range (subtype = int4);
create table g (
  n int4, p point, l lseg, b box, ln line, c circle, pa path, pg polygon, ab box[], ap point[],
  b3 bit(3), b1 bit, vb varbit(12), vbx varbit, ab3 bit(3)[], lsn pg_lsn, t tid, m money, am money[],
  tr textrange, fr floatrange, ir irange, tmr textmultirange, atr textrange[]
);
insert into g (n) values (0);
`;

let t: LoadTwins;

function rows(): Field[][] {
  const r = new Rng(20261203, "load-geometric");
  const nul = (s: string): Field => (r.chance(0.08) ? null : s);
  const sp = (): string => r.pick(["", "", " ", "  "]);
  const coord = (): string =>
    r.pick([
      String(r.int(-1000, 1000)),
      `${r.int(-99, 99)}.${r.int(0, 999)}`,
      `${r.int(1, 9)}e${r.int(-5, 5)}`,
      "-0",
      "0.1",
      `${r.int(1, 9)}.${r.int(0, 99)}E+${r.int(0, 30)}`,
      r.pick(["NaN", "Infinity", "-Infinity", "inf", "-INF", "1e-310"]),
    ]);
  const pair = (paren = r.chance(0.7)): string => (paren ? `(${sp()}${coord()}${sp()},${sp()}${coord()}${sp()})` : `${coord()},${coord()}`);
  const points = (n: number): string => Array.from({ length: n }, () => pair(true)).join(`,${sp()}`);
  const list = (n: number, forms: string[]): string => {
    const inner = r.chance(0.2) ? Array.from({ length: n }, () => `${coord()},${coord()}`).join(",") : points(n);
    const f = r.pick(forms);
    return f === "[" ? `[${inner}]` : f === "(" ? `(${inner})` : inner;
  };
  const bits = (n: number): string => Array.from({ length: n }, () => r.pick(["0", "1"])).join("");
  const hex = (n: number): string => Array.from({ length: n }, () => r.pick([..."0123456789abcdefABCDEF"])).join("");
  const money = (): string =>
    r.pick([
      `${r.int(0, 999999)}.${String(r.int(0, 99)).padStart(2, "0")}`,
      `$${r.int(1, 999)},${String(r.int(0, 999)).padStart(3, "0")}.${r.int(0, 9)}`,
      `-${r.int(0, 100)}.${r.int(0, 9999)}`,
      `(${r.int(0, 100)}.5)`,
      `${r.int(0, 100)}.125`,
      `${r.int(0, 100)}.135`,
      ` $ ${r.int(0, 99)} `,
      `${r.int(0, 99)}-`,
      "92233720368547758.07",
      "-92233720368547758.08",
      "0",
    ]);
  const word = (): string => r.pick(["a", "ab", "abc", "b", "B", "zz", "é", "a b", "x,y", 'q"t', "", "back\\slash", `w${r.int(0, 99)}`]);
  const quoted = (w: string): string => (w === "" || /[ ,"\\()[\]]/.test(w) ? `"${w.replace(/["\\]/g, "\\$&")}"` : w);
  const textRange = (): string => {
    if (r.chance(0.05)) return "empty";
    const [a, b] = [word(), word()].sort((x, y) => (Buffer.compare(Buffer.from(x), Buffer.from(y))));
    return `${r.pick(["[", "("])}${r.chance(0.1) ? "" : quoted(a!)},${r.chance(0.1) ? "" : quoted(b!)}${r.pick(["]", ")"])}`;
  };
  const numRange = (each: () => string): string => {
    const [a, b] = [each(), each()].sort((x, y) => (Number.isNaN(Number(x)) ? 1 : Number.isNaN(Number(y)) ? -1 : Number(x) - Number(y)));
    return `${r.pick(["[", "("])}${a},${b}${r.pick(["]", ")"])}`;
  };
  const out: Field[][] = [];
  for (let i = 0; i < ROWS; i++) {
    const fields: Field[] = [
      String(i + 1),
      nul(`${sp()}${pair()}${sp()}`),
      nul(list(2, ["[", "(", ""])),
      nul(list(2, ["(", ""])),
      nul(
        r.chance(0.5)
          ? `{${coord()},${r.pick(["1", "-2.5", "0.001"])},${coord()}}`
          : r.chance(0.3)
            ? r.pick([`[(1,${coord()}),(1.0000001,777.25)]`, `((${coord()},5),(12345.5,5))`, `(0,0),(${coord()},777.25)`])
            : r.pick([`[${pair(true)},(${coord()},777.25)]`, `(${pair(true)},${sp()}(${coord()},777.25))`, `${coord()},${coord()},${coord()},777.25`]),
      ),
      nul(r.pick([`<${pair(true)},${r.int(0, 99)}>`, `(${pair(true)},${r.int(0, 9)}.5)`, `${pair(true)},${r.int(0, 9)}`, `${coord()},${coord()},${r.int(0, 9)}`])),
      nul(list(r.int(1, 6), ["[", "(", ""])),
      nul(list(r.int(1, 6), ["(", ""])),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => (r.chance(0.2) ? "NULL" : `"${list(2, ["(", ""])}"`)).join(";")}}`),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => `"${pair(true)}"`).join(",")}}`),
      nul(r.pick([bits(3), `B${bits(3)}`, `b${bits(3)}`])),
      nul(bits(1)),
      nul(r.pick([bits(r.int(0, 12)), `X${hex(r.int(0, 3))}`, `x${hex(r.int(0, 3))}`])),
      nul(r.pick([bits(r.int(0, 70)), `x${hex(r.int(0, 20))}`])),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => bits(3)).join(",")}}`),
      nul(`${hex(r.int(1, 8))}/${hex(r.int(1, 8))}`),
      nul(`${r.pick(["", " "])}(${r.pick(["", " "])}${r.int(0, 4294967295)},${r.pick(["", " "])}${r.int(0, 65535)})`),
      nul(money()),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => `"${money()}"`).join(",")}}`),
      nul(textRange()),
      nul(numRange(() => r.pick([`${r.int(-99, 99)}.${r.int(0, 99)}`, "-0", "1e300", "NaN"]))),
      nul(numRange(() => String(r.int(-50, 50)))),
      nul(`{${Array.from({ length: r.int(0, 4) }, textRange).join(", ")}}`),
      nul(`{${Array.from({ length: r.int(0, 3) }, () => `"${textRange().replace(/["\\]/g, "\\$&")}"`).join(",")}}`),
    ];
    out.push(fields);
  }
  return out;
}

before(async () => {
  t = await loadTwins(SETUP, { db: DB, table: "g", lines: rows(), tag: "geo" });
});

after(() => removeTwins(t?.srv, t ? [t.loadedRoot, t.twinRoot] : [], t?.dir ?? ""));

test("pgdisk load of geometric, bit string, pg_lsn, tid, money and user range values stores what COPY FROM stores", () => {
  // lc_monetary C for the twin's COPY and for both outputs: the digest compares money's text
  for (const root of [t.loadedRoot, t.twinRoot]) appendFileSync(join(root, "data", "postgresql.auto.conf"), "lc_monetary = 'C'\n");
  assertTwinsAgree(t, { db: DB, table: "g", rows: ROWS, order: "n" });
});

test("bad geometric, bit string, pg_lsn, tid and money values exit 2 with the server's error; nothing changes", () => {
  const pgdata = t.srv.pgdata;
  const before0 = fileDigests(pgdata);
  const at = (col: number, v: string): string => Array.from({ length: 24 }, (_, k) => (k === 0 ? "1" : k === col ? v : "\\N")).join("\t") + "\n";
  for (const [line, pattern] of [
    [at(1, "(1,2"), /invalid input syntax for type point: "\(1,2" \(input line 1, column p/],
    [at(1, "1e999,0"), /"1e999" is out of range for type double precision \(input line 1, column p/],
    [at(3, "[(1,2),(3,4)]"), /invalid input syntax for type box: "\[\(1,2\),\(3,4\)\]" \(input line 1, column b/],
    [at(4, "{0,0,1}"), /invalid line specification: A and B cannot both be zero \(input line 1, column ln/],
    [at(4, "[(1,1),(1.0000005,1)]"), /invalid line specification: must be two distinct points \(input line 1, column ln/],
    [at(4, "[(0,0),(1,1)"), /invalid input syntax for type line: "\[\(0,0\),\(1,1\)" \(input line 1, column ln/],
    [at(4, "(1e308,0),(-1e308,1)"), /value out of range: overflow \(input line 1, column ln/],
    [at(5, "<(1,2),-1>"), /invalid input syntax for type circle: "<\(1,2\),-1>" \(input line 1, column c/],
    [at(6, "(1,2),(3,4"), /invalid input syntax for type path: "\(1,2\),\(3,4" \(input line 1, column pa/],
    [at(7, "1,2,3"), /invalid input syntax for type polygon: "1,2,3" \(input line 1, column pg/],
    [at(10, "1011"), /bit string length 4 does not match type bit\(3\) \(input line 1, column b3/],
    [at(10, "10a"), /"a" is not a valid binary digit \(input line 1, column b3/],
    [at(12, "x1234"), /bit string too long for type bit varying\(12\) \(input line 1, column vb/],
    [at(13, "xg"), /"g" is not a valid hexadecimal digit \(input line 1, column vbx/],
    [at(15, "1/2/3"), /invalid input syntax for type pg_lsn: "1\/2\/3" \(input line 1, column lsn/],
    [at(15, "123456789/0"), /invalid input syntax for type pg_lsn/],
    [at(16, "(1,65536)"), /invalid input syntax for type tid: "\(1,65536\)" \(input line 1, column t/],
    [at(17, "12.34.5"), /invalid input syntax for type money: "12.34.5" \(input line 1, column m/],
    [at(17, "92233720368547758.08"), /value "92233720368547758.08" is out of range for type money \(input line 1, column m/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "g", "-"], line);
    assert.equal(r.status, 2, `${line} ${r.stderr}`);
    assert.match(r.stderr, pattern);
  }
  assert.deepEqual(fileDigests(pgdata), before0);
});

test("money is refused under an lc_monetary other than C, before anything is read", () => {
  const root = copyRoot(t.srv.root, "monetary");
  try {
    const pgdata = join(root, "data");
    appendFileSync(join(pgdata, "postgresql.auto.conf"), "lc_monetary = 'de_DE.UTF-8'\n");
    const before0 = fileDigests(pgdata);
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "g", "--columns", "n,am", "-"], "1\t{1}\n");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /column "am" of table "public.g" has type _money, made of money, and the database's lc_monetary is de_DE.UTF-8/);
    const ok = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "g", "--columns", "n,p", "--dry-run", "-"], "1\t(1,2)\n");
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(fileDigests(pgdata), before0);
  } finally {
    removeRoot(root);
  }
});

test("the server refuses the same bad values (stored in a column, where bit(n) does not truncate)", () => {
  const s = PgServer.attach(t.twinRoot);
  s.start();
  try {
    for (const [type, text, pattern] of [
      ["point", "(1,2", /invalid input syntax for type point/],
      ["box", "[(1,2),(3,4)]", /invalid input syntax for type box/],
      ["line", "[(1,1),(1.0000005,1)]", /invalid line specification: must be two distinct points/],
      ["line", "[(0,0),(1,1)", /invalid input syntax for type line/],
      ["line", "(1e308,0),(-1e308,1)", /value out of range: overflow/],
      ["circle", "<(1,2),-1>", /invalid input syntax for type circle/],
      ["polygon", "1,2,3", /invalid input syntax for type polygon/],
      ["bit(3)", "1011", /bit string length 4 does not match type bit\(3\)/],
      ["varbit(12)", "x1234", /bit string too long for type bit varying\(12\)/],
      ["pg_lsn", "123456789/0", /invalid input syntax for type pg_lsn/],
      ["tid", "(1,65536)", /invalid input syntax for type tid/],
      ["money", "12.34.5", /invalid input syntax for type money/],
      ["money", "92233720368547758.08", /is out of range for type money/],
    ] as const) {
      const r = s.toolResult("psql", [...s.connArgs(DB), "-X", "-c", `create temp table x (v ${type}); insert into x values ('${text}')`]);
      assert.notEqual(r.status, 0, `${type} ${text}`);
      assert.match(r.stderr, pattern, `${type} ${text}`);
    }
  } finally {
    s.stop();
  }
});
