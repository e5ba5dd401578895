// `pgdisk load` of every type its input functions added beyond the first set (timetz, interval,
// inet, cidr, macaddr, macaddr8, jsonb, an enum, domains, arrays of them) held to COPY FROM: the
// same file goes through `pgdisk load` into one copy of a stopped cluster and through COPY FROM
// into a twin; the stored tuples' data bytes and every row's text (md5) must be the twin's, and
// the loaded cluster must pass pg_amcheck. Bad values of the new types exit 2 naming line and
// column; a domain with a CHECK constraint is refused by name before anything is read.
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
const SETUP = `
create extension pageinspect;
create type mood as enum ('sad', 'ok', 'happy', 'a label with spaces');
create domain posint as int4;
create domain dnn as text not null;
create domain vc3 as varchar(3);
create domain evenint as int4 check (gcd(value, 2) = 2);
create domain posint2 as int4 check (value > 0);
create domain shorttext as text check (length(value) <= 8) check (value <> 'bad');
create table ty (
  n int4, tz timetz, iv interval, iv2 interval hour to second(2), ip inet, net cidr, mac macaddr, mac8 macaddr8, j jsonb,
  e mood, pi posint, dn dnn, v3 vc3, ai int4[], at text[], av varchar(3)[], an numeric[], aj jsonb[], ae mood[], ad dnn[],
  a2 int8[], ats timestamptz[], aiv interval[], aip inet[], p2 posint2, st shorttext, ast shorttext[],
  r4 int4range, r8 int8range, rd daterange, rn numrange, rts tsrange, rtz tstzrange, ar int4range[], mr int4multirange, mn nummultirange
);
insert into ty (n, dn) values (0, 'existing');
create table tyc (like ty);
create table chk (a evenint);
create domain withdef as int4 default 42;
create table omit (n int4, dn dnn, w withdef);
create domain textdef as text default 'hello world';
create domain vcdef as varchar(5) default 'ab';
create domain bpdef as char(4) default 'ab';
create domain numdef as numeric(6,2) default 1.5;
create domain posdef as int4 default 7 check (value > 0);
create domain nndef as text not null default 'x' check (length(value) < 4);
create domain overdef as withdef;
create domain over2 as posdef default 9;
create domain nulldef as int4 default null;
create domain baddef as int4 default 0 check (value > 0);
create domain nowdef as timestamptz default now();
create table omitd (
  n int4, t textdef, v vcdef, bp bpdef, nd numdef, p posdef, nn nndef, od overdef, o2 over2, nl nulldef,
  w withdef default 5, wp posdef default 3, x int4 default 2 + 3, vc varchar(6) default 'abc', tn numeric(5,1) default 2.25
);
create table omitbad (n int4, b baddef);
create table omitbadcol (n int4, p posdef default -1);
create table omitnow (n int4, t nowdef);
create table badr (r int4range, rd daterange, rn numrange);
create table bad (n int4, e mood, dn dnn, ai int4[], ip inet, j jsonb, p2 posint2, ast shorttext[]);
`;

let srv: PgServer;
let dir = "";
let loadedRoot = "";
let twinRoot = "";
let file = "";
let csvFile = "";
let load: ReturnType<typeof pgdiskLoad>;
let loadCsv: ReturnType<typeof pgdiskLoad>;
let loadOmitted: ReturnType<typeof pgdiskLoad>;
let omittedFile = "";

/** Text of a random array of `each()` with NULLs, quoting what array_out would quote. */
function arrayText(r: Rng, each: () => string, max = 6): string {
  const n = r.int(0, max);
  const items = Array.from({ length: n }, () => (r.chance(0.15) ? "NULL" : `"${each().replace(/["\\]/g, "\\$&")}"`));
  return `{${items.join(",")}}`;
}

/** An int4[] with explicit lower bound `lb`. */
const explicitBounds = (lb: number): string => `[${lb}:${lb + 7}]={1,2,3,4,5,6,7,8}`;

