// interval_in under IntervalStyle postgres (src/backend/utils/adt/datetime.c DecodeInterval and
// DecodeISO8601Interval, timestamp.c interval_in): the verbose form ('1 year 2 mons -3 days
// +04:05:06', '@ 1 hour ago', '1.5 days', '1-2' years-months, bare numbers as seconds or as
// the field the typmod's range names) and, when that is not well formed, ISO 8601 ('P1Y2M3DT4H',
// 'P0001-02-03T04:05:06'). Fractions spill down as the server spills them: a fraction of a
// year becomes whole months (rounded), of a month 30 days, of a week 7 days, of a day
// microseconds; the doubles and truncations are the server's, so the rounding is too.
import { FormatError } from "../schema/errors.js";
import { Interval } from "./datetime.js";
import type { InputFunction } from "./input.js";
import { isDigit, isSpace, roundHalfEven } from "./util.js";

const USECS_PER_SEC = 1_000_000n;
const USECS_PER_MINUTE = 60_000_000n;
const USECS_PER_HOUR = 3_600_000_000n;
const DAYS_PER_MONTH = 30;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

/** The two ways the server's parser fails: not an interval (try ISO 8601), or a field out of range. */
class BadFormat extends Error {}
class FieldOverflow extends Error {}

/** pg_itm_in: what the fields add up to before they become an Interval. */
interface Sum {
  usec: bigint;
  mday: number;
  mon: number;
  year: number;
}

const i64 = (v: bigint): bigint => {
  if (v > INT64_MAX || v < INT64_MIN) throw new FieldOverflow();
  return v;
};
const i32 = (v: number): number => {
  if (v > INT32_MAX || v < INT32_MIN || !Number.isFinite(v)) throw new FieldOverflow();
  return v;
};

/** frac * scale microseconds, the fractional microsecond rounded off (AdjustFractMicroseconds). */
function addFractUsec(s: Sum, frac: number, scale: number): void {
  if (frac === 0) return;
  let f = frac * scale;
  let usec = Math.trunc(f);
  f -= usec;
  if (f > 0.5) usec++;
  else if (f < -0.5) usec--;
  s.usec = i64(s.usec + BigInt(usec));
}
/** frac * scale days: whole days, the rest as microseconds (AdjustFractDays). */
function addFractDays(s: Sum, frac: number, scale: number): void {
  if (frac === 0) return;
  const f = frac * scale;
  const days = Math.trunc(f);
  s.mday = i32(s.mday + days);
  addFractUsec(s, f - days, 86_400_000_000);
}
/** frac * scale years as whole months, rounded half to even (rint) (AdjustFractYears). */
function addFractYears(s: Sum, frac: number, scale: number): void {
  s.mon = i32(s.mon + roundHalfEven(frac * scale * 12));
}
const addUsec = (s: Sum, val: bigint, fval: number, scale: bigint): void => {
  s.usec = i64(s.usec + i64(val * scale));
  addFractUsec(s, fval, Number(scale));
};
const int32Of = (v: bigint): number => {
  if (v > BigInt(INT32_MAX) || v < BigInt(INT32_MIN)) throw new FieldOverflow();
  return Number(v);
};
const addDays = (s: Sum, val: bigint, scale: number): void => void (s.mday = i32(s.mday + i32(int32Of(val) * scale)));
const addMonths = (s: Sum, val: bigint): void => void (s.mon = i32(s.mon + int32Of(val)));
const addYears = (s: Sum, val: bigint, scale: number): void => void (s.year = i32(s.year + i32(int32Of(val) * scale)));

