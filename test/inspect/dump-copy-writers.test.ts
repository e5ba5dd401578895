// The value writers of the COPY/CSV unload (formats/datum text-out writers: integers, floats,
// numeric, text, bytea, date/time, interval, uuid, json, inet, cidr) against a real PostgreSQL 15 server's COPY TO,
// byte for byte, on edge values of every such type: extremes, infinities, BC dates, timestamps
// past 2^53 microseconds, float exponents at the fixed/exponent boundaries, text needing every
// escape (and a leading U+FEFF), compressed and TOASTed values, a domain, a fast default
// (attmissingval) and a dropped column; with a delimiter that occurs inside values.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { pgdisk } from "../toast/cluster-helpers.js";

let srv: PgServer;
const server = new Map<string, string>();
const CASES: [name: string, copyOptions: string, cli: string[]][] = [
  ["copy defaults", "", ["--format", "copy"]],
  ["copy with '-' as delimiter", "(DELIMITER '-', NULL '')", ["--format", "copy", "--delimiter", "-", "--null", ""]],
  ["csv defaults", "(FORMAT csv)", ["--format", "csv"]],
  ["csv with '.' as delimiter and quote '0'", "(FORMAT csv, DELIMITER '.', QUOTE '0', NULL 'x')", ["--format", "csv", "--delimiter", ".", "--quote", "0", "--null", "x"]],
];

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    CREATE DOMAIN posint AS int CHECK (VALUE > 0);
    CREATE TABLE w (i2 int2, i4 int4, i8 int8, o oid, b bool, f4 float4, f8 float8, n numeric, t text, vc varchar(20), bp char(5), nm name, ch "char",
      by bytea, d date, tm time, ttz timetz, ts timestamp, tstz timestamptz, u uuid, j json, x xid, dom posint, gone int, iv interval, ip inet, nw cidr);
    INSERT INTO w VALUES
      (-32768, -2147483648, -9223372036854775808, 0, true, -3.4028235e38, -1.7976931348623157e308, 'NaN', '', '', '', '', 'a',
       '', '4713-01-01 BC', '00:00', '00:00+00', '294276-12-31 23:59:59.999999', '4713-01-01 00:00+00 BC', '00000000-0000-0000-0000-000000000000', '{}', '0', 1, 1),
      (32767, 2147483647, 9223372036854775807, 4294967295, false, 1.4e-45, 5e-324, 'Infinity', E'\\\\ \\t \\n \\r \\b \\f \\x0b - . 0 , " x', 'ünïcödé', 'ab', 'pg_class', E'\\\\001',
       '\\x00ff10', 'infinity', '24:00', '23:59:59.999999-15:59', 'infinity', '-infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '{"a": [1, "\\\\u00e9"]}', '4294967295', 2147483647, 2),
      (0, 0, 9007199254740993, 16384, NULL, 'NaN', 'NaN', '-Infinity', E'\\uFEFFbom first', NULL, 'abcde', '', E'\\\\377',
       decode(repeat('00ff7f80', 64), 'hex'), '2000-02-29', '12:34:56.000001', '12:34:56.5+05:30', '2000-01-01 00:00', '1999-12-31 23:59:59.5+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '"s"', NULL, NULL, 3),
      (-1, -1, -1, 1, true, 'Infinity', '-Infinity', '-0.000001', repeat('compressible ', 400), 'x', NULL, NULL, NULL,
       NULL, '0001-01-01', NULL, NULL, '0001-01-01 00:00 BC', '294276-12-31 23:59:59.999999+00', NULL, NULL, '1', 5, 4),
      (7, 123456, -4503599627370496, 2, false, '-0', '-0', '123456789012345678901234567890.123456789', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 300) g), NULL, NULL, NULL, NULL,
       NULL, '5874897-12-31', NULL, NULL, '1970-01-01 00:00:00.000123', '2262-04-11 23:47:16.854775+00', NULL, NULL, NULL, NULL, 5);
    INSERT INTO w (f4, f8, n) VALUES (0.0001, 0.0001, '0.0001'), (0.00009999999, 0.00009999999999999999, '-0.00010'), (999999, 999999999999999, '99999999.99'),
      (1e6, 1e15, '100000000'), (1.5e-5, 1.5e-5, '1e-20'), (123456.7, 123456789012345.6, '-123.4500'), (3.14159274, 2.718281828459045, '0.5'),
      (1e-38, 2.2250738585072014e-308, '10000'), (9.999999e5, 9.99999999999999e14, '-9999.0000');
    INSERT INTO w (f8, tstz) SELECT g * 1.1 / 3 - 1e9, timestamptz '2001-02-03 04:05:06+00' + g * interval '17.123457 seconds' FROM generate_series(-200, 200) g;
    INSERT INTO w (iv, ip, nw) VALUES ('0', '0.0.0.0', '10.0.0.0/8'),
      ('1 year 2 mons -3 days 04:05:06.7', '255.255.255.255/32', '0.0.0.0/0'),
      ('-1 year -2 mons +3 days -04:05:06.000001', '10.1.2.3/8', '192.168.1.0/24'),
      ('178000000 years', '192.168.0.1/24', '1.2.3.4/32'),
      ('-178000000 years', '::', '::/0'),
      ('2562047788:00:54.775807', '::1', '2001:db8::/32'),
      ('-2562047788:00:54.775807', '::ffff:1.2.3.4', '::ffff:1.2.3.4/128'),
      ('1 day -00:00:01', '::1.2.3.4', 'fe80::/10'),
      ('-1 mons 1 day', '2001:db8::1/64', '::1/128'),
      ('1 mon', '2001:db8:0:0:1:0:0:1', '1:2::/32'),
      ('1 day', 'fe80::1:0:0:0/10', NULL),
      ('-1 day', '1:0:0:1:0:0:0:1', NULL),
      ('00:00:00.5', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', NULL),
      ('-00:00:00.5', '1::', NULL),
      ('23:59:59.999999', '0:0:1::', NULL),
      ('1 year 1 mon 1 day 01:00:00', '::ffff:0:1.2.3.4', NULL),
      ('2147483647 days', '1:2:3:4:5:6:7:8/0', NULL),
      ('-2147483647 mons', NULL, NULL),
      ('-12 mons', NULL, NULL),
      ('13 mons -1 day +00:00:00.000001', NULL, NULL);
    ALTER TABLE w DROP COLUMN gone;
    ALTER TABLE w ADD COLUMN fast int8 DEFAULT -42, ADD COLUMN fastt text DEFAULT E'de\\tfault';
    INSERT INTO w (i4, fast, fastt) VALUES (1, NULL, NULL), (2, 3, 'x');`);
  for (const [name, opts] of CASES) server.set(name, srv.sql(`COPY w TO STDOUT ${opts}`));
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

for (const [name, , cli] of CASES) {
  test(`${name}: pgdisk's unload equals COPY TO`, () => {
    {
      const r = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "w", "-j", "1", ...cli]);
      assert.equal(r.status, 0, r.stderr);
      const want = server.get(name)!;
      assert.ok(want.split("\n").length > 400, "the server printed the rows");
      const got = r.stdout.toString("utf8");
      const w = want.split("\n");
      const g = got.split("\n");
      const diff = w.flatMap((line, i) => (line === g[i] ? [] : [`line ${i + 1}: server ${JSON.stringify(line).slice(0, 300)}\n        pgdisk ${JSON.stringify(g[i])?.slice(0, 300)}`]));
      assert.deepEqual(diff.slice(0, 10), [], `${diff.length} lines differ`);
      assert.ok(r.stdout.equals(Buffer.from(want, "utf8")), "byte for byte");
    }
  });
}