/** CSV form of a row: NULL unquoted and empty, other fields quoted when they must be (and the empty string). */
const csvLine = (fields: Field[]): string => fields.map((v) => (v === null ? "" : v === "" || /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(",") + "\n";

function rows(): Field[][] {
  const r = new Rng(20261202, "load-types");
  const lines: Field[][] = [];
  const nul = (s: string): Field => (r.chance(0.1) ? null : s);
  const zone = (): string => r.pick(["+00", "-07:30", "+05:45", "+14", "Z", ""]);
  const interval = (): string =>
    r.pick([
      `${r.int(-5, 5)} years ${r.int(0, 11)} mons ${r.int(-30, 30)} days ${r.int(0, 99)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(0, 999999)}`,
      `@ ${r.int(1, 100)} hours ago`,
      `P${r.int(0, 9)}Y${r.int(0, 11)}M${r.int(0, 30)}DT${r.int(0, 23)}H${r.int(0, 59)}M${r.int(0, 59)}.${r.int(0, 99)}S`,
      `${r.int(0, 9)}.${r.int(1, 99)} ${r.pick(["days", "weeks", "months", "years", "hours"])}`,
      `${r.int(-9, 9)}-${r.int(0, 11)}`,
      "-1 day +02:03:04",
      "0",
    ]);
  const ipv4 = (): string => `${r.int(0, 255)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(0, 255)}`;
  const ipv6 = (): string => r.pick([`2001:db8::${r.hex(4)}`, "::1", `fe80::${r.hex(2)}:${r.hex(4)}`, `::ffff:${ipv4()}`, `${r.hex(4)}:${r.hex(2)}:0:0:${r.hex(4)}:0:0:${r.hex(3)}`]);
  const inet = (): string => r.pick([ipv4(), `${ipv4()}/${r.int(0, 32)}`, ipv6(), `${ipv6()}/${r.int(0, 128)}`]);
  const cidr = (): string => r.pick(["10.0.0.0/8", "192.168.0.0/16", `${r.int(1, 223)}`, "10.1/16", "2001:db8::/32", "::/0", `172.${r.int(16, 31)}.0.0/16`]);
  const mac = (): string => Array.from({ length: 6 }, () => r.hex(2)).join(r.pick([":", "-"]));
  const jsonValue = (depth: number): unknown => {
    const k = r.int(0, depth > 2 ? 3 : 5);
    if (k === 0) return r.pick([null, true, false]);
    if (k === 1) return r.pick([0, -1.5, 1e20, 123456789012, 0.1]);
    if (k === 2) return r.base64(r.int(0, 12));
    if (k === 3) return `ünï ✓ ${r.int(0, 9)}`;
    if (k === 4) return Array.from({ length: r.int(0, 5) }, () => jsonValue(depth + 1));
    return Object.fromEntries(Array.from({ length: r.int(0, 6) }, () => [r.pick(["a", "bb", "k", "key", "a", "zz", "é"]), jsonValue(depth + 1)]));
  };
  // JSON text with the numbers' own spelling and duplicate keys (JSON.stringify collapses neither)
  const json = (): string => r.pick([JSON.stringify(jsonValue(0)), '{"a": 1, "a": 2, "b": [1.50, 2e3]}', ' [1, {"x": null}] ', '"scalar"', "42.000"]);
  const moods = ["sad", "ok", "happy", "a label with spaces"];
  /** A value's text and a number that orders it as the server does. */
  type Keyed = [string, number];
  /** A range literal over values of `each()`: lower <= upper (the server refuses the other order; the bad-value test has it), every bracket pair, infinite and empty forms, quoting and spaces. */
  const range = (each: () => Keyed, edges: Keyed[]): string => {
    const k = r.int(0, 9);
    if (k === 0) return r.pick(["empty", " EMPTY ", "(,)", "[,]"]);
    const v = r.chance(0.1) && edges.length ? r.pick(edges) : each();
    const w = r.chance(0.15) ? v : each();
    const [lo, hi] = v[1] <= w[1] ? [v[0], w[0]] : [w[0], v[0]];
    const b = (x: string): string => (r.chance(0.2) ? `"${x}"` : x);
    const open = r.pick(["[", "("]);
    const close = r.pick(["]", ")"]);
    if (k === 1) return `${open}, ${b(hi)}${close}`;
    if (k === 2) return `${open}${b(lo)},${close}`;
    return `${r.chance(0.1) ? " " : ""}${open}${b(lo)},${b(hi)}${close}`;
  };
  const int = (lo: number, hi: number) => (): Keyed => {
    const n = r.int(lo, hi);
    return [String(n), n];
  };
  const fixed = (s: string): Keyed => [s, Number(s)];
  const day = (): Keyed => {
    const t = `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)}`;
    return [t, Date.parse(t)];
  };
  const stamp = (): Keyed => {
    const t = `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} ${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(100, 999)}`;
    return [t, Date.parse(t.replace(" ", "T") + "Z")];
  };
  const stampTz = (): Keyed => {
    const z = r.pick(["+00:00", "-07:30", "+05:45", "+14:00", "Z"]);
    const t = `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} ${r.int(10, 23)}:${r.int(10, 59)}:00${z}`;
    return [t, Date.parse(t.replace(" ", "T"))];
  };
  const num = (): Keyed => {
    const t = r.pick([`${r.int(-99, 99)}.${r.int(0, 999)}`, "1e3", "1000.000", "-0.0", "Infinity", "-Infinity", `1${"7".repeat(r.int(100, 300))}`]);
    return [t, t === "Infinity" ? Number.MAX_VALUE : Number(t)];
  };
  const infinities: Keyed[] = [["-infinity", -Infinity], ["infinity", Infinity]];
  for (let i = 0; i < ROWS; i++) {
    lines.push(
      [
        String(i + 1),
        nul(`${r.int(0, 23)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(0, 999999)}${zone()}`),
        nul(interval()),
        nul(r.pick(["1 day 02:03:04.555", "2:03:04.125", "5", "1.999 seconds"])),
        nul(inet()),
        nul(cidr()),
        nul(mac()),
        nul(r.chance(0.5) ? Array.from({ length: 8 }, () => r.hex(2)).join(":") : mac()),
        nul(json()),
        nul(r.pick(moods)),
        nul(String(r.int(-1e6, 1e6))),
        r.base64(r.int(0, 10)),
        nul(r.base64(r.int(0, 3))),
        nul(r.chance(0.1) ? explicitBounds(r.int(-3, 3)) : arrayText(r, () => String(r.int(-1e9, 1e9)))),
        nul(arrayText(r, () => r.pick(["", "NULL", "a b", "x,y", 'q"t', "back\\slash", "{}", r.base64(r.int(0, 20))]))),
        nul(arrayText(r, () => r.base64(r.int(0, 3)))),
        nul(arrayText(r, () => r.pick(["NaN", "0", "-0.00", "1e-5", `${r.int(-99999, 99999)}.${r.int(0, 9999)}`]))),
        nul(arrayText(r, json, 3)),
        nul(arrayText(r, () => r.pick(moods))),
        nul(`{${Array.from({ length: r.int(0, 4) }, () => r.base64(r.int(1, 5))).join(",")}}`),
        nul(r.chance(0.5) ? `{{${r.int(0, 9)},${r.int(0, 9)}},{NULL,${r.int(-9, 9)}}}` : "{}"),
        nul(arrayText(r, () => `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} ${r.int(10, 23)}:${r.int(10, 59)}:00${zone()}`, 3)),
        nul(arrayText(r, interval, 3)),
        nul(arrayText(r, inet, 3)),
        nul(String(r.int(1, 1e6))),
        nul(r.base64(r.int(0, 8))),
        nul(arrayText(r, () => r.base64(r.int(0, 8)), 4)),
        nul(range(int(-1000, 1000), [fixed("-2147483648"), fixed("2147483646")])),
        nul(range(int(-1e12, 1e12), [["-9223372036854775808", -Infinity], ["9223372036854775806", Number.MAX_VALUE]])),
        nul(range(day, [...infinities, ["4713-01-01 BC", -1e15]])),
        nul(range(num, [["NaN", Infinity]])),
        nul(range(stamp, infinities)),
        nul(range(stampTz, infinities)),
        nul(`{${Array.from({ length: r.int(0, 4) }, () => (r.chance(0.2) ? "NULL" : `"${range(int(-9, 9), []).replace(/["\\]/g, "\\$&")}"`)).join(",")}}`),
        // multiranges: ranges in any order, overlapping, touching, empty ones among them
        nul(`{${Array.from({ length: r.int(0, 6) }, () => range(int(-20, 20), [])).join(", ")}}`),
        nul(`{${Array.from({ length: r.int(0, 4) }, () => range(num, [])).join(",")}}`),
      ],
    );
  }
  return lines;
}

