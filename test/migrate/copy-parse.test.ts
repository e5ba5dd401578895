// COPY FROM's text and CSV parsing (migrate/load/copy-parse.ts) against the server's: each input
// is loaded by a real PostgreSQL with COPY FROM into a table of three text columns, and the
// parser must give the same fields (NULLs included) row for row, or fail where COPY fails.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { CopyParser, type CopyFormat, type CopyRow } from "../../migrate/load/copy-parse.js";
import { FormatError } from "../../formats/schema/errors.js";

interface Case {
  name: string;
  format: CopyFormat;
  /** COPY's WITH options for the same format */
  options: string;
  input: string | Buffer;
}

const CASES: Case[] = [
  { name: "text: tabs, NULL and a literal \\N", format: { format: "text" }, options: "FORMAT text", input: "a\tb\tc\n\\N\t\\\\N\tx\n\t\t\n" },
  { name: "text: every escape", format: { format: "text" }, options: "FORMAT text", input: "\\t\\n\\r\\b\\f\\v\t\\101\\7\\0101\t\\x41\\x4\\xg\\q\\\\\n" },
  { name: "text: CRLF lines, an escaped delimiter, no final newline", format: { format: "text" }, options: "FORMAT text", input: "a\\\tb\tc\td\r\n1\t2\t3" },
  { name: "text: the end marker", format: { format: "text" }, options: "FORMAT text", input: "a\tb\tc\n\\.\nignored\tx\ty\n" },
  { name: "text: custom delimiter and NULL", format: { format: "text", delimiter: "|", null: "NULL" }, options: "FORMAT text, DELIMITER '|', NULL 'NULL'", input: "NULL|\\N|x\nz|NULLx|\n" },
  { name: "text: UTF-8", format: { format: "text" }, options: "FORMAT text", input: "zürich\t✓\t\\xc3\\xbc\n" },
  { name: "text: invalid UTF-8 from an escape", format: { format: "text" }, options: "FORMAT text", input: "a\t\\xff\tc\n" },
  { name: "text: a bare newline inside a CRLF file", format: { format: "text" }, options: "FORMAT text", input: "a\tb\tc\r\nd\te\tf\ng\th\ti\r\n" },
  { name: "csv: quotes, delimiters and newlines in quotes", format: { format: "csv" }, options: "FORMAT csv", input: 'a,"b,c","d\ne"\n"x""y",,""\n' },
  { name: "csv: header, custom delimiter, NULL string", format: { format: "csv", delimiter: ";", null: "NULL", header: true }, options: "FORMAT csv, DELIMITER ';', NULL 'NULL', HEADER", input: 'h1;h2;h3\nNULL;"NULL";x\n;"";y\n' },
  { name: "csv: escape character", format: { format: "csv", escape: "\\" }, options: "FORMAT csv, ESCAPE '\\'", input: '"a\\"b","c\\\\d","e\\f"\n' },
  { name: "csv: mixed quoted parts and the end marker", format: { format: "csv" }, options: "FORMAT csv", input: 'a"b"c,x"y,z"w,3\n\\.\n' },
  { name: "csv: unterminated quote", format: { format: "csv" }, options: "FORMAT csv", input: 'a,"b,c\n' },
];

let srv: PgServer;
let dir = "";
const server = new Map<string, { rows?: (string | null)[][]; error?: string }>();

before(async () => {
  srv = await PgServer.create({});
  dir = mkdtempSync(join(tmpdir(), "pgdisk-copy-"));
  chmodSync(dir, 0o755);
  for (const [k, c] of CASES.entries()) {
    const file = join(dir, `in${k}`);
    writeForPg(file, typeof c.input === "string" ? Buffer.from(c.input, "utf8") : c.input);
    srv.sql(`CREATE TABLE t${k} (n serial, a text, b text, c text);`);
    try {
      srv.sql(`COPY t${k} (a, b, c) FROM '${file}' WITH (${c.options});`);
    } catch (e) {
      server.set(c.name, { error: (e as Error).message });
      continue;
    }
    // each field as hex, so that NULLs, newlines and tabs survive psql's output
    const rows = srv.rows(`SELECT coalesce(encode(convert_to(a, 'UTF8'), 'hex'), 'NULL'), coalesce(encode(convert_to(b, 'UTF8'), 'hex'), 'NULL'), coalesce(encode(convert_to(c, 'UTF8'), 'hex'), 'NULL') FROM t${k} ORDER BY n`);
    server.set(c.name, { rows: rows.map((r) => r.map((h) => (h === "NULL" ? null : Buffer.from(h!, "hex").toString("utf8")))) });
  }
});
after(() => {
  srv?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The rows as plain data (the parser's row object is valid only during its callback). */
function parse(c: Case, chunk: number): Pick<CopyRow, "line" | "fields">[] {
  const rows: Pick<CopyRow, "line" | "fields">[] = [];
  const p = new CopyParser(c.format, (r) => rows.push({ line: r.line, fields: r.fields }));
  const b = typeof c.input === "string" ? Buffer.from(c.input, "utf8") : c.input;
  for (let i = 0; i < b.length; i += chunk) p.push(b.subarray(i, i + chunk));
  p.end();
  return rows;
}

for (const c of CASES) {
  test(`copy parse: ${c.name}`, () => {
    const s = server.get(c.name)!;
    // the same rows whether the input comes whole or a byte at a time
    for (const chunk of [1 << 20, 1, 3]) {
      if (s.error !== undefined) {
        assert.throws(() => parse(c, chunk), (e: unknown) => e instanceof FormatError && e.code === "LOAD_BAD_INPUT", `COPY failed (${s.error.trim()}); the parser must too`);
        continue;
      }
      const rows = parse(c, chunk);
      assert.deepEqual(rows.map((r) => r.fields), s.rows, `chunks of ${chunk}`);
    }
  });
}
