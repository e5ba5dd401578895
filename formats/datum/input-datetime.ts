// Date and timestamp input in the spellings the server's date_in, timestamp_in and timestamptz_in
// accept besides ISO 8601 (src/backend/utils/adt/datetime.c, ParseDateTime and DecodeDateTime;
// the rules as the PostgreSQL documentation's "Date/Time Input Interpretation" appendix states
// them). The value is split into fields (a number, a date with '-', '/' or '.' between its parts,
// a time with ':', a word, a signed zone offset, a zone name with '/'), and each field fills what
// is still open:
// - numbers: a field of three or more digits is the year; otherwise the DateStyle field order
//   (MDY, DMY or YMD) decides, and after a month name the first number is the day (the year in
//   YMD order or when it has 3+ digits); 8 digits are YYYYMMDD, 6 YYMMDD; after a whole date,
//   6 digits are HHMMSS and 4 HHMM;
// - a one- or two-digit year is 1970-2069; BC counts back from 1 BC; AM/PM fold the hour;
// - words: month names and their abbreviations, weekday names (checked, then ignored), AM, PM,
//   AD, BC, epoch, allballs, Z, UTC, GMT; T between a date and a time;
// - zones: ±HH, ±HHMM, ±HH:MM[:SS], and names of the IANA database (Area/Location, read through
//   the Intl time zone data, for times from 1970 on, where every build of the tz database
//   agrees), applied as DetermineTimeZoneOffset does at a transition: a local time in a
//   spring-forward gap takes the offset before it, one in a fall-back overlap the one after.
// Refused by name, not guessed: zone abbreviations other than UTC/GMT/Z (their meaning is the
// server's timezone_abbreviations setting), now/today/tomorrow/yesterday (the load's moment),
// Julian days, day-of-year dates, ISO field labels and other rare forms.
import { FormatError } from "../schema/errors.js";
import { isDigit, roundHalfEven } from "./util.js";

export type DateOrder = "MDY" | "DMY" | "YMD";

export const POSTGRES_EPOCH_JDATE = 2451545;
export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export const leapYear = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** date2j: the Julian day of a proleptic Gregorian date (year 0 = 1 BC). */
export function julianDay(y: number, m: number, d: number): number {
  if (m > 2) {
    m += 1;
    y += 4800;
  } else {
    m += 13;
    y += 4799;
  }
  const century = Math.floor(y / 100);
  let j = y * 365 - 32167;
  j += Math.floor(y / 4) - century + Math.floor(century / 4);
  j += Math.floor((7834 * m) / 256) + d;
  return j;
}

