// The built-in functions formats/expr evaluates beyond the integer, bool and jsonb core of
// evaluate.ts, by pg_proc OID (PostgreSQL 15's pg_proc, the same OIDs in 13..18: the test reads
// them back from the servers): comparisons of every evaluated type, float and exact numeric
// arithmetic, the immutable casts between them, the text functions real indexes use, and
// date_trunc / date_part / extract. Each follows its C function's rules and its errors (a row
// the server could not have indexed fails with EXPR_OVERFLOW); what cannot be reproduced bit for
// bit (a collation's ordering, a numeric product past the display scale limit, date_part of
// infinities, which versions treat differently) is refused, never guessed.
// Sources: src/backend/utils/adt/float.c, numeric.c, int.c, varchar.c, varlena.c, name.c,
// oracle_compat.c, date.c, timestamp.c, uuid.c.
import { createHash } from "node:crypto";
import { FormatError } from "../schema/errors.js";
import { civil, civilDays } from "../datum/datetime.js";
import { adjustPrecision, float4In, float8In, nameIn } from "../datum/input.js";
import { utf8Text } from "../datum/util.js";
import { floatRangeError } from "../datum/float-arith.js";
import { NUMERIC_DSCALE_MAX } from "../datum/numeric.js";
import { decodeExprValue, NUM_NAN, NUM_NINF, NUM_PINF, numericString, NUMERICOID, type ExprValue, type Numeric } from "./values.js";
import { JENTRY_ISNULL, JENTRY_ISNUMERIC, jsonbContainer, type JsonbValue } from "../datum/jsonb.js";

export interface ExprContext {
  /** the database's LC_CTYPE is C or POSIX (lower/upper then change ASCII letters only) */
  defaultCtypeIsC: boolean;
  /** the database's LC_COLLATE is C or POSIX (text ordering is then by code point) */
  defaultCollateIsC?: boolean;
  /** the collation is nondeterministic (pg_collation.collisdeterministic false: equal strings may differ in bytes) */
  nondeterministic?: (collid: number) => boolean;
}

export type Fn = (a: ExprValue[], collid: number, ctx: ExprContext) => ExprValue;
/** Why a call cannot be evaluated offline (checked once, when compiled; `consts`: each argument's value when it is a constant, else undefined), or null. */
export type Check = (consts: (ExprValue | undefined)[], collid: number, ctx: ExprContext) => string | null;
export type FnEntry = [name: string, fn: Fn, check?: Check];

const fail = (msg: string): never => {
  throw new FormatError("EXPR_OVERFLOW", msg);
};

// ---- ordering -------------------------------------------------------------------------------

const C_COLLATION_OID = 950;
const POSIX_COLLATION_OID = 951;
const DEFAULT_COLLATION_OID = 100;

/** Text ordering is byte order (UTF-8 = code point order) only under the C or POSIX collation. */
const cOrdering: Check = (_a, collid, ctx) =>
  collid === C_COLLATION_OID || collid === POSIX_COLLATION_OID || (collid === DEFAULT_COLLATION_OID && ctx.defaultCollateIsC === true) ? null : `text ordering under collation ${collid}`;

/** Text equality is byte equality only under a deterministic collation. */
export const deterministicEquality: Check = (_a, collid, ctx) => (ctx.nondeterministic?.(collid) ? `text equality under the nondeterministic collation ${collid}` : null);

/** Code point order of two JS strings (UTF-16 units reordered so surrogates sort above U+FFFF's BMP neighbours). */
function cmpCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** bpchar compares without its trailing blanks (bpchareq, bpcharcmp). */
const stripBlanks = (s: string): string => {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 32) e--;
  return e === s.length ? s : s.slice(0, e);
};

/** float8_cmp_internal: NaN equals NaN and sorts above everything. */
const cmpFloat = (a: number, b: number): number => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : a > b ? 1 : a < b ? -1 : 0);

const cmpPlain = (a: number | bigint | string, b: number | bigint | string): number => (a > b ? 1 : a < b ? -1 : 0);

/** Six comparison functions (eq ne lt le gt ge) from one comparator. */
function comparisons(name: string, oids: [number, number, number, number, number, number], cmp: (a: never, b: never) => number, orderCheck?: Check, eqCheck?: Check): [number, FnEntry][] {
  const c = cmp as (a: ExprValue, b: ExprValue) => number;
  const tests: [string, (r: number) => boolean][] = [["eq", (r) => r === 0], ["ne", (r) => r !== 0], ["lt", (r) => r < 0], ["le", (r) => r <= 0], ["gt", (r) => r > 0], ["ge", (r) => r >= 0]];
  return oids.map((oid, k) => {
    const [op, t] = tests[k]!;
    return [oid, [name + op, (a) => t(c(a[0]!, a[1]!)), k < 2 ? eqCheck : orderCheck]];
  });
}

// ---- numeric --------------------------------------------------------------------------------

