// The text dump's value lines written as bytes during the scan (TextValuePlan), on a real
// PostgreSQL 15 table of the values where its rule has edges: text of 200 and 201 characters,
// escapes on either side of the cut, non-ASCII and 4-byte characters at the cut (never cut in
// two), bytea around
// the preview's cut, jsonb shorter and longer than the cut, long numerics, domains, enums,
// arrays, NULLs, a dropped and an added column (attmissingval), compressed inline and TOASTed
// values, and btree keys of those types. Each value line equals the server's text of the value, quoted and cut as the text
// dump shows it; the whole dump equals the string renderer's over the DumpValues.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { resolveByName } from "../../inspect/dump/target.js";
import { dumpRelation, emptySummary, type DumpOptions } from "../../inspect/dump/dump.js";
import { TextRenderer } from "../../inspect/dump/render-text.js";
import { TextByteRenderer } from "../../inspect/dump/render-text-bytes.js";
import { ByteOut } from "../../inspect/dump/byte-out.js";
import { TEXT_VALUE_CHARS } from "../../inspect/dump/text-values.js";

const SETUP = `
  CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
  CREATE DOMAIN short_text AS text CHECK (length(VALUE) < 1000);
  CREATE TABLE edge (id int, gone text, t text, b bytea, j jsonb, n numeric, d short_text, e mood, a int[], f float8, c "char", nm name, big text);
  ALTER TABLE edge ALTER COLUMN big SET STORAGE MAIN;
  INSERT INTO edge (id, gone, t) VALUES
    (1, 'x', repeat('a', 200)), (2, 'x', repeat('a', 201)), (3, 'x', repeat('a', 199) || ''''),
    (4, 'x', repeat('a', 199) || E'\\\\' || 'b'), (5, 'x', repeat('a', 200) || E'\\n'), (6, 'x', E'tab\\there\\r\\nback\\\\slash ''q'''),
    (7, 'x', repeat('a', 199) || 'é' || 'b'), (8, 'x', repeat('a', 199) || '😀' || 'b'), (9, 'x', repeat('é', 900)),
    (10, 'x', repeat('a', 900)), (11, 'x', ''), (12, 'x', NULL), (13, 'x', repeat('ab', 600) || '😀'),
    (14, 'x', repeat('a', 300) || 'é'), (15, 'x', repeat('a', 250) || E'\\t''');
  INSERT INTO edge (id, b) SELECT 100 + n, decode(repeat('ab', n), 'hex') FROM unnest(ARRAY[0, 1, 98, 99, 100, 101, 102, 500]) n;
  INSERT INTO edge (id, j) VALUES (200, '{"a": 1}'),
    (201, jsonb_build_object('k', repeat('x', 180))), (202, jsonb_build_object('k', repeat('x', 191))),
    (203, jsonb_build_object('k', repeat('x', 300))), (204, '[1, "é", null, true, 2.50]');
  INSERT INTO edge (id, n, d, e, a, f, c, nm) VALUES
    (300, repeat('9', 250)::numeric / 7, 'dom', 'happy', ARRAY[1, NULL, 3], 'NaN', 'z', 'a name'),
    (301, -0.000001, repeat('d', 300), 'sad', '{}', '-Infinity', E'\\\\', repeat('n', 63)),
    (302, 'NaN', NULL, NULL, ARRAY[[1, 2], [3, 4]], 1.5e300, NULL, '');
  INSERT INTO edge (id, big, t) VALUES (400, repeat('compressible ', 400), repeat('x', 10)), (401, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i), NULL);
  INSERT INTO edge (id, t) SELECT 500, string_agg(md5(i::text), '') FROM generate_series(1, 400) i;
  ALTER TABLE edge DROP COLUMN gone;
  ALTER TABLE edge ADD COLUMN added text DEFAULT 'the default';
  INSERT INTO edge (id, added) VALUES (600, repeat('z', 250));
  CREATE INDEX edge_b ON edge (b);
  CREATE INDEX edge_nde ON edge (n, d, e) INCLUDE (f);
  CHECKPOINT;`;

let srv: PgServer;
before(async () => {
  srv = await PgServer.create({});
  srv.sql(SETUP);
  srv.stop();
});
after(() => srv?.destroy());

const opts: DumpOptions = { detoast: true, previewChars: TEXT_VALUE_CHARS + 1 };

