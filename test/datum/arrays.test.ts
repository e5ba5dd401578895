// Arrays of every supported element type: one to six dimensions, lower bounds other than 1,
// NULL elements (null bitmap), empty arrays, element alignment (also under 1-byte array
// headers), array_out quoting, and anyarray.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";
import { datumToText, builtinTypeLookup } from "../../formats/datum/index.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(1007);
const pick = <T>(a: T[]): T => a[Math.floor(random() * a.length)]!;

const ELEMENTS: Record<string, string[]> = {
  bool: ["true", "false"],
  int2: ["0", "-32768", "32767", "7"],
  int4: ["0", "-1", "2147483647", "-2147483648", "42"],
  int8: ["0", "-9223372036854775808", "9223372036854775807", "1"],
  oid: ["0", "4294967295", "16384"],
  xid: ["'0'", "'4294967295'"],
  cid: ["'0'", "'7'"],
  xid8: ["'0'", "'18446744073709551615'"],
  float4: ["'NaN'", "'-Infinity'", "'-0'", "1.5e-5", "3.4028235e38", "0.1"],
  float8: ["'NaN'", "'Infinity'", "'-0'", "1e20", "1.5e-05", "0.1", "1e23"],
  numeric: ["'NaN'", "'Infinity'", "'-Infinity'", "0", "-1.50", "'1e300'", "'0.' || repeat('0', 70) || '1'", "123456.789"],
  text: ["''", "' '", "'NULL'", "'null'", "'a,b'", "'a\"b'", "'a\\b'", "'{x}'", "'x y'", "E'tab\\t'", "E'nl\\n'", "'plain'", "'ünï😀'", "'Null x'", "'a;b'", "repeat('w', 150)"],
  varchar: ["''", "'v'", "'with space'", "'q\"'"],
  "varchar(3)": ["'abc'", "'x'", "''"],
  bpchar: ["'a'", "'b  '", "''"],
  "char(4)": ["'ab'", "'abcd'", "''"],
  name: ["'pg_class'", "''", "'with space'", "'NULL'"],
  '"char"': ["'a'", "'\\351'", "''", "' '", "'\"'", "'\\\\'", "','"],
  bytea: ["''", "'\\x00ff'", "'\\xdeadbeef'"],
  date: ["'2000-01-01'", "'infinity'", "'0044-03-15 BC'", "'-infinity'"],
  time: ["'00:00'", "'24:00'", "'12:34:56.789'"],
  timetz: ["'12:00+05:30'", "'00:00-08'", "'23:59:59.999999+00'"],
  timestamp: ["'2000-01-01 00:00'", "'infinity'", "'1066-10-14 09:00 BC'", "'2024-02-29 12:00:00.1'"],
  timestamptz: ["'2000-01-01 00:00+00'", "'-infinity'", "'2024-02-29 12:00:00.1+02'"],
  interval: ["'0'", "'1 year 2 mons 3 days 04:05:06.789'", "'-1 day +1 hour'", "'-00:00:00.5'"],
  uuid: ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"],
  json: ["'{\"a\": [1, 2]}'", "'\"s\"'", "'null'"],
  jsonb: ["'{\"a\": [1, 2], \"b\": {\"c\": null}}'", "'\"s p\"'", "'null'", "'1.50'", "'[]'"],
  inet: ["'1.2.3.4'", "'10.0.0.0/8'", "'::ffff:1.2.3.4'", "'2001:db8::1/64'"],
  cidr: ["'10.0.0.0/8'", "'2001:db8::/32'"],
  macaddr: ["'08:00:2b:01:02:03'"],
  macaddr8: ["'08:00:2b:01:02:03:04:05'"],
  tid: ["'(0,1)'", "'(4294967295,65535)'"],
  pg_lsn: ["'16/B374D848'", "'0/0'"],
  money: ["'-1234.5'", "0"],
  "bit(3)": ["B'101'", "B'000'"],
  varbit: ["B''", "B'1'", "B'100000001'"],
  point: ["'(1,2)'", "'(-0,1e300)'"],
  box: ["'(1,1),(0,0)'", "'(3,4),(1,2)'"],
  lseg: ["'[(0,0),(1,1)]'"],
  line: ["'{1,2,3}'"],
  circle: ["'<(0,0),1.5>'"],
  path: ["'[(0,0),(1,1)]'", "'((0,0),(1,1),(2,0))'"],
  polygon: ["'((0,0),(1,1),(2,0))'"],
  int4range: ["'empty'", "'[1,5)'", "'(,)'"],
  numrange: ["'[1.5,2.25]'", "'(,3)'"],
  daterange: ["'[2000-01-01,2000-02-01)'"],
  tstzrange: ["'[2000-01-01 00:00+00,)'"],
  oidvector: ["'1 2 3'", "''"],
  int2vector: ["'1 -2'", "''"],
  regclass: ["'pg_class'", "0"],
  regtype: ["'int4'"],
};

