// float4 / float8 (shortest round-trip output, extra_float_digits = 1) against a real server,
// over edge cases and random bit patterns covering every exponent, subnormals included.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(700701);
const u32 = (): number => Math.floor(random() * 2 ** 32);
function randomDouble(minExp = 0, maxExp = 2047): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setUint32(0, u32());
  dv.setUint32(4, u32());
  const exp = minExp + Math.floor(random() * (maxExp - minExp));
  dv.setUint16(0, (dv.getUint16(0) & 0x800f) | (exp << 4));
  return dv.getFloat64(0);
}
function randomFloat(): number {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, u32());
  return dv.getFloat32(0);
}
const lit = (v: number, digits?: number): string => (Number.isNaN(v) ? "'NaN'" : v === Infinity ? "'Infinity'" : v === -Infinity ? "'-Infinity'" : `'${digits ? v.toPrecision(digits) : String(v)}'`);

const float8Edges = [
  "0", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "1", "-1", "0.1", "1e20", "1.5e-05", "1e15", "1e14", "999999999999999", "1e16",
  "123456789012345", "1234567890123456", "0.0001", "0.00001", "0.00012345", "1e-4", "9.999e-5", "2^53", "2^53 + 1", "2^63", "1e308",
  "'1.7976931348623157e308'", "'4.9e-324'", "'2.2250738585072014e-308'", "'2.225073858507201e-308'", "1/3.0", "-2/3.0", "100", "1e100",
  "5e-324", "1e22", "1e21", "1e23", "0.3", "0.1 + 0.2", "pi()", "-pi()*1e10", "exp(1)", "sqrt(2)", "12345.678", "9007199254740993",
  "'9007199254740992'", "4503599627370496", "4503599627370497",
  // the decimal at an interval bound is excluded (Ryu built with STRICTLY_SHORTEST 0)
  "'21882072087337690'", "'27774807210797770'", "'-21882072087337690'",
];
const float4Edges = [
  "0", "'-0'", "'NaN'", "'Infinity'", "'-Infinity'", "1", "-1", "0.1", "1e6", "100000", "999999", "1000001", "16777216", "16777217",
  "'3.4028235e38'", "'1e-45'", "'1.4e-45'", "'1.17549435e-38'", "'1.1754942e-38'", "0.0001", "0.00001", "1.5e-5", "1e20", "pi()", "1/3.0",
  "'8388608'", "'8388609'", "'0.3'", "'123456.7'", "'1234567'", "'7.038531e-26'", "'2e-7'", "'33554432'", "'1e10'", "'9.999999e-5'",
  // the decimal at an interval bound is excluded
  "'-42554288.0'", "'105099824'", "'-5.94742374e+9'", "'56203008.0'",
];

test("float8 matches the server (edge cases and random bits)", () => {
  const values = [...float8Edges, ...Array.from({ length: 8000 }, () => lit(randomDouble())),
    // integers and near-integers >= 2^52, where the exact search replaces Number#toString
    ...Array.from({ length: 3000 }, () => lit(randomDouble(1075, 1140))),
    ...Array.from({ length: 1000 }, () => lit(random() * 10 ** Math.floor(random() * 40 - 20)))];
  const r = h.check("float8", values);
  assert.equal(r.mismatches.length, 0, describe("float8", r));
  assert.equal(r.compared, values.length);
});

test("float4 matches the server (edge cases and random bits)", () => {
  const values = [...float4Edges, ...Array.from({ length: 10000 }, () => lit(randomFloat(), 9)), ...Array.from({ length: 500 }, () => lit(Math.fround(random() * 10 ** Math.floor(random() * 20 - 10)), 9))];
  const r = h.check("float4", values);
  assert.equal(r.mismatches.length, 0, describe("float4", r));
  assert.equal(r.compared, values.length);
});
