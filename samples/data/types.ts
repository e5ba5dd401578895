// all_types: one column per common built-in type, with NULLs sprinkled (~8% per column).
// The first rows walk through each column's edge values (extremes, NaN/Infinity, -0, empty,
// escapes, non-ASCII, 2-D arrays, arrays with NULL elements and non-default lower bounds); the
// rest are random. The table is vacuumed with FREEZE, so its tuples carry frozen xmins.
import type { Field } from "../copy.js";
import type { Rng } from "../prng.js";
import type { GenContext, TableReport } from "../loader.js";
import { isoAt, pad, words, WORDS } from "./words.js";

interface Column {
  name: string;
  type: string;
  edges: Field[];
  random: (r: Rng) => string;
}

const two = (n: number) => pad(n, 2);
const fmtTime = (r: Rng) => `${two(r.int(0, 23))}:${two(r.int(0, 59))}:${two(r.int(0, 59))}.${pad(r.int(0, 999999), 6)}`;
const int8 = (r: Rng) => String(BigInt.asIntN(64, (BigInt(r.u32()) << 32n) | BigInt(r.u32())));
const numeric = (r: Rng) => {
  const int = r.chance(0.3) ? String(r.int(0, 9)) : String(r.int(0, 2 ** 31)) + (r.chance(0.3) ? String(r.int(0, 1e9)) : "");
  const frac = r.chance(0.7) ? "." + String(r.int(0, 1e9)).padStart(r.int(1, 12), "0") : "";
  return (r.chance(0.3) ? "-" : "") + int + frac;
};
const ipv4 = (r: Rng) => `${r.int(1, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(0, 255)}`;
const intArr = (r: Rng) => `{${Array.from({ length: r.int(0, 6) }, () => (r.chance(0.15) ? "NULL" : String(r.int(-1000, 1000)))).join(",")}}`;

