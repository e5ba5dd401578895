// float4 / float8 (shortest round-trip output, extra_float_digits = 1) against a real server,
// over edge cases and random bit patterns covering every exponent, subnormals included.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";
import { FLOAT_WRITERS, float8Text } from "../../formats/datum/floats.js";
import { ScratchOut } from "../../formats/datum/text-out.js";

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

test("float8's writer prints float8Text's text: the fixed-notation path without Number#toString", () => {
  // float8Text is the rule checked against the server above; the writer writes the fixed range
  // (1e-4 <= |v| < 1e15) with putFloat8Fixed, which gives up (to float8Text) when unsure
  const write = FLOAT_WRITERS[701]!;
  const bytes = new Uint8Array(8);
  const dv = new DataView(bytes.buffer);
  const out = new ScratchOut();
  const dec = new TextDecoder();
  const mismatches: string[] = [];
  const check = (v: number): void => {
    dv.setFloat64(0, v, true);
    out.pos = 0;
    write(bytes, 0, 8, out);
    const got = dec.decode(out.buf.subarray(0, out.pos));
    if (got !== float8Text(v) && mismatches.length < 10) mismatches.push(`${v}: ${got} (want ${float8Text(v)})`);
  };
  for (let e = -5; e <= 16; e++) {
    const t = Number(`1e${e}`);
    // powers of ten and their neighbours, a few ulps either side
    for (let d = -4; d <= 4; d++) check(t * (1 + d * 2 ** -52));
    for (let d = -4; d <= 4; d++) check(-t * (1 - d * 2 ** -53));
  }
  for (let i = 0; i < 40000; i++) {
    check(randomDouble(1023 - 15, 1023 + 51)); // every binary exponent of the range, random bits
    const g = i + 1;
    check((g * 1.1) / 3);
    check(-g / 7);
    check(Math.round(random() * 1e9) / 10 ** Math.floor(random() * 13)); // short decimals
    check(Math.floor(random() * 1e15)); // integers
    check(random() * 10 ** Math.floor(random() * 19 - 4));
    check(2 ** Math.floor(random() * 63 - 13)); // powers of two (given up: lopsided intervals)
  }
  assert.deepEqual(mismatches, []);
});
