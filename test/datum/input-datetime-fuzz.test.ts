// Dates and times made of random fields (numbers, dates with '-', '/' and '.', times, month and
// weekday names, AM/PM, BC/AD, T, zones by offset and by name, epoch, allballs, commas), each
// read by the server's date_in, timestamp_in, timestamptz_in, time_in and timetz_in (session
// TimeZone UTC, DateStyle ISO, MDY) and by pgdisk's. pgdisk must never store a value the server
// refuses, and what both store must be the same bytes; pgdisk may refuse a spelling the server
// reads (rare forms, out-of-range HHMMSS digits the server lets run on), which is counted.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { dateIn, timeIn, timestampIn, timetzIn, type InputFunction } from "../../formats/datum/input.js";
import { FormatError } from "../../formats/schema/errors.js";

const TOKENS = ["2020", "99", "05", "5", "12", "31", "13", "0", "1999", "20200105", "990108", "1030", "040506", "Jan", "january", "Sept", "Mon", "sunday", "AM", "pm", "BC", "AD", "10:30", "10:30:15.25", "25:00", "T", "Z", "UTC", "+05", "-08:00", "+0530", "America/New_York", "Europe/Paris", "2020-01-05", "1/5/2020", "05.01.20", "Jan-05-2020", "05-Jan-2020", "2020-Jan-05", "allballs", "epoch", ",", "12:00", "00:00:00", "2024-03-10", "02:30"];
const TYPES: [string, InputFunction][] = [["date", dateIn], ["timestamp", timestampIn(false)], ["timestamptz", timestampIn(true)], ["time", timeIn], ["timetz", timetzIn]];
const VALUES = (() => {
  const r = new Rng(20261204);
  return Array.from({ length: 3000 }, () => Array.from({ length: r.int(1, 5) }, () => r.pick(TOKENS)).join(r.pick([" ", " ", "  "])));
})();

let srv: PgServer;
/** type/index -> the server's send-function bytes (hex) or null when it refused */
const server = new Map<string, string | null>();

before(async () => {
  srv = await PgServer.create({});
  srv.sql("create table v (i int, t text); create table res (i int, ty text, hex text);");
  srv.sql(`insert into v values ${VALUES.map((v, i) => `(${i}, '${v.replace(/'/g, "''")}')`).join(",")};`);
  for (const [ty] of TYPES) {
    srv.sql(`set timezone = 'UTC'; set datestyle = 'iso, mdy'; do $$ declare x record; begin for x in select * from v loop begin insert into res values (x.i, '${ty}', encode(${ty}_send(x.t::${ty}), 'hex')); exception when others then insert into res values (x.i, '${ty}', null); end; end loop; end $$;`);
  }
  for (const [i, ty, hex] of srv.rows("select i, ty, hex from res")) server.set(`${ty}/${i}`, hex);
});
after(() => srv?.destroy());

/** pgdisk's little-endian datum in the send function's big-endian order (timetz: time, then zone). */
function asSent(ty: string, b: Uint8Array): string {
  const be = (x: Uint8Array): string => Buffer.from(x).reverse().toString("hex");
  return ty === "timetz" ? be(b.subarray(0, 8)) + be(b.subarray(8)) : be(b);
}

for (const [ty, fn] of TYPES) {
  test(`${ty}: 3,000 random spellings: never stored where the server refuses, equal where both store`, () => {
    const diffs: string[] = [];
    let both = 0;
    let serverOnly = 0;
    VALUES.forEach((v, i) => {
      const s = server.get(`${ty}/${i}`);
      assert.notEqual(s, undefined, v);
      let ours: string | null = null;
      try {
        ours = asSent(ty, fn(v, { typmod: -1, timeZoneOffsetSeconds: 0 }));
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
      }
      if (ours !== null && s === null) diffs.push(`${JSON.stringify(v)}: the server refuses it, pgdisk stored ${ours}`);
      else if (ours !== null && ours !== s) diffs.push(`${JSON.stringify(v)}: server ${s}, pgdisk ${ours}`);
      else if (ours !== null) both++;
      else if (s !== null) serverOnly++;
    });
    assert.deepEqual(diffs, []);
    // most of what the server reads, pgdisk reads too (the rest is refused, never guessed)
    assert.ok(both >= 4 * serverOnly, `${both} read by both, ${serverOnly} by the server only`);
  });
}
