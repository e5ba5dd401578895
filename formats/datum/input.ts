// Text -> datum bytes: the input functions of the built-in types (int4in, numeric_in, ...), the
// inverse of the output functions in this folder, for a writer that stores what the server
// would store for the same text (COPY FROM, a literal). Bytes follow the decoders' convention:
// exactly typlen bytes for fixed-length types, the payload without its varlena header for
// varlena types. Errors are DATUM_BAD_INPUT with the server's wording. The rules are
// PostgreSQL 15's (16 added underscores and 0x/0o/0b prefixes to integer input).
//
// Dates and timestamps take ISO 8601 (YYYY-MM-DD, HH:MM[:SS[.f]], a space or T between, zones
// Z, UTC, ±HH, ±HH:MM, ±HHMM) on a fast path, and the server's other spellings (DateStyle field
// orders, month and weekday names, AM/PM, BC, epoch, IANA zone names) through
// input-datetime.ts (time and timetz as DecodeTimeOnly reads them); timestamptz and timetz
// without a zone are read in `timeZoneOffsetSeconds` (UTC unless given).
import { FormatError } from "../schema/errors.js";
import { TimeTzADT } from "./datetime.js";
import { DAYS_IN_MONTH, decodeDateTime, decodeTime, fieldRange, julianDay, leapYear, POSTGRES_EPOCH_JDATE, writtenZoneEast, zoneOffsetSeconds, type DateOrder, type DecodedDateTime } from "./input-datetime.js";
import { roundHalfEven } from "./util.js";
import { NUMERIC_DSCALE_MAX, NUMERIC_NAN, NUMERIC_NEG, NUMERIC_NINF, NUMERIC_PINF, NUMERIC_SHORT } from "./numeric.js";

export interface InputContext {
  /** atttypmod (-1: none) */
  typmod: number;
  /** the session time zone for timestamptz without a zone: seconds east of UTC */
  timeZoneOffsetSeconds?: number;
  /** DateStyle's field order for dates that are not ISO 8601 (MDY unless given) */
  dateOrder?: DateOrder;
}

/** An input function: the value's text -> its datum bytes. */
export type InputFunction = (text: string, ctx: InputContext) => Uint8Array;

