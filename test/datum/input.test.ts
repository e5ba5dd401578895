// The input functions (formats/datum/input.ts) against the server's: each text is stored by a
// real PostgreSQL into a column of the type (a literal of type unknown, so the column's input
// function and typmod apply, as COPY FROM applies them), and its on-disk bytes (pageinspect)
// must be the bytes pgdisk makes; a text the server refuses, pgdisk must refuse too. Enums,
// domains and arrays resolve through resolveInput with the server's own pg_type, pg_enum and
// pg_constraint rows (their OIDs and typmods as the server gives them).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { sqlLiteral } from "../../samples/copy.js";
import { resolveInput, type InputTypes } from "../../formats/datum/input-types.js";
import { compileDomainCheck } from "../../formats/catalog/input-types.js";
import { FormatError } from "../../formats/schema/errors.js";
import { varlenaPayload } from "./harness.js";

interface Case {
  /** column type as SQL declares it */
  sql: string;
  /** 0: the column's type as the server created it (enums, domains) */
  oid: number;
  /** undefined: the column's atttypmod */
  typmod?: number;
  /** fixed length, or -1 for varlena */
  len: number;
  values: string[];
  /** DateStyle for the server's session and pgdisk's dateOrder (default ISO, MDY) */
  dateStyle?: "MDY" | "DMY" | "YMD";
}

/** Dates in the server's other spellings: field orders, month and weekday names, concatenated digits, 2-digit years, BC, epoch, and forms both refuse. */
const DATE_SPELLINGS = ["1/8/1999", "01/02/03", "January 8, 1999", "Jan 8 1999", "8 Jan 1999", "08-Jan-1999", "Jan-08-1999", "1999-Jan-08", "08-Jan-99", "Jan-08-99", "19990108", "990108", "1999.01.08", "99-Jan-08", "Sat Jan 8 1999", "Sunday, January 5, 2020", "January 8, 99 BC", "13/1/2020", "1/13/2020", "epoch", "Jan 5", "Feb 29 2021", "Feb 29 2024", "1-1-1", "12/31/69", "12/31/70", "  Jan   5,   2020  ", "5.1.2020", "2020/01/05", "8 January 99", "Jan 8 99", "1999 Jan 8", "8 1999 Jan", "Sept 9 2020", "Jan 32 2020", "jan jan 2020", "5874898-01-01", "4714-11-24 BC", "4714-11-23 BC", "2020-01-05 10:00 PM"];
/** Times in the server's other spellings (DecodeTimeOnly): AM/PM, HHMM, HHMMSS, T, allballs, a leading date, a zone (ignored by time, kept by timetz). */
const TIME_SPELLINGS = ["10:30 PM", "10:30:15.5 am", "12:00 AM", "12:00 pm", "13:00 pm", "040506", "0405", "1030", "allballs", "2003-04-12 04:05:06", "2003-04-12 04:05:06 PM", "1/2/2003 10:00", "04:05:06 2003-04-12", "Jan 5 2020 10:00", "10:00 America/New_York", "10:00 Jan 5 2020", "2003-04-12 04:05 America/New_York", "2024-03-10 02:30 America/New_York", "2024-01-01 10:00 Europe/Paris", "T10:00", "T1030", "10:00 UTC", "10:00 BC", "Mon 10:00", "epoch", "2003-04-12T10:00", "20030412 100000", "10:00:00.1234567", "04:05:06.5 -07", "10", "10:00 foo", "allballs +05", "10:61", "25:00"];
/** Spellings the server reads that pgdisk refuses by name: a day of the year, a Julian day, the moment of the load, zone abbreviations (timezone_abbreviations), named zones before 1970. */
const REFUSED_SPELLINGS: [type: string, oid: number, value: string][] = [
  ...["1999.008", "J2451187", "today", "now", "2020-01-05 10:00 EST", "2020-01-05 10:00 CET", "1900-01-01 00:00 Europe/Amsterdam"].map((v): [string, number, string] => ["timestamptz", 1184, v]),
  ["date", 1082, "tomorrow"],
  ["timetz", 1266, "10:00 EST"],
  ["time", 1083, "now"],
];
/** Timestamps in the server's other spellings: AM/PM, T, concatenated times, zones by offset and by IANA name across DST transitions. */
const TIMESTAMP_SPELLINGS = ["2020-01-05 10:00 PM", "2020-01-05 12:00 AM", "2020-01-05 12:30 pm", "2000-01-01 13:00 am", "1/2/3 4:05:06 PM", "08-Jan-1999 10:00", "2020-01-05 allballs", "2020-01-05T10:00:00.5+05:30", "2020-01-05 1030", "20200105 103000", "20200105T103000", "2020-01-05 040506", "1/5/2020 10:00:00 -08", "Jan 5 2020 10:00 +5", "2020-01-05 10:00 -5:30", "2020-1-5 3:04:05", "2020-01-05 10:00:00 +0530", "jan 5 2020 z", "Jan 5 2020 10:00:00 America/New_York", "2024-03-10 02:00 America/New_York", "2024-03-10 02:30 America/New_York", "2024-03-10 03:00 America/New_York", "2024-11-03 00:59:59 America/New_York", "2024-11-03 01:00 America/New_York", "2024-11-03 01:59:59 America/New_York", "2024-11-03 02:00 America/New_York", "2024-03-31 02:30 Europe/Berlin", "2024-10-27 02:30 Europe/Berlin", "2014-10-26 01:30 Europe/Moscow", "2011-12-29 23:59 Pacific/Apia", "2011-12-30 00:00 Pacific/Apia", "1970-01-01 00:00 Europe/London", "2060-07-01 12:00 America/Chicago", "Dec 31 1999 23:59:59.999999 Asia/Kolkata", "2020-01-05 10:00 europe/paris", "2024-06-30 23:59:59 Asia/Tokyo", "2020-01-05 10:00 Foo/Bar", "Jan 5, 2020 5pm", "2020-01-05 10:00 25:00", "epoch"];

