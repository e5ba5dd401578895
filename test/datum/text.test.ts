// Character, binary and text-stored types: text, varchar, bpchar, name, "char", bytea, json,
// xml, uuid, pg_node_tree-like text.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(25);
const sq = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const e = (s: string): string => `E'${s}'`;

const strings = [
  "''", "' '", "'a'", "'hello world'", "'  padded  '", "'trailing   '", sq("it's"), sq('say "hi"'), sq("back\\slash"), sq("{braces},[brackets]"),
  sq("NULL"), sq("null"), e("tab\\there"), e("new\\nline"), e("cr\\rlf\\n"), e("\\x01\\x02\\x1f\\x7f"), sq("ünïcödé"), sq("日本語テキスト"), sq("emoji 😀🎉"),
  sq("combining e\u0301"), sq("Ωμέγα"), sq("x".repeat(126)), sq("y".repeat(127)), sq("z".repeat(300)), sq("€".repeat(100)), "repeat('ab', 400)",
  ...Array.from({ length: 200 }, () => sq(Array.from({ length: Math.floor(random() * 40) }, () => String.fromCodePoint(32 + Math.floor(random() * (random() < 0.8 ? 95 : 3000)))).join(""))),
];

test("text matches the server (1-byte and 4-byte headers)", () => {
  const r = h.check("text", [...strings, "NULL"]);
  assert.equal(r.mismatches.length, 0, describe("text", r));
  assert.equal(r.compared, strings.length);
  assert.ok(r.payloads.some((p) => p.header === "1b") && r.payloads.some((p) => p.header === "4b"));
});

for (const type of ["varchar", "varchar(10)", "bpchar", "char(10)", "character(1)", "char(200)", "name", "xml", "json"]) {
  test(`${type} matches the server`, () => {
    let values = strings.map((s) => (type.includes("(") ? `left(${s}, ${type.match(/\d+/)![0]})` : s));
    if (type === "name") values = [...values.slice(0, 25), sq("n".repeat(63)), sq("é".repeat(31)), sq("long".repeat(30))]; // name truncates to 63 bytes
    if (type === "xml") values = ["'<a>1</a>'", "'<x y=\"1\">t &amp; u</x>'", "'text only'", "''", sq("<e>ü😀</e>")];
    if (type === "json") values = ["'{}'", "'[]'", "'  {\"a\" :  1 , \"b\":[true,null]}  '", "'\"str\\\\u00e9\"'", "'1e100'", "'-0.0'", sq('{"k": "日本", "dup": 1, "dup": 2}'), "'null'"];
    const r = h.check(type, values);
    assert.equal(r.mismatches.length, 0, describe(type, r));
    assert.equal(r.compared, values.length);
  });
}

test('"char" matches the server for all 256 byte values', () => {
  const values = Array.from({ length: 256 }, (_, b) => (b === 0 ? "''" : b < 128 ? `chr(${b})` : `'\\${b.toString(8).padStart(3, "0")}'`));
  const r = h.check('"char"', values);
  assert.equal(r.mismatches.length, 0, describe('"char"', r));
  assert.equal(r.compared, 256);
  assert.equal(new Set(r.payloads.map((p) => p.payload[0])).size, 256);
});

test("bytea (hex output) matches the server", () => {
  const values = ["''", "'\\x00'", "'\\xdeadbeef'", "'abc\\\\'", "decode(repeat('ff', 200), 'hex')",
    ...Array.from({ length: 200 }, () => `'\\x${Array.from({ length: Math.floor(random() * 60) }, () => Math.floor(random() * 256).toString(16).padStart(2, "0")).join("")}'`)];
  const r = h.check("bytea", values);
  assert.equal(r.mismatches.length, 0, describe("bytea", r));
  assert.equal(r.compared, values.length);
});

test("uuid matches the server", () => {
  const values = ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "'{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}'", ...Array.from({ length: 100 }, () => "gen_random_uuid()")];
  const r = h.check("uuid", values);
  assert.equal(r.mismatches.length, 0, describe("uuid", r));
  assert.equal(r.compared, values.length);
});

test("pg_node_tree (copied from pg_attrdef / pg_constraint; it has no input function) matches the server", () => {
  h.srv.sql("CREATE TABLE with_defaults (a int DEFAULT 42 CHECK (a > 0), b text DEFAULT 'x' || 'y', c timestamptz DEFAULT now());");
  const values = ["(SELECT adbin FROM pg_attrdef WHERE adnum = 1 AND adrelid = 'with_defaults'::regclass)", "(SELECT adbin FROM pg_attrdef WHERE adnum = 2 AND adrelid = 'with_defaults'::regclass)",
    "(SELECT conbin FROM pg_constraint WHERE conrelid = 'with_defaults'::regclass)"];
  const r = h.check("pg_node_tree", values);
  assert.equal(r.mismatches.length, 0, describe("pg_node_tree", r));
  assert.equal(r.compared, values.length);
});
