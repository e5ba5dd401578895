// Date/time output with DateStyle ISO, IntervalStyle postgres, TimeZone UTC:
// date_out, time_out, timetz_out, timestamp_out, timestamptz_out, interval_out
// (src/backend/utils/adt/date.c, timestamp.c, datetime.c). Dates count days and timestamps
// count microseconds from 2000-01-01; the extreme int32/int64 values mean -infinity/infinity.
import { defineStruct, i32, i64, register } from "../schema/index.js";
import { decodersOf, type DecoderTable, type OutputCharsTable, type WriterTable } from "./decoder.js";
import { expectWidth, putDigits2, putInt, putText, putZeroPadded, type TextOut, type ValueWriter } from "./text-out.js";
import { pad } from "./util.js";

export const TimeTzADT = register(
  defineStruct("TimeTzADT", "src/include/utils/date.h", [
    i64("time", "microseconds since midnight"),
    i32("zone", "UTC offset in seconds, positive WEST of Greenwich (the opposite of the printed sign)"),
  ] as const),
);

export const Interval = register(
  defineStruct("Interval", "src/include/datatype/timestamp.h", [
    i64("time", "microseconds (hours, minutes, seconds)"),
    i32("day", "days"),
    i32("month", "months (years are 12 months)"),
  ] as const),
);

const USECS_PER_DAY = 86_400_000_000n;
const USECS_PER_HOUR = 3_600_000_000n;
const USECS_PER_MINUTE = 60_000_000n;
const USECS_PER_SEC = 1_000_000n;
const US_PER_DAY = 86_400_000_000;
const US_PER_HOUR = 3_600_000_000;
const US_PER_MINUTE = 60_000_000;
/** days from 1970-01-01 to 2000-01-01 */
const UNIX_TO_PG_DAYS = 10957;
const DATEVAL_NOBEGIN = -0x80000000;
const DATEVAL_NOEND = 0x7fffffff;

const u32 = (d: Uint8Array, at: number): number => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;

/** Proleptic Gregorian calendar date of a day count (days since 1970-01-01), year 0 = 1 BC, into ymd. */
export function civil(days: number, ymd: Int32Array): void {
  const z = days + 719468; // shift the epoch to 0000-03-01
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  ymd[0] = yoe + era * 400 + (month <= 2 ? 1 : 0);
  ymd[1] = month;
  ymd[2] = doy - Math.floor((153 * mp + 2) / 5) + 1;
}

/** The inverse of civil: days since 1970-01-01 of year (0 = 1 BC), month 1..12, day 1..31. */
export function civilDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const YMD = new Int32Array(3);

// The text of the last day putDate wrote: the timestamps of a table's rows mostly share their
// day with the row before, so the calendar arithmetic runs once per day, not per value.
let lastDay = NaN;
const lastDate = new Uint8Array(24);
let lastDateLen = 0;
let lastBC = false;

/** "YYYY-MM-DD" of a PostgreSQL day count (the year of a BC date as its positive number); returns whether it is BC. */
function putDate(out: TextOut, pgDays: number): boolean {
  if (pgDays !== lastDay) {
    civil(pgDays + UNIX_TO_PG_DAYS, YMD);
    const y = YMD[0]!;
    lastBC = y <= 0;
    let p = putZeroPadded(lastDate, 0, lastBC ? 1 - y : y, 4);
    lastDate[p++] = 45;
    p = putDigits2(lastDate, p, YMD[1]!);
    lastDate[p++] = 45;
    lastDateLen = putDigits2(lastDate, p, YMD[2]!);
    lastDay = pgDays;
  }
  out.reserve(24);
  const b = out.buf;
  const p = out.pos;
  const n = lastDateLen;
  for (let i = 0; i < n; i++) b[p + i] = lastDate[i]!;
  out.pos = p + n;
  return lastBC;
}

/** A clock field: two digits at least (a negative one, only in damaged data, with its sign). */
function putField2(b: Uint8Array, p: number, n: number): number {
  if (n < 0) {
    b[p++] = 45;
    n = -n;
  }
  return putZeroPadded(b, p, n, 2);
}

/** A clock field: two digits at least (putField2), from the digit-pair table when it has two. */
const putClockField = (b: Uint8Array, p: number, n: number): number => (n >= 0 && n < 100 ? putDigits2(b, p, n) : putField2(b, p, n));

