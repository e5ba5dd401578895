// jsonb: binary containers (objects, arrays, raw scalars), JEntry offsets every 32 children,
// alignment padding before numerics and nested containers, string escapes, numeric scalars.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { DatumHarness, describe, seededRandom } from "./harness.js";

let h: DatumHarness;
before(async () => {
  h = await DatumHarness.start();
});
after(() => h?.stop());

const random = seededRandom(3802);
const sq = (s: string): string => `'${s.replace(/'/g, "''")}'`;

function randomJson(depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.35) {
    const k = Math.floor(random() * 8);
    if (k === 0) return null;
    if (k === 1) return random() < 0.5;
    if (k === 2) return Math.floor(random() * 2e6 - 1e6);
    if (k === 3) return Number((random() * 1e4 - 5e3).toFixed(Math.floor(random() * 8)));
    if (k === 4) return random() * 10 ** Math.floor(random() * 60 - 30);
    const len = Math.floor(random() * 12);
    return Array.from({ length: len }, () => String.fromCodePoint(random() < 0.1 ? Math.floor(random() * 32) + 1 : 32 + Math.floor(random() * (random() < 0.7 ? 95 : 5000)))).join("");
  }
  if (r < 0.65) return Array.from({ length: Math.floor(random() * 6) }, () => randomJson(depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 6); i > 0; i--) o[random().toString(36).slice(2, 2 + Math.floor(random() * 6))] = randomJson(depth + 1);
  return o;
}

const edges = [
  "'{}'", "'[]'", "'null'", "'true'", "'false'", "'0'", "'-0'", "'1.0'", "'-1.50'", "'1e100'", "'1E-7'", "'123456789012345678901234567890'", "'0.000'",
  "'\"\"'", "'\"str\"'", "'\"a\\\\b\"'", sq('"quote \\" inside"'), sq('"\\u00e9\\u65e5\\ud83d\\ude00"'), sq('"ctl \\u0001 \\u001f \\b \\f \\n \\r \\t /"'),
  sq('{"a": 1, "b": [true, null]}'), sq('{"b": 1, "a": 2, "aa": 3, "dup": 1, "dup": 2}'), sq('[1, "x", 2.5, {"k": [[], {}]}, [[[1]]]]'),
  sq('{"s": "abc", "n": 1.5, "o": {"x": "y"}, "t": "de", "m": -7}'), sq('["a", 1, "bc", 2, "def", [3], "g", {"h": 4}]'),
  sq(JSON.stringify(Array.from({ length: 70 }, (_, i) => i))), sq(JSON.stringify(Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, i % 3 ? `v${i}` : i])))),
  sq(JSON.stringify(Array.from({ length: 40 }, (_, i) => (i % 2 ? "s".repeat(i % 5) : [i])))), sq('{"日本": "語", "emoji😀": ["😀"]}'),
  "jsonb_build_array(1.5::numeric, 'x', 2::int8, 2.5::float8, now()::date)", "jsonb_build_object('n', 12345.678::numeric(10,3), 'big', 1e30::numeric)",
  "(SELECT to_jsonb(n) FROM (VALUES (99.9::numeric)) v(n))", sq('{"nan": "NaN", "neg": -123.456e-5}'),
];

test("jsonb matches the server", () => {
  const values = [...edges, ...Array.from({ length: 1500 }, () => sq(JSON.stringify(randomJson(0))))];
  const r = h.check("jsonb", values);
  assert.equal(r.mismatches.length, 0, describe("jsonb", r));
  assert.equal(r.compared, values.length);
  assert.ok(r.payloads.some((p) => p.header === "4b") && r.payloads.some((p) => p.header === "1b"));
});

test("json (stored as text) matches the server", () => {
  const values = [...edges, ...Array.from({ length: 200 }, () => sq(JSON.stringify(randomJson(0), null, random() < 0.5 ? 1 : undefined)))];
  const r = h.check("json", values);
  assert.equal(r.mismatches.length, 0, describe("json", r));
  assert.equal(r.compared, values.length);
});