const pow10 = (k: number): bigint => 10n ** BigInt(k);
const num = (n: bigint, scale: number): Numeric => ({ n, scale, special: 0 });
const NAN: Numeric = { n: 0n, scale: 0, special: NUM_NAN };
const PINF: Numeric = { n: 0n, scale: 0, special: NUM_PINF };
const NINF: Numeric = { n: 0n, scale: 0, special: NUM_NINF };
const infSign = (v: Numeric): number => (v.special === NUM_PINF ? 1 : v.special === NUM_NINF ? -1 : 0);
const sign = (v: Numeric): number => (v.special ? infSign(v) : v.n > 0n ? 1 : v.n < 0n ? -1 : 0);
const aligned = (a: Numeric, b: Numeric): [bigint, bigint, number] => {
  const s = Math.max(a.scale, b.scale);
  return [a.n * pow10(s - a.scale), b.n * pow10(s - b.scale), s];
};

/** numeric_add / numeric_sub: exact, display scale the larger of the two (add_var). */
function numericAdd(a: Numeric, b: Numeric, negateB: boolean): Numeric {
  if (a.special || b.special) {
    if (a.special === NUM_NAN || b.special === NUM_NAN) return NAN;
    const sa = infSign(a);
    const sb = infSign(b) * (negateB ? -1 : 1);
    if (sa && sb) return sa === sb ? a : NAN;
    const s = sa || sb;
    return s > 0 ? PINF : NINF;
  }
  const [x, y, s] = aligned(a, b);
  return num(negateB ? x - y : x + y, s);
}

/** numeric_mul: the exact product at the sum of the scales (rounded by the server only past NUMERIC_DSCALE_MAX: refused). */
function numericMul(a: Numeric, b: Numeric): Numeric {
  if (a.special || b.special) {
    if (a.special === NUM_NAN || b.special === NUM_NAN) return NAN;
    const s = sign(a) * sign(b);
    return s === 0 ? NAN : s > 0 ? PINF : NINF;
  }
  const scale = a.scale + b.scale;
  if (scale > NUMERIC_DSCALE_MAX) throw new FormatError("EXPR_UNSUPPORTED", "a numeric product rounded to the maximum display scale cannot be evaluated offline");
  return num(a.n * b.n, scale);
}

/** The weight (base-10000 digit position) and first base-10000 digit of a nonzero |v|, as the stored digits give them. */
function leadingDigit(v: Numeric): [weight: number, first: number] {
  const a = v.n < 0n ? -v.n : v.n;
  const e = a.toString().length - v.scale - 1; // decimal exponent of the leading digit
  const w = Math.floor(e / 4);
  const k = v.scale + 4 * w;
  return [w, Number(k >= 0 ? a / pow10(k) : a * pow10(-k))];
}

/** select_div_scale: at least 16 significant digits, no fewer fraction digits than either input, at most 1000. */
function divScale(a: Numeric, b: Numeric): number {
  const [w1, f1] = a.n === 0n ? [0, 0] : leadingDigit(a);
  const [w2, f2] = leadingDigit(b);
  let qweight = w1 - w2;
  if (f1 <= f2) qweight--;
  return Math.min(Math.max(16 - qweight * 4, a.scale, b.scale, 0), 1000);
}

/** numeric_div: the quotient rounded half away from zero at select_div_scale's scale (div_var's exact, rounded result). */
function numericDiv(a: Numeric, b: Numeric): Numeric {
  if (a.special || b.special) {
    if (a.special === NUM_NAN || b.special === NUM_NAN) return NAN;
    if (a.special) {
      if (b.special) return NAN;
      const s = sign(b);
      return s === 0 ? fail("division by zero") : s * infSign(a) > 0 ? PINF : NINF;
    }
    return num(0n, 0);
  }
  if (b.n === 0n) return fail("division by zero");
  const r = divScale(a, b);
  const top = a.n * pow10(b.scale + r);
  const bottom = b.n * pow10(a.scale);
  let q = top / bottom;
  const rem = top - q * bottom;
  if (rem !== 0n && (rem < 0n ? -rem : rem) * 2n >= (bottom < 0n ? -bottom : bottom)) q += (top < 0n) !== (bottom < 0n) ? -1n : 1n;
  return num(q, r);
}

/** numeric_mod: a - trunc(a / b) * b, exact, at the larger scale (mod_var); Inf % x is NaN, x % Inf is x. */
function numericMod(a: Numeric, b: Numeric): Numeric {
  if (a.special || b.special) {
    if (a.special === NUM_NAN || b.special === NUM_NAN) return NAN;
    if (a.special) return sign(b) === 0 ? fail("division by zero") : NAN;
    return a;
  }
  if (b.n === 0n) return fail("division by zero");
  const [x, y, s] = aligned(a, b);
  return num(x % y, s);
}