export const fieldRange = (text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `date/time field value out of range: "${text}"`);
const badSyntax = (type: string, text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type ${type}: "${text}"`);
const notRead = (what: string, text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `pgdisk reads ${what}: "${text}"`);

const ZONE_OFFSET = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::(\d{2}))?$/;

/** A numeric zone offset (±HH, ±HHMM, ±HH:MM[:SS]) in seconds east of UTC, or null if it is not one. */
export function zoneOffsetSeconds(text: string, zone: string): number | null {
  const m = ZONE_OFFSET.exec(zone);
  if (!m) return null;
  if (Number(m[2]) > 15 || Number(m[3] ?? 0) > 59 || Number(m[4] ?? 0) > 59) throw new FormatError("DATUM_BAD_INPUT", `time zone displacement out of range: "${text}"`);
  const secs = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return m[1] === "-" ? -secs : secs;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_WORDS = new Map<string, number>([
  ...MONTHS.map((m, i): [string, number] => [m, i + 1]),
  ...["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"].map((m, i): [string, number] => [m, i + 1]),
  ["sept", 9],
]);
const WEEKDAY_WORDS = new Set(["sun", "mon", "tue", "tues", "wed", "wednes", "thu", "thur", "thurs", "fri", "sat", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]);
const UTC_WORDS = new Set(["z", "utc", "gmt", "zulu", "ut"]);
const MOMENT_WORDS = new Set(["now", "today", "tomorrow", "yesterday"]);

/** What a time value names: the time of day, the date written beside it (if whole), the zone written, if any. */
export interface DecodedTime {
  /** days since 2000-01-01 */
  days?: number;
  /** microseconds since midnight */
  usecs: bigint;
  /** a numeric offset or UTC word: seconds east of UTC */
  east?: number;
  /** an IANA zone name */
  zoneName?: string;
}

/** What a date or timestamp value names: a date, a time of day, and the zone written, if any. */
export interface DecodedDateTime extends DecodedTime {
  days: number;
}

const UNIX_EPOCH_DAYS = 10957;

/** The offset east of UTC of the zone a value wrote (a number, or a name's offset on its date and time), or undefined when it wrote none. */
export function writtenZoneEast(v: DecodedTime, text: string): number | undefined {
  if (v.east !== undefined || v.zoneName === undefined) return v.east;
  // decodeTime gives a zone name only with a date
  return zoneOffsetAtLocal(v.zoneName, (v.days! + UNIX_EPOCH_DAYS) * 86400 + Number(v.usecs / 1_000_000n), text);
}

type Field = { kind: "number" | "date" | "time" | "word" | "offset" | "zone"; text: string };

const isAlpha = (c: string | undefined): boolean => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isSpaceOrComma = (c: string): boolean => c === " " || c === "," || (c >= "\t" && c <= "\r");

/** The fields of a date/time value (ParseDateTime's split), or null when a character fits no field. */
function splitFields(s: string): Field[] | null {
  const out: Field[] = [];
  let i = 0;
  const run = (ok: (c: string) => boolean): string => {
    const start = i;
    while (i < s.length && ok(s[i]!)) i++;
    return s.slice(start, i);
  };
  while (i < s.length) {
    const c = s[i]!;
    if (isSpaceOrComma(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      run(isDigit);
      const next = s[i];
      if (next === ":") {
        run((x) => isDigit(x) || x === ":" || x === ".");
        out.push({ kind: "time", text: s.slice(start, i) });
      } else if (next === "-" || next === "/" || next === ".") {
        // a date; an ISO 'T' between digits ends it
        while (i < s.length && (isDigit(s[i]) || isAlpha(s[i]) || s[i] === "-" || s[i] === "/" || s[i] === ".")) {
          if ((s[i] === "T" || s[i] === "t") && isDigit(s[i - 1]) && isDigit(s[i + 1])) break;
          i++;
        }
        out.push({ kind: "date", text: s.slice(start, i) });
      } else out.push({ kind: "number", text: s.slice(start, i) });
    } else if (isAlpha(c)) {
      const word = run(isAlpha).toLowerCase();
      const next = s[i];
      if (next === "/" || next === "_" || (next === "-" && !MONTH_WORDS.has(word))) {
        run((x) => isAlpha(x) || isDigit(x) || x === "/" || x === "_" || x === "-" || x === "+");
        out.push({ kind: "zone", text: s.slice(start, i) });
      } else if ((next === "-" || next === ".") && MONTH_WORDS.has(word)) {
        run((x) => isAlpha(x) || isDigit(x) || x === "-" || x === "/" || x === ".");
        out.push({ kind: "date", text: s.slice(start, i) });
      } else if (word === "j" && isDigit(next)) {
        return null;
      } else out.push({ kind: "word", text: word });
    } else if ((c === "+" || c === "-") && isDigit(s[i + 1])) {
      i++;
      run((x) => isDigit(x) || x === ":");
      out.push({ kind: "offset", text: s.slice(start, i) });
    } else return null;
  }
  return out;
}

/** The date, time and zone fields a value fills in, and how. */
class DateTimeParts {
  year?: number;
  yearDigits = 0;
  month?: number;
  day?: number;
  textMonth = false;
  bc = false;
  hour?: number;
  minute?: number;
  second?: number;
  usec = 0;
  meridian?: "am" | "pm";
  sawWeekday = false;
  sawEra = false;
  east?: number;
  zoneName?: string;
  constructor(
    readonly order: DateOrder,
    readonly type: string,
    readonly text: string,
    /** time_in and timetz_in (DecodeTimeOnly): a date may be written, numbers are times */
    readonly timeOnly = false,
  ) {}

  get noDate(): boolean {
    return this.year === undefined && this.month === undefined && this.day === undefined;
  }
  get dateDone(): boolean {
    return this.year !== undefined && this.month !== undefined && this.day !== undefined;
  }
  bad(): FormatError {
    return badSyntax(this.type, this.text);
  }
  setYear(v: number, digits: number): void {
    if (this.year !== undefined) throw this.bad();
    this.year = v;
    this.yearDigits = digits;
  }
  setMonth(v: number): void {
    if (this.month !== undefined) throw this.bad();
    this.month = v;
  }
  setDay(v: number): void {
    if (this.day !== undefined) throw this.bad();
    this.day = v;
  }

  /** One number of a date (DecodeNumber's choice of which field it is). */
  dateNumber(digits: string): void {
    const v = Number(digits);
    const long = digits.length >= 3;
    const y = this.year !== undefined;
    const m = this.month !== undefined;
    const d = this.day !== undefined;
    if (!y && !m && !d) {
      if (long || this.order === "YMD") this.setYear(v, digits.length);
      else if (this.order === "DMY") this.setDay(v);
      else this.setMonth(v);
    } else if (y && !m && !d) this.setMonth(v);
    else if (!y && m && !d) {
      if (this.textMonth && (long || this.order === "YMD")) this.setYear(v, digits.length);
      else this.setDay(v);
    } else if (y && m && !d) {
      if (this.textMonth && long && this.yearDigits <= 2) {
        // DD-MON-YYYY: the first number was the day after all
        this.day = this.year;
        this.year = v;
        this.yearDigits = digits.length;
      } else this.setDay(v);
    } else if (!y && !m && d) this.setMonth(v);
    else if (!y && m && d) this.setYear(v, digits.length);
    else throw this.bad();
  }

  /** A run of digits standing alone: a concatenated date or time, or one date number. */
  number(digits: string): void {
    const n = digits.length;
    const dateDone = this.dateDone || (this.timeOnly && this.noDate);
    if (n >= 6 && (!dateDone || this.hour === undefined)) {
      if (!dateDone) {
        if (!this.noDate) throw this.bad();
        this.day = Number(digits.slice(n - 2));
        this.month = Number(digits.slice(n - 4, n - 2));
        this.year = Number(digits.slice(0, n - 4));
        this.yearDigits = n - 4;
        return;
      }
      if (n === 6) return this.digitClock(Number(digits.slice(0, 2)), Number(digits.slice(2, 4)), Number(digits.slice(4)));
      throw this.bad();
    }
    if (dateDone) {
      if (this.hour === undefined && n === 4) return this.digitClock(Number(digits.slice(0, 2)), Number(digits.slice(2)), 0);
      throw this.bad();
    }
    if (n === 3 && this.year !== undefined && this.month === undefined && this.day === undefined) throw notRead("dates as year, month and day (not a day of the year)", this.text);
    this.dateNumber(digits);
  }

  /** A date field: parts between separators, a month name among them first. */
  date(field: string): void {
    const parts = field.split(/[^A-Za-z0-9]+/);
    if (parts.some((p) => p === "")) throw this.bad();
    const split: string[] = [];
    // "05Jan2020" is not split by the server either; a part must be all digits or all letters
    for (const p of parts) {
      if (/^\d+$/.test(p) || /^[A-Za-z]+$/.test(p)) split.push(p);
      else throw this.bad();
    }
    for (const p of split) {
      if (!isAlpha(p[0])) continue;
      const month = MONTH_WORDS.get(p.toLowerCase());
      if (month === undefined) throw this.bad();
      this.setMonth(month);
      this.textMonth = true;
    }
    if (split.length === 2 && /^\d+\.\d{3}$/.test(field)) throw notRead("dates as year, month and day (not a year and a day of the year)", this.text);
    for (const p of split) if (isDigit(p[0])) this.dateNumber(p);
    if (!this.dateDone) throw this.bad();
  }

  /** HHMMSS or HHMM digits: the server does not range-check them (99:01:08 runs into the next days); pgdisk refuses that by name. */
  digitClock(h: number, m: number, s: number): void {
    if (clockOverflows(h, m, s, 0)) throw notRead("HHMMSS and HHMM times within a day (the server lets such digits run into the next days)", this.text);
    this.clock(h, m, s);
  }

  clock(h: number, m: number, s: number): void {
    if (this.hour !== undefined) throw this.bad();
    this.hour = h;
    this.minute = m;
    this.second = s;
  }

  /** HH:MM, HH:MM:SS, HH:MM:SS.f */
  time(field: string): void {
    const m = /^(\d+):(\d+)(?::(\d+)(\.\d*)?)?$/.exec(field);
    if (!m) throw notRead("times as HH:MM[:SS[.f]]", this.text);
    const [h, mi, sec] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    const usec = m[4] && m[4].length > 1 ? roundHalfEven(Number(`0${m[4]}`) * 1e6) : 0;
    // a time out of range is refused before a second time is (time_overflows comes first)
    if (clockOverflows(h, mi, sec, usec)) throw fieldRange(this.text);
    this.clock(h, mi, sec);
    this.usec = usec;
  }

  word(w: string): void {
    const month = MONTH_WORDS.get(w);
    if (month !== undefined) {
      // "8 Jan 1999": a number taken for the month before a month name is the day
      if (this.month !== undefined && !this.textMonth && this.day === undefined && this.month <= 31) {
        this.day = this.month;
        this.month = undefined;
      }
      this.setMonth(month);
      this.textMonth = true;
    } else if (WEEKDAY_WORDS.has(w)) {
      if (this.sawWeekday) throw this.bad();
      this.sawWeekday = true;
    } else if (w === "am" || w === "pm") {
      if (this.meridian) throw this.bad();
      this.meridian = w;
    } else if (w === "bc" || w === "ad") {
      if (this.sawEra) throw this.bad();
      this.sawEra = true;
      if (w === "bc") this.bc = true;
    } else if (UTC_WORDS.has(w)) this.zone(0);
    else if (MOMENT_WORDS.has(w)) throw notRead(`fixed dates and times, not "${w}" (the moment of the load)`, this.text);
    else throw notRead(`zones as UTC, a numeric offset or an IANA name such as Europe/Paris, not the abbreviation or word "${w}"`, this.text);
  }

  zone(east: number): void {
    if (this.east !== undefined || this.zoneName !== undefined) throw this.bad();
    this.east = east;
  }

  zoneByName(name: string): void {
    // the server reads Area/Location as a date field unless a month and a day are known already
    if (this.east !== undefined || this.zoneName !== undefined || this.month === undefined || this.day === undefined) throw this.bad();
    if (!/\//.test(name) || !zoneFormat(name)) throw new FormatError("DATUM_BAD_INPUT", `time zone "${name.toLowerCase()}" not recognized`);
    this.zoneName = name;
  }

  /** ValidateDate and the time checks: the calendar date and the time of day. */
  result(): DecodedDateTime {
    const usecs = this.clockUsecs();
    return { days: this.days(), usecs, east: this.east, zoneName: this.zoneName };
  }

  /** The time of day, for time_in: a date written beside it is checked, and given when whole. */
  timeResult(): DecodedTime {
    const days = this.noDate ? undefined : this.days();
    // a zone name needs the date its offset is taken on
    if (this.hour === undefined || (this.zoneName !== undefined && days === undefined)) throw this.bad();
    return { days, usecs: this.clockUsecs(), east: this.east, zoneName: this.zoneName };
  }

  private days(): number {
    if (!this.dateDone) throw this.bad();
    let y = this.year!;
    if (this.bc) {
      if (y <= 0) throw fieldRange(this.text);
      y = 1 - y;
    } else if (this.yearDigits <= 2) y += y < 70 ? 2000 : 100 > y ? 1900 : 0;
    else if (y <= 0) throw fieldRange(this.text);
    const mo = this.month!;
    const d = this.day!;
    if (mo < 1 || mo > 12 || d < 1 || d > 31) throw fieldRange(this.text);
    if (d > (mo === 2 && leapYear(y) ? 29 : DAYS_IN_MONTH[mo - 1]!)) throw fieldRange(this.text);
    return julianDay(y, mo, d) - POSTGRES_EPOCH_JDATE;
  }

  private clockUsecs(): bigint {
    let h = this.hour ?? 0;
    const mi = this.minute ?? 0;
    const sec = this.second ?? 0;
    if (this.meridian) {
      if (h > 12) throw fieldRange(this.text);
      if (this.meridian === "am" && h === 12) h = 0;
      else if (this.meridian === "pm" && h !== 12) h += 12;
    }
    if (clockOverflows(h, mi, sec, this.usec)) throw fieldRange(this.text);
    return BigInt(((h * 60 + mi) * 60 + sec) * 1e6 + this.usec);
  }
}

const clockOverflows = (h: number, mi: number, sec: number, usec: number): boolean => mi > 59 || sec > 60 || h > 24 || (h === 24 && (mi > 0 || sec > 0 || usec > 0));

/** A date/time value in any of the spellings above, `type` naming the type in errors. */
export function decodeDateTime(text: string, s: string, type: string, order: DateOrder = "MDY"): DecodedDateTime {
  if (s.toLowerCase() === "epoch") return { days: julianDay(1970, 1, 1) - POSTGRES_EPOCH_JDATE, usecs: 0n, east: 0 };
  return fillParts(new DateTimeParts(order, type, text), s).result();
}

/** A time of day as time_in and timetz_in read it: the spellings above with numbers read as HHMM or HHMMSS. */
export function decodeTime(text: string, s: string, type: string, order: DateOrder = "MDY"): DecodedTime {
  return fillParts(new DateTimeParts(order, type, text, true), s).timeResult();
}

function fillParts(p: DateTimeParts, s: string): DateTimeParts {
  const { text, type } = p;
  const fields = splitFields(s);
  if (!fields) throw notRead(`${type} values as ISO 8601 or the other spellings of docs/load.md (not Julian days or ISO field labels)`, text);
  if (!fields.length) throw badSyntax(type, text);
  for (const [i, f] of fields.entries()) {
    // time_in takes a date only as the value's first field, and no month names
    if (p.timeOnly && ((f.kind === "date" && i > 0) || (f.kind === "word" && (MONTH_WORDS.has(f.text) || WEEKDAY_WORDS.has(f.text) || f.text === "epoch")))) throw p.bad();
    // after a leading date, time_in takes the time as HH:MM only; a date led by a month name is a zone to it
    if (p.timeOnly && p.year !== undefined && (f.kind === "number" || (f.kind === "word" && f.text === "allballs") || (p.hour === undefined && f.kind !== "time" && f.kind !== "date"))) throw p.bad();
    if (p.timeOnly && f.kind === "date" && isAlpha(f.text[0])) throw new FormatError("DATUM_BAD_INPUT", `time zone "${f.text.toLowerCase()}" not recognized`);
    switch (f.kind) {
      case "number":
        p.number(f.text);
        break;
      case "date":
        // DecodeDate wants nothing but a zone set before it: not a time, AM/PM, weekday or era
        if (p.dateDone || p.year !== undefined || p.day !== undefined || p.hour !== undefined || p.meridian || p.sawWeekday || p.sawEra) throw p.bad();
        p.date(f.text);
        break;
      case "time":
        p.time(f.text);
        break;
      case "word":
        // ISO 8601's T before the time (time_in takes it only at the start)
        if (f.text === "t" && (fields[i + 1]?.kind === "time" || fields[i + 1]?.kind === "number")) {
          // time_in takes it first only; the others after a whole date only
          if (p.timeOnly ? i > 0 : !p.dateDone) throw p.bad();
        } else if (f.text === "allballs") {
          // midnight UTC: a time and a zone
          p.clock(0, 0, 0);
          p.zone(0);
        } else p.word(f.text);
        break;
      case "offset": {
        const east = zoneOffsetSeconds(text, f.text);
        if (east === null) throw p.bad();
        p.zone(east);
        break;
      }
      case "zone":
        p.zoneByName(f.text);
        break;
    }
  }
  return p;
}

// ---- IANA zones through Intl -------------------------------------------------------------

const formats = new Map<string, Intl.DateTimeFormat | null>();

function zoneFormat(name: string): Intl.DateTimeFormat | null {
  const key = name.toLowerCase();
  let f = formats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", { timeZone: name, hourCycle: "h23", era: "short", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    } catch {
      f = null;
    }
    formats.set(key, f);
  }
  return f;
}

/** The zone's offset east of UTC, in seconds, at the instant `utc` (seconds since 1970). */
function offsetAt(f: Intl.DateTimeFormat, utc: number): number {
  let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, bc = false;
  for (const part of f.formatToParts(new Date(utc * 1000))) {
    const v = Number(part.value);
    switch (part.type) {
      case "year": y = v; break;
      case "month": mo = v; break;
      case "day": d = v; break;
      case "hour": h = v; break;
      case "minute": mi = v; break;
      case "second": s = v; break;
      case "era": bc = part.value === "BC" || part.value === "B"; break;
    }
  }
  const local = new Date(0);
  local.setUTCFullYear(bc ? 1 - y : y, mo - 1, d);
  local.setUTCHours(h, mi, s, 0);
  return local.getTime() / 1000 - utc;
}

/** The first instant in (lo, hi] whose offset differs from the one at lo. */
function transitionAfter(f: Intl.DateTimeFormat, lo: number, hi: number): number {
  const o = offsetAt(f, lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(f, mid) === o) lo = mid;
    else hi = mid;
  }
  return hi;
}

const SECS_PER_DAY = 86400;
/** The instants JavaScript dates reach (±8.64e15 ms), with a day to spare. */
const JS_DATE_SECS = 8.64e12 - 2 * SECS_PER_DAY;

/**
 * The offset east of UTC, in seconds, of zone `name` at local time `local` (seconds since
 * 1970-01-01 as if the zone were UTC), resolved at a transition as DetermineTimeZoneOffset does.
 */
export function zoneOffsetAtLocal(name: string, local: number, text: string): number {
  const f = zoneFormat(name);
  if (!f) throw new FormatError("DATUM_BAD_INPUT", `time zone "${name}" not recognized`);
  // the tz database's history before 1970 differs between builds (backzone): the server's and ICU's may disagree
  if (local < 0) throw notRead("IANA zone names for times from 1970 on (before 1970 the server's time zone data and pgdisk's may differ), or a numeric offset", text);
  if (local > JS_DATE_SECS) throw notRead("IANA zone names for years JavaScript dates reach (to 275760 AD)", text);
  const before = offsetAt(f, local - SECS_PER_DAY);
  const after = offsetAt(f, local + SECS_PER_DAY);
  if (before === after) return before;
  const boundary = transitionAfter(f, local - SECS_PER_DAY, local + SECS_PER_DAY);
  const beforeTime = local - before;
  const afterTime = local - after;
  if (beforeTime < boundary && afterTime < boundary) return before;
  if (beforeTime > boundary && afterTime >= boundary) return after;
  // a gap (spring forward): the offset before it; an overlap (fall back): the one after
  return beforeTime > afterTime ? before : after;
}
