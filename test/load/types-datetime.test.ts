// `pgdisk load` of dates and timestamps in the spellings COPY FROM reads besides ISO 8601, held to
// COPY FROM by a twin: the DateStyle a session of the database starts with decides the field
// order of numeric dates (here ALTER DATABASE's 'SQL, DMY' over ALTER SYSTEM's 'SQL, YMD'); month and weekday names, 2-digit
// years, BC, AM/PM, concatenated digits, numeric offsets and IANA zone names across DST
// transitions. Zoneless timestamptz values are read in UTC (the twin's session says so).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../samples/prng.js";
import type { Field } from "../../samples/copy.js";
import { fileDigests } from "../migrate/helpers.js";
import { assertTwinsAgree, loadTwins, pgdiskLoad, removeTwins, type LoadTwins } from "./helpers.js";
import { join } from "node:path";

const DB = "dt";
const ROWS = 1500;
const SETUP = `
create extension pageinspect;
alter system set datestyle = 'sql, ymd';
alter database dt set datestyle = 'sql, dmy';
create table dt (n int4, d date, ts timestamp, tz timestamptz, tz0 timestamptz(0), ad date[]);
create index on dt (tz);
`;

const MONTHS = ["Jan", "February", "Mar", "April", "May", "Jun", "July", "Aug", "Sept", "Oct", "November", "Dec"];
const DAYS = ["Sun", "Monday", "Tue", "Wednesday", "Thu", "Friday", "Sat"];
const ZONES = ["America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Apia", "America/Sao_Paulo", "Europe/London", "Africa/Casablanca", "Asia/Kathmandu", "America/St_Johns"];

function rows(): Field[][] {
  const r = new Rng(20261204);
  const pad = (n: number): string => String(n).padStart(2, "0");
  const date = (): string => {
    const y = r.int(1970, 2060);
    const m = r.int(1, 12);
    const d = r.int(1, 28);
    const yy = pad(y % 100);
    // DMY order for the numeric forms: day first
    return r.pick([
      `${y}-${pad(m)}-${pad(d)}`,
      `${d}/${m}/${y}`,
      `${pad(d)}/${pad(m)}/${y}`,
      `${d}.${m}.${yy}`,
      `${d}-${MONTHS[m - 1]}-${y}`,
      `${MONTHS[m - 1]} ${d}, ${y}`,
      `${DAYS[r.int(0, 6)]} ${d} ${MONTHS[m - 1]} ${y}`,
      `${y}${pad(m)}${pad(d)}`,
      `${y}-${MONTHS[m - 1]}-${pad(d)}`,
      `${MONTHS[m - 1].toUpperCase()}-${pad(d)}-${yy}`,
      `${d} ${MONTHS[m - 1]} ${y - 2000 < 0 ? y : y} AD`,
    ]);
  };
  const time = (): string => {
    const h = r.int(0, 23);
    const mi = pad(r.int(0, 59));
    const s = pad(r.int(0, 59));
    return r.pick([`${pad(h)}:${mi}:${s}`, `${h}:${mi}`, `${pad(h)}:${mi}:${s}.${r.int(0, 999999)}`, `${h % 12 || 12}:${mi} ${h < 12 ? "AM" : "pm"}`, `${pad(h)}${mi}${s}`, "allballs"]);
  };
  const zone = (): string => r.pick(["", "", " Z", "+05:30", " -08", " +0545", ` ${r.pick(ZONES)}`, ` ${r.pick(ZONES).toLowerCase()}`, " UTC"]);
  const stamp = (): string => {
    const d = date();
    const t = time();
    // a time of 4 or 6 digits follows a whole date only
    return `${d}${/^\d{8}$/.test(d) && /^\d/.test(t) && r.chance(0.5) ? "T" : " "}${t}`;
  };
  // allballs is midnight UTC: no other zone after it
  const zoned = (): string => {
    const s = stamp();
    return s.endsWith("allballs") ? s : s + zone();
  };
  const out: Field[][] = [];
  for (let i = 0; i < ROWS; i++) {
    const nul = (f: () => string): Field => (r.chance(0.05) ? null : f());
    out.push([String(i + 1), nul(date), nul(stamp), nul(zoned), nul(zoned), nul(() => `{${Array.from({ length: r.int(0, 3) }, () => `"${date()}"`).join(",")}}`)]);
  }
  // times at DST transitions: gaps take the offset before, overlaps the offset after
  for (const v of ["10/03/2024 02:30 America/New_York", "03/11/2024 01:30 America/New_York", "31/03/2024 02:30 Europe/Berlin", "27/10/2024 02:30 Europe/Berlin", "29/12/2011 23:59 Pacific/Apia", "07/04/2024 01:45 Australia/Lord_Howe"]) {
    out.push([String(out.length + 1), null, v, v, v, null]);
  }
  return out;
}

let t: LoadTwins;
before(async () => {
  t = await loadTwins(SETUP, { db: DB, table: "dt", lines: rows(), tag: "datetime" });
});
after(() => removeTwins(t?.srv, [t?.loadedRoot, t?.twinRoot].filter(Boolean) as string[], t?.dir ?? ""));

test("dates and timestamps in the server's other spellings load as COPY FROM stores them, under the database's DateStyle", () => {
  assertTwinsAgree(t, { db: DB, table: "dt", rows: ROWS + 6, order: "n", twinSql: "set timezone = 'UTC';" });
});

test("values the loader does not read are refused by name with line and column; nothing changes", () => {
  const pgdata = join(t.srv.root, "data");
  const before0 = fileDigests(pgdata);
  for (const [line, pattern] of [
    ["1\t\\N\t\\N\t05/01/2020 10:00 EST\t\\N\t\\N\n", /pgdisk reads zones as UTC, a numeric offset or an IANA name such as Europe\/Paris, not the abbreviation or word "est": "05\/01\/2020 10:00 EST" \(input line 1, column tz/],
    ["1\ttoday\t\\N\t\\N\t\\N\t\\N\n", /pgdisk reads fixed dates and times, not "today" \(the moment of the load\): "today" \(input line 1, column d/],
    ["1\t\\N\t\\N\t1969-12-31 12:00 Europe/Paris\t\\N\t\\N\n", /pgdisk reads IANA zone names for times from 1970 on .* \(input line 1, column tz/],
    ["1\t31/02/2020\t\\N\t\\N\t\\N\t\\N\n", /date\/time field value out of range: "31\/02\/2020" \(input line 1, column d/],
    ["1\t\\N\t05/01/2020 10:00 Mars/Olympus\t\\N\t\\N\t\\N\n", /time zone "mars\/olympus" not recognized \(input line 1, column ts/],
  ] as const) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "dt", "-"], line);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, pattern);
  }
  assert.deepEqual(fileDigests(pgdata), before0);
});
