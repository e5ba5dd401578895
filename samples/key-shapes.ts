// The key shapes of the BTP_PREFIX proposal and issue 4, as SQL: a table per shape filled from
// generate_series (x = i * 7919 mod M spreads the keys over the heap; M < rows gives duplicates),
// some NULLs, and the key columns or expressions an index is built on. Shared by the tests
// (a few thousand rows) and bench/btree/sizes.ts (200 000 rows).

export interface KeyShape {
  name: string;
  label: string;
  /** columns after `id int` */
  columns: string;
  /** one SQL expression per column, over i (1..rows) and x (the spread key number) */
  values: string[];
  /** index key list (columns or expressions) */
  keys: string[];
  /** the proposal's size change for this shape, if it gives one (percent) */
  proposal?: number;
}

const pick = (xs: string[], at: string): string => `(array[${xs.map((s) => `'${s}'`).join(",")}])[1 + (${at}) % ${xs.length}]`;
const nullEvery = (n: number, e: string): string => `case when i % ${n} = 0 then null else ${e} end`;

export const KEY_SHAPES: KeyShape[] = [
  {
    name: "urls",
    label: "URLs",
    columns: "url text",
    values: [nullEvery(41, `'https://' || ${pick(["www.example.com", "shop.example.org", "api.example.net"], "x")} || '/products/' || (x / 21) || '/reviews?sort=recent&page=' || (x / 3 % 7)`)],
    keys: ["url"],
    proposal: -35,
  },
  {
    name: "paths",
    label: "file paths",
    columns: "path text",
    values: [nullEvery(43, `'/var/lib/app/data/' || ${pick(["images", "logs", "exports", "cache"], "x")} || '/' || (x / 4 % 100) || '/segment_' || lpad((x / 400)::text, 6, '0') || '.parquet'`)],
    keys: ["path"],
    proposal: -27,
  },
  {
    name: "tenant",
    label: "tenant-prefixed keys",
    columns: "k text",
    values: [nullEvery(47, `'tenant-' || lpad((x % 40)::text, 4, '0') || ':order:' || lpad((x / 40)::text, 7, '0')`)],
    keys: ["k"],
    proposal: -18,
  },
  {
    name: "trsn",
    label: "(tenant_id, region, status, name)",
    columns: "tenant_id int, region text, status text, name text",
    values: [`x % 40`, nullEvery(23, pick(["eu-west-1", "us-east-1", "ap-south-1"], "x / 40")), pick(["active", "pending", "closed", "archived"], "x / 120"), `'customer ' || (x / 480) || ' ' || ${pick(["Smith", "Jones", "Garcia", "Chen", "Okafor"], "x")}`],
    keys: ["tenant_id", "region", "status", "name"],
    proposal: -33,
  },
  {
    name: "rdns",
    label: "reverse-DNS names",
    columns: "name text",
    values: [nullEvery(53, `'com.' || ${pick(["example", "acme", "globex", "initech"], "x")} || '.service' || (x / 4 % 50) || '.node' || (x / 200)`)],
    keys: ["name"],
  },
  {
    name: "e164",
    label: "E.164 phone numbers",
    columns: "phone text",
    values: [nullEvery(59, `'+' || ${pick(["1", "44", "49", "33"], "x")} || lpad(((x::bigint * 104729) % 10000000000)::text, 10, '0')`)],
    keys: ["phone"],
  },
  {
    name: "ssn",
    label: "SSN-format ids",
    columns: "ssn text",
    values: [nullEvery(61, `lpad((100 + x % 800)::text, 3, '0') || '-' || lpad((10 + x / 800 % 90)::text, 2, '0') || '-' || lpad((x / 72000 % 10000)::text, 4, '0')`)],
    keys: ["ssn"],
  },
  {
    name: "email",
    label: "emails",
    columns: "email text",
    values: [nullEvery(67, `${pick(["anna", "bob", "carlos", "dana", "eve"], "x")} || '.' || ${pick(["miller", "ng", "smith", "kowalski"], "x / 5")} || (x / 20) || '@' || ${pick(["gmail.com", "example.org", "corp.example.com"], "x / 7")}`)],
    keys: ["email"],
  },
  {
    name: "tbt",
    label: "(tenant_id, bigint, timestamptz)",
    columns: "tenant_id int, seq bigint, at timestamptz",
    values: [`x % 40`, nullEvery(29, `(x / 40)::bigint * 1000003`), `timestamptz '2024-01-01 00:00:00+00' + (x / 40) * interval '37 seconds'`],
    keys: ["tenant_id", "seq", "at"],
  },
  {
    name: "ttt",
    label: "(timestamptz, tenant_id, text)",
    columns: "at timestamptz, tenant_id int, note text",
    values: [`timestamptz '2024-01-01 00:00:00+00' + (x / 3) * interval '1 minute'`, `x % 40`, nullEvery(31, `'event ' || ${pick(["login", "logout", "purchase", "refund"], "x")} || ' #' || (x % 1000)`)],
    keys: ["at", "tenant_id", "note"],
  },
  {
    name: "jsonb",
    label: "JSONB (status, placed)",
    columns: "doc jsonb",
    values: [`jsonb_build_object('status', ${pick(["shipped", "pending", "cancelled", "delivered"], "x")}, 'placed', case when i % 37 = 0 then null else (timestamp '2023-01-01' + (x / 4) * interval '13 seconds')::text end, 'id', x)`],
    keys: ["(doc ->> 'status')", "(doc ->> 'placed')"],
    proposal: -24,
  },
  {
    name: "short",
    label: "short keys (int8)",
    columns: "n bigint",
    values: [`x::bigint`],
    keys: ["n"],
    proposal: 0,
  },
];

/** CREATE TABLE + INSERT for a shape: `rows` rows, keys drawn from `distinct` values (rows = distinct: no duplicates). */
export function shapeTableSql(s: KeyShape, table: string, rows: number, distinct = rows): string {
  return `create table ${table} (id int, ${s.columns});
insert into ${table} select i, ${s.values.join(", ")} from (select i, ((i::bigint * 7919) % ${distinct})::int as x from generate_series(1, ${rows}) i) g;`;
}

/** Index variants built for each shape in the REINDEX tests. */
export function shapeIndexVariants(s: KeyShape, table: string): { name: string; sql: string }[] {
  const k = s.keys.join(", ");
  const desc = s.keys.map((c, i) => (i === 0 ? `${c} desc` : i === s.keys.length - 1 ? `${c} desc nulls last` : c)).join(", ");
  const n = (v: string): string => `${table}_${v}`;
  return [
    { name: n("base"), sql: `create index ${n("base")} on ${table} (${k})` },
    { name: n("desc"), sql: `create index ${n("desc")} on ${table} (${desc})` },
    { name: n("incl"), sql: `create index ${n("incl")} on ${table} (${k}) include (id)` },
    { name: n("ff70"), sql: `create index ${n("ff70")} on ${table} (${k}) with (fillfactor = 70)` },
    { name: n("ff100"), sql: `create index ${n("ff100")} on ${table} (${k}) with (fillfactor = 100)` },
    { name: n("nodedup"), sql: `create index ${n("nodedup")} on ${table} (${k}) with (deduplicate_items = off)` },
    { name: n("uniq"), sql: `create unique index ${n("uniq")} on ${table} (${k}, id)` },
  ];
}