/** Array expressions over the given element literals. */
/** element types wide enough that 40-70 of them would get the array compressed */
const WIDE = new Set(["name", "path", "polygon"]);

function arrays(t: string, els: string[]): string[] {
  const wide = WIDE.has(t);
  const arr = (xs: string[]): string => `ARRAY[${xs.join(",")}]::${t}[]`;
  const withBounds = (a: string, bounds: string): string => `(SELECT ('${bounds}=' || a::text)::${t}[] FROM (SELECT ${a} AS a) s)`;
  const some = (n: number, nulls = 0): string[] => Array.from({ length: n }, () => (random() < nulls ? "NULL" : pick(els)));
  const n = els.length;
  const out = [
    `'{}'::${t}[]`,
    arr(els),
    arr([...els, "NULL"]),
    arr(["NULL", ...els]),
    arr(["NULL"]),
    arr(["NULL", "NULL", "NULL"]),
    arr(some(9, 0.4)),
    arr(some(70, wide ? 0.95 : 0.3)), // null bitmap longer than 8 bytes
    arr(some(wide ? 5 : 40)), // usually past 126 bytes: 4-byte array header
    `ARRAY[[${some(2).join(",")}],[${some(2, 0.5).join(",")}]]::${t}[]`,
    `ARRAY[[[${some(2).join(",")}],[${some(2).join(",")}]],[[${some(2).join(",")}],[${some(2, 0.3).join(",")}]]]::${t}[]`,
    withBounds(arr(els), `[0:${n - 1}]`),
    withBounds(arr([...els, "NULL"]), `[-5:${n - 5}]`),
    withBounds(arr([pick(els)]), "[2147483646:2147483646]"),
    withBounds(`ARRAY[[${some(3).join(",")}],[${some(3, 0.3).join(",")}]]::${t}[]`, "[2:3][-1:1]"),
    `array_fill(NULL::${t}, ARRAY[1,2,1,2,1,2])`,
    `array_fill((${pick(els)})::${t}, ARRAY[2,1,2,1,2,1], ARRAY[0,1,2,3,4,5])`,
  ];
  return out;
}

// reg* print names on the server and OIDs here ("-" for 0), so compare with the oid[] text
const REG_EXPECTED = "regexp_replace(v::oid[]::text, '(?<=[{,])0(?=[,}])', '-', 'g')";

for (const [t, els] of Object.entries(ELEMENTS)) {
  test(`${t}[] matches the server`, () => {
    const values = arrays(t, els);
    const r = h.check(`${t}[]`, values, t.startsWith("reg") ? { expected: REG_EXPECTED } : {});
    assert.equal(r.mismatches.length, 0, describe(`${t}[]`, r));
    assert.equal(r.compared, values.length);
  });
}

test("short (1-byte header) arrays keep 4-byte-form alignment: int8[], float8[], interval[], timetz[]", () => {
  for (const t of ["int8", "float8", "interval", "timetz", "int2", "text"]) {
    const values = [`'{1}'`, `'{NULL,1}'`, `'{1,NULL,1}'`].map((v) => (t === "interval" || t === "timetz" ? v.replace(/1/g, '"01:00"') : t === "text" ? v.replace(/1/g, "x") : v));
    const r = h.check(`${t}[]`, values.map((v) => `${v}::${t}[]`));
    assert.equal(r.mismatches.length, 0, describe(`${t}[]`, r));
    assert.ok(r.payloads.every((p) => p.header === "1b"), `${t}[] small arrays should be stored with 1-byte headers`);
  }
});

test("anyarray (as in pg_statistic / attmissingval) decodes from the element type in the header", () => {
  for (const t of ["int4", "text", "float8", "numeric", "timestamptz", "jsonb"]) {
    const values = arrays(t, ELEMENTS[t]!);
    const r = h.check(`${t}[]`, values);
    assert.equal(r.mismatches.length, 0, describe(`${t}[]`, r));
    // the same payloads, which printed as the server does, read as anyarray (OID 2277) must print the same text
    const arrayOid = Number(h.srv.rows(`SELECT '${t}[]'::regtype::oid`)[0]![0]);
    for (const { payload } of r.payloads) assert.equal(datumToText(payload, 2277, -1, builtinTypeLookup), datumToText(payload, arrayOid, -1, builtinTypeLookup));
  }
});
