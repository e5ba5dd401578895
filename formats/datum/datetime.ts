// Date/time output with DateStyle ISO, IntervalStyle postgres, TimeZone UTC:
// date_out, time_out, timetz_out, timestamp_out, timestamptz_out, interval_out
// (src/backend/utils/adt/date.c, timestamp.c, datetime.c). Dates count days and timestamps
// count microseconds from 2000-01-01; the extreme int32/int64 values mean -infinity/infinity.
import { defineStruct, i32, i64, register } from "../schema/index.js";
import type { DecoderTable } from "./decoder.js";
import { expectLength, pad, view } from "./util.js";

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
/** days from 1970-01-01 to 2000-01-01 */
const UNIX_TO_PG_DAYS = 10957;
const DATEVAL_NOBEGIN = -0x80000000;
const DATEVAL_NOEND = 0x7fffffff;
const DT_NOBEGIN = -(2n ** 63n);
const DT_NOEND = 2n ** 63n - 1n;

/** Proleptic Gregorian calendar date of a day count (days since 1970-01-01), year 0 = 1 BC. */
function civil(days: number): [year: number, month: number, day: number] {
  const z = days + 719468; // shift the epoch to 0000-03-01
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** "YYYY-MM-DD" and whether the year is BC (printed as a " BC" suffix after everything else). */
function dateParts(pgDays: number): [string, boolean] {
  const [y, m, d] = civil(pgDays + UNIX_TO_PG_DAYS);
  const bc = y <= 0;
  return [`${pad(bc ? 1 - y : y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, bc];
}

/** Seconds, zero-padded to two digits, plus a fraction without trailing zeros (AppendSeconds). */
function seconds(sec: number, usec: number): string {
  const s = pad(Math.abs(sec), 2);
  if (usec === 0) return s;
  return s + "." + pad(Math.abs(usec), 6).replace(/0+$/, "");
}

/** HH:MM:SS[.ffffff] of a non-negative microsecond count within a day (24:00:00 allowed). */
function clock(us: bigint): string {
  const h = us / USECS_PER_HOUR;
  const m = (us % USECS_PER_HOUR) / USECS_PER_MINUTE;
  const s = (us % USECS_PER_MINUTE) / USECS_PER_SEC;
  return `${pad(h, 2)}:${pad(m, 2)}:${seconds(Number(s), Number(us % USECS_PER_SEC))}`;
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

export function dateText(days: number): string {
  if (days === DATEVAL_NOBEGIN) return "-infinity";
  if (days === DATEVAL_NOEND) return "infinity";
  const [ymd, bc] = dateParts(days);
  return bc ? ymd + " BC" : ymd;
}

/** timestamp_out (tz false) / timestamptz_out in UTC (tz true). */
export function timestampText(us: bigint, tz: boolean): string {
  if (us === DT_NOBEGIN) return "-infinity";
  if (us === DT_NOEND) return "infinity";
  let days = us / USECS_PER_DAY;
  let rest = us % USECS_PER_DAY;
  if (rest < 0n) {
    rest += USECS_PER_DAY;
    days -= 1n;
  }
  const [ymd, bc] = dateParts(Number(days));
  return `${ymd} ${clock(rest)}${tz ? "+00" : ""}${bc ? " BC" : ""}`;
}

/** interval_out, IntervalStyle postgres: "1 year 2 mons -3 days +04:05:06.7". */
export function intervalText(time: bigint, day: number, month: number): string {
  const parts: string[] = [];
  let isBefore = false;
  const add = (v: number, unit: string): void => {
    if (v === 0) return;
    parts.push(`${isBefore && v > 0 ? "+" : ""}${v} ${unit}${v !== 1 ? "s" : ""}`);
    isBefore = v < 0;
  };
  add(Math.trunc(month / 12), "year");
  add(month % 12, "mon");
  add(day, "day");
  const hour = time / USECS_PER_HOUR; // BigInt division truncates toward zero, like C
  const min = Number((time % USECS_PER_HOUR) / USECS_PER_MINUTE);
  const sec = Number((time % USECS_PER_MINUTE) / USECS_PER_SEC);
  const usec = Number(time % USECS_PER_SEC);
  if (parts.length === 0 || time !== 0n) {
    const minus = hour < 0n || min < 0 || sec < 0 || usec < 0;
    const absHour = hour < 0n ? -hour : hour;
    parts.push(`${minus ? "-" : isBefore ? "+" : ""}${pad(absHour, 2)}:${pad(Math.abs(min), 2)}:${seconds(sec, usec)}`);
  }
  return parts.join(" ");
}

export const DATETIME_DECODERS: DecoderTable = {
  1082: (d) => (expectLength(d, 4, "date"), dateText(view(d).getInt32(0, true))),
  1083: (d) => (expectLength(d, 8, "time"), clock(view(d).getBigInt64(0, true))),
  1266: (d) => {
    expectLength(d, TimeTzADT.size, "timetz");
    const dv = view(d);
    return clock(dv.getBigInt64(TimeTzADT.offsets.time, true)) + tzText(-dv.getInt32(TimeTzADT.offsets.zone, true));
  },
  1114: (d) => (expectLength(d, 8, "timestamp"), timestampText(view(d).getBigInt64(0, true), false)),
  1184: (d) => (expectLength(d, 8, "timestamptz"), timestampText(view(d).getBigInt64(0, true), true)),
  1186: (d) => {
    expectLength(d, Interval.size, "interval");
    const dv = view(d);
    return intervalText(dv.getBigInt64(Interval.offsets.time, true), dv.getInt32(Interval.offsets.day, true), dv.getInt32(Interval.offsets.month, true));
  },
};
