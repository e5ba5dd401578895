// `inspect dump --format copy|csv` equals COPY TO of a real PostgreSQL 15 server, byte for byte,
// for values that need quoting and escaping (delimiters, quotes, CR, LF, backslashes, empty
// strings against NULLs, a lone `\.`), with the default options and with every option changed;
// generated columns left out, as COPY TO leaves them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { pgdisk } from "../toast/cluster-helpers.js";

let srv: PgServer;
const server = new Map<string, string>();
const CASES: [name: string, table: string, copyOptions: string, cli: string[]][] = [
  ["csv defaults", "t", "FORMAT csv", ["--format", "csv"]],
  ["csv, every option", "t", "FORMAT csv, HEADER, DELIMITER ';', NULL 'NULL', QUOTE '''', ESCAPE '\\'", ["--format", "csv", "--header", "--delimiter", ";", "--null", "NULL", "--quote", "'", "--escape", "\\"]],
  ["text with header and |", "t", "HEADER, DELIMITER '|', NULL 'nil'", ["--format", "copy", "--header", "--delimiter", "|", "--null", "nil"]],
  ["csv, one column", "one", "FORMAT csv, HEADER", ["--format", "csv", "--header"]],
  // the default text format: a TAB delimiter, which jsonb's text never holds raw (its escapes are backslashes)
  ["text defaults", "t", "DELIMITER E'\\t'", ["--format", "copy"]],
];

before(async () => {
  srv = await PgServer.create();
  const vals = ["plain", "with,comma", 'with "quotes"', "line\nbreak", "cr\rhere", "", "back\\slash", "semi;colon", "it's", "tab\there", "NULL", "nil", "pipe|d", "\\.", "Ünïcödé"];
  srv.sql(`CREATE TABLE t (id int, "Odd ""name""" text, n numeric, b bool, j jsonb, dropped int);
    ALTER TABLE t DROP COLUMN dropped;
    INSERT INTO t SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (ARRAY[${vals.map((v) => `E'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}'`).join(", ")}])[1 + i % ${vals.length}] END,
      i / 7.0, i % 3 = 0, CASE WHEN i % 5 = 0 THEN NULL ELSE jsonb_build_object('k', 'v,"' || i) END FROM generate_series(1, 400) i;
    -- a stored generated column: COPY TO leaves it out (and its name out of HEADER)
    ALTER TABLE t ADD COLUMN g text GENERATED ALWAYS AS (upper("Odd ""name""")) STORED;
    CREATE TABLE one (v text); INSERT INTO one VALUES ('\\.'), (''), (NULL), ('x');`);
  for (const [name, table, opts] of CASES) server.set(name, srv.sql(`COPY ${table} TO STDOUT (${opts})`));
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

for (const [name, table, , cli] of CASES) {
  test(`${name}: pgdisk equals COPY TO`, () => {
    const r = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", table, ...cli]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(server.get(name)!.length > 10);
    assert.equal(r.stdout.toString("utf8"), server.get(name));
  });
}

test("COPY's option rules: a bad combination is a usage error", () => {
  for (const args of [["--format", "copy", "--quote", "'"], ["--format", "csv", "--delimiter", ",", "--quote", ","], ["--format", "text", "--header"], ["--format", "csv", "--delimiter", "ab"]]) {
    const r = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "t", ...args]);
    assert.equal(r.status, 1, `${args.join(" ")}: ${r.stderr}`);
  }
});

test("--output: the file holds exactly what COPY TO gives; a failed dump leaves no file and no partial", () => {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-dump-out-"));
  try {
    const file = join(dir, "t.csv");
    const r = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "t", "--format", "csv", "-o", file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.length, 0, "nothing on stdout");
    assert.equal(readFileSync(file, "utf8"), server.get("csv defaults"));
    assert.deepEqual(readdirSync(dir), ["t.csv"], "the temporary file is gone");
    // an existing file is replaced only by a finished dump: a failing one leaves it as it was
    const bad = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "no_such_table", "--format", "csv", "-o", file]);
    assert.equal(bad.status, 1, bad.stderr);
    assert.equal(readFileSync(file, "utf8"), server.get("csv defaults"));
    assert.deepEqual(readdirSync(dir), ["t.csv"]);
    // the special files go to --output too
    const ctl = pgdisk(["inspect", "dump", join(srv.pgdata, "global", "pg_control"), "--format", "json", "-o", join(dir, "control.json")]);
    assert.equal(ctl.status, 0, ctl.stderr);
    assert.equal(JSON.parse(readFileSync(join(dir, "control.json"), "utf8")).schema, "pgdisk.control/1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("progress on a terminal's stderr while the rows go to a file, none with --no-progress", () => {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-dump-progress-"));
  try {
    const file = join(dir, "t.copy");
    const plain = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "t", "--format", "copy"]);
    assert.equal(plain.status, 0, plain.stderr);
    const copyText = plain.stdout.toString("utf8");
    // script(1) gives the command a terminal
    const run = (extra: string[]): string => {
      const cmd = [process.execPath, "--import", "tsx", join(import.meta.dirname, "..", "..", "cli", "main.ts"), "inspect", "dump", "--pgdata", srv.pgdata, "-d", "postgres", "-t", "t", "--format", "copy", "-o", file, ...extra].map((a) => `'${a}'`).join(" ");
      const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { encoding: "utf8" });
      assert.equal(r.status, 0, r.stdout);
      assert.equal(readFileSync(file, "utf8"), copyText);
      return r.stdout;
    };
    assert.match(run([]), /\rpgdisk: dump \d+\/\d+ pages \(\d+ %\), \d+\.\d MiB written, [\d.]+ MiB\/s/);
    assert.doesNotMatch(run(["--no-progress"]), /MiB written/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