/** numeric(numeric, typmod) (apply_typmod): rounded half away from zero to the scale (15+: may be negative), then at most precision - scale integer digits. */
function numericTypmod(v: Numeric, typmod: number): Numeric {
  if (typmod < 4) return v;
  const precision = ((typmod - 4) >> 16) & 0xffff;
  const scale = (((typmod - 4) & 0x7ff) ^ 1024) - 1024;
  if (v.special === NUM_NAN) return v;
  if (v.special) return fail(`numeric field overflow: a field with precision ${precision}, scale ${scale} cannot hold an infinite value`);
  let n = v.n;
  if (v.scale > scale) {
    const d = pow10(v.scale - scale);
    const q = n / d;
    const r = n - q * d;
    n = r !== 0n && (r < 0n ? -r : r) * 2n >= d ? q + (n < 0n ? -1n : 1n) : q;
  } else n *= pow10(scale - v.scale);
  // n is now the value at `scale`; stored at dscale max(scale, 0)
  if (scale < 0) n *= pow10(-scale);
  const dscale = Math.max(scale, 0);
  if (n !== 0n && (n < 0n ? -n : n).toString().length - dscale > precision - scale) return fail(`numeric field overflow: a field with precision ${precision}, scale ${scale} must round to an absolute value less than 10^${precision - scale}`);
  return num(n, dscale);
}

/** cmp_numerics: NaN equals NaN and sorts above +Infinity, which sorts above every number. */
function cmpNumeric(a: Numeric, b: Numeric): number {
  const rank = (v: Numeric): number => (v.special === NUM_NAN ? 2 : v.special === NUM_PINF ? 1 : v.special === NUM_NINF ? -1 : 0);
  const ra = rank(a);
  const rb = rank(b);
  if (ra || rb) return ra - rb;
  const [x, y] = aligned(a, b);
  return x > y ? 1 : x < y ? -1 : 0;
}

/** numericvar_to_int64 after round_var(0): half away from zero, then the target's range. */
function numericToInt(v: Numeric, min: bigint, max: bigint, type: string): bigint {
  if (v.special === NUM_NAN) return fail(`cannot convert NaN to ${type}`);
  if (v.special) return fail(`cannot convert infinity to ${type}`);
  const d = pow10(v.scale);
  let q = v.n / d;
  const r = v.n - q * d;
  if ((r < 0n ? -r : r) * 2n >= d && r !== 0n) q += v.n < 0n ? -1n : 1n;
  if (q < min || q > max) return fail(`${type} out of range`);
  return q;
}

const F4 = new DataView(new ArrayBuffer(8));
/** numeric_float8 / numeric_float4: numeric_out's text through float8in / float4in (correctly rounded, their range errors). */
function numericToFloat(v: Numeric, four: boolean): number {
  if (v.special) return v.special === NUM_NAN ? NaN : v.special === NUM_PINF ? Infinity : -Infinity;
  try {
    const b = (four ? float4In : float8In)(numericString(v), { typmod: -1 });
    for (let i = 0; i < b.length; i++) F4.setUint8(i, b[i]!);
    return four ? F4.getFloat32(0, true) : F4.getFloat64(0, true);
  } catch (e) {
    if (e instanceof FormatError) return fail(e.message);
    throw e;
  }
}

// ---- jsonb ----------------------------------------------------------------------------------

/** The numeric of a jsonb numeric scalar (jsonb_numeric and the casts built on it); another value is the server's error, a JSON null refused (versions differ). */
function jsonbNumeric(v: JsonbValue, type: string): Numeric {
  const c = jsonbContainer(v.jsonb, 0, v.jsonb.length);
  const e = c.kind === "scalar" ? c.children[0] : undefined;
  if (e && e.type === JENTRY_ISNULL) throw new FormatError("EXPR_UNSUPPORTED", `a cast of a JSON null to ${type} cannot be evaluated offline`);
  if (!e || e.type !== JENTRY_ISNUMERIC) return fail(`cannot cast jsonb value to type ${type}`);
  const b = v.jsonb;
  const hdr = b[e.from]! & 1 ? 1 : 4;
  return decodeExprValue(b, e.from + hdr, e.to - e.from - hdr, NUMERICOID) as Numeric;
}

// ---- floats ---------------------------------------------------------------------------------

/** float_overflow_error / float_underflow_error as float.c checks them after each operation. */
function checked(r: number, a: number, b: number, zeroOk: boolean): number {
  const error = floatRangeError(r, a, b, zeroOk);
  return error ? fail(error) : r;
}
/** float8 (or float4 after Math.fround: the one rounding of a double's exact result of two floats) + - * /. */
function floatOps(four: boolean, [pl, mi, mul, div]: number[], t = four ? "float4" : "float8"): [number, FnEntry][] {
  const r = four ? Math.fround : (x: number) => x;
  return [
    [pl!, [`${t}pl`, (a) => checked(r((a[0] as number) + (a[1] as number)), a[0] as number, a[1] as number, true)]],
    [mi!, [`${t}mi`, (a) => checked(r((a[0] as number) - (a[1] as number)), a[0] as number, a[1] as number, true)]],
    [mul!, [`${t}mul`, (a) => { const x = a[0] as number; const y = a[1] as number; return checked(r(x * y), x, y, x === 0 || y === 0); }]],
    [div!, [`${t}div`, (a) => {
      const x = a[0] as number;
      const y = a[1] as number;
      if (y === 0 && !Number.isNaN(x)) return fail("division by zero");
      return checked(r(x / y), x, y, x === 0 || !Number.isFinite(y));
    }]],
  ];
}