function byteText(rel = "edge"): string {
  const chunks: Uint8Array[] = [];
  const out = new ByteOut((c) => void chunks.push(c), 1 << 12);
  const r = new TextByteRenderer(out, false, { values: true });
  for (const e of dumpRelation(resolveByName(srv.pgdata, "postgres", rel), opts, emptySummary(), { records: true, textValues: true })) r.event(e);
  r.event({ type: "end", summary: emptySummary() });
  out.flush();
  return Buffer.concat(chunks).toString("utf8");
}

function stringText(rel = "edge"): string {
  let s = "";
  const r = new TextRenderer((x) => (s += x), false, { values: true });
  for (const e of dumpRelation(resolveByName(srv.pgdata, "postgres", rel), opts, emptySummary())) r.event(e);
  r.event({ type: "end", summary: emptySummary() });
  return s;
}

/**
 * How the text dump shows a value of `s` (the server's text): quoted, escaped, cut at 200 UTF-16
 * units, or 199 where the 200th is the first half of a 4-byte character.
 */
function shown(s: string, lengthKnown = true): string {
  const at = /[\ud800-\udbff]/.test(s[199] ?? "") ? 199 : 200;
  const cut = s.length > 200 ? `${s.slice(0, at)}… (${lengthKnown ? s.length : "more"} chars)` : s;
  return `'${cut.replace(/[\\\n\r\t']/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "'": "''" })[c]!)}'`;
}

test("value lines written as bytes equal the string renderer's, on every edge value and key", () => {
  for (const rel of ["edge", "edge_b", "edge_nde"]) {
    const got = byteText(rel);
    const want = stringText(rel);
    if (got !== want) {
      let i = 0;
      while (got[i] === want[i]) i++;
      assert.fail(`${rel}: first difference at char ${i}:\n got: ${JSON.stringify(got.slice(i - 120, i + 80))}\nwant: ${JSON.stringify(want.slice(i - 120, i + 80))}`);
    }
    assert.ok(got.split("\n").filter((l) => / = '/.test(l)).length >= 8, `${rel}: values shown`);
  }
});

test("each value line is the server's text of the value, quoted and cut", () => {
  const text = byteText();
  // the dump's value lines of each row, by column name, in the heap's order (one row per tuple here)
  const rows: Map<string, string>[] = [];
  for (const line of text.split("\n")) {
    const m = /^ {8}(\w+) (.+?) = (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === "id") rows.push(new Map());
    rows.at(-1)!.set(m[1]!, m[3]!.replace(/ {2}\[[^\]]*\]$/, ""));
  }
  srv.start();
  const cols = ["id", "t", "b", "j", "n", "d", "e", "a", "f", "c", "nm", "big", "added"];
  // each value's text as hex of its UTF-8 (values hold newlines and tabs)
  const hex = cols.map((c) => `encode(convert_to(${c}::text, 'UTF8'), 'hex')`).join(", ");
  const server = srv.rows(`SELECT ${hex} FROM edge ORDER BY ctid`).map((r) => r.map((v) => (v === null ? null : Buffer.from(v, "hex").toString("utf8"))));
  srv.stop();
  assert.equal(rows.length, server.length);
  let compared = 0;
  for (let r = 0; r < server.length; r++) {
    for (let k = 0; k < cols.length; k++) {
      const v = server[r]![k]!;
      const col = cols[k]!;
      const line = rows[r]!.get(col);
      assert.ok(line !== undefined, `row ${server[r]![0]} has a line for ${col}`);
      if (v === null) {
        assert.equal(line, "NULL", `row ${server[r]![0]} ${col}`);
        continue;
      }
      // jsonb longer than the cut may be stopped without learning its length (datumPreview)
      if (col === "j" && v.length > 200 && line.endsWith("(more chars)'")) assert.equal(line, shown(v, false), `row ${server[r]![0]} ${col}`);
      else assert.equal(line, shown(v), `row ${server[r]![0]} ${col}`);
      compared++;
    }
  }
  assert.ok(compared > 60, `${compared} values compared`);
  // the storage cases are there: compressed inline, TOASTed, an added column's missing value
  assert.match(text, /big text = 'compressible [^\n]*\[compressed pglz\]/);
  assert.match(text, /t text = '[0-9a-f]{200}… \(12800 chars\)'  \[external/);
  assert.match(text, /added text = 'the default'  \[attmissingval\]/);
});