/** HH:MM:SS[.ffffff]: the fraction without trailing zeros (AppendSeconds). */
function putClockFields(out: TextOut, h: number, m: number, s: number, frac: number): void {
  out.reserve(32);
  const b = out.buf;
  let p = putClockField(b, out.pos, h);
  b[p++] = 58;
  p = putClockField(b, p, m);
  b[p++] = 58;
  p = putClockField(b, p, s);
  if (frac !== 0) {
    b[p++] = 46;
    frac = Math.abs(frac);
    if (frac < 1_000_000) {
      // six digits from the pair table, then the trailing zeros dropped (frac has a non-zero one)
      const a = Math.floor(frac / 10000);
      const r = frac - a * 10000;
      const c = Math.floor(r / 100);
      p = putDigits2(b, putDigits2(b, putDigits2(b, p, a), c), r - c * 100);
      while (b[p - 1] === 48) p--;
      out.pos = p;
      return;
    }
    let digits = 6;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    p = putZeroPadded(b, p, frac, digits);
  }
  out.pos = p;
}

/** The clock of a non-negative microsecond count within a day (24:00:00 allowed). */
function putClock(out: TextOut, us: number): void {
  // seconds of the day and the fraction; then int32 arithmetic (a day has 86,400 seconds)
  const secs = Math.floor(us / 1_000_000);
  const frac = us - secs * 1_000_000;
  const h = (secs / 3600) | 0;
  const inHour = secs - h * 3600;
  const m = (inHour / 60) | 0;
  putClockFields(out, h, m, inHour - m * 60, frac);
}

/** The clock of any int64 microsecond count (a time of day outside 0..24:00 is damage), exactly. */
function putClockAny(out: TextOut, hi: number, lo: number): void {
  if (hi >= 0 && hi < 0x200000) return putClock(out, hi * 4294967296 + lo);
  const us = (BigInt(hi) << 32n) | BigInt(lo);
  const h = us / USECS_PER_HOUR; // truncates toward zero, like C
  putClockFields(out, Number(h), Number((us % USECS_PER_HOUR) / USECS_PER_MINUTE), Number((us % USECS_PER_MINUTE) / USECS_PER_SEC), Number(us % USECS_PER_SEC));
}

/** EncodeTimezone: offset in seconds EAST of UTC as +HH, +HH:MM or +HH:MM:SS. */
function tzText(eastSecs: number): string {
  const a = Math.abs(eastSecs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  let t = (eastSecs >= 0 ? "+" : "-") + pad(h, 2);
  if (s !== 0) t += `:${pad(m, 2)}:${pad(s, 2)}`;
  else if (m !== 0) t += `:${pad(m, 2)}`;
  return t;
}

const dateWrite: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, 4, "date");
  const days = u32(d, s) | 0;
  if (days === DATEVAL_NOBEGIN) return putText(out, "-infinity");
  if (days === DATEVAL_NOEND) return putText(out, "infinity");
  if (putDate(out, days)) putText(out, " BC");
};

/** timestamp_out (tz false) / timestamptz_out in UTC (tz true). */
const timestampWrite =
  (tz: boolean): ValueWriter =>
  (d, s, e, out) => {
    expectWidth(s, e, 8, tz ? "timestamptz" : "timestamp");
    const lo = u32(d, s);
    const hi = u32(d, s + 4) | 0;
    if (hi === -0x80000000 && lo === 0) return putText(out, "-infinity");
    if (hi === 0x7fffffff && lo === 0xffffffff) return putText(out, "infinity");
    let days: number, rest: number;
    if (hi >= -0x200000 && hi < 0x200000) {
      // exact as a double below 2^53 microseconds (about 285 years either side of 2000)
      const us = hi * 4294967296 + lo;
      days = Math.floor(us / US_PER_DAY);
      rest = us - days * US_PER_DAY;
    } else {
      const us = (BigInt(hi) << 32n) | BigInt(lo);
      let bd = us / USECS_PER_DAY;
      let br = us % USECS_PER_DAY;
      if (br < 0n) {
        br += USECS_PER_DAY;
        bd -= 1n;
      }
      days = Number(bd);
      rest = Number(br);
    }
    const bc = putDate(out, days);
    out.reserve(1);
    out.buf[out.pos++] = 32;
    putClock(out, rest);
    if (tz) {
      out.reserve(3);
      const b = out.buf;
      b[out.pos] = 43; // +00
      b[out.pos + 1] = 48;
      b[out.pos + 2] = 48;
      out.pos += 3;
    }
    if (bc) putText(out, " BC");
  };