const bad = (type: string, text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type ${type}: "${text}"`);
const range = (type: string, text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `value "${text}" is out of range for type ${type}`);
/** isspace() in the C locale */
const SPACE = /^[ \t\n\v\f\r]*|[ \t\n\v\f\r]*$/g;
const trim = (s: string): string => s.replace(SPACE, "");

function le(size: number, value: bigint | number): Uint8Array {
  const out = new Uint8Array(size);
  if (size <= 4) {
    // byte by byte: no DataView for the common small integers (a writer encodes millions)
    const v = Number(value) | 0;
    for (let i = 0; i < size; i++) out[i] = (v >>> (8 * i)) & 0xff;
  } else new DataView(out.buffer).setBigInt64(0, BigInt(value), true);
  return out;
}

/** Plain decimal digits with an optional sign and at most 15 digits: exact as a double. */
const SHORT_INTEGER = /^[+-]?\d{1,15}$/;

export function integer(type: string, size: 2 | 4 | 8): InputFunction {
  const max = (1n << BigInt(size * 8 - 1)) - 1n;
  const maxNum = Number(max);
  return (text) => {
    // the common case without BigInt: a short integer needs no arbitrary precision
    if (SHORT_INTEGER.test(text)) {
      const n = Number(text);
      if (n > maxNum || n < -maxNum - 1) throw range(type, text);
      if (size !== 8) return le(size, n);
      const out = new Uint8Array(8);
      const lo = n | 0;
      const hi = Math.floor(n / 4294967296);
      for (let i = 0; i < 4; i++) {
        out[i] = (lo >>> (8 * i)) & 0xff;
        out[4 + i] = (hi >>> (8 * i)) & 0xff;
      }
      return out;
    }
    const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)[ \t\n\v\f\r]*$/.exec(text);
    if (!m) throw bad(type, text);
    const v = BigInt(m[1] + m[2]);
    if (v > max || v < -max - 1n) throw range(type, text);
    return le(size, size === 8 ? v : Number(v));
  };
}

export const oidIn: InputFunction = (text) => {
  const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)[ \t\n\v\f\r]*$/.exec(text);
  if (!m) throw bad("oid", text);
  const v = BigInt(m[1] + m[2]);
  // strtoul's wrap-around of negative input is accepted down to INT32_MIN, as oidin does
  if (v > 0xffffffffn || v < -0x80000000n) throw range("oid", text);
  return le(4, Number(BigInt.asUintN(32, v)) | 0);
};

const BOOL_WORDS: [string, boolean, number][] = [["true", true, 1], ["false", false, 1], ["yes", true, 1], ["no", false, 1], ["on", true, 2], ["off", false, 2]];
export const boolIn: InputFunction = (text) => {
  const s = trim(text).toLowerCase();
  if (s === "1" || s === "0") return Uint8Array.of(s === "1" ? 1 : 0);
  for (const [word, value, min] of BOOL_WORDS) if (s.length >= min && word.startsWith(s) && s.length > 0) return Uint8Array.of(value ? 1 : 0);
  throw bad("boolean", text);
};

const FLOAT_SYNTAX = /^([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?$/;
const SPECIALS: Record<string, number> = { nan: NaN, infinity: Infinity, "+infinity": Infinity, "-infinity": -Infinity, inf: Infinity, "+inf": Infinity, "-inf": -Infinity };

/** A float's text: its value as a double, the decimal digits and exponent (for exact rounding), or a special. */
function parseFloatText(type: string, text: string): { value: number; digits?: bigint; exp?: number } {
  const s = trim(text);
  const special = SPECIALS[s.toLowerCase()];
  if (special !== undefined) return { value: special };
  const m = FLOAT_SYNTAX.exec(s);
  if (!m) throw bad(type, text);
  const intPart = m[2] ?? "";
  const frac = m[3] ?? m[4] ?? "";
  const digits = BigInt((intPart + frac).replace(/^0+(?=\d)/, "") || "0");
  const exp = Number(m[5] ?? 0) - frac.length;
  return { value: Number.parseFloat(s), digits: m[1] === "-" ? -digits : digits, exp };
}

export const float8In: InputFunction = (text) => {
  const f = parseFloatText("double precision", text);
  if (f.digits !== undefined && (!Number.isFinite(f.value) || (f.value === 0 && f.digits !== 0n))) throw new FormatError("DATUM_BAD_INPUT", `"${trim(text)}" is out of range for type double precision`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, f.value, true);
  return out;
};

/** The float32 nearest to digits * 10^exp (strtof), not the float32 nearest to the nearest double. */
function toFloat32(value: number, digits: bigint, exp: number): number {
  const f = Math.fround(value);
  if (f === value || !Number.isFinite(f)) return f;
  // double rounding can only go wrong when the double is exactly halfway between two float32s
  const other = Math.fround(2 * value - f);
  if ((f + other) / 2 !== value) return f;
  // compare the exact decimal with the midpoint: |digits| * 10^exp against |value|
  const [mNum, mDen] = exactBinary(Math.abs(value));
  const d = digits < 0n ? -digits : digits;
  const lhs = exp >= 0 ? d * 10n ** BigInt(exp) * mDen : d * mDen;
  const rhs = exp >= 0 ? mNum : mNum * 10n ** BigInt(-exp);
  if (lhs === rhs) return f; // a true tie: fround's ties-to-even is strtof's
  const up = Math.abs(f) > Math.abs(other) ? f : other;
  const down = up === f ? other : f;
  return lhs > rhs ? up : down;
}

/** A finite positive double as an exact fraction num / den. */
function exactBinary(x: number): [bigint, bigint] {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const bits = dv.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (e) mant |= 1n << 52n;
  const shift = (e ? e : 1) - 1075;
  return shift >= 0 ? [mant << BigInt(shift), 1n] : [mant, 1n << BigInt(-shift)];
}

export const float4In: InputFunction = (text) => {
  const f = parseFloatText("real", text);
  const v = f.digits === undefined ? f.value : toFloat32(f.value, f.digits, f.exp!);
  if (f.digits !== undefined && (!Number.isFinite(v) || (v === 0 && f.digits !== 0n))) throw new FormatError("DATUM_BAD_INPUT", `"${trim(text)}" is out of range for type real`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setFloat32(0, v, true);
  return out;
};

// numeric: base-10000 digits, weight, display scale (numeric.c's NumericVar and make_result)

export const numericIn: InputFunction = (text, ctx) => {
  const s = trim(text);
  const lower = s.toLowerCase();
  if (lower === "nan") return Uint8Array.of(NUMERIC_NAN & 0xff, NUMERIC_NAN >> 8);
  const inf = SPECIALS[lower];
  if (inf === Infinity || inf === -Infinity) {
    if (ctx.typmod >= 4) {
      const { precision, scale } = numericTypmod(ctx.typmod);
      throw new FormatError("DATUM_BAD_INPUT", "numeric field overflow", {}, `A field with precision ${precision}, scale ${scale} cannot hold an infinite value.`);
    }
    const h = inf > 0 ? NUMERIC_PINF : NUMERIC_NINF;
    return Uint8Array.of(h & 0xff, h >> 8);
  }
  const m = FLOAT_SYNTAX.exec(s);
  if (!m) throw bad("numeric", text);
  const neg = m[1] === "-";
  let intDigits = (m[2] ?? "").replace(/^0+/, "");
  let fracDigits = m[3] ?? m[4] ?? "";
  const e = Number(m[5] ?? 0);
  const overflow = (): FormatError => new FormatError("DATUM_BAD_INPUT", "value overflows numeric format");
  if (!Number.isSafeInteger(e) || Math.abs(e) >= 0x3fffffff) throw overflow();
  let dscale = Math.max(0, fracDigits.length - e);
  // bound the work before the digits are shifted: weight and dscale must fit the format anyway
  const firstNonZero = (intDigits + fracDigits).search(/[1-9]/);
  if (ctx.typmod < 4 && dscale > NUMERIC_DSCALE_MAX) throw overflow();
  if (firstNonZero >= 0 && Math.abs(intDigits.length + e - firstNonZero) > 4 * 0x7fff + 8) throw overflow();
  // move the decimal point by the exponent
  let all = intDigits + fracDigits;
  let point = intDigits.length + e;
  if (point < 0) {
    all = "0".repeat(-point) + all;
    point = 0;
  }
  if (point > all.length) all += "0".repeat(point - all.length);
  intDigits = all.slice(0, point);
  fracDigits = all.slice(point);
  if (ctx.typmod >= 4) {
    const { precision, scale } = numericTypmod(ctx.typmod);
    [intDigits, fracDigits] = roundDecimal(intDigits, fracDigits, scale);
    dscale = Math.max(scale, 0);
    const significant = intDigits.replace(/^0+/, "").length;
    if (significant > precision - scale) {
      throw new FormatError("DATUM_BAD_INPUT", "numeric field overflow", {}, `A field with precision ${precision}, scale ${scale} must round to an absolute value less than ${precision - scale === 0 ? "1" : `10^${precision - scale}`}.`);
    }
  }
  if (dscale > NUMERIC_DSCALE_MAX) throw overflow();
  return encodeNumeric(neg, intDigits, fracDigits, dscale);
};

function numericTypmod(typmod: number): { precision: number; scale: number } {
  const t = typmod - 4;
  return { precision: (t >> 16) & 0xffff, scale: ((t & 0x7ff) ^ 1024) - 1024 };
}

/** Round half away from zero to `scale` fraction digits (negative scale rounds left of the point). */
function roundDecimal(intDigits: string, frac: string, scale: number): [string, string] {
  const digits = intDigits + frac;
  const keep = intDigits.length + scale;
  if (keep >= digits.length) return [intDigits, (frac + "0".repeat(Math.max(0, scale - frac.length))).slice(0, Math.max(0, scale))];
  let kept = keep > 0 ? BigInt(digits.slice(0, keep)) : 0n;
  if (keep >= 0 && digits[keep] >= "5") kept += 1n;
  let s = kept.toString();
  const width = Math.max(keep, 0);
  s = s.padStart(width, "0");
  const intLen = s.length - Math.max(scale, 0);
  let int = s.slice(0, Math.max(0, intLen));
  if (scale < 0) int = (int === "0" || int === "" ? "" : int) + "0".repeat(-scale);
  return [int, scale > 0 ? s.slice(Math.max(0, intLen)).padStart(scale, "0") : ""];
}

function encodeNumeric(neg: boolean, intDigits: string, fracDigits: string, dscale: number): Uint8Array {
  // groups of four decimal digits, aligned on the decimal point
  const ip = intDigits.replace(/^0+/, "");
  const intGroups = Math.ceil(ip.length / 4);
  const paddedInt = ip.padStart(intGroups * 4, "0");
  const fracGroups = Math.ceil(fracDigits.length / 4);
  const paddedFrac = fracDigits.padEnd(fracGroups * 4, "0");
  let groups: number[] = [];
  for (let i = 0; i < paddedInt.length; i += 4) groups.push(Number(paddedInt.slice(i, i + 4)));
  for (let i = 0; i < paddedFrac.length; i += 4) groups.push(Number(paddedFrac.slice(i, i + 4)));
  let weight = intGroups - 1;
  // strip leading and trailing zero groups
  let lead = 0;
  while (lead < groups.length && groups[lead] === 0) lead++;
  groups = groups.slice(lead);
  weight -= lead;
  while (groups.length && groups[groups.length - 1] === 0) groups.pop();
  if (!groups.length) {
    weight = 0;
    neg = false;
  }
  if (weight > 0x7fff || weight < -0x7fff) throw new FormatError("DATUM_BAD_INPUT", "value overflows numeric format");
  const canBeShort = dscale <= 63 && weight <= 63 && weight >= -64;
  const head = canBeShort ? 2 : 4;
  const out = new Uint8Array(head + 2 * groups.length);
  const dv = new DataView(out.buffer);
  if (canBeShort) dv.setUint16(0, NUMERIC_SHORT | (neg ? 0x2000 : 0) | (dscale << 7) | (weight < 0 ? 0x40 : 0) | (weight & 0x3f), true);
  else {
    dv.setUint16(0, (neg ? NUMERIC_NEG : 0) | dscale, true);
    dv.setInt16(2, weight, true);
  }
  groups.forEach((g, i) => dv.setInt16(head + 2 * i, g, true));
  return out;
}

// character types
const enc = new TextEncoder();
const chars = (s: string): string[] => Array.from(s);

export const textIn: InputFunction = (text) => enc.encode(text);

export function lengthLimited(type: string, pad: boolean): InputFunction {
  return (text, ctx) => {
    if (ctx.typmod < 4) return enc.encode(text);
    const n = ctx.typmod - 4;
    const cs = chars(text);
    if (cs.length > n) {
      if (cs.slice(n).some((c) => c !== " ")) throw new FormatError("DATUM_BAD_INPUT", `value too long for type ${type}(${n})`);
      return enc.encode(cs.slice(0, n).join(""));
    }
    return enc.encode(pad ? text + " ".repeat(n - cs.length) : text);
  };
}

const NAMEDATALEN = 64;
export const nameIn: InputFunction = (text) => {
  const out = new Uint8Array(NAMEDATALEN);
  let used = 0;
  for (const c of chars(text)) {
    const b = enc.encode(c);
    if (used + b.length > NAMEDATALEN - 1) break;
    out.set(b, used);
    used += b.length;
  }
  return out;
};

export const charIn: InputFunction = (text) => {
  const b = enc.encode(text);
  if (b.length === 4 && b[0] === 0x5c && /^[0-7]{3}$/.test(text.slice(1))) return Uint8Array.of(parseInt(text.slice(1), 8) & 0xff);
  return Uint8Array.of(b[0] ?? 0);
};

export const byteaIn: InputFunction = (text) => {
  if (text.startsWith("\\x")) {
    const out: number[] = [];
    const s = text.slice(2);
    for (let i = 0; i < s.length; ) {
      const c = s[i];
      if (c === " " || c === "\n" || c === "\t" || c === "\r") {
        i++;
        continue;
      }
      const hi = parseInt(c, 16);
      if (Number.isNaN(hi) || !/[0-9a-fA-F]/.test(c)) throw new FormatError("DATUM_BAD_INPUT", `invalid hexadecimal digit: "${c}"`);
      if (i + 1 >= s.length) throw new FormatError("DATUM_BAD_INPUT", "invalid hexadecimal data: odd number of digits");
      const d = s[i + 1];
      if (!/[0-9a-fA-F]/.test(d)) throw new FormatError("DATUM_BAD_INPUT", `invalid hexadecimal digit: "${d}"`);
      out.push(hi * 16 + parseInt(d, 16));
      i += 2;
    }
    return Uint8Array.from(out);
  }
  const b = enc.encode(text);
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if (b[i] !== 0x5c) out.push(b[i]);
    else if (b[i + 1] === 0x5c) {
      out.push(0x5c);
      i++;
    } else if (b[i + 1] >= 0x30 && b[i + 1] <= 0x33 && b[i + 2] >= 0x30 && b[i + 2] <= 0x37 && b[i + 3] >= 0x30 && b[i + 3] <= 0x37) {
      out.push(((b[i + 1] - 0x30) << 6) | ((b[i + 2] - 0x30) << 3) | (b[i + 3] - 0x30));
      i += 3;
    } else throw new FormatError("DATUM_BAD_INPUT", "invalid input syntax for type bytea");
  }
  return Uint8Array.from(out);
};

export const uuidIn: InputFunction = (text) => {
  let s = text;
  const braces = s.startsWith("{");
  if (braces) s = s.slice(1);
  const out = new Uint8Array(16);
  let p = 0;
  for (let i = 0; i < 16; i++) {
    const pair = s.slice(p, p + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw bad("uuid", text);
    out[i] = parseInt(pair, 16);
    p += 2;
    if (s[p] === "-" && i % 2 === 1 && i < 15) p++;
  }
  if (braces) {
    if (s[p] !== "}") throw bad("uuid", text);
    p++;
  }
  if (p !== s.length) throw bad("uuid", text);
  return out;
};

export const jsonIn: InputFunction = (text) => {
  try {
    JSON.parse(text);
  } catch {
    throw new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type json`, {}, `The input string ended unexpectedly or is not valid JSON: ${text.slice(0, 60)}`);
  }
  return enc.encode(text);
};