// ---- text -----------------------------------------------------------------------------------

const UTF8 = new TextEncoder();
const chars = (s: string): string[] => Array.from(s);

/** text_substring: start S (1-based, may be below 1), length L (negative: an error). */
function substring(s: string, start: number, len: number | null): string {
  if (len !== null && len < 0) return fail("negative substring length not allowed");
  const cs = chars(s);
  const from = Math.max(start, 1);
  if (len === null) return cs.slice(from - 1).join("");
  const end = start + len;
  if (end < 1) return "";
  return cs.slice(from - 1, end - 1).join("");
}

/** btrim/ltrim/rtrim: strip the characters of `set` (a space when not given) from the chosen ends. */
function trim(s: string, set: string, left: boolean, right: boolean): string {
  const cs = chars(s);
  const strip = new Set(chars(set));
  let b = 0;
  let e = cs.length;
  if (left) while (b < e && strip.has(cs[b]!)) b++;
  if (right) while (e > b && strip.has(cs[e - 1]!)) e--;
  return cs.slice(b, e).join("");
}

/** varchar(s, typmod, explicit) and bpchar(s, typmod, explicit): cut to n characters (implicitly only blanks), bpchar pads to n. */
function lengthCoerce(s: string, typmod: number, explicit: boolean, pad: boolean): string {
  if (typmod < 4) return s;
  const n = typmod - 4;
  const cs = chars(s);
  if (cs.length > n) {
    if (!explicit && cs.slice(n).some((c) => c !== " ")) return fail(`value too long for type character${pad ? "" : " varying"}(${n})`);
    return cs.slice(0, n).join("");
  }
  return pad ? s + " ".repeat(n - cs.length) : s;
}

const nameOf = (s: string): string => {
  const b = nameIn(s, { typmod: -1 });
  let e = 0;
  while (e < b.length && b[e] !== 0) e++;
  return utf8Text(b.subarray(0, e));
};

// ---- date and time --------------------------------------------------------------------------

const DAY = 86_400_000_000n;
const DT_NOBEGIN = -(2n ** 63n);
const DT_NOEND = 2n ** 63n - 1n;
const DATE_NOBEGIN = -0x80000000;
const DATE_NOEND = 0x7fffffff;
const UNIX_TO_PG_DAYS = 10957;
/** IS_VALID_TIMESTAMP: 4714-11-24 BC .. 294276-12-31 AD */
const MIN_TIMESTAMP = -211813488000000000n;
const END_TIMESTAMP = 9223371331200000000n;
/** TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE: the first date a timestamp cannot hold */
const DATE_END_FOR_TIMESTAMP = 109203528 - 2451545;
const YMD = new Int32Array(3);

const floorDay = (ts: bigint): bigint => {
  const d = ts / DAY;
  return ts < 0n && d * DAY !== ts ? d - 1n : d;
};
const dow = (pgDays: number): number => (((pgDays + 6) % 7) + 7) % 7;

/** Units by DecodeUnits' first 10 characters (TOKMAXLEN), lowercased. */
const UNITS = new Map<string, string>();
for (const [unit, spellings] of Object.entries({
  microseconds: ["microsecon", "us", "usec", "usecs", "usecond", "useconds"],
  milliseconds: ["millisecon", "ms", "msec", "msecs", "msecond", "mseconds"],
  second: ["second", "seconds", "s", "sec", "secs"],
  minute: ["minute", "minutes", "m", "min", "mins"],
  hour: ["hour", "hours", "h", "hr", "hrs"],
  day: ["day", "days", "d"],
  week: ["week", "weeks", "w"],
  month: ["month", "months", "mon", "mons"],
  quarter: ["quarter", "qtr"],
  year: ["year", "years", "y", "yr", "yrs"],
  decade: ["decade", "decades", "dec", "decs"],
  century: ["century", "centuries", "c", "cent"],
  millennium: ["millennium", "millennia", "mil", "mils"],
  dow: ["dow"],
  isodow: ["isodow"],
  doy: ["doy"],
  epoch: ["epoch"],
})) for (const s of spellings) UNITS.set(s, unit);
const unitOf = (s: string): string | undefined => UNITS.get(s.replace(/[A-Z]/g, (c) => c.toLowerCase()).slice(0, 10));

/** The unit argument must be a constant the function takes (a row-dependent unit is not evaluated). */
const unitCheck = (allowed: ReadonlySet<string>): Check => ([u]) => {
  if (typeof u !== "string") return "a date/time unit that is not a constant";
  const unit = unitOf(u);
  return unit && allowed.has(unit) ? null : `date/time unit "${u}"`;
};
const TRUNC_UNITS = new Set(["microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade", "century", "millennium"]);
const PART_UNITS = new Set(["microseconds", "milliseconds", "second", "minute", "hour", "day", "month", "quarter", "year", "decade", "century", "millennium", "dow", "isodow", "doy", "epoch"]);
const DATE_EXTRACT_UNITS = new Set(["day", "month", "quarter", "year", "decade", "century", "millennium", "dow", "isodow", "doy", "epoch"]);

