// numeric: short and long on-disk formats, NaN/Infinity, display scales, typmods.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(1700);
const digits = (n: number): string => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");

function randomNumeric(): string {
  const sign = random() < 0.5 ? "-" : "";
  const int = digits(Math.floor(random() * 40)).replace(/^0+(?=\d)/, "") || "0";
  const frac = digits(Math.floor(random() * 40));
  return `'${sign}${int}${frac ? "." + frac : ""}'`;
}

const edges = [
  "0", "'0.0'", "'0.000000'", "'-0'", "'-0.00'", "1", "-1", "10000", "9999", "99999999", "100000000", "0.0001", "0.00001", "0.1",
  "'NaN'", "'Infinity'", "'-Infinity'", "'+Infinity'", "'inf'", "'-inf'", "123456789.123456789", "-0.000000000000000000001",
  // weight beyond the short format's -64..63 and dscale beyond its 63: long format
  "'1e300'", "'1e-300'", "'-9.99e262'", "'1e252'", "'1e256'", "'1e-256'", "'1e-260'",
  "'0.' || repeat('0', 70) || '1'", "'1.' || repeat('0', 64)", "'1.' || repeat('0', 63)", "'1.' || repeat('5', 100)",
  "'1' || repeat('0', 260)", "'-1' || repeat('0', 252)", "repeat('9', 100)::numeric", "repeat('7', 400)::numeric", "'-0.' || repeat('3', 500)", "'12345678901234567890.12345678901234567890'",
  "2^64::numeric", "-(2^63)::numeric", "1/3::numeric", "(1/3::numeric)::numeric(10,3)", "round(2.5)", "1.5e-10::numeric", "1000000::numeric(20,10)",
  "'0.00100'", "'100.100'", "'1e10'", "'1.0e-5'", "pi()::numeric", "'99999.99999'", "'0.00009999'",
];

test("numeric matches the server", () => {
  const values = [...edges, ...Array.from({ length: 3000 }, randomNumeric)];
  const r = h.check("numeric", values);
  assert.equal(r.mismatches.length, 0, describe("numeric", r));
  assert.equal(r.compared, values.length);
  // every on-disk form occurred: short (flag bits 10), long positive/negative (00/01), special (11)
  const forms = new Set(r.payloads.map(({ payload }) => payload[1]! >> 6));
  assert.deepEqual([...forms].sort(), [0, 1, 2, 3]);
  assert.ok(r.payloads.some((p) => p.header === "4b") && r.payloads.some((p) => p.header === "1b"));
});

test("numeric(12,4) (typmod-rounded values) matches the server", () => {
  const values = ["0", "1.23456", "-99999999.99994", "12.5", "'NaN'", ...Array.from({ length: 300 }, () => `round(${randomNumeric()}::numeric % 100000000, 6)`)];
  const r = h.check("numeric(12,4)", values);
  assert.equal(r.mismatches.length, 0, describe("numeric(12,4)", r));
  assert.equal(r.compared, values.length);
});

for (const [type, values] of [
  ["numeric(3,0)", ["0", "999", "-999", "1.5", "-0.4"]],
  ["numeric(3,-2)", ["0", "99949", "-12345", "150", "-49"]], // negative scales are new in PG 15
] as const) {
  test(`${type} matches the server`, () => {
    const r = h.check(type, [...values]);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
  });
}
