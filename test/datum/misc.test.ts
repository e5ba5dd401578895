// tid, pg_lsn, bit/varbit, money (lc_monetary C), geometric types, snapshots, built-in ranges,
// oidvector and int2vector.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(27);
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const num = (): string => (random() < 0.2 ? String(int(-5, 5)) : (random() * 2000 - 1000).toPrecision(int(1, 17)));
const pt = (): string => `(${num()},${num()})`;
const bits = (n: number): string => Array.from({ length: n }, () => (random() < 0.5 ? "0" : "1")).join("");

const cases: [string, string[]][] = [
  ["tsvector", ["''", "'a fat cat sat on a mat'", "'a:1,2A b:3B c:4C,5 d'", "$$'it''s' 'back\\slash' 'x y'$$", "to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs, again and again')", "'zürich:16383A ünïcode'", ...Array.from({ length: 40 }, () => `'${Array.from({ length: int(1, 12) }, () => `w${int(0, 50)}${random() < 0.5 ? `:${int(1, 300)}${["", "A", "B", "C"][int(0, 3)]}` : ""}`).join(" ")}'`)]],
  ["tid", ["'(0,0)'", "'(0,1)'", "'(4294967295,65535)'", "'(65536,2)'", "'(65535,1)'", ...Array.from({ length: 100 }, () => `'(${int(0, 2 ** 32 - 1)},${int(0, 65535)})'`)]],
  ["pg_lsn", ["'0/0'", "'FFFFFFFF/FFFFFFFF'", "'16/B374D848'", "'0/1'", "'1/0'", ...Array.from({ length: 100 }, () => `'${int(0, 2 ** 32 - 1).toString(16)}/${int(0, 2 ** 32 - 1).toString(16)}'`)]],
  ["bit(12)", ["B'000000000000'", "B'111111111111'", "B'101010101010'", ...Array.from({ length: 50 }, () => `B'${bits(12)}'`)]],
  ["varbit", ["B''", "B'1'", "B'0'", "B'10000000'", "B'100000001'", "X'DEADBEEF'::varbit", ...Array.from({ length: 100 }, () => `B'${bits(int(0, 300))}'`)]],
  ["money", ["0", "0.01", "-0.01", "1234.5", "-1234.5", "1000000", "'92233720368547758.07'", "'-92233720368547758.08'", "999.999", ...Array.from({ length: 100 }, () => (random() * 1e9 - 5e8).toFixed(2))]],
  ["point", ["'(0,0)'", "'(-0,1e300)'", "'(NaN,Infinity)'", "'(1.5e-5,-1e20)'", ...Array.from({ length: 100 }, () => `'${pt()}'`)]],
  ["lseg", ["'[(0,0),(1,1)]'", ...Array.from({ length: 50 }, () => `'[${pt()},${pt()}]'`)]],
  ["box", ["'(0,0),(1,1)'", "'(1,1),(0,0)'", ...Array.from({ length: 50 }, () => `'${pt()},${pt()}'`)]],
  ["line", ["'{1,2,3}'", "'{0,-1,0.5}'", "'[(0,0),(1,2)]'", ...Array.from({ length: 50 }, () => `'{${num()},${int(1, 9)},${num()}}'`)]],
  ["circle", ["'<(0,0),1>'", "'<(1.5,-2.25),0>'", ...Array.from({ length: 50 }, () => `'<${pt()},${Math.abs(Number(num()))}>'`)]],
  ["path", ["'[(0,0),(1,1)]'", "'((0,0),(1,1),(2,0))'", "'(1,2)'", ...Array.from({ length: 50 }, () => `'${random() < 0.5 ? "[" : "("}${Array.from({ length: int(1, 6) }, pt).join(",")}${random() < 0.5 ? "]" : ")"}'`.replace(/\[(.*)\)'$/, "[$1]'").replace(/\((\(.*\))\]'$/, "($1)'"))]],
  ["polygon", ["'((0,0),(1,1),(2,0))'", "'(1,2)'", ...Array.from({ length: 50 }, () => `'(${Array.from({ length: int(1, 6) }, pt).join(",")})'`)]],
  ["pg_snapshot", ["'10:20:'", "'10:20:10,11,19'", "'1:1:'", "'18446744073709551:18446744073709552:18446744073709551'"]],
  ["txid_snapshot", ["'10:20:'", "'100:200:150,160'"]],
  ["int4range", ["'empty'", "'[1,5)'", "'(1,5]'", "'[,5)'", "'(,)'", "'[-2147483648,2147483647)'", "int4range(3, NULL)", ...Array.from({ length: 100 }, () => `int4range(${int(-1e6, 0)}, ${int(0, 1e6)}, '${random() < 0.5 ? "[" : "("}${random() < 0.5 ? "]" : ")"}')`)]],
  ["int8range", ["'[1,9223372036854775806]'", "'(,0)'", ...Array.from({ length: 50 }, () => `int8range(${int(-1e9, 0)}, ${int(0, 1e9)})`)]],
  ["numrange", ["'empty'", "'[1.5,2.25]'", "'(,3.14159)'", "'[-1e30,)'", "numrange('NaN', NULL)", ...Array.from({ length: 100 }, () => `numrange(${(random() * -1e4).toFixed(int(0, 8))}, ${(random() * 1e4).toFixed(int(0, 8))}, '[)')`)]],
  ["daterange", ["'[2000-01-01,2000-02-01)'", "'[-infinity,infinity)'", "'(,2000-01-01)'", "'[0044-03-15 BC,0001-01-01)'", ...Array.from({ length: 50 }, () => `daterange(date '2000-01-01' + ${int(-1e5, 0)}, date '2000-01-01' + ${int(0, 1e5)})`)]],
  ["tsrange", ["'[2000-01-01 00:00,2000-01-02 12:00:00.5)'", "'(,infinity]'", "'[0044-03-15 12:00 BC,)'", ...Array.from({ length: 50 }, () => `tsrange(timestamp '2000-01-01' + ${int(-1e8, 0)} * interval '1 s', timestamp '2000-01-01' + ${int(0, 1e8)} * interval '1 s')`)]],
  ["tstzrange", ["'[2000-01-01 00:00+00,2000-01-02 12:00:00.5+05)'", "'(-infinity,)'", ...Array.from({ length: 50 }, () => `tstzrange(now() - ${int(0, 1e8)} * interval '1 s', now() + ${int(0, 1e8)} * interval '1 ms')`)]],
  ["oidvector", ["''", "'1'", "'1 2 3'", "'4294967295 0 26'", ...Array.from({ length: 50 }, () => `'${Array.from({ length: int(0, 20) }, () => int(0, 2 ** 32 - 1)).join(" ")}'`)]],
  ["int2vector", ["''", "'1'", "'1 -2 3'", "'32767 -32768'", ...Array.from({ length: 50 }, () => `'${Array.from({ length: int(0, 20) }, () => int(-32768, 32767)).join(" ")}'`)]],
];

for (const [type, values] of cases) {
  test(`${type} matches the server`, () => {
    const r = h.check(type, values);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
  });
}