const COLUMNS: Column[] = [
  { name: "c_bool", type: "bool", edges: ["t", "f"], random: (r) => (r.chance(0.5) ? "t" : "f") },
  { name: "c_int2", type: "int2", edges: ["-32768", "32767", "0", "-1"], random: (r) => String(r.int(-32768, 32767)) },
  { name: "c_int4", type: "int4", edges: ["-2147483648", "2147483647", "0"], random: (r) => String(r.int(-(2 ** 31), 2 ** 31 - 1)) },
  { name: "c_int8", type: "int8", edges: ["-9223372036854775808", "9223372036854775807", "0"], random: int8 },
  { name: "c_oid", type: "oid", edges: ["0", "4294967295", "1259"], random: (r) => String(r.u32()) },
  {
    name: "c_float4",
    type: "float4",
    edges: ["NaN", "Infinity", "-Infinity", "-0", "1.17549435e-38", "3.4028235e+38", "1e-45"],
    random: (r) => (r.gaussian() * 10 ** r.int(-5, 8)).toPrecision(6),
  },
  {
    name: "c_float8",
    type: "float8",
    edges: ["NaN", "Infinity", "-Infinity", "-0", "2.2250738585072014e-308", "1.7976931348623157e+308", "5e-324"],
    random: (r) => (r.gaussian() * 10 ** r.int(-10, 15)).toPrecision(15),
  },
  {
    name: "c_numeric",
    type: "numeric",
    edges: ["NaN", "Infinity", "-Infinity", "0", "0.000000000000000000001", "-123456789012345678901234567890.123456789", "1e100", "10000", "0.1000"],
    random: numeric,
  },
  {
    name: "c_text",
    type: "text",
    edges: ["", "tab\there", "line1\nline2", "back\\slash", "ünïcödé ✓ 日本語 🐘", "'quoted' \"double\"", " leading and trailing "],
    random: (r) => words(r, r.int(1, 20)),
  },
  { name: "c_varchar", type: "varchar(40)", edges: ["", "x".repeat(40), "mixed Case"], random: (r) => words(r, r.int(1, 4)).slice(0, 40) },
  { name: "c_bpchar", type: "char(8)", edges: ["", "12345678", "ab"], random: (r) => r.hex(r.int(1, 8)) },
  { name: "c_name", type: "name", edges: ["", "n".repeat(63), "pg_class"], random: (r) => `${r.pick(WORDS)}_${r.int(0, 9999)}` },
  { name: "c_char", type: '"char"', edges: ["a", "Z", "0"], random: (r) => String.fromCharCode(r.int(97, 122)) },
  {
    name: "c_bytea",
    type: "bytea",
    edges: ["\\x", "\\x00", "\\x00ff00ff", "\\xdeadbeef"],
    random: (r) => `\\x${r.hex(2 * r.int(0, 40))}`,
  },
  {
    name: "c_date",
    type: "date",
    edges: ["infinity", "-infinity", "2000-01-01", "1970-01-01", "0044-03-15 BC", "5874897-12-31"],
    random: (r) => isoAt(r.int(-3e9, 3e9)).slice(0, 10),
  },
  { name: "c_time", type: "time", edges: ["00:00:00", "23:59:59.999999", "24:00:00"], random: fmtTime },
  {
    name: "c_timetz",
    type: "timetz",
    edges: ["00:00:00+00", "23:59:59.999999-15:59", "12:00:00+05:30"],
    random: (r) => `${fmtTime(r)}${r.chance(0.5) ? "+" : "-"}${two(r.int(0, 14))}:${r.pick(["00", "30", "45"])}`,
  },
  {
    name: "c_timestamp",
    type: "timestamp",
    edges: ["infinity", "-infinity", "2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "4713-01-01 00:00:00 BC"],
    random: (r) => `${isoAt(r.int(-3e9, 3e9)).slice(0, 19)}.${pad(r.int(0, 999999), 6)}`,
  },
  {
    name: "c_timestamptz",
    type: "timestamptz",
    edges: ["infinity", "-infinity", "2000-01-01 00:00:00+00", "2024-02-29 12:34:56.789+05:30"],
    random: (r) => isoAt(r.int(-3e9, 3e9)),
  },
  {
    name: "c_interval",
    type: "interval",
    edges: ["0", "1 year 2 mons 3 days 04:05:06.789", "-178000000 years", "-1 day +01:00:00", "00:00:00.000001"],
    random: (r) => `${r.int(-20, 20)} mons ${r.int(-40, 40)} days ${r.int(0, 86399)} seconds`,
  },
  { name: "c_uuid", type: "uuid", edges: ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"], random: (r) => r.uuid() },
  {
    name: "c_json",
    type: "json",
    edges: ['{"b": 1,  "a": [1, 2, {"x": null}], "b": 2}', "[]", '"just a string"', "123.4500", "null"],
    random: (r) => JSON.stringify({ id: r.int(1, 1e6), name: r.pick(WORDS), ok: r.chance(0.5) }),
  },
  {
    name: "c_jsonb",
    type: "jsonb",
    edges: ['{"nested": {"deep": {"deeper": [1, "two", 3.0, null, true, false]}}}', "{}", "[]", '"\\u00e9t\\u00e9 \\ud83d\\udc18"', "1e-5", '{"": ""}'],
    random: (r) =>
      JSON.stringify({ k: r.pick(WORDS), n: r.int(-1e6, 1e6), f: Number(r.float().toFixed(4)), arr: [r.int(0, 9), r.pick(WORDS)], sub: r.chance(0.5) ? { x: r.int(0, 3) } : null }),
  },
  {
    name: "c_inet",
    type: "inet",
    edges: ["0.0.0.0/0", "255.255.255.255", "192.168.1.5/24", "::1", "2001:db8::1/64", "::ffff:10.0.0.1"],
    random: (r) => (r.chance(0.7) ? `${ipv4(r)}${r.chance(0.5) ? "/" + r.int(8, 32) : ""}` : `2001:db8:${r.hex(4)}:${r.hex(4)}::${r.hex(4)}`),
  },
  {
    name: "c_cidr",
    type: "cidr",
    edges: ["0.0.0.0/0", "10.0.0.0/8", "192.168.100.128/25", "2001:db8::/32", "::/0"],
    random: (r) => `${r.int(1, 223)}.${r.int(0, 255)}.0.0/16`,
  },
  { name: "c_int4_arr", type: "int4[]", edges: ["{}", "{NULL}", "{1,NULL,3}", "[0:2]={7,8,9}", "{2147483647,-2147483648}"], random: intArr },
  {
    name: "c_text_arr",
    type: "text[]",
    edges: ["{}", '{"",NULL,"NULL"}', '{"with \\"quotes\\"","with,comma","with space","back\\\\slash"}', '{"ünï","日本"}'],
    random: (r) => `{${Array.from({ length: r.int(0, 5) }, () => (r.chance(0.1) ? "NULL" : r.pick(WORDS))).join(",")}}`,
  },
  {
    name: "c_int4_2d",
    type: "int4[][]",
    edges: ["{{1,2},{3,4}}", "{{1,NULL},{NULL,4}}", "{{1},{2},{3}}", "[-1:0][5:6]={{1,2},{3,4}}"],
    random: (r) => {
      const rows = r.int(1, 3);
      const cols = r.int(1, 4);
      const row = () => `{${Array.from({ length: cols }, () => (r.chance(0.1) ? "NULL" : String(r.int(0, 99)))).join(",")}}`;
      return `{${Array.from({ length: rows }, row).join(",")}}`;
    },
  },
  {
    name: "c_float8_arr",
    type: "float8[]",
    edges: ["{NaN,Infinity,-Infinity,-0}", "{}", "{1.5,NULL,2.5}"],
    random: (r) => `{${Array.from({ length: r.int(1, 8) }, () => r.gaussian().toPrecision(10)).join(",")}}`,
  },
];

const EDGE_ROWS = Math.max(...COLUMNS.map((c) => c.edges.length));

/** numeric infinities came with PostgreSQL 14: older servers get NaN in their place. */
function edgeFor(ctx: GenContext, c: (typeof COLUMNS)[number], v: Field): Field {
  return !ctx.features.numericInfinity && c.type === "numeric" && typeof v === "string" && v.includes("Infinity") ? "NaN" : v;
}

function* rows(ctx: GenContext): Generator<Field[]> {
  const r = ctx.rng;
  for (let id = 1; id <= ctx.profile.types; id++) {
    const out: Field[] = [String(id)];
    for (const c of COLUMNS) {
      if (id <= EDGE_ROWS) out.push(edgeFor(ctx, c, c.edges[(id - 1) % c.edges.length]));
      else if (id === EDGE_ROWS + 1) out.push(null); // one row of all NULLs
      else out.push(r.chance(0.08) ? null : c.random(r));
    }
    yield out;
  }
}

export function buildTypes(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE public.all_types (
      id int PRIMARY KEY,
      ${COLUMNS.map((c) => `${c.name} ${c.type}`).join(",\n      ")}
    );
  `);
  const n = db.copy("public.all_types", ["id", ...COLUMNS.map((c) => c.name)], rows(ctx));
  db.sql(`VACUUM (FREEZE, ANALYZE) public.all_types;`);
  return [
    {
      database: db.name,
      schema: "public",
      name: "all_types",
      rows: n,
      orderBy: "id",
      scanSafe: true,
      description: `${COLUMNS.length} columns of built-in types (incl. 2-D arrays, NULL elements), NULLs sprinkled, frozen`,
    },
  ];
}