// dates and times: days and microseconds since 2000-01-01 (POSTGRES_EPOCH_JDATE)
const USECS_PER_DAY = 86_400_000_000n;
const DATE_END = 2147483647;
const DATE_BEGIN = -2147483648;
const DT_END = 9223372036854775807n;
const DT_BEGIN = -9223372036854775808n;
/** date2j of 5874898-01-01, the first day past the date range (DATE_END_JULIAN) */
const DATE_END_JULIAN = 2147483494;

const DATE_RE = /^(\d{4,})-(\d{1,2})-(\d{1,2})/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d*)?)?/;
const UTC_ZONE = /^(?:Z|UTC|GMT)$/i;

/** The ISO 8601 date at the start of `s` (YYYY-MM-DD, then BC at the very end), or null for any other spelling. */
function isoDate(text: string, s: string): { days: number; rest: string } | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  let y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  let rest = s.slice(m[0].length);
  const bc = /\s+BC\s*$/i.exec(rest);
  if (bc) {
    rest = rest.slice(0, bc.index);
    y = 1 - y;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && leapYear(y) ? 29 : DAYS_IN_MONTH[mo - 1]) || Number(m[1]) === 0) throw fieldRange(text);
  return { days: julianDay(y, mo, d) - POSTGRES_EPOCH_JDATE, rest };
}