const cdiv = (a: number, b: number): number => Math.trunc(a / b);

/** timestamp_trunc: the tm fields cut down to the unit (C's truncating division for the BC year rules). */
function timestampTrunc(unit: string, ts: bigint): bigint {
  if (ts === DT_NOBEGIN || ts === DT_NOEND) return ts;
  const days = floorDay(ts);
  const time = ts - days * DAY;
  switch (unit) {
    case "microseconds":
      return ts;
    case "milliseconds":
      return ts - (time % 1000n);
    case "second":
      return ts - (time % 1_000_000n);
    case "minute":
      return ts - (time % 60_000_000n);
    case "hour":
      return ts - (time % 3_600_000_000n);
    case "day":
      return days * DAY;
    case "week": {
      const d = Number(days);
      return checkedTs(BigInt(d - ((dow(d) + 6) % 7)) * DAY);
    }
  }
  civil(Number(days) + UNIX_TO_PG_DAYS, YMD);
  let y = YMD[0]!;
  let m = YMD[1]!;
  if (unit === "millennium") y = y > 0 ? cdiv(y + 999, 1000) * 1000 - 999 : -cdiv(999 - (y - 1), 1000) * 1000 + 1;
  if (unit === "millennium" || unit === "century") y = y > 0 ? cdiv(y + 99, 100) * 100 - 99 : -cdiv(99 - (y - 1), 100) * 100 + 1;
  if (unit === "decade") y = y > 0 ? cdiv(y, 10) * 10 : -cdiv(8 - (y - 1), 10) * 10;
  if (unit !== "month" && unit !== "quarter") m = 1;
  if (unit === "quarter") m = 3 * cdiv(m - 1, 3) + 1;
  return checkedTs(BigInt(civilDays(y, m, 1) - UNIX_TO_PG_DAYS) * DAY);
}
const checkedTs = (ts: bigint): bigint => (ts < MIN_TIMESTAMP || ts >= END_TIMESTAMP ? fail("timestamp out of range") : ts);

/** The calendar fields date_part and extract share, from a day count (PostgreSQL days) and year; integers. */
function dayField(unit: string, pgDays: number): number {
  civil(pgDays + UNIX_TO_PG_DAYS, YMD);
  const y = YMD[0]!;
  switch (unit) {
    case "day":
      return YMD[2]!;
    case "month":
      return YMD[1]!;
    case "quarter":
      return cdiv(YMD[1]! - 1, 3) + 1;
    // there is no year 0: astronomical year 0 is 1 BC
    case "year":
      return y > 0 ? y : y - 1;
    case "decade":
      return y >= 0 ? cdiv(y, 10) : -cdiv(8 - (y - 1), 10);
    case "century":
      return y > 0 ? cdiv(y + 99, 100) : -cdiv(99 - (y - 1), 100);
    case "millennium":
      return y > 0 ? cdiv(y + 999, 1000) : -cdiv(999 - (y - 1), 1000);
    case "dow":
      return dow(pgDays);
    case "isodow":
      return dow(pgDays) || 7;
    case "doy":
      return pgDays + UNIX_TO_PG_DAYS - civilDays(y, 1, 1) + 1;
  }
  throw new FormatError("EXPR_UNSUPPORTED", `date/time unit ${unit} cannot be evaluated offline`);
}

/** timestamp_part (date_part(text, timestamp)): a float8; infinite timestamps differ between versions and are refused. */
function timestampPart(unit: string, ts: bigint): number {
  if (ts === DT_NOBEGIN || ts === DT_NOEND) throw new FormatError("EXPR_UNSUPPORTED", "date_part of an infinite timestamp cannot be evaluated offline");
  const days = floorDay(ts);
  const time = Number(ts - days * DAY);
  const sec = Math.floor(time / 1e6) % 60;
  const fsec = time % 1e6;
  switch (unit) {
    case "microseconds":
      return sec * 1e6 + fsec;
    case "milliseconds":
      return sec * 1000.0 + fsec / 1000.0;
    case "second":
      return sec + fsec / 1000000.0;
    case "minute":
      return Math.floor(time / 60e6) % 60;
    case "hour":
      return Math.floor(time / 3600e6);
    case "epoch":
      return Number(ts + 946684800000000n) / 1000000.0;
  }
  return dayField(unit, Number(days));
}