// a number of a unit with its fraction, spilled down as the server spills it
const yearUnits = (s: Sum, val: bigint, fval: number, scale: number): void => (addYears(s, val, scale), addFractYears(s, fval, scale));
const monthUnits = (s: Sum, val: bigint, fval: number): void => (addMonths(s, val), addFractDays(s, fval, DAYS_PER_MONTH));
const weekUnits = (s: Sum, val: bigint, fval: number): void => (addDays(s, val, 7), addFractDays(s, fval, 7));
const dayUnits = (s: Sum, val: bigint, fval: number): void => (addDays(s, val, 1), addFractUsec(s, fval, 86_400_000_000));
/** microsecond-based units: scale in microseconds */
const USEC_UNITS: Partial<Record<string, bigint>> = { microsecond: 1n, millisecond: 1000n, second: USECS_PER_SEC, minute: USECS_PER_MINUTE, hour: USECS_PER_HOUR };
const YEAR_UNITS: Partial<Record<string, number>> = { year: 1, decade: 10, century: 100, millennium: 1000 };

// field kinds of ParseDateTime
type FieldKind = "number" | "date" | "time" | "string" | "special" | "tz";
interface Field {
  kind: FieldKind;
  text: string;
}

const isAlpha = (c: string | undefined): boolean => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isAlnum = (c: string | undefined): boolean => isDigit(c) || isAlpha(c);
const isPunct = (c: string | undefined): boolean => c !== undefined && c.charCodeAt(0) < 128 && /[!-\/:-@[-`{-~]/.test(c);
/** the words the datetime parser knows that are not time zone names, as far as an interval meets them */
const DATE_KEYWORDS = new Set(["ago", "d", "h", "m", "s", "y", "at", "on", "am", "pm", "t", "z", "zulu", "epoch", "infinity", "-infinity", "now", "today", "tomorrow", "yesterday", "allballs", "bc", "ad"]);

/** Split the text into fields as ParseDateTime does (letters lower-cased). */
function tokenize(str: string): Field[] {
  const out: Field[] = [];
  let i = 0;
  const n = str.length;
  while (i < n) {
    const c = str[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    let t = "";
    let kind: FieldKind;
    if (isDigit(c)) {
      while (isDigit(str[i])) t += str[i++];
      if (str[i] === ":") {
        kind = "time";
        t += str[i++];
        while (isDigit(str[i]) || str[i] === ":" || str[i] === ".") t += str[i++];
      } else if (str[i] === "-" || str[i] === "/" || str[i] === ".") {
        const delim = str[i];
        t += str[i++];
        if (isDigit(str[i])) {
          kind = delim === "." ? "number" : "date";
          while (isDigit(str[i])) t += str[i++];
          if (str[i] === delim) {
            kind = "date";
            t += str[i++];
            while (isDigit(str[i]) || str[i] === delim) t += str[i++];
          }
        } else {
          kind = "date";
          while (isAlnum(str[i]) || str[i] === delim) t += str[i++].toLowerCase();
        }
      } else kind = "number";
    } else if (c === ".") {
      t += str[i++];
      while (isDigit(str[i])) t += str[i++];
      kind = "number";
    } else if (isAlpha(c)) {
      kind = "string";
      while (isAlpha(str[i])) t += str[i++].toLowerCase();
      let isDate = str[i] === "-" || str[i] === "/" || str[i] === ".";
      if (!isDate && (str[i] === "+" || isDigit(str[i]))) isDate = !DATE_KEYWORDS.has(t);
      if (isDate) {
        kind = "date";
        do t += str[i++].toLowerCase();
        while (str[i] !== undefined && (/[+\-/_.:]/.test(str[i]) || isAlnum(str[i])));
      }
    } else if (c === "+" || c === "-") {
      t += str[i++];
      while (isSpace(str[i])) i++;
      if (isDigit(str[i])) {
        kind = "tz";
        t += str[i++];
        while (isDigit(str[i]) || str[i] === ":" || str[i] === "." || str[i] === "-") t += str[i++];
      } else if (isAlpha(str[i])) {
        kind = "special";
        while (isAlpha(str[i])) t += str[i++].toLowerCase();
      } else throw new BadFormat();
    } else if (isPunct(c)) {
      i++;
      continue;
    } else throw new BadFormat();
    out.push({ kind, text: t });
  }
  // the server's 256-byte work buffer and 25 fields
  if (out.length > 25 || out.reduce((a, f) => a + f.text.length + 1, 0) > 255) throw new BadFormat();
  return out;
}

// units (deltatktbl), matched on their first 10 characters as the server matches them
type Unit = "microsecond" | "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "quarter" | "year" | "decade" | "century" | "millennium" | "tz";
const UNITS: Record<string, Unit | "ago" | "ignore"> = {
  "@": "ignore", ago: "ago", c: "century", cent: "century", centuries: "century", century: "century", d: "day", day: "day", days: "day",
  dec: "decade", decade: "decade", decades: "decade", decs: "decade", h: "hour", hour: "hour", hours: "hour", hr: "hour", hrs: "hour",
  m: "minute", microsecon: "microsecond", mil: "millennium", millennia: "millennium", millennium: "millennium", millisecon: "millisecond",
  mils: "millennium", min: "minute", mins: "minute", minute: "minute", minutes: "minute", mon: "month", mons: "month", month: "month",
  months: "month", ms: "millisecond", msec: "millisecond", millisecond: "millisecond", mseconds: "millisecond", msecs: "millisecond",
  qtr: "quarter", quarter: "quarter", s: "second", sec: "second", second: "second", seconds: "second", secs: "second", timezone: "tz",
  timezone_h: "tz", timezone_m: "tz", us: "microsecond", usec: "microsecond", microsecond: "microsecond", useconds: "microsecond",
  usecs: "microsecond", w: "week", week: "week", weeks: "week", y: "year", year: "year", years: "year", yr: "year", yrs: "year",
};
const unitOf = (word: string): Unit | "ago" | "ignore" | undefined => UNITS[word.slice(0, 10)];

// which fields a value has set, so that a field given twice is refused (DTK_M masks)
const BIT: Record<Unit, number> = { microsecond: 1, millisecond: 2, second: 4, minute: 8, hour: 16, day: 32, week: 64, month: 128, quarter: 0, year: 256, decade: 512, century: 1024, millennium: 2048, tz: 0 };
const ALL_SECS = BIT.second | BIT.millisecond | BIT.microsecond;
const TIME_BITS = BIT.hour | BIT.minute | ALL_SECS;

// interval typmod: range bits (INTERVAL_MASK of datetime.h's field numbers) and precision
const MASK = { month: 1 << 1, year: 1 << 2, day: 1 << 3, hour: 1 << 10, minute: 1 << 11, second: 1 << 12 };
const FULL_RANGE = 0x7fff;
const FULL_PRECISION = 0xffff;

/** The unit a bare number at the right end stands for, from the typmod's range. */
function rightmostUnit(range: number): Unit {
  const { month, year, day, hour, minute } = MASK;
  if (range === year) return "year";
  if (range === month || range === (year | month)) return "month";
  if (range === day) return "day";
  if (range === hour || range === (day | hour)) return "hour";
  if (range === minute || range === (hour | minute) || range === (day | hour | minute)) return "minute";
  return "second";
}

/** strtoi64's leading integer of s: value and where it stopped. */
function leadingInteger(s: string): { val: bigint; rest: string } {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(s);
  if (!m) return { val: 0n, rest: s };
  const val = BigInt(m[1]);
  if (val > INT64_MAX || val < INT64_MIN) throw new FieldOverflow();
  return { val, rest: s.slice(m[0].length) };
}

/** ParseFraction: "." and optional digits, nothing after. */
function fraction(s: string): number {
  if (s === ".") return 0;
  if (!/^\.\d+$/.test(s)) throw new BadFormat();
  return Number(`0${s}`);
}

/** DecodeTimeCommon for intervals: [-]hh:mm[:ss[.f]] or mm:ss.f (with MINUTE TO SECOND, mm:ss), as microseconds. */
function timeUsecs(s: string, range: number): bigint {
  // strtoint of no digits is 0: "1:" is an hour, "1:2:" 1:02:00
  const m = /^(\d+):(\d*)(?:(:(\d*))?(\.\d*)?)?$/.exec(s);
  if (!m) throw new BadFormat();
  let hour = BigInt(m[1]);
  let min = Number(m[2]);
  let sec = m[4] !== undefined ? Number(m[4]) : 0;
  if (m[3] === undefined && m[5] !== undefined) [hour, min, sec] = [0n, Number(m[1]), Number(m[2])];
  else if (m[3] === undefined && range === (MASK.minute | MASK.second)) [hour, min, sec] = [0n, Number(m[1]), Number(m[2])];
  if (hour > INT64_MAX) throw new FieldOverflow();
  const fsec = m[5] !== undefined ? roundHalfEven(fraction(m[5]) * 1e6) : 0;
  if (min > 59 || sec > 60 || fsec > 1_000_000) throw new FieldOverflow();
  return i64(i64(hour * USECS_PER_HOUR) + BigInt(min) * USECS_PER_MINUTE + BigInt(sec) * USECS_PER_SEC + BigInt(fsec));
}

/** DecodeInterval: the fields read right to left, so that a unit names the number before it. */
function decodeVerbose(str: string, range: number): Sum {
  const fields = tokenize(str);
  const s: Sum = { usec: 0n, mday: 0, mon: 0, year: 0 };
  // the unit of the next number to the left; "none" after "ago", where a number is refused
  let type: Unit | "none" | undefined;
  let fmask = 0;
  let before = false;
  for (let i = fields.length - 1; i >= 0; i--) {
    const f = fields[i];
    let tmask = 0;
    let numeric = f.kind === "number" || f.kind === "date";
    if (f.kind === "time") {
      s.usec = timeUsecs(f.text, range);
      tmask = TIME_BITS;
      type = "day";
    } else if (f.kind === "tz") {
      let asTime: bigint | undefined;
      if (f.text.slice(1).includes(":")) {
        try {
          asTime = timeUsecs(f.text.slice(1), range);
        } catch {
          asTime = undefined;
        }
      }
      if (asTime !== undefined) {
        s.usec = f.text[0] === "-" ? -asTime : asTime;
        tmask = TIME_BITS;
        type = "day";
      } else numeric = true;
    } else if (f.kind === "string" || f.kind === "special") {
      const u = unitOf(f.text);
      if (u === undefined) throw new BadFormat();
      if (u === "ignore") continue;
      if (u === "ago") {
        before = true;
        type = "none";
      } else type = u;
    }
    if (numeric) {
      type ??= rightmostUnit(range);
      let { val, rest } = leadingInteger(f.text);
      let fval = 0;
      if (rest[0] === "-") {
        // SQL years-months: 1-2
        const m = /^-(\d+)/.exec(rest);
        const months = m ? Number(m[1]) : 0;
        if (!m || months >= 12) throw new FieldOverflow();
        if (rest.slice(m[0].length) !== "") throw new BadFormat();
        type = "month";
        val = i64(i64(val * 12n) + BigInt(f.text[0] === "-" ? -months : months));
      } else if (rest[0] === ".") {
        fval = fraction(rest);
        if (f.text[0] === "-") fval = -fval;
      } else if (rest !== "") throw new BadFormat();
      const usecScale = USEC_UNITS[type];
      const years = YEAR_UNITS[type];
      if (usecScale !== undefined) addUsec(s, val, fval, usecScale);
      else if (years !== undefined) yearUnits(s, val, fval, years);
      else if (type === "day") dayUnits(s, val, fval);
      else if (type === "week") weekUnits(s, val, fval);
      else if (type === "month") monthUnits(s, val, fval);
      else throw new BadFormat();
      tmask = type === "second" && fval !== 0 ? ALL_SECS : BIT[type as Unit];
      if (type === "hour") type = "day";
    }
    if (tmask & fmask) throw new BadFormat();
    fmask |= tmask;
  }
  if (fmask === 0) throw new BadFormat();
  if (before) {
    if (s.usec === INT64_MIN || s.mday === INT32_MIN || s.mon === INT32_MIN || s.year === INT32_MIN) throw new FieldOverflow();
    s.usec = -s.usec;
    s.mday = -s.mday;
    s.mon = -s.mon;
    s.year = -s.year;
  }
  return s;
}

/** ParseISO8601Number: strtod's number, |v| <= 1e15, split into integer and fraction. */
function isoNumber(str: string, at: number): { val: bigint; fval: number; end: number } {
  const c = str[at];
  if (!(isDigit(c) || c === "-" || c === ".")) throw new BadFormat();
  const rest = str.slice(at);
  const special = /^-(?:inf(?:inity)?|nan)/i.exec(rest);
  if (special) throw new FieldOverflow();
  const m = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
  if (!m) throw new BadFormat();
  const v = Number(m[0]);
  if (Number.isNaN(v) || v < -1e15 || v > 1e15) throw new FieldOverflow();
  const ip = v >= 0 ? Math.floor(v) : -Math.floor(-v);
  return { val: BigInt(ip), fval: v - ip, end: at + m[0].length };
}

/** DecodeISO8601Interval: designators (P1Y2M3W4DT5H6M7S) or the alternative forms (P0001-02-03T04:05:06, P00010203T040506). */
function decodeIso(str: string): Sum {
  const s: Sum = { usec: 0n, mday: 0, mon: 0, year: 0 };
  if (str.length < 2 || str[0] !== "P") throw new BadFormat();
  let p = 1;
  let datePart = true;
  let haveField = false;
  const width = (at: number): number => /^-?(\d*)/.exec(str.slice(at))![1].length;
  const timeOrEnd = (): "end" | "time" => {
    if (p >= str.length) return "end";
    if (str[p] === "T") {
      p++;
      datePart = false;
      haveField = false;
      return "time";
    }
    throw new BadFormat();
  };
  while (p < str.length) {
    if (str[p] === "T") {
      datePart = false;
      haveField = false;
      p++;
      continue;
    }
    const start = p;
    let { val, fval, end } = isoNumber(str, p);
    p = end;
    const unit = str[p] ?? "";
    p++;
    if (datePart) {
      if (unit === "Y") yearUnits(s, val, fval, 1);
      else if (unit === "M") monthUnits(s, val, fval);
      else if (unit === "W") weekUnits(s, val, fval);
      else if (unit === "D") dayUnits(s, val, fval);
      else if ((unit === "T" || unit === "") && width(start) === 8 && !haveField) {
        addYears(s, val / 10000n, 1);
        addMonths(s, (val / 100n) % 100n);
        addDays(s, val % 100n, 1);
        addFractUsec(s, fval, 86_400_000_000);
        if (unit === "") return s;
        datePart = false;
        haveField = false;
        continue;
      } else if (unit === "T" || unit === "" || unit === "-") {
        if (haveField) throw new BadFormat();
        yearUnits(s, val, fval, 1);
        if (unit === "") return s;
        if (unit === "T") {
          datePart = false;
          haveField = false;
          continue;
        }
        ({ val, fval, end } = isoNumber(str, p));
        p = end;
        monthUnits(s, val, fval);
        if (p < str.length && str[p] === "-") {
          p++;
          ({ val, fval, end } = isoNumber(str, p));
          p = end;
          dayUnits(s, val, fval);
        }
        if (timeOrEnd() === "end") return s;
        continue;
      } else throw new BadFormat();
    } else {
      if (unit === "H") addUsec(s, val, fval, USECS_PER_HOUR);
      else if (unit === "M") addUsec(s, val, fval, USECS_PER_MINUTE);
      else if (unit === "S") addUsec(s, val, fval, USECS_PER_SEC);
      else if (unit === "" && width(start) === 6 && !haveField) {
        addUsec(s, val / 10000n, 0, USECS_PER_HOUR);
        addUsec(s, (val / 100n) % 100n, 0, USECS_PER_MINUTE);
        addUsec(s, val % 100n, 0, USECS_PER_SEC);
        addFractUsec(s, fval, 1);
        return s;
      } else if (unit === "" || unit === ":") {
        if (haveField) throw new BadFormat();
        addUsec(s, val, fval, USECS_PER_HOUR);
        if (unit === "") return s;
        ({ val, fval, end } = isoNumber(str, p));
        p = end;
        addUsec(s, val, fval, USECS_PER_MINUTE);
        if (p >= str.length) return s;
        if (str[p] !== ":") throw new BadFormat();
        p++;
        ({ val, fval, end } = isoNumber(str, p));
        p = end;
        addUsec(s, val, fval, USECS_PER_SEC);
        if (p >= str.length) return s;
        throw new BadFormat();
      } else throw new BadFormat();
    }
    haveField = true;
  }
  return s;
}

const SCALES = [1000000n, 100000n, 10000n, 1000n, 100n, 10n, 1n];

/** AdjustIntervalForTypmod: zero the fields right of the range's last one, round the seconds. */
function adjustForTypmod(v: { time: bigint; day: number; month: number }, typmod: number): void {
  if (typmod < 0) return;
  const range = (typmod >> 16) & 0x7fff;
  const precision = typmod & 0xffff;
  const { month, year, day, hour, minute } = MASK;
  if (range === year) {
    v.month = Math.trunc(v.month / 12) * 12;
    v.day = 0;
    v.time = 0n;
  } else if (range === month || range === (year | month)) {
    v.day = 0;
    v.time = 0n;
  } else if (range === day) v.time = 0n;
  else if (range === hour || range === (day | hour)) v.time = (v.time / USECS_PER_HOUR) * USECS_PER_HOUR;
  else if (range === minute || range === (day | hour | minute) || range === (hour | minute)) v.time = (v.time / USECS_PER_MINUTE) * USECS_PER_MINUTE;
  if (range !== FULL_RANGE || precision !== FULL_PRECISION) {
    if (precision !== FULL_PRECISION && precision <= 6) {
      const scale = SCALES[precision];
      const offset = scale / 2n;
      v.time = v.time >= 0n ? ((v.time + offset) / scale) * scale : -(((-v.time + offset) / scale) * scale);
    }
  }
}

export const intervalIn: InputFunction = (text, ctx) => {
  const range = ctx.typmod >= 0 ? (ctx.typmod >> 16) & 0x7fff : FULL_RANGE;
  let sum: Sum;
  try {
    try {
      sum = decodeVerbose(text, range);
    } catch (e) {
      if (!(e instanceof BadFormat)) throw e;
      sum = decodeIso(text);
    }
  } catch (e) {
    if (e instanceof BadFormat) throw new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type interval: "${text}"`);
    if (e instanceof FieldOverflow) throw new FormatError("DATUM_BAD_INPUT", `interval field value out of range: "${text}"`);
    throw e;
  }
  const months = sum.year * 12 + sum.mon;
  if (months > INT32_MAX || months < INT32_MIN) throw new FormatError("DATUM_BAD_INPUT", "interval out of range");
  const v = { time: sum.usec, day: sum.mday, month: months };
  adjustForTypmod(v, ctx.typmod);
  const out = new Uint8Array(Interval.size);
  const dv = new DataView(out.buffer);
  dv.setBigInt64(Interval.offsets.time, v.time, true);
  dv.setInt32(Interval.offsets.day, v.day, true);
  dv.setInt32(Interval.offsets.month, v.month, true);
  return out;
};