/** A numeric zone or UTC word, seconds east of UTC; null for a zone the general decoder reads (a name). */
function simpleZone(text: string, zone: string): number | null {
  return UTC_ZONE.test(zone) ? 0 : zoneOffsetSeconds(text, zone);
}

/** Microseconds of HH:MM[:SS[.f]], fractional seconds rounded as rint() rounds. */
function parseTime(text: string, s: string): { usecs: bigint; rest: string } {
  const m = TIME_RE.exec(s);
  if (!m) throw new FormatError("DATUM_BAD_INPUT", `pgdisk reads times in ISO 8601 form (HH:MM[:SS[.f]]): "${text}"`);
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const sec = Number(m[3] ?? 0);
  const fsec = m[4] && m[4].length > 1 ? roundHalfEven(Number(`0${m[4]}`) * 1e6) : 0;
  if (mi > 59 || sec > 60 || h > 24 || (h === 24 && (mi || sec || fsec))) throw fieldRange(text);
  return { usecs: BigInt(((h * 60 + mi) * 60 + sec) * 1e6 + fsec), rest: s.slice(m[0].length) };
}

/** Round to `typmod` fractional digits of a second (AdjustTimestampForTypmod). */
/**
 * AdjustTimestampForTypmod / AdjustTimeForTypmod: microseconds rounded half away from zero to
 * `typmod` fraction digits. A timestamp is rounded whole (after its zone), so a tie before
 * 2000-01-01 (a negative count) goes to the earlier instant.
 */