before(async () => {
  srv = await stoppedCluster(SETUP, { db: DB });
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-types-"));
  chmodSync(dir, 0o755);
  file = join(dir, "ty.tsv");
  csvFile = join(dir, "ty.csv");
  const all = rows();
  writeForPg(file, all.map(copyLine).join(""));
  writeForPg(csvFile, "n,tz,...\n" + all.map(csvLine).join(""));
  loadedRoot = copyRoot(srv.root, "loaded");
  twinRoot = copyRoot(srv.root, "twin");
  load = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "ty", "--json", file]);
  loadCsv = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "tyc", "--format", "csv", "--header", "--json", csvFile]);
  omittedFile = join(dir, "omitd.tsv");
  writeForPg(omittedFile, "1\n2\n3\n");
  loadOmitted = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "omitd", "--columns", "n", "--json", omittedFile]);
});

after(() => removeTwins(srv, [loadedRoot, twinRoot], dir));

test("pgdisk load of every new type stores what COPY FROM stores, tuple for tuple, text and CSV", () => {
  assert.equal(load.status, 0, load.stderr);
  assert.equal(JSON.parse(load.stdout).rows, ROWS);
  assert.equal(loadCsv.status, 0, loadCsv.stderr);
  assert.equal(JSON.parse(loadCsv.stdout).rows, ROWS);
  const twin = PgServer.attach(twinRoot);
  twin.start();
  const loaded = PgServer.attach(loadedRoot);
  loaded.start();
  try {
    // pgdisk reads a zoneless time in UTC
    twin.sql(`set timezone = 'UTC'; copy ty from '${file}'; copy tyc from '${csvFile}' (format csv, header);`, DB);
    for (const table of ["ty", "tyc"]) {
      assert.deepEqual(tableDigest(loaded, DB, table, "n"), tableDigest(twin, DB, table, "n"), table);
      const data = (s: PgServer): string[] => heapTuples(s, DB, table).map((x) => x.data).sort();
      assert.deepEqual(data(loaded), data(twin), table);
    }
    assert.equal(tableDigest(loaded, DB, "ty", "n").rows, ROWS + 1);
    // the two formats gave the same rows
    assert.equal(tableDigest(loaded, DB, "tyc", "n").md5, loaded.rows("select md5(string_agg(x::text, E'\\n' order by n)) from ty x where n > 0", DB)[0]![0]);
    const check = loaded.toolResult("pg_amcheck", [...loaded.connArgs(DB), "--heapallindexed", "--install-missing"]);
    assert.equal(check.status, 0, check.stdout + check.stderr);
  } finally {
    twin.stop();
    loaded.stop();
  }
});