const timeWrite: ValueWriter = (d, s, e, out) => (expectWidth(s, e, 8, "time"), putClockAny(out, u32(d, s + 4) | 0, u32(d, s)));
const timetzWrite: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, TimeTzADT.size, "timetz");
  const t = s + TimeTzADT.offsets.time;
  putClockAny(out, u32(d, t + 4) | 0, u32(d, t));
  putText(out, tzText(-(u32(d, s + TimeTzADT.offsets.zone) | 0)));
};

/**
 * One "N unit" field of interval_out (IntervalStyle postgres), after a space unless it is the
 * first; a positive value right after a negative one takes a "+". Returns whether it is negative.
 */
function putIntervalField(out: TextOut, v: number, one: string, many: string, first: boolean, afterNegative: boolean): boolean {
  out.reserve(14);
  const b = out.buf;
  let p = out.pos;
  if (!first) b[p++] = 32;
  if (afterNegative && v > 0) b[p++] = 43;
  p = putInt(b, p, v);
  b[p++] = 32;
  out.pos = p;
  putText(out, v === 1 ? one : many);
  return v < 0;
}

/** interval_out, IntervalStyle postgres: "1 year 2 mons -3 days +04:05:06.7". */
const intervalWrite: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, Interval.size, "interval");
  const month = u32(d, s + Interval.offsets.month) | 0;
  const day = u32(d, s + Interval.offsets.day) | 0;
  const t = s + Interval.offsets.time;
  const lo = u32(d, t);
  const hi = u32(d, t + 4) | 0;
  const years = Math.trunc(month / 12);
  let first = true;
  let negative = false;
  if (years !== 0) [negative, first] = [putIntervalField(out, years, "year", "years", first, negative), false];
  if (month % 12 !== 0) [negative, first] = [putIntervalField(out, month % 12, "mon", "mons", first, negative), false];
  if (day !== 0) [negative, first] = [putIntervalField(out, day, "day", "days", first, negative), false];
  if (!first && hi === 0 && lo === 0) return;
  // the fields truncate toward zero, like C's division
  let hour: number, min: number, sec: number, usec: number;
  if (hi >= -0x200000 && hi < 0x200000) {
    // exact as a double below 2^53 microseconds; each quotient is of an exact multiple
    const us = hi * 4294967296 + lo;
    const subHour = us % US_PER_HOUR;
    const subMin = us % US_PER_MINUTE;
    usec = us % 1_000_000;
    hour = (us - subHour) / US_PER_HOUR;
    min = (subHour - subMin) / US_PER_MINUTE;
    sec = (subMin - usec) / 1_000_000;
  } else {
    const us = (BigInt(hi) << 32n) | BigInt(lo);
    hour = Number(us / USECS_PER_HOUR);
    min = Number((us % USECS_PER_HOUR) / USECS_PER_MINUTE);
    sec = Number((us % USECS_PER_MINUTE) / USECS_PER_SEC);
    usec = Number(us % USECS_PER_SEC);
  }
  const minus = hour < 0 || min < 0 || sec < 0 || usec < 0;
  out.reserve(2);
  if (!first) out.buf[out.pos++] = 32;
  if (minus) out.buf[out.pos++] = 45;
  else if (negative) out.buf[out.pos++] = 43;
  putClockFields(out, Math.abs(hour), Math.abs(min), Math.abs(sec), usec);
};

export const DATETIME_WRITERS: WriterTable = {
  1082: dateWrite,
  1083: timeWrite,
  1266: timetzWrite,
  1114: timestampWrite(false),
  1184: timestampWrite(true),
  1186: intervalWrite,
};

export const DATETIME_DECODERS: DecoderTable = decodersOf(DATETIME_WRITERS);

// ISO dates and clocks, " BC", the time zone offset (+00, +HH:MM:SS), infinity and -infinity
export const DATETIME_OUTPUT_CHARS: OutputCharsTable = {
  1082: "0123456789- BCinfty",
  1083: "0123456789:.-",
  1266: "0123456789:.-+",
  1114: "0123456789-:. BCinfty",
  1184: "0123456789-:. +BCinfty",
};
