// float4out / float8out with extra_float_digits >= 1: the shortest decimal that reads back
// as the same binary value (PostgreSQL uses Ryu, src/common/f2s.c and d2s.c), printed in
// fixed notation when the decimal exponent is in [-4, 15) for float8 and [-4, 6) for float4,
// otherwise as d.ddde+XX (at least two exponent digits).
import type { DecoderTable, OutputCharsTable, WriterTable } from "./decoder.js";
import { expectWidth, putText } from "./text-out.js";
import { expectLength, view } from "./util.js";
import { putFloat8Fixed } from "./float8-fixed.js";

/** Shortest digits (no trailing zeros) and the decimal exponent of the first digit. */
interface Shortest {
  digits: string;
  exp10: number;
}

/** Format a finite non-zero |value| given its shortest digits, PostgreSQL style. */
function formatShortest(neg: boolean, { digits, exp10 }: Shortest, fixedMax: number): string {
  let s: string;
  if (exp10 >= -4 && exp10 < fixedMax) {
    if (exp10 < 0) s = "0." + "0".repeat(-exp10 - 1) + digits;
    else if (digits.length <= exp10 + 1) s = digits + "0".repeat(exp10 + 1 - digits.length);
    else s = digits.slice(0, exp10 + 1) + "." + digits.slice(exp10 + 1);
  } else {
    const mant = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    const e = Math.abs(exp10);
    s = `${mant}e${exp10 < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
  }
  return neg ? "-" + s : s;
}

function special(v: number, neg: boolean): string | undefined {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (v === 0) return neg ? "-0" : "0";
  return undefined;
}

/**
 * Shortest digits strictly inside the rounding interval of m2 * 2^e2, computed exactly with
 * BigInt. PostgreSQL builds Ryu with STRICTLY_SHORTEST 0, so the interval bounds are excluded
 * even for even mantissas (unlike JavaScript's Number#toString, which may print a bound).
 * Find the largest power of ten k such that some integer d has d*10^k inside the interval,
 * then take the d closest to the value (ties to even).
 */
function shortestExact(m2: bigint, e2: number, lowerGapHalved: boolean): Shortest {
  // value = mv * 2^(e2-2); open interval (mm, mp) in the same units
  const mv = 4n * m2;
  const mp = mv + 2n;
  const mm = mv - (lowerGapHalved ? 1n : 2n);
  const sh = e2 - 2;
  const num = sh >= 0 ? 1n << BigInt(sh) : 1n;
  const den = sh < 0 ? 1n << BigInt(-sh) : 1n;
  // x * 2^sh / 10^k as a ratio of BigInts
  const scaled = (x: bigint, k: number): [bigint, bigint] => (k >= 0 ? [x * num, den * 10n ** BigInt(k)] : [x * num * 10n ** BigInt(-k), den]);
  // start one power of ten above log10(mp * 2^sh) (computed without overflowing a double)
  for (let k = Math.floor(Math.log10(Number(mp)) + sh * Math.LOG10E * Math.LN2) + 2; ; k--) {
    const [ln, ld] = scaled(mm, k);
    const [hn, hd] = scaled(mp, k);
    const dmin = ln / ld + 1n;
    const dmax = hn / hd - (hn % hd === 0n ? 1n : 0n);
    if (dmin > dmax) continue;
    const [vn, vd] = scaled(mv, k);
    let d = vn / vd;
    const twice = 2n * (vn % vd);
    if (twice > vd || (twice === vd && (d & 1n) === 1n)) d += 1n;
    if (d < dmin) d = dmin;
    if (d > dmax) d = dmax;
    const all = d.toString();
    return { digits: all.replace(/0+$/, ""), exp10: k + all.length - 1 };
  }
}

/** Digits and exponent of a decimal string such as "1.5e-7", "123.45" or "0.0012". */
function decimalDigits(text: string): Shortest {
  const [mant, e] = text.split("e") as [string, string | undefined];
  const dot = mant.indexOf(".");
  let digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  let exp10 = (dot < 0 ? mant.length : dot) - 1 + (e === undefined ? 0 : Number(e));
  const lead = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(lead).replace(/0+$/, "");
  exp10 -= lead;
  return { digits, exp10 };
}

/** Digits of a JavaScript shortest-round-trip string of a double. */
const jsDigits = (a: number): Shortest => decimalDigits(a.toString());

const TWO_52 = 2 ** 52;

/**
 * Number#toString gives the shortest digits in the closed interval, closest to the value. It can
 * only land exactly on an interval bound when the bound is an integer, i.e. for |v| >= 2^52;
 * below that it agrees with Ryu and is much faster than the exact search.
 */
function shortestDouble(a: number): Shortest {
  if (a < TWO_52) return jsDigits(a);
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, a, true);
  const bits = dv.getBigUint64(0, true);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  return shortestExact(frac | (1n << 52n), biased - 1075, frac === 0n && biased > 1);
}

function shortestFloat(bits: number, a: number): Shortest {
  const biased = (bits >>> 23) & 0xff;
  const frac = bits & 0x7fffff;
  const m2 = biased === 0 ? frac : frac | 0x800000;
  const e2 = (biased === 0 ? 1 : biased) - 150;
  // At a power of two the interval is lopsided (the lower gap is halved), and there the nearest
  // p-digit decimal may lie outside while a farther one lies inside: only the exact search knows.
  const lowerGapHalved = frac === 0 && biased > 1;
  if (!lowerGapHalved) {
    const fast = shortestFloatFast(a, 2 ** (e2 - 1));
    if (fast) return fast;
  }
  return shortestExact(BigInt(m2), e2, lowerGapHalved);
}

/**
 * The float4 value |a| and its rounding interval (a - half, a + half) are exact doubles. The
 * nearest p-digit decimal (toPrecision) is Ryu's answer for the smallest p at which it lies
 * strictly inside the interval: the interval is symmetric, so no farther p-digit decimal can be
 * inside when the nearest is not, and a nearer one (more digits) stays inside, so that p is found
 * by bisection over 1..9 (9 digits always identify a float4). Comparing the parsed double decides
 * exactly because parsing rounds monotonically; a decimal on a bound, or a tie between two
 * p-digit decimals (Ryu rounds ties to even, toPrecision away from zero), goes to the exact search.
 */
function shortestFloatFast(a: number, half: number): Shortest | null {
  const lo = a - half;
  const hi = a + half;
  let low = 1;
  let high = 9;
  let found = "";
  while (low <= high) {
    const p = (low + high) >> 1;
    const text = a.toPrecision(p);
    const x = +text;
    if (x === lo || x === hi) return null;
    if (x > lo && x < hi) {
      found = text;
      high = p - 1;
    } else low = p + 1;
  }
  if (!found) return null;
  const next = a.toPrecision(low + 1);
  if (next.replace(/e.*$/, "").endsWith("5") && +next === a) return null;
  return decimalDigits(found);
}

export function float8Text(v: number): string {
  // 1e-4 <= |v| < 1e15: the decimal exponent is in PostgreSQL's fixed range, where
  // Number#toString prints the same shortest digits the same way (below 2^52, see shortestDouble)
  if ((v >= 1e-4 && v < 1e15) || (v <= -1e-4 && v > -1e15)) return String(v);
  const neg = v < 0 || Object.is(v, -0);
  const sp = special(v, neg);
  if (sp !== undefined) return sp;
  return formatShortest(neg, shortestDouble(Math.abs(v)), 15);
}

const FLOAT4_BITS = new Uint32Array(1);
const FLOAT4_VALUE = new Float32Array(FLOAT4_BITS.buffer);

export function float4Text(bits: number): string {
  FLOAT4_BITS[0] = bits;
  const v = FLOAT4_VALUE[0]!;
  const neg = (bits & 0x80000000) !== 0;
  return special(v, neg) ?? formatShortest(neg, shortestFloat(bits, Math.abs(v)), 6);
}

const f32 = (d: Uint8Array, at: number): number => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;
const F64_WORDS = new Uint32Array(2);
const F64_VALUE = new Float64Array(F64_WORDS.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** The little-endian double at d[at]: two word stores into a Float64Array on a little-endian machine. */
const f64 = LITTLE_ENDIAN
  ? (d: Uint8Array, at: number): number => {
      F64_WORDS[0] = f32(d, at);
      F64_WORDS[1] = f32(d, at + 4);
      return F64_VALUE[0]!;
    }
  : (d: Uint8Array, at: number): number => new DataView(d.buffer, d.byteOffset + at, 8).getFloat64(0, true);

// The writers print the output functions' strings (the shortest digits come from Number#toString),
// but for float8's fixed notation, written as bytes by putFloat8Fixed (the same text).
export const FLOAT_WRITERS: WriterTable = {
  700: (d, s, e, out) => (expectWidth(s, e, 4, "float4"), putText(out, float4Text(f32(d, s)))),
  701: (d, s, e, out) => {
    expectWidth(s, e, 8, "float8");
    const v = f64(d, s);
    if ((v >= 1e-4 && v < 1e15) || (v <= -1e-4 && v > -1e15)) {
      // float8Text's common case (Number#toString's text), without the string
      out.reserve(24);
      const p = putFloat8Fixed(out.buf, out.pos, v);
      if (p >= 0) {
        out.pos = p;
        return;
      }
    }
    putText(out, float8Text(v));
  },
};

// digits, sign, point, exponent (e+NN, e-NN), NaN, Infinity, -Infinity
const FLOAT_CHARS = "0123456789-+.eNaInfity";
export const FLOAT_OUTPUT_CHARS: OutputCharsTable = { 700: FLOAT_CHARS, 701: FLOAT_CHARS };

export const FLOAT_DECODERS: DecoderTable = {
  700: (d) => (expectLength(d, 4, "float4"), float4Text(view(d).getUint32(0, true))),
  701: (d) => (expectLength(d, 8, "float8"), float8Text(view(d).getFloat64(0, true))),
};