export function adjustPrecision(usecs: bigint, typmod: number): bigint {
  if (typmod < 0 || typmod >= 6) return usecs;
  const scale = 10n ** BigInt(6 - typmod);
  const offset = scale / 2n;
  return usecs >= 0n ? ((usecs + offset) / scale) * scale : -(((-usecs + offset) / scale) * scale);
}

export const dateIn: InputFunction = (text, ctx) => {
  const s = trim(text);
  const l = s.toLowerCase();
  if (l === "infinity" || l === "+infinity") return le(4, DATE_END);
  if (l === "-infinity") return le(4, DATE_BEGIN);
  const iso = isoDate(text, s);
  const days = iso && !trim(iso.rest) ? iso.days : decodeDateTime(text, s, "date", ctx.dateOrder).days;
  if (days < -POSTGRES_EPOCH_JDATE || days >= DATE_END_JULIAN - POSTGRES_EPOCH_JDATE) throw new FormatError("DATUM_BAD_INPUT", `date out of range: "${text}"`);
  return le(4, days);
};

/** The ISO 8601 time at the start of `s` and what follows it, or null for the general decoder. */
function isoTime(text: string, s: string): { usecs: bigint; rest: string } | null {
  return TIME_RE.test(s) ? parseTime(text, s) : null;
}