const ISO_ONLY = new Set(["1082", "1083", "1114", "1184", "1266"]);
/** interval typmods: INTERVAL_TYPMOD(precision, range), range bits from datetime.h */
const intervalTypmod = (precision: number, range: number): number => (range << 16) | precision;
const [HOUR, MINUTE, SECOND, DAY, YEAR, MONTH] = [1 << 10, 1 << 11, 1 << 12, 1 << 3, 1 << 2, 1 << 1];

const CASES: Case[] = [
  { sql: "bool", oid: 16, typmod: -1, len: 1, values: ["t", "f", "true", "FALSE", " yes ", "n", "on", "off", "of", "o", "1", "0", "tr", "x", "", "2"] },
  { sql: "int2", oid: 21, typmod: -1, len: 2, values: ["0", "-32768", "32767", "32768", " 12 ", "+5", "1e3", "", "- 1", "0x10"] },
  { sql: "int4", oid: 23, typmod: -1, len: 4, values: ["0", "-2147483648", "2147483647", "2147483648", "007", "\t42\n", "4 2", "abc"] },
  { sql: "int8", oid: 20, typmod: -1, len: 8, values: ["0", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "123456789012345"] },
  { sql: "oid", oid: 26, typmod: -1, len: 4, values: ["0", "4294967295", "4294967296", "-1", "-2147483648", "-2147483649", " 7 ", "x"] },
  { sql: "float4", oid: 700, typmod: -1, len: 4, values: ["0", "-0", "1.5", "3.4028235e38", "3.5e38", "1e-45", "1e-46", "NaN", "Infinity", "-inf", "0.1", "16777217", "1.00000005960464477539062500000001", "7.038531e-26", "abc", "1.", ".5", "5e"] },
  { sql: "float8", oid: 701, typmod: -1, len: 8, values: ["0", "-0", "3.141592653589793", "1e308", "1e309", "5e-324", "1e-400", "nan", "-Infinity", " 2.5 ", "0.1e1", "1e", "--1"] },
  { sql: "numeric", oid: 1700, typmod: -1, len: -1, values: ["0", "-0", "1", "-1", "0.00", "123.4500", "1e5", "1.5e-3", "-99999999.99999999", "12345678901234567890.123456789", "NaN", "Infinity", "-inf", "1e-20", "0.0001", "10000", "abc", "1e100000", "1e140000", "1e-16384", "1e-16383", "1e1073741823", "1e-1073741823", "0e-20000", "1e131071", "1e131072", "1e-131072", "1e-131080"] },
  { sql: "numeric(5,2)", oid: 1700, typmod: ((5 << 16) | 2) + 4, len: -1, values: ["1.005", "-1.005", "999.994", "999.995", "0.001", "12", "Infinity", "NaN"] },
  { sql: "numeric(3,-1)", oid: 1700, typmod: ((3 << 16) | (-1 & 0x7ff)) + 4, len: -1, values: ["1234", "15", "9994", "9995"] },
  { sql: "text", oid: 25, typmod: -1, len: -1, values: ["", "abc", "zürich ünïcode ✓", " spaces ", "x".repeat(200)] },
  { sql: "varchar(5)", oid: 1043, typmod: 9, len: -1, values: ["abc", "abcde", "abcdef", "abcde   ", "ab  ", "äöüßé", "äöüßéx"] },
  { sql: "char(4)", oid: 1042, typmod: 8, len: -1, values: ["a", "abcd", "abcde", "ab   ", "", "ü"] },
  { sql: "name", oid: 19, typmod: -1, len: 64, values: ["abc", "x".repeat(63), "x".repeat(70), "ü".repeat(40)] },
  { sql: '"char"', oid: 18, typmod: -1, len: 1, values: ["a", "abc", "", "\\101", "\\1"] },
  { sql: "bytea", oid: 17, typmod: -1, len: -1, values: ["\\x", "\\x00ff10", "\\x 00 FF", "\\x0", "\\xzz", "abc", "a\\\\b", "\\001\\377", "\\4", "\\"] },
  { sql: "uuid", oid: 2950, typmod: -1, len: 16, values: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC999C0B4EF8BB6D6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc999c0b-4ef8-bb6d6bb9-bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"] },
  { sql: "json", oid: 114, typmod: -1, len: -1, values: ['{"a": 1}', "[1, 2.5e3, null]", '"x"', " 1 ", "{a: 1}", "[1,]"] },
  { sql: "date", oid: 1082, typmod: -1, len: 4, values: ["2000-01-01", "1999-12-31", "2024-02-29", "2023-02-29", "0001-01-01", "0001-01-01 BC", "5874897-12-31", "infinity", "-infinity", "2000-13-01"] },
  { sql: "time", oid: 1083, typmod: -1, len: 8, values: ["00:00", "12:34:56", "23:59:59.999999", "23:59:59.9999995", "24:00:00", "24:00:01", "12:60"] },
  { sql: "time(2)", oid: 1083, typmod: 2, len: 8, values: ["12:34:56.125", "12:34:56.135", "12:34:56.999"] },
  { sql: "timestamp", oid: 1114, typmod: -1, len: 8, values: ["2000-01-01 00:00:00", "2024-05-06T07:08:09.123456", "1970-01-01 00:00:00+05", "0044-03-15 12:00:00 BC", "infinity", "-infinity", "2000-01-01 25:00"] },
  { sql: "timestamptz", oid: 1184, typmod: -1, len: 8, values: ["2000-01-01 00:00:00+00", "2024-05-06 07:08:09.5+02:30", "2024-05-06 07:08:09-0730", "2024-05-06 07:08:09Z", "2024-05-06 07:08:09", "2024-05-06 07:08:09 UTC", "2024-05-06", "2024-05-06 07:08:09+16"] },
  { sql: "timestamptz(0)", oid: 1184, typmod: 0, len: 8, values: ["2024-05-06 07:08:09.5+00", "2024-05-06 07:08:10.5+00", "2024-05-06 07:08:09.4999+00", "1999-12-31 23:59:59.5+00", "2000-01-01 00:30:00.5+01"] },
  // a tie before 2000-01-01 rounds the whole (negative) timestamp away from zero: to the earlier second
  { sql: "timestamp(0)", oid: 1114, typmod: 0, len: 8, values: ["1999-12-31 23:59:59.5", "1969-07-20 20:17:40.5", "2000-01-01 00:00:00.5", "1999-12-31 23:59:59.4"] },
  { sql: "date", oid: 1082, typmod: -1, len: 4, values: DATE_SPELLINGS },
  { sql: "date", oid: 1082, typmod: -1, len: 4, dateStyle: "DMY", values: ["1/8/1999", "08/01/99", "8 Jan 1999", "Jan 8 1999", "13/1/2020", "1/13/2020", "1999-01-08", "08-Jan-99", "990108"] },
  { sql: "date", oid: 1082, typmod: -1, len: 4, dateStyle: "YMD", values: ["99/01/08", "1999/1/8", "08-Jan-1999", "99-Jan-08", "Jan-08-99", "8/1/1999", "990108"] },
  { sql: "timestamp", oid: 1114, typmod: -1, len: 8, values: [...DATE_SPELLINGS, ...TIMESTAMP_SPELLINGS] },
  { sql: "timestamptz", oid: 1184, typmod: -1, len: 8, values: [...DATE_SPELLINGS, ...TIMESTAMP_SPELLINGS] },
  { sql: "time", oid: 1083, typmod: -1, len: 8, values: TIME_SPELLINGS },
  { sql: "timetz", oid: 1266, typmod: -1, len: 12, values: TIME_SPELLINGS },
  { sql: "pg_snapshot", oid: 5038, typmod: -1, len: -1, values: ["10:20:", "10:20:10,11,19", "10:20:12,12,13", "10:20:13,12", "10:20:20", "10:20:9", "0:20:", "20:10:", "10:10:", " 10: 20: 11", "+10:20:", "10:20:11,", "10:20:,11", "10:20", "x", "", "18446744073709551615:18446744073709551615:", "18446744073709551616:1:", "-1:5:", "10:20:11 ", "10:20:11;12"] },
  { sql: "txid_snapshot", oid: 2970, typmod: -1, len: -1, values: ["10:20:", "10:20:10,11,19", "20:10:"] },
  { sql: "timetz", oid: 1266, typmod: -1, len: 12, values: ["00:00+00", "12:34:56+02", "12:34:56.789-07:30", "23:59:59.999999 +05:45", "24:00:00-15", "12:00", "12:00Z", "12:00 UTC", "12:00+16", "25:00+00", "12:00+0530"] },
  { sql: "timetz(1)", oid: 1266, typmod: 1, len: 12, values: ["12:34:56.25+01", "12:34:56.35-01", "23:59:59.99+00"] },
  {
    sql: "interval",
    oid: 1186,
    typmod: -1,
    len: 16,
    values: [
      "1 day 02:03:04", "1 year 2 mons", "-1 day", "@ 1 hour ago", "P1Y2M3DT4H5M6S", "1.5 days", "1.5 months", "1.5 years", "0.3 years", "1.7 weeks",
      "1.25 hours", "0.5 seconds", "1 2:03:04", "-1 -02:03:04", "1 +02:03", "1-2", "-1-2", "1 decade 2 centuries 1 millennium", "3 mins 4 secs 5 ms 6 us",
      "00:00:00", "100:00:00", "1:30", "1:2.5", "12:34:56.7890125", "-00:00:01", "10", "1.5", "+5 hours -3 minutes", "2 weeks ago", "@ 1 year 2 mons -3 days 4:05:06 ago",
      "P1D", "PT1H", "P2Y6M7DT1H30M", "P0002-06-07T01:30:00", "P00020607T013000", "P1.5Y", "P0.5M", "P1W", "PT1.5S", "P-1Y-2M", "PT36H", "P1Y2M3D",
      "1 day 1 day", "1 hour 02:00", "1 qtr", "1 fortnight", "", "ago", "1 ago", "P", "PT", "P1", "P1X", "2147483648 days", "2147483647 days", "-2147483648 days",
      "178956971 years", "178956970 years", "9223372036854775807 us", "9223372036854775808 us", "1e3 days", "1 day 02:60:00", "1 day 24:00:00",
      "0.000001 seconds", "0.0000005 seconds", "0.0000015 seconds", "1.000000000000001 days", "  5 days  ", "5days", "1 mon 15 days", "1 millisecond",
      "1 day -02:03", "-1.5 hours", "1:2:", "1:", "1::", "1:.5", "1:2:.5", "12:34:56:78", ".5 days", "5. days", "+1 -1", "1 hour 30", "2 3", "1 2 3", "-0.5 years", "0.99999999 years", "1.5 weeks 2 days",
      "P1Y-2M", "P1.5W", "PT1.5H30M", "P1DT", "p1d", "P 1D", "PT0.0000005S", "P1e2D", "-1 day ago", "1 days ago ago", "@", "@ 3", "1 hours 2 hour", "10 ms 5 us 3 seconds",
    ],
  },
  { sql: "interval(2)", oid: 1186, typmod: intervalTypmod(2, 0x7fff), len: 16, values: ["1.125 seconds", "1.135 seconds", "-1.125 seconds", "1 day 00:00:00.999"] },
  { sql: "interval hour to minute", oid: 1186, typmod: intervalTypmod(0xffff, HOUR | MINUTE), len: 16, values: ["1 day 02:03:04", "5", "2:03"] },
  { sql: "interval minute to second", oid: 1186, typmod: intervalTypmod(0xffff, MINUTE | SECOND), len: 16, values: ["2:03", "5", "1:02:03.5"] },
  { sql: "interval year", oid: 1186, typmod: intervalTypmod(0xffff, YEAR), len: 16, values: ["1 year 5 mons 3 days", "5", "1-11"] },
  { sql: "interval day", oid: 1186, typmod: intervalTypmod(0xffff, DAY), len: 16, values: ["5", "1 mon 2 days 03:00"] },
  { sql: "interval year to month", oid: 1186, typmod: intervalTypmod(0xffff, YEAR | MONTH), len: 16, values: ["5", "2-3"] },
  {
    sql: "inet",
    oid: 869,
    typmod: -1,
    len: -1,
    values: [
      "192.168.1.5", "192.168.1.5/24", "10.0.0.0/8", "0.0.0.0/0", "255.255.255.255/32", "10/8", "10.1/16", "10.1.2/24", "10.1.2", "1.2.3.4/33", "256.1.1.1", "1.2.3.4.5",
      "1.2.3.4.", " 1.2.3.4", "1.2.3.4 ", "abc", "", "::1", "::", "::/0", "2001:db8::1/64", "2001:DB8:0:0:0:0:0:1", "::ffff:1.2.3.4", "::1.2.3.4/120", "fe80::1%eth0",
      "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1:2:3:4:5:6:7::", "::1/129", "::1/64x", "1:2:3:4:5:6:1.2.3.4", ":1", "1:", "::1/08",
      "::1.2.3", "::01.2.3.4", "::1.2.3.4.5", "1.2.3.4/24", "1.2.3/24", "1.2/16", "1/8", "::ffff:1.2.3.4/128", "1::", "::1:2:3:4:5:6:7", "1:2:3:4:5:6:7::8",
    ],
  },
  {
    sql: "cidr",
    oid: 650,
    typmod: -1,
    len: -1,
    values: [
      "192.168.1.0/24", "192.168.1.5/24", "10", "10.1", "128", "192.168", "224", "224.1", "240", "0x0a", "0x0a0b", "0x0a0b0c0d0", "10.1.2.3", "10.0.0.0/7", "0.0.0.0/0",
      "1.2.3.4/32", "10/33", "2001:db8::/32", "2001:db8::1/32", "::/0", "::1", "::ffff:0.0.0.0/96", "ff00::/8", "x", "10.", "10/",
      "10.1.2.3/8", "0x0a/8", "0x0a000000/8", "0xff", "200.1", "10.1.2.3.4", "127", "1.2.3.4/0", "0/0", "::/1", "8000::/1",
    ],
  },
  { sql: "macaddr", oid: 829, typmod: -1, len: 6, values: ["08:00:2b:01:02:03", "08-00-2b-01-02-03", "08002b:010203", "08002b-010203", "0800.2b01.0203", "0800-2b01-0203", "08002b010203", "8:0:2b:1:2:3", "08:00:2b:01:02:03 ", " 08:00:2b:01:02:03", "08:00:2b:01:02:0304", "08:00:2b:01:02", "08:00:2b:01:02:03:04", "zz:00:2b:01:02:03", "08002b01020"] },
  { sql: "macaddr8", oid: 774, typmod: -1, len: 8, values: ["08:00:2b:01:02:03:04:05", "08-00-2b-01-02-03-04-05", "08002b0102030405", "0800.2b01.0203.0405", "08:00:2b:01:02:03", "08002b010203", "  08:00:2b:01:02:03:04:05  ", "08:00-2b:01:02:03:04:05", "08:00:2b:01:02:03:04:05:06", "08:00:2b:01:02", "0g:00:2b:01:02:03", "08002b0102030"] },
  {
    sql: "jsonb",
    oid: 3802,
    typmod: -1,
    len: -1,
    values: [
      "{}", "[]", "1", "-0", "1.50", "1e3", "-1.5E-3", '"x"', "null", "true", "false", '""', ' {"a": 1} ', '{"b": 1, "a": 2, "aa": 3, "A": 4}', '{"a": 1, "a": 2}', '{"a": 1, "b": 2, "a": [3]}',
      '[1, "two", null, true, false, 2.5, {"k": [1, {"z": null}]}, []]', '{"nested": {"deeper": {"deepest": [1, 2, 3]}}, "n": 12345678901234567890.123}',
      `[${Array.from({ length: 70 }, (_, i) => i * 7).join(", ")}]`, `{${Array.from({ length: 40 }, (_, i) => `"k${i}": "${"v".repeat(i)}"`).join(", ")}}`,
      '"\\u00e9\\n\\t\\"\\\\\\/"', '"\\ud83d\\ude00"', '"ünï ✓"', '{"é": 1, "e": 2}', "[1, 1.0, 1.00, 100, 1e2]",
      "{a: 1}", "[1,]", "", "01", "1.", "-", "nul", '"\\u0000"', '"\\ud83d"', '"\\ude00"', '"\\x"', '{"a" 1}', "[1 2]", "1 2", '"a\tb"', "1e100000",
    ],
  },
  // enums and domains (their OIDs from the server)
  { sql: "mood", oid: 0, len: 4, values: ["sad", "ok", "happy", "a much longer label with spaces", "bad", "OK", " ok", ""] },
  { sql: "posint", oid: 0, len: 4, values: ["1", "-5", "x", "2147483648"] },
  { sql: "dnn", oid: 0, len: -1, values: ["", "abc"] },
  { sql: "vc3", oid: 0, len: -1, values: ["ab", "abc", "abcd", "abc   "] },
  { sql: "vc3b", oid: 0, len: -1, values: ["ab", "abcd"] },
  { sql: "posint2", oid: 0, len: 4, values: ["1", "0", "-5", "x"] },
  { sql: "shorttext", oid: 0, len: -1, values: ["abc", "abcd", "bad", "ba", ""] },
  { sql: "shortvc", oid: 0, len: -1, values: ["ab", "no", "abcd"] },
  { sql: "shorttext[]", oid: 0, len: -1, values: ["{a,NULL,abc}", "{abcd}", "{ok,bad}"] },
  // arrays
  {
    sql: "int4[]",
    oid: 1007,
    len: -1,
    values: [
      "{1,2,NULL}", "{}", "{{1,2},{3,4}}", "[0:1]={1,2}", "[1:2][3:4]={{1,2},{3,4}}", " { 1 , 2 } ", "{1,2", "{1,,2}", "{{1},{2,3}}", "1,2", "[1:3]={1,2}", "[2:1]={}",
      '{null,NULL,"1"}', '{"NULL"}', "{1}junk", "{{{{{{{1}}}}}}}", "[1:2]{1,2}", "{ }", "{{}}", "{{1,2},{3,4}", "{1}}", "[-2:-1]={7,8}", "{x}", "{1 2}", "[1:1]={}", "[]={1}",
      "{\\1}", "{{1,2},3}", `{${Array.from({ length: 20 }, (_, i) => (i % 3 ? String(i) : "NULL")).join(",")}}`,
    ],
  },
  {
    sql: "text[]",
    oid: 1009,
    len: -1,
    values: ['{a,"b c","d\\"e",NULL,"NULL",""}', '{"a,b",\\{x\\}}', "{ a b , c }", '{"x"y}', "{a\\ }", '{"{}"}', "{ü,✓}", "{{a,b},{c,d}}", '{"a\\\\b"}', "{a b,  c  d  }", "{\\N}"],
  },
  { sql: "varchar(3)[]", oid: 1015, len: -1, values: ["{abc,ab}", "{abcd}", '{"ab  "}'] },
  { sql: "char(2)[]", oid: 1014, len: -1, values: ["{a,bb,NULL}", "{abc}"] },
  { sql: "int2[]", oid: 1005, len: -1, values: ["{1,NULL,3}", "{32768}", "{-1,-2,-3}"] },
  { sql: "int8[]", oid: 1016, len: -1, values: ["{1,NULL,3}", "{{1,2,3},{4,5,6}}", "{9223372036854775807}"] },
  { sql: "float8[]", oid: 1022, len: -1, values: ["{1.5,NaN,-Infinity,NULL}"] },
  { sql: "numeric[]", oid: 1231, len: -1, values: ["{1.5,NULL,-0.00,1e20}", "{NaN}"] },
  { sql: "numeric(4,1)[]", oid: 1231, len: -1, values: ["{1.25,NULL}", "{12345}"] },
  { sql: "bool[]", oid: 1000, len: -1, values: ["{t,f,NULL,yes}", "{maybe}"] },
  { sql: "date[]", oid: 1182, len: -1, values: ["{2024-02-29,NULL,infinity}"] },
  { sql: "timestamptz[]", oid: 1185, len: -1, values: ['{"2024-01-01 12:00:00+02",NULL}'] },
  { sql: "uuid[]", oid: 2951, len: -1, values: ["{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}"] },
  { sql: "jsonb[]", oid: 3807, len: -1, values: ['{"{\\"a\\": 1}",null,"[1,2]"}', '{"{x}"}'] },
  { sql: "inet[]", oid: 1041, len: -1, values: ["{10.0.0.1/8,::1,NULL}"] },
  { sql: "interval[]", oid: 1187, len: -1, values: ['{"1 day",NULL,P1Y}'] },
  { sql: "bytea[]", oid: 1001, len: -1, values: ['{"\\\\x00ff",NULL,abc}'] },
  { sql: "name[]", oid: 1003, len: -1, values: ["{a,NULL,bb}"] },
  { sql: '"char"[]', oid: 1002, len: -1, values: ["{a,b,NULL}"] },
  { sql: "timetz[]", oid: 1270, len: -1, values: ['{"12:00:00+01",NULL}'] },
  { sql: "mood[]", oid: 0, len: -1, values: ["{sad,NULL,happy}", "{x}", '{"a much longer label with spaces"}'] },
  { sql: "dnn[]", oid: 0, len: -1, values: ["{a,b}", "{a,NULL}"] },
  { sql: "vc3[]", oid: 0, len: -1, values: ["{abc}", "{abcd}"] },
  {
    sql: "int4range",
    oid: 3904,
    typmod: -1,
    len: -1,
    values: ["[1,5)", "(1,5]", "(1,2)", "[3,3]", "[3,3)", "(,5)", "[,5]", "[1,)", "(,)", "[,]", "empty", " EMPTY ", "EmPtY x", "[5,1)", "[ 1 , 5 )", '["1","5"]', '[\\1,5]', "[2147483646,2147483647)", "[1,2147483647]", "(2147483647,)", "(-2147483648,0)", "1,5", "[1,5", "[1,5))", "[1,2,3)", "[a,5)", "[1,5) junk", "", "(", "[,", '["1,5)', "empty", " EMPTY ", "[1,5)", "(1,5]", "[1,5]", "(1,5)", "(1,2)", "[3,3)", "[3,3]", "(3,3]", "(,)", "[,5]", "(5,)", "[-2147483648,2147483647)", "[1,2147483647]", "(2147483647,)", "( 1 , 5 )", '["1","5")', '[1,"5"]', "[5,1)", "[1,5", "1,5)", "[1,5) x", "[1,,5)", "empty x", "[a,5)", '["",5)', "[1\\,5)"],
  },
  { sql: "int8range", oid: 3926, typmod: -1, len: -1, values: ["[1,5)", "(9223372036854775806,9223372036854775807)", "[1,9223372036854775807]", "(,0]", "(-9223372036854775808,-9223372036854775807)", "[10,1]", "[1,5)", "(-9223372036854775808,9223372036854775806]", "[0,9223372036854775807]", "(,)", "empty", "(4,5)", "[9223372036854775807,9223372036854775807]"] },
  { sql: "daterange", oid: 3912, typmod: -1, len: -1, values: ["[2024-01-01,2024-02-01)", "(2024-01-01,2024-01-02)", "(2024-01-01,2024-01-03]", "[-infinity,infinity]", "(-infinity,2024-01-01]", "(infinity,infinity]", "[2024-01-01,5874897-12-31]", "[2024-02-01,2024-01-01)", "empty", "[2020-01-01,2020-02-01)", "(2020-01-01,2020-02-01]", "[-infinity,infinity]", "(-infinity,infinity)", "(infinity,infinity]", "[2020-01-01,infinity]", "(,2020-01-01]", "empty", "[2020-01-02,2020-01-01)", "(2020-01-01,2020-01-02)"] },
  { sql: "numrange", oid: 3906, typmod: -1, len: -1, values: ["[1.5,2.50)", "[1.50,1.5]", "(1.50,1.5]", "[1e3,1000]", "(-Infinity,0]", "[0,Infinity)", "[-Infinity,Infinity]", "[NaN,NaN]", "[0,NaN)", "[NaN,0)", `[1,1${"7".repeat(300)})`, "[2,1)", "[-0.0,0]", "[abc,1)"] },
  { sql: "tsrange", oid: 3908, typmod: -1, len: -1, values: ["[2024-01-01 10:00,2024-01-01 11:00)", "(2024-01-01 10:00,2024-01-01 10:00:00]", "[-infinity,infinity)", '["2024-01-01 10:00:00.5",)', "[2024-01-02,2024-01-01)"] },
  { sql: "tstzrange", oid: 3910, typmod: -1, len: -1, values: ["[2024-01-01 10:00+02,2024-01-01 09:00Z]", "[2024-01-01 10:00+02,2024-01-01 07:00Z]", "(,2024-06-01 00:00:00-07:30)", "empty"] },
  { sql: "int4range[]", oid: 3905, len: -1, values: ['{"[1,5)",empty,NULL,"(3,4)"}', '{"[5,1)"}'] },
  {
    sql: "int4multirange",
    oid: 4451,
    typmod: -1,
    len: -1,
    values: ["{}", " { } ", "{empty}", "{[1,3)}", "{[5,7), [1,3)}", "{[1,3),[3,5)}", "{[1,3],[4,5)}", "{[1,4),[2,8)}", "{(,2),[1,)}", "{[1,2),[3,4),[5,6),[7,8),[9,10),[11,12)}", "{[1,2), empty, [2,3)}", "{[1,5),[2,3)}", '{"[1,2)"}', "{[1,2)", "{[1,2)}x", "{[1,2) [3,4)}", "{x}", "[1,2)", "{,}", "{[5,1)}", "{[1,2),}"],
  },
  { sql: "int8multirange", oid: 4536, typmod: -1, len: -1, values: ["{[1,3), [10,20), (2,4]}", "{}"] },
  { sql: "datemultirange", oid: 4535, typmod: -1, len: -1, values: ["{[2024-01-01,2024-01-05), [2024-01-05,2024-02-01), (-infinity,2023-01-01]}", "{[2024-01-01,infinity]}"] },
  { sql: "nummultirange", oid: 4532, typmod: -1, len: -1, values: ["{[1.5,2.5), [2.5,3], (4,5)}", "{[1,2), (2,3)}", "{[1,1], [1,2)}", `{[1,1${"5".repeat(200)}), [0,1)}`, "{(-Infinity,0), [0,NaN]}"] },
  { sql: "tsmultirange", oid: 4533, typmod: -1, len: -1, values: ['{["2024-01-01 10:00","2024-01-01 11:00"), [2024-01-01 09:00,2024-01-01 10:00)}'] },
  { sql: "tstzmultirange", oid: 4534, typmod: -1, len: -1, values: ["{[2024-01-01 10:00+02,2024-01-01 12:00Z), (,2023-01-01 00:00Z]}"] },
  { sql: "int4multirange[]", oid: 6150, len: -1, values: ['{"{[1,3),[2,5)}",NULL,"{}"}'] },
];

const TYPES_SQL = `
create type mood as enum ('sad', 'ok', 'happy', 'a much longer label with spaces');
create domain posint as int4;
create domain dnn as text not null;
create domain vc3 as varchar(3);
create domain vc3b as vc3;
create domain evenint as int4 check (gcd(value, 2) = 2);
create domain posint2 as int4 check (value > 0);
create domain shorttext as text check (length(value) <= 3) check (value <> 'bad');
create domain shortvc as vc3 check (value <> 'no');
`;

/** The server's catalog as InputTypes: pg_type, pg_enum and domain CHECK constraints read with SQL. */
function serverTypes(srv: PgServer): InputTypes {
  const types = new Map(
    srv.rows("select oid, typname, typlen, typalign, typelem, typtype, typcategory, typbasetype, typtypmod, typnotnull, typrelid from pg_type").map((r) => [
      Number(r[0]),
      { oid: Number(r[0]), name: r[1]!, len: Number(r[2]), align: r[3] as "c" | "s" | "i" | "d", elem: Number(r[4]), typtype: r[5]!, category: r[6]!, basetype: Number(r[7]), typmod: Number(r[8]), notnull: r[9] === "t", relid: Number(r[10]) },
    ]),
  );
  const enums = new Map(srv.rows("select enumtypid || ':' || enumlabel, oid from pg_enum").map((r) => [r[0]!, Number(r[1])]));
  // VALUE's type: the type under every domain (getBaseType)
  const checks = srv.rows("select c.contypid, c.conname, c.conbin, getbase.t from pg_constraint c, lateral (with recursive d(t) as (select c.contypid union all select typbasetype from pg_type, d where oid = d.t and typtype = 'd') select t from d, pg_type where oid = d.t and typtype <> 'd') getbase where c.contype = 'c' and c.contypid <> 0");
  return {
    type: (oid) => types.get(oid),
    enumLabelOid: (t, label) => enums.get(`${t}:${label}`),
    domainChecks: (t) => checks.filter((r) => Number(r[0]) === t).map((r) => compileDomainCheck(r[1]!, r[2]!, Number(r[3]), { defaultCtypeIsC: true })),
    range: () => undefined,
    // composite types are held to the server in test/load/types-text-search.test.ts
    descriptor: () => undefined,
    rowTypeVersion: () => undefined,
  };
}

let srv: PgServer;
let types: InputTypes;
/** per case: the column's type OID and typmod */
const columns = new Map<number, { oid: number; typmod: number }>();
/** per case: value index -> raw attribute bytes, or the server's error */
const stored: Map<number, Map<number, { bytes?: Uint8Array; error?: string }>> = new Map();

before(async () => {
  srv = await PgServer.create({});
  srv.sql("CREATE EXTENSION pageinspect; CREATE TABLE errs (c int, i int, msg text);" + TYPES_SQL);
  CASES.forEach((c, k) => {
    srv.sql(`CREATE TABLE p${k} (i int, v ${c.sql});`);
    const stmts = c.values.map((v, i) => `BEGIN EXECUTE format('INSERT INTO p${k} VALUES (${i}, %L)', ${sqlLiteral(v)}); EXCEPTION WHEN others THEN INSERT INTO errs VALUES (${k}, ${i}, SQLERRM); END;`);
    srv.sql(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO, ${c.dateStyle ?? "MDY"}'; DO $$ BEGIN ${stmts.join(" ")} END $$;`);
  });
  for (let k = 0; k < CASES.length; k++) {
    const m = new Map<number, { bytes?: Uint8Array; error?: string }>();
    const rows = srv.rows(`SELECT p.i, encode(h.t_attrs[2], 'hex') FROM heap_page_item_attrs(get_raw_page('p${k}', 0), 'p${k}'::regclass) h JOIN p${k} p ON p.ctid = ('(0,' || h.lp || ')')::tid WHERE h.t_attrs IS NOT NULL`);
    for (const [i, hex] of rows) m.set(Number(i), { bytes: Buffer.from(hex!, "hex") });
    for (const [i, msg] of srv.rows(`SELECT i, msg FROM errs WHERE c = ${k}`)) m.set(Number(i), { error: msg! });
    stored.set(k, m);
    const [oid, typmod] = srv.rows(`SELECT atttypid, atttypmod FROM pg_attribute WHERE attrelid = 'p${k}'::regclass AND attname = 'v'`)[0]!;
    columns.set(k, { oid: Number(oid), typmod: Number(typmod) });
  }
  types = serverTypes(srv);
});
after(() => srv?.stop());

for (const [k, c] of CASES.entries()) {
  test(`input: ${c.sql}${c.dateStyle ? ` (DateStyle ${c.dateStyle})` : ""}${c.values === DATE_SPELLINGS || c.values === TIME_SPELLINGS || c.values.length > 60 ? " in its other spellings" : ""} stores what the server stores, refuses what it refuses`, () => {
    const col = columns.get(k)!;
    if (c.oid) assert.equal(col.oid, c.oid, "the column's type");
    if (c.typmod !== undefined) assert.equal(col.typmod, c.typmod, "the column's typmod");
    const resolved = resolveInput(col.oid, types);
    assert.ok(!("refused" in resolved), `${c.sql} resolves`);
    const fn = resolved.input;
    const server = stored.get(k)!;
    const diffs: string[] = [];
    c.values.forEach((v, i) => {
      const s = server.get(i);
      assert.ok(s, `server result for ${JSON.stringify(v)}`);
      let ours: Uint8Array | undefined;
      let err: string | undefined;
      try {
        ours = fn(v, { typmod: col.typmod, timeZoneOffsetSeconds: 0, dateOrder: c.dateStyle });
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        err = e.message;
      }
      if (s.error !== undefined) {
        // the server's wording, or pgdisk's own refusal of a form it does not read (ISO dates only)
        if (err === undefined) diffs.push(`${JSON.stringify(v)}: server refused (${s.error}), pgdisk stored ${Buffer.from(ours!).toString("hex")}`);
        else if (err !== s.error && !(ISO_ONLY.has(String(c.oid)) && /^pgdisk reads/.test(err))) diffs.push(`${JSON.stringify(v)}: server "${s.error}", pgdisk "${err}"`);
        return;
      }
      const want = c.len === -1 ? varlenaPayload(s.bytes!) : s.bytes!;
      if (err !== undefined) diffs.push(`${JSON.stringify(v)}: server stored ${Buffer.from(want).toString("hex")}, pgdisk refused: ${err}`);
      else if (!Buffer.from(ours!).equals(Buffer.from(want))) diffs.push(`${JSON.stringify(v)}: server ${Buffer.from(want).toString("hex")}, pgdisk ${Buffer.from(ours!).toString("hex")}`);
    });
    assert.deepEqual(diffs, []);
  });
}

test("input: spellings the server reads and pgdisk refuses by name rather than guess", () => {
  for (const [type, oid, v] of REFUSED_SPELLINGS) {
    const fn = resolveInput(oid, types);
    assert.ok(!("refused" in fn));
    assert.equal(srv.rows(`SET TimeZone = 'UTC'; SELECT ${sqlLiteral(v)}::${type} IS NOT NULL`)[0]![0], "t", v);
    assert.throws(() => fn.input(v, { typmod: -1, timeZoneOffsetSeconds: 0 }), (e: unknown) => e instanceof FormatError && /^pgdisk reads /.test(e.message) && e.message.endsWith(`: "${v}"`), `${type} ${v}`);
  }
});

test("input: a domain with a CHECK constraint the evaluator cannot evaluate is refused by name, also as an array element", () => {
  const dom = Number(srv.rows("select 'evenint'::regtype::oid")[0]![0]);
  const arr = Number(srv.rows("select 'evenint[]'::regtype::oid")[0]![0]);
  for (const oid of [dom, arr]) {
    const r = resolveInput(oid, types);
    assert.ok("refused" in r);
    assert.match(r.refused, /domain evenint has CHECK constraint "evenint_check", which cannot be evaluated offline \(function \d+ cannot be evaluated offline\)/);
  }
});