test("columns left out get their own or their domain's default, as INSERT gives them, domain CHECKs applied", () => {
  assert.equal(loadOmitted.status, 0, loadOmitted.stderr);
  assert.equal(JSON.parse(loadOmitted.stdout).rows, 3);
  const twin = PgServer.attach(twinRoot);
  twin.start();
  const loaded = PgServer.attach(loadedRoot);
  loaded.start();
  try {
    twin.sql(`copy omitd (n) from '${omittedFile}'`, DB);
    assert.deepEqual(tableDigest(loaded, DB, "omitd", "n"), tableDigest(twin, DB, "omitd", "n"));
    const data = (s: PgServer): string[] => heapTuples(s, DB, "omitd").map((x) => x.data);
    assert.deepEqual(data(loaded), data(twin));
    assert.deepEqual(loaded.rows("select t, v, bp, nd, p, nn, od, o2, nl, w, wp, x, vc, tn from omitd where n = 1", DB)[0], ["hello world", "ab", "ab  ", "1.50", "7", "x", "42", "9", null, "5", "3", "5", "abc", "2.3"]);
  } finally {
    twin.stop();
    loaded.stop();
  }
});

test("bad values of the new types exit 2 naming line and column; nothing changes", () => {
  const pgdata = srv.pgdata;
  const before0 = fileDigests(pgdata);
  const good = ["1", "ok", "x", "{1}", "10.0.0.1", "{}", "5", "{a}"];
  const withField = (i: number, v: string): string => good.map((g, k) => (k === i ? v : g)).join("\t") + "\n";
  for (const [line, pattern] of [
    [withField(1, "grumpy"), /invalid input value for enum mood: "grumpy" \(input line 1, column e: "grumpy"\)/],
    [withField(2, "\\N"), /domain dnn does not allow null values \(input line 1, column dn\)/],
    [withField(3, "{1,{2}}"), /malformed array literal: "\{1,\{2\}\}" \(input line 1, column ai/],
    [withField(4, "10.0.0.1/40"), /invalid input syntax for type inet: "10.0.0.1\/40" \(input line 1, column ip/],
    [withField(5, '{"a": }'), /invalid input syntax for type json \(input line 1, column j/],
    [withField(6, "0"), /value for domain posint2 violates check constraint "posint2_check" \(input line 1, column p2: "0"\)/],
    [withField(7, "{ok,bad}"), /value for domain shorttext violates check constraint "shorttext_check1" \(input line 1, column ast/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "bad", "-"], line);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, pattern);
  }
  const chk = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "chk", "-"], "2\n");
  assert.equal(chk.status, 1, chk.stderr);
  assert.match(chk.stderr, /column "a" of table "public.chk" has type evenint, and domain evenint has CHECK constraint "evenint_check", which cannot be evaluated offline/);
  // a domain column left out: NULL fails a NOT NULL domain, a default its CHECK, a default must be a constant
  for (const [t, columns, pattern] of [
    ["omit", "n,w", /column "dn" of table "public.omit" is not given, and NULL fails: domain dnn does not allow null values/],
    ["omitbad", "n", /column "b" of table "public.omitbad" is not given, and its default fails: value for domain baddef violates check constraint "baddef_check"/],
    ["omitbadcol", "n", /column "p" of table "public.omitbadcol" is not given, and its default fails: value for domain posdef violates check constraint "posdef_check"/],
    ["omitnow", "n", /column "t" of table "public.omitnow" is not given and the default of its domain nowdef is not a constant \(FUNCEXPR: function 1299/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", t, "--columns", columns, "-"], "1\n");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, pattern);
  }
  const ok = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "omit", "--dry-run", "-"], "1\tx\t7\n");
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(fileDigests(pgdata), before0);
});

test("bad range values exit 2 with range_in's error, line and column; nothing changes", () => {
  const pgdata = srv.pgdata;
  const before0 = fileDigests(pgdata);
  for (const [line, pattern] of [
    ["[5,1)\t\\N\t\\N\n", /range lower bound must be less than or equal to range upper bound \(input line 1, column r: "\[5,1\)"\)/],
    ["[1,2147483647]\t\\N\t\\N\n", /integer out of range \(input line 1, column r/],
    ["1,5\t\\N\t\\N\n", /malformed range literal: "1,5" \(input line 1, column r/],
    ["[1,5) x\t\\N\t\\N\n", /malformed range literal: "\[1,5\) x" \(input line 1, column r/],
    ["[1,2,3)\t\\N\t\\N\n", /malformed range literal: "\[1,2,3\)" \(input line 1, column r/],
    ["\\N\t[2020-01-01,5874897-12-31]\t\\N\n", /date out of range \(input line 1, column rd/],
    ["\\N\t\\N\t[2,1.5]\n", /range lower bound must be less than or equal to range upper bound \(input line 1, column rn/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "badr", "-"], line);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, pattern);
  }
  assert.deepEqual(fileDigests(pgdata), before0);
});