/** extract_date (extract(unit from date)): a numeric of scale 0; an infinite date gives ±Infinity for rising fields, NULL for the others. */
function extractDate(unit: string, d: number): Numeric | null {
  if (d === DATE_NOBEGIN || d === DATE_NOEND) {
    if (unit === "year" || unit === "decade" || unit === "century" || unit === "millennium" || unit === "epoch") return d === DATE_NOBEGIN ? NINF : PINF;
    return null;
  }
  if (unit === "epoch") return num((BigInt(d) + BigInt(UNIX_TO_PG_DAYS)) * 86400n, 0);
  return num(BigInt(dayField(unit, d)), 0);
}

/** extract_timestamp (extract(unit from timestamp), 14+): a numeric, seconds at scale 6 and milliseconds at 3 (int64_div_fast_to_numeric); an infinite timestamp gives ±Infinity for rising fields, NULL for the others. */
function extractTimestamp(unit: string, ts: bigint): Numeric | null {
  if (ts === DT_NOBEGIN || ts === DT_NOEND) {
    if (unit === "year" || unit === "decade" || unit === "century" || unit === "millennium" || unit === "epoch") return ts === DT_NOBEGIN ? NINF : PINF;
    return null;
  }
  const days = floorDay(ts);
  const time = ts - days * DAY;
  const secUs = time % 60_000_000n;
  switch (unit) {
    case "microseconds":
      return num(secUs, 0);
    case "milliseconds":
      return num(secUs, 3);
    case "second":
      return num(secUs, 6);
    case "minute":
      return num((time / 60_000_000n) % 60n, 0);
    case "hour":
      return num(time / 3_600_000_000n, 0);
    case "epoch":
      return num(ts + 946684800000000n, 6);
  }
  return num(BigInt(dayField(unit, Number(days))), 0);
}

/** timestamp_scale / timestamptz_scale: AdjustTimestampForTypmod (formats/datum's adjustPrecision), the infinities kept. */
function timestampScale(ts: bigint, typmod: number): bigint {
  if (ts === DT_NOBEGIN || ts === DT_NOEND) return ts;
  if (typmod < -1 || typmod > 6) return fail(`timestamp(${typmod}) precision must be between 0 and 6`);
  return checkedTs(adjustPrecision(ts, typmod));
}

/** date_pli / date_mii: infinities kept, a result outside the dates an error (IS_VALID_DATE). */
const datePlus = (d: number, days: number): number => {
  if (d === DATE_NOBEGIN || d === DATE_NOEND) return d;
  const r = d + days;
  return r < -2451545 || r >= 2147483494 - 2451545 ? fail("date out of range") : r;
};

/** timestamp_date: the day of a timestamp (its infinities kept). */
const timestampDate = (ts: bigint): number => (ts === DT_NOBEGIN ? DATE_NOBEGIN : ts === DT_NOEND ? DATE_NOEND : Number(floorDay(ts)));
/** date_timestamp: midnight of a date, an error past 294276 AD. */
const dateTimestamp = (d: number): bigint => (d === DATE_NOBEGIN ? DT_NOBEGIN : d === DATE_NOEND ? DT_NOEND : d >= DATE_END_FOR_TIMESTAMP ? fail("date out of range for timestamp") : BigInt(d) * DAY);

// ---- the table ------------------------------------------------------------------------------

const INT2 = [-32768n, 32767n] as const;
const INT4 = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const INT8 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const n0 = (a: ExprValue[]): Numeric => a[0] as Numeric;
const s0 = (a: ExprValue[]): string => a[0] as string;

