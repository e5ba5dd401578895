// Small fixed-format input functions, the inverse of misc.ts: bit_in and varbit_in
// (src/backend/utils/adt/varbit.c), pg_lsn_in (pg_lsn.c), tidin (tid.c), pg_snapshot_in
// (xid8funcs.c: "xmin:xmax:xip,...", xmin <= xmax, both non-zero, each xip in [xmin, xmax) and
// in ascending order, a repeated one kept once) and cash_in (cash.c)
// as it reads money under lc_monetary C: "$" as the currency symbol, "." and ",", two decimal
// places, a third digit rounding half up, "-" or "(" for negative.
import { FormatError } from "../schema/errors.js";
import type { InputFunction } from "./input.js";
import { isDigit, isSpace } from "./util.js";

const bad = (type: string, text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type ${type}: "${text}"`);

/** The bits of a bit string's text: "B"/"b" then binary digits, "X"/"x" then hex digits, or binary digits. */
function bitsOf(text: string): Uint8Array {
  const hex = text[0] === "x" || text[0] === "X";
  const s = hex || text[0] === "b" || text[0] === "B" ? text.slice(1) : text;
  const out = new Uint8Array(hex ? s.length * 4 : s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!hex) {
      if (c !== "0" && c !== "1") throw new FormatError("DATUM_BAD_INPUT", `"${String.fromCodePoint(s.codePointAt(i)!)}" is not a valid binary digit`);
      out[i] = c === "1" ? 1 : 0;
      continue;
    }
    const v = Number.parseInt(c, 16);
    if (!/[0-9a-fA-F]/.test(c)) throw new FormatError("DATUM_BAD_INPUT", `"${String.fromCodePoint(s.codePointAt(i)!)}" is not a valid hexadecimal digit`);
    for (let b = 0; b < 4; b++) out[4 * i + b] = (v >> (3 - b)) & 1;
  }
  return out;
}

/** VarBit: int32 bit_len, then the bits packed high bit first, the last byte zero-padded. */
function varbitDatum(bits: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + ((bits.length + 7) >> 3));
  new DataView(out.buffer).setInt32(0, bits.length, true);
  for (let i = 0; i < bits.length; i++) if (bits[i]) out[4 + (i >> 3)]! |= 0x80 >> (i & 7);
  return out;
}

/** bit(n): exactly n bits (the typmod; none given: any length). */
const bitIn: InputFunction = (text, ctx) => {
  const bits = bitsOf(text);
  if (ctx.typmod > 0 && bits.length !== ctx.typmod) throw new FormatError("DATUM_BAD_INPUT", `bit string length ${bits.length} does not match type bit(${ctx.typmod})`);
  return varbitDatum(bits);
};

/** bit varying(n): at most n bits. */
const varbitIn: InputFunction = (text, ctx) => {
  const bits = bitsOf(text);
  if (ctx.typmod > 0 && bits.length > ctx.typmod) throw new FormatError("DATUM_BAD_INPUT", `bit string too long for type bit varying(${ctx.typmod})`);
  return varbitDatum(bits);
};

/** pg_lsn_in: two groups of 1 to 8 hex digits around "/", nothing else. */
const pgLsnIn: InputFunction = (text) => {
  const m = /^([0-9a-fA-F]{1,8})\/([0-9a-fA-F]{1,8})$/.exec(text);
  if (!m) throw bad("pg_lsn", text);
  const out = new Uint8Array(8);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, Number.parseInt(m[2]!, 16), true);
  dv.setUint32(4, Number.parseInt(m[1]!, 16), true);
  return out;
};

/**
 * tidin: "(block,offset)" (strtoul for each: spaces before the digits; the comma and the ")"
 * right after them; what follows the ")" is ignored, as the server ignores it). Other spellings
 * tidin accepts (a sign, text before the "(") are refused by name.
 */
const tidIn: InputFunction = (text) => {
  const m = /^[ \t\n\v\f\r]*\([ \t\n\v\f\r]*(\d+),[ \t\n\v\f\r]*(\d+)\)/.exec(text);
  if (!m) {
    if (/^[^(]*\([^,]*,[^)]*\)/.test(text)) throw new FormatError("DATUM_BAD_INPUT", `pgdisk reads tid input only as (block,offset) in decimal digits: "${text}"`);
    throw bad("tid", text);
  }
  const block = Number(m[1]);
  const offset = Number(m[2]);
  if (block > 0xffffffff || offset > 0xffff) throw bad("tid", text);
  const out = new Uint8Array(6);
  const dv = new DataView(out.buffer);
  dv.setUint16(0, block >>> 16, true);
  dv.setUint16(2, block & 0xffff, true);
  dv.setUint16(4, offset, true);
  return out;
};

const MONEY_MIN = -(2n ** 63n);
const MONEY_MAX = 2n ** 63n - 1n;

/** cash_in under lc_monetary C. */
const moneyIn: InputFunction = (text) => {
  const s = text;
  let p = 0;
  const spaces = (): void => {
    while (isSpace(s[p])) p++;
  };
  const symbol = (): void => {
    spaces();
    if (s[p] === "$") p++;
    spaces();
  };
  symbol();
  let negative = false;
  if (s[p] === "-" || s[p] === "(") {
    negative = true;
    p++;
  } else if (s[p] === "+") p++;
  symbol();
  // the amount in cents, built as a magnitude
  let value = 0n;
  let dec = 0;
  let seenDot = false;
  const outOfRange = (): FormatError => new FormatError("DATUM_BAD_INPUT", `value "${text}" is out of range for type money`);
  for (; p < s.length; p++) {
    const c = s[p];
    if (isDigit(c) && (!seenDot || dec < 2)) {
      value = value * 10n + BigInt(c!.charCodeAt(0) - 48);
      if (value > -MONEY_MIN) throw outOfRange();
      if (seenDot) dec++;
    } else if (c === "." && !seenDot) seenDot = true;
    else if (c === ",") continue;
    else break;
  }
  if (isDigit(s[p]) && s[p]! >= "5") value += 1n;
  for (; dec < 2; dec++) value *= 10n;
  if (value > -MONEY_MIN) throw outOfRange();
  while (isDigit(s[p])) p++;
  for (; p < s.length; p++) {
    const c = s[p]!;
    if (c === "-") negative = true;
    else if (!(isSpace(c) || c === ")" || c === "+" || c === "$")) throw bad("money", text);
  }
  if (!negative && value > MONEY_MAX) throw outOfRange();
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, negative ? -value : value, true);
  return out;
};

/** One unsigned 64-bit decimal at `at` (strtou64: optional spaces and sign), and where it ends; null if none. */
function u64At(text: string, at: number): { value: bigint; end: number } | null {
  const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)/.exec(text.slice(at));
  if (!m) return null;
  let v = BigInt(m[2]!);
  if (v > 0xffffffffffffffffn) return null;
  if (m[1] === "-") v = (0x10000000000000000n - v) & 0xffffffffffffffffn;
  return { value: v, end: at + m[0].length };
}

/** pg_snapshot_in (txid_snapshot_in is the same function, errors included): int32 nxip, then xmin, xmax and the xips as 8-byte FullTransactionIds. */
const snapshotIn: InputFunction = (text) => {
  const fail = (): FormatError => bad("pg_snapshot", text);
  const xmin = u64At(text, 0);
  if (!xmin || text[xmin.end] !== ":") throw fail();
  const xmax = u64At(text, xmin.end + 1);
  if (!xmax || text[xmax.end] !== ":") throw fail();
  if (xmin.value === 0n || xmax.value === 0n || xmax.value < xmin.value) throw fail();
  const xips: bigint[] = [];
  let at = xmax.end + 1;
  while (at < text.length) {
    const x = u64At(text, at);
    if (!x || x.value < xmin.value || x.value >= xmax.value || (xips.length > 0 && x.value < xips[xips.length - 1]!)) throw fail();
    if (xips.length === 0 || x.value !== xips[xips.length - 1]) xips.push(x.value);
    at = x.end;
    if (text[at] === ",") at++;
    else if (at < text.length) throw fail();
  }
  const out = new Uint8Array(20 + 8 * xips.length);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, xips.length, true);
  dv.setBigUint64(4, xmin.value, true);
  dv.setBigUint64(12, xmax.value, true);
  xips.forEach((x, i) => dv.setBigUint64(20 + 8 * i, x, true));
  return out;
};

export const MISC_INPUT: [number, InputFunction][] = [
  [5038, snapshotIn],
  [2970, snapshotIn],
  [1560, bitIn],
  [1562, varbitIn],
  [3220, pgLsnIn],
  [27, tidIn],
  [790, moneyIn],
];
