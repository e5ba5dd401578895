// date, time, timetz, timestamp, timestamptz, interval (DateStyle ISO, TimeZone UTC,
// IntervalStyle postgres) against a real server, including BC dates, infinities and extremes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(1082);
const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

// random day offsets (from 2000-01-01) between 4713 BC and 5874897 AD, weighted towards the present
const randomDays = (): number => (random() < 0.3 ? int(-2451544, 2145031949) : int(-800000, 800000));
const us = (): string => `${int(0, 86399)} * interval '1 second' + ${int(0, 999999)} * interval '1 microsecond'`;

const cases: [string, string[]][] = [
  ["date", ["'2000-01-01'", "'1999-12-31'", "'2000-02-29'", "'1900-03-01'", "'1600-02-29'", "'0001-01-01'", "'0001-12-31 BC'", "'0001-01-01 BC'", "'0005-03-01 BC'",
    "'4713-01-01 BC'", "'5874897-12-31'", "'infinity'", "'-infinity'", "'1970-01-01'", "'10000-01-01'", "'99999-12-31'",
    ...Array.from({ length: 1500 }, () => `date '2000-01-01' + ${randomDays()}`)]],
  ["time", ["'00:00'", "'23:59:59.999999'", "'24:00:00'", "'12:34:56.5'", "'00:00:00.000001'", "'01:02:03.1'", "'13:00:00.123'",
    ...Array.from({ length: 500 }, () => `time '00:00' + ${us()}`)]],
  ["time(2)", ["'12:34:56.789'", "'23:59:59.996'", "'00:00:00.001'"]],
  ["timetz", ["'00:00+00'", "'12:00+05:30'", "'12:00-08'", "'23:59:59.999999+15:59'", "'00:00-15:59:59'", "'12:00+05:30:15'", "'24:00:00-01'", "'04:05:06.7-00:00:30'",
    ...Array.from({ length: 300 }, () => `(time '00:00' + ${us()})::text || '${random() < 0.5 ? "+" : "-"}${int(0, 15)}:${int(0, 59)}:${random() < 0.2 ? int(0, 59) : 0}'`)]],
  ["timestamp", ["'2000-01-01'", "'1970-01-01 00:00:00'", "'1999-12-31 23:59:59.999999'", "'2000-01-01 00:00:00.000001'", "'infinity'", "'-infinity'",
    "'4713-01-01 00:00:00 BC'", "'294276-12-31 23:59:59.999999'", "'0001-01-01 00:00:00'", "'0001-12-31 23:59:59.5 BC'", "'1066-10-14 09:00:00.25 BC'",
    "'2024-02-29 12:00:00.1'", "'10000-01-01 00:00:00'",
    ...Array.from({ length: 1000 }, () => `timestamp '2000-01-01' + ${randomDays() % 100000000} * interval '1 day' + ${us()}`)]],
  ["timestamp(0)", ["'2000-01-01 12:00:00.5'", "'1999-12-31 23:59:59.4'"]],
  ["timestamptz", ["'2000-01-01 00:00:00+00'", "'2000-01-01 00:00:00+05:30'", "'1999-12-31 23:59:59.999999-08'", "'infinity'", "'-infinity'",
    "'4713-01-01 00:00:00+00 BC'", "'294276-12-31 23:59:59.999999+00'", "'0001-01-01 00:00:00+00'", "'0044-03-15 12:00:00+01 BC'", "'1883-11-18 12:00:00 America/New_York'",
    ...Array.from({ length: 1000 }, () => `timestamptz '2000-01-01 00:00:00+00' + ${randomDays() % 100000000} * interval '1 day' + ${us()}`)]],
  ["interval", ["'0'", "'1 year 2 mons 3 days 04:05:06.789'", "'-1 year'", "'-1 mon'", "'1 mon'", "'1 day -1 hour'", "'-1 day +1 hour'", "'-1 day -1 hour'", "'@ 1 min ago'",
    "'1 year -1 mon'", "'-1 year +1 mon'", "'1 year -1 day'", "'-1 year -2 mons +3 days -04:05:06'", "'178000000 years'", "'-178000000 years'", "'2147483647 days'",
    "'-2147483648 days'", "'2562047788:00:54.775807'", "interval '-2562047788:00:54.775807' - interval '1 microsecond'", "'-00:00:00.5'", "'00:00:00.000001'", "'1 mon -1 day'", "'12 mons'", "'13 mons'", "'-13 mons'",
    "'1 day'", "'2 days'", "'-1 days'", "'1 hour'", "'-1 second'", "'100 hours'", "'1.5 seconds'", "'1 year 00:00:01'", "'-1 year 00:00:01'", "'1 year -00:00:01'",
    ...Array.from({ length: 1000 }, () => `make_interval(${int(-300, 300)}, ${int(-30, 30)}, 0, ${int(-400, 400)}, ${int(-100, 100)}, ${int(-100, 100)}, ${(random() * 200 - 100).toFixed(int(0, 6))})`),
    ...Array.from({ length: 200 }, () => `make_interval(0, 0, 0, ${random() < 0.5 ? 0 : int(-3, 3)}, 0, 0, ${(random() * 2 - 1).toFixed(6)})`)]],
  ["interval(0)", ["'1.5 seconds'", "'-1 day 12:00:00.7'"]],
];

for (const [type, values] of cases) {
  test(`${type} matches the server`, () => {
    const r = h.check(type, values);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
  });
}