/** time_in: a zone written is checked and ignored, as is a date. */
export const timeIn: InputFunction = (text, ctx) => {
  const s = trim(text);
  const iso = isoTime(text, s);
  const usecs = iso && !trim(iso.rest) ? iso.usecs : decodeTime(text, s, "time", ctx.dateOrder).usecs;
  return le(8, adjustPrecision(usecs, ctx.typmod));
};

/** timetz_in: a time and a zone (the session's, UTC unless given, when none is written); the zone is stored in seconds WEST of UTC. */
export const timetzIn: InputFunction = (text, ctx) => {
  const s = trim(text);
  const iso = isoTime(text, s);
  const isoZone = iso ? trim(iso.rest) : "";
  const isoEast = iso && isoZone ? simpleZone(text, isoZone) : null;
  let usecs: bigint;
  let east: number;
  if (iso && (!isoZone || isoEast !== null)) {
    usecs = iso.usecs;
    east = isoEast ?? (ctx.timeZoneOffsetSeconds ?? 0);
  } else {
    const v = decodeTime(text, s, "time with time zone", ctx.dateOrder);
    usecs = v.usecs;
    east = writtenZoneEast(v, text) ?? ctx.timeZoneOffsetSeconds ?? 0;
  }
  const out = new Uint8Array(TimeTzADT.size);
  const dv = new DataView(out.buffer);
  dv.setBigInt64(TimeTzADT.offsets.time, adjustPrecision(usecs, ctx.typmod), true);
  dv.setInt32(TimeTzADT.offsets.zone, -east, true);
  return out;
};

export function timestampIn(withZone: boolean): InputFunction {
  // as timestamp_in and timestamptz_in name their types in errors
  const type = withZone ? "timestamp with time zone" : "timestamp";
  return (text, ctx) => {
    const s = trim(text);
    const l = s.toLowerCase();
    if (l === "infinity" || l === "+infinity") return le(8, DT_END);
    if (l === "-infinity") return le(8, DT_BEGIN);
    const v = isoTimestamp(text, s) ?? decodeDateTime(text, s, type, ctx.dateOrder);
    // the server ignores a zone given to timestamp without time zone (but checks it)
    const offset = withZone ? (writtenZoneEast(v, text) ?? ctx.timeZoneOffsetSeconds ?? 0) : 0;
    const total = adjustPrecision(BigInt(v.days) * USECS_PER_DAY + v.usecs - BigInt(offset) * 1_000_000n, ctx.typmod);
    // 4714-11-24 BC .. 294276-12-31 AD (IS_VALID_TIMESTAMP)
    if (total < -211813488000000000n || total >= 9223371331200000000n) throw new FormatError("DATUM_BAD_INPUT", `timestamp out of range: "${text}"`);
    return le(8, total);
  };
}

/** The common ISO 8601 spelling (date, optional time after a space or T, optional numeric or UTC zone), or null for the general decoder. */
function isoTimestamp(text: string, s: string): DecodedDateTime | null {
  const date = isoDate(text, s);
  if (!date) return null;
  let rest = date.rest;
  let usecs = 0n;
  if (/^[ T]\d/.test(rest)) {
    if (!TIME_RE.test(rest.slice(1))) return null;
    const t = parseTime(text, rest.slice(1));
    usecs = t.usecs;
    rest = t.rest;
  }
  const zone = trim(rest);
  if (!zone) return { days: date.days, usecs };
  const east = simpleZone(text, zone);
  return east === null ? null : { days: date.days, usecs, east };
}