export const MORE_FUNCTIONS: [number, FnEntry][] = [
  ...comparisons("float4", [287, 288, 289, 290, 291, 292], cmpFloat),
  ...comparisons("float8", [293, 294, 295, 296, 297, 298], cmpFloat),
  ...comparisons("numeric_", [1718, 1719, 1722, 1723, 1720, 1721], cmpNumeric),
  ...comparisons("date_", [1086, 1091, 1087, 1088, 1089, 1090], cmpPlain),
  ...comparisons("timestamp_", [2052, 2053, 2054, 2055, 2057, 2056], cmpPlain),
  ...comparisons("timestamptz_", [1152, 1153, 1154, 1155, 1157, 1156], cmpPlain),
  ...comparisons("oid", [184, 185, 716, 717, 1638, 1639], cmpPlain),
  // uuid text is lowercase hex in byte order: string order is memcmp order
  ...comparisons("uuid_", [2956, 2959, 2954, 2955, 2958, 2957], cmpPlain),
  // deterministic collations compare for equality byte by byte; ordering needs C's byte order
  ...comparisons("name", [62, 659, 655, 656, 657, 658], cmpCodePoints, cOrdering, deterministicEquality),
  ...comparisons("text_", [67, 157, 740, 741, 742, 743], cmpCodePoints, cOrdering).slice(2),
  ...comparisons("bpchar", [1048, 1053, 1049, 1050, 1051, 1052], (a: string, b: string) => cmpCodePoints(stripBlanks(a), stripBlanks(b)), cOrdering, deterministicEquality),
  ...floatOps(true, [204, 205, 202, 203]),
  ...floatOps(false, [218, 219, 216, 217]),
  // real with double precision: the real widened exactly, a double's operation and comparison
  ...comparisons("float48", [299, 300, 301, 302, 303, 304], cmpFloat),
  ...comparisons("float84", [305, 306, 307, 308, 309, 310], cmpFloat),
  ...floatOps(false, [281, 282, 279, 280], "float48"),
  ...floatOps(false, [285, 286, 283, 284], "float84"),
  [1141, ["date_pli", (a) => datePlus(a[0] as number, a[1] as number)]],
  [1142, ["date_mii", (a) => datePlus(a[0] as number, -(a[1] as number))]],
  [1724, ["numeric_add", (a) => numericAdd(n0(a), a[1] as Numeric, false)]],
  [1725, ["numeric_sub", (a) => numericAdd(n0(a), a[1] as Numeric, true)]],
  [1726, ["numeric_mul", (a) => numericMul(n0(a), a[1] as Numeric)]],
  [1727, ["numeric_div", (a) => numericDiv(n0(a), a[1] as Numeric)]],
  [1729, ["numeric_mod", (a) => numericMod(n0(a), a[1] as Numeric)]],
  [1705, ["numeric_abs", (a) => { const v = n0(a); return v.special ? (v.special === NUM_NAN ? NAN : PINF) : v.n < 0n ? num(-v.n, v.scale) : v; }]],
  [1397, ["int4abs", (a) => ((a[0] as number) === -(2 ** 31) ? fail("integer out of range") : Math.abs(a[0] as number))]],
  [1398, ["int2abs", (a) => ((a[0] as number) === -32768 ? fail("smallint out of range") : Math.abs(a[0] as number))]],
  [1396, ["int8abs", (a) => ((a[0] as bigint) === INT8[0] ? fail("bigint out of range") : (a[0] as bigint) < 0n ? -(a[0] as bigint) : a[0])]],
  [1394, ["float4abs", (a) => Math.abs(a[0] as number)]],
  [1395, ["float8abs", (a) => Math.abs(a[0] as number)]],
  [1140, ["date_mi", (a) => { const x = a[0] as number; const y = a[1] as number; return x === DATE_NOBEGIN || x === DATE_NOEND || y === DATE_NOBEGIN || y === DATE_NOEND ? fail("cannot subtract infinite dates") : x - y; }]],
  // casts
  [314, ["int2(int4)", (a) => Number(numIn(BigInt(a[0] as number), INT2, "smallint"))]],
  [714, ["int2(int8)", (a) => Number(numIn(a[0] as bigint, INT2, "smallint"))]],
  [1703, ["numeric(numeric, int4)", (a) => numericTypmod(n0(a), a[1] as number)]],
  [1740, ["numeric(int4)", (a) => num(BigInt(a[0] as number), 0)]],
  [1782, ["numeric(int2)", (a) => num(BigInt(a[0] as number), 0)]],
  [1781, ["numeric(int8)", (a) => num(a[0] as bigint, 0)]],
  [1744, ["int4(numeric)", (a) => Number(numericToInt(n0(a), INT4[0], INT4[1], "integer"))]],
  [1783, ["int2(numeric)", (a) => Number(numericToInt(n0(a), INT2[0], INT2[1], "smallint"))]],
  [1779, ["int8(numeric)", (a) => numericToInt(n0(a), INT8[0], INT8[1], "bigint")]],
  [235, ["float8(int2)", (a) => a[0] as number]],
  [316, ["float8(int4)", (a) => a[0] as number]],
  // (double) of an int64: one round-to-nearest-even, as Number(bigint)
  [482, ["float8(int8)", (a) => Number(a[0] as bigint)]],
  [236, ["float4(int2)", (a) => Math.fround(a[0] as number)]],
  [318, ["float4(int4)", (a) => Math.fround(a[0] as number)]],
  [311, ["float8(float4)", (a) => a[0] as number]],
  [312, ["float4(float8)", (a) => { const x = a[0] as number; const r = Math.fround(x); return !Number.isFinite(r) && Number.isFinite(x) ? fail("value out of range: overflow") : r === 0 && x !== 0 ? fail("value out of range: underflow") : r; }]],
  [1746, ["float8(numeric)", (a) => numericToFloat(n0(a), false)]],
  [1745, ["float4(numeric)", (a) => numericToFloat(n0(a), true)]],
  [3449, ["numeric(jsonb)", (a) => jsonbNumeric(a[0] as JsonbValue, "numeric")]],
  [3450, ["int2(jsonb)", (a) => Number(numericToInt(jsonbNumeric(a[0] as JsonbValue, "smallint"), INT2[0], INT2[1], "smallint"))]],
  [3451, ["int4(jsonb)", (a) => Number(numericToInt(jsonbNumeric(a[0] as JsonbValue, "integer"), INT4[0], INT4[1], "integer"))]],
  [3452, ["int8(jsonb)", (a) => numericToInt(jsonbNumeric(a[0] as JsonbValue, "bigint"), INT8[0], INT8[1], "bigint")]],
  [2580, ["float8(jsonb)", (a) => numericToFloat(jsonbNumeric(a[0] as JsonbValue, "double precision"), false)]],
  [406, ["text(name)", (a) => a[0]]],
  [2971, ["text(bool)", (a) => (a[0] ? "true" : "false")]],
  [1401, ["varchar(name)", (a) => a[0]]],
  [408, ["bpchar(name)", (a) => a[0]]],
  [407, ["name(text)", (a) => nameOf(s0(a))]],
  [1400, ["name(varchar)", (a) => nameOf(s0(a))]],
  // bpchar_name: cut to 63 bytes, then the trailing blanks dropped
  [409, ["name(bpchar)", (a) => stripBlanks(nameOf(s0(a)))]],
  [401, ["text(bpchar)", (a) => stripBlanks(s0(a))]],
  [669, ["varchar(varchar, int4, bool)", (a) => lengthCoerce(s0(a), a[1] as number, a[2] as boolean, false)]],
  [668, ["bpchar(bpchar, int4, bool)", (a) => lengthCoerce(s0(a), a[1] as number, a[2] as boolean, true)]],
  [1961, ["timestamp(timestamp, int4)", (a) => timestampScale(a[0] as bigint, a[1] as number)]],
  [1967, ["timestamptz(timestamptz, int4)", (a) => timestampScale(a[0] as bigint, a[1] as number)]],
  [2029, ["date(timestamp)", (a) => timestampDate(a[0] as bigint)]],
  [2024, ["timestamp(date)", (a) => dateTimestamp(a[0] as number)]],
  // text
  [1381, ["char_length(text)", (a) => chars(s0(a)).length]],
  [1318, ["length(bpchar)", (a) => chars(stripBlanks(s0(a))).length]],
  [1372, ["char_length(bpchar)", (a) => chars(stripBlanks(s0(a))).length]],
  [1374, ["octet_length(text)", (a) => UTF8.encode(s0(a)).length]],
  [1375, ["octet_length(bpchar)", (a) => UTF8.encode(s0(a)).length]],
  [877, ["substr(text, int4, int4)", (a) => substring(s0(a), a[1] as number, a[2] as number)]],
  [936, ["substring(text, int4, int4)", (a) => substring(s0(a), a[1] as number, a[2] as number)]],
  [883, ["substr(text, int4)", (a) => substring(s0(a), a[1] as number, null)]],
  [937, ["substring(text, int4)", (a) => substring(s0(a), a[1] as number, null)]],
  [885, ["btrim(text)", (a) => trim(s0(a), " ", true, true)]],
  [881, ["ltrim(text)", (a) => trim(s0(a), " ", true, false)]],
  [882, ["rtrim(text)", (a) => trim(s0(a), " ", false, true)]],
  [884, ["btrim(text, text)", (a) => trim(s0(a), a[1] as string, true, true)]],
  [875, ["ltrim(text, text)", (a) => trim(s0(a), a[1] as string, true, false)]],
  [876, ["rtrim(text, text)", (a) => trim(s0(a), a[1] as string, false, true)]],
  [3060, ["left(text, int4)", (a) => { const cs = chars(s0(a)); const n = a[1] as number; return cs.slice(0, n >= 0 ? n : Math.max(0, cs.length + n)).join(""); }]],
  [3061, ["right(text, int4)", (a) => { const cs = chars(s0(a)); const n = a[1] as number; return cs.slice(n >= 0 ? Math.max(0, cs.length - n) : Math.min(cs.length, -n)).join(""); }]],
  [2311, ["md5(text)", (a) => createHash("md5").update(UTF8.encode(s0(a))).digest("hex")]],
  // date and time
  [2020, ["date_trunc(text, timestamp)", (a) => timestampTrunc(unitOf(s0(a))!, a[1] as bigint), unitCheck(TRUNC_UNITS)]],
  [2021, ["date_part(text, timestamp)", (a) => timestampPart(unitOf(s0(a))!, a[1] as bigint), unitCheck(PART_UNITS)]],
  [6202, ["extract(text, timestamp)", (a) => extractTimestamp(unitOf(s0(a))!, a[1] as bigint), unitCheck(PART_UNITS)]],
  [6199, ["extract(text, date)", (a) => extractDate(unitOf(s0(a))!, a[1] as number), unitCheck(DATE_EXTRACT_UNITS)]],
];

function numIn(v: bigint, [min, max]: readonly [bigint, bigint], type: string): bigint {
  return v < min || v > max ? fail(`${type} out of range`) : v;
}

/** The text an immutable output function gives a value of type `typid` (CoerceViaIO to text), or null when pgdisk does not evaluate it. */
export function outputText(typid: number): ((v: ExprValue) => string) | null {
  switch (typid) {
    case 21:
    case 23:
    case 20:
    case 26:
      return (v) => String(v);
    case 16:
      return (v) => (v ? "true" : "false");
    case 1700:
      return (v) => numericString(v as Numeric);
    case 25:
    case 1043:
    case 1042:
    case 19:
    case 2950:
      return (v) => v as string;
    default:
      return null;
  }
}
