// What `pgdisk load` refuses, and that a refusal or bad input leaves every file of the cluster
// exactly as it was: bad values, wrong column counts, NULL in NOT NULL, invalid UTF-8 and unique
// violations (against existing rows or within the input) exit 2 naming the input line, column
// and value; tables an offline writer cannot load as the server would (CHECK, triggers and
// foreign keys, generated columns, sequence defaults, partitioning, non-btree and unevaluable expression
// indexes) exit 1 naming the object; --dry-run reports and writes nothing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { stoppedCluster } from "../../samples/cluster-kit.js";
import { fileDigests } from "../migrate/helpers.js";
import { pgdiskLoad } from "./helpers.js";

const DB = "app";
let srv: PgServer;
let before0: Map<string, string>;

before(async () => {
  srv = await stoppedCluster(
    `create table u (id int primary key, name text not null, score int8, at date);
     insert into u select g, 'name ' || g, g * 10, date '2026-01-01' + g from generate_series(1, 50) g;
     create table chk (a int check (a > 0));
     create table ser (id serial, v int);
     create table fk (id int references u (id));
     create table gen (a int, b int generated always as (a * 2) stored);
     create table part (a int) partition by range (a);
     create table gi (r int4range);
     create index gi_r on gi using gist (r);
     create table ex (a text);
     create index ex_initcap on ex (initcap(a));
     create table rg (id int, r regclass);
     create table nnd (a int, b int);
     create unique index nnd_ab on nnd (a, b) nulls not distinct;
     insert into nnd values (1, null);
     create table trg (a int);
     create function trg_f() returns trigger language plpgsql as 'begin return new; end';
     create trigger trg_ins before insert on trg for each row execute function trg_f();
     create trigger trg_upd before update on u for each row execute function trg_f();
     create table two (id int, k int);
     create index two_id on two (id);
     create unique index two_k on two (k);
     create table pt (a int, b int);
     create index pt_part on pt (a) where b::float8::text <> '';`,
    { db: DB },
  );
  before0 = fileDigests(srv.pgdata);
});
after(() => srv?.destroy());

const load = (table: string, input: string | Buffer, extra: string[] = []): ReturnType<typeof pgdiskLoad> => pgdiskLoad(["--pgdata", srv.pgdata, "-d", DB, "-t", table, ...extra, "-"], input);

function assertUnchanged(what: string): void {
  assert.deepEqual(fileDigests(srv.pgdata), before0, `${what}: the cluster's files changed`);
}

const GOOD = "100\tfine\t1\t2026-05-01\n";

for (const [name, input, pattern] of [
  ["a value its type refuses", `${GOOD}101\tok\t2\t2026-05-02\n102\tbad\tx12\t2026-05-03\n`, /invalid input syntax for type bigint: "x12" \(input line 3, column score: "x12"\)/],
  ["a value out of range", `${GOOD}101\tok\t99999999999999999999\t2026-05-02\n`, /out of range for type bigint.*input line 2, column score/],
  ["a date out of range", `${GOOD}101\tok\t1\t2026-13-40\n`, /input line 2, column at: "2026-13-40"/],
  ["too many fields", `${GOOD}101\tok\t1\t2026-05-02\textra\n`, /extra data after last expected column \(input line 2\)/],
  ["too few fields", `${GOOD}101\tok\n`, /missing data for column "score" \(input line 2, column score\)/],
  ["NULL in a NOT NULL column", `${GOOD}101\t\\N\t1\t2026-05-02\n`, /null value in column "name" of relation "u" violates not-null constraint \(input line 2, column name\)/],
  ["invalid UTF-8", Buffer.concat([Buffer.from(`${GOOD}101\tab`), Buffer.from([0xc3, 0x28]), Buffer.from("\t1\t2026-05-02\n")]).toString("latin1"), /invalid byte sequence for encoding "UTF8".*line 2, column 2/],
  ["a key an existing row has", `${GOOD}5\tdup\t1\t2026-05-02\n`, /duplicate key value violates unique constraint "u_pkey" \(input line 2\) \(stdin\)\nDETAIL: Key \(id\)=\(5\) already exists\./],
  ["a NULL key a NULLS NOT DISTINCT index has", "1\t\\N\n", /duplicate key value violates unique constraint "nnd_ab" \(input line 1\) \(stdin\)\nDETAIL: Key \(a, b\)=\(1, null\) already exists\./],
  ["a key repeated in the input", `${GOOD}200\ta\t1\t2026-05-02\n201\tb\t1\t2026-05-02\n200\tc\t1\t2026-05-02\n`, /duplicate key value violates unique constraint "u_pkey" \(input line 4\) \(stdin\)\nDETAIL: Key \(id\)=\(200\) is also at input line 2\./],
] as const) {
  test(`bad input: ${name}: exit 2 with the line, nothing changed`, () => {
    const r = load(name.includes("NULLS NOT DISTINCT") ? "nnd" : "u", name === "invalid UTF-8" ? Buffer.from(input, "latin1") : input);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, pattern);
    assertUnchanged(name);
  });
}


test("bad input: a key repeated in the input, found by the unique index a worker thread builds: exit 2, nothing changed", () => {
  // two_k is the second index: with parallel builds from the first row, a worker builds it while this thread builds two_id
  const r = pgdiskLoad(["--pgdata", srv.pgdata, "-d", DB, "-t", "two", "-"], "1\t10\n2\t20\n3\t10\n", { PGDISK_LOAD_PARALLEL_MIN: "1" });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /duplicate key value violates unique constraint "two_k" \(input line 3\) \(stdin\)\nDETAIL: Key \(k\)=\(10\) is also at input line 1\./);
  assertUnchanged("parallel unique violation");
});

for (const [table, pattern] of [
  ["chk", /table "public.chk" has 1 CHECK constraint/],
  ["ser", /column "id" of table "public.ser" has a default that is not a constant \(FUNCEXPR/],
  ["fk", /table "public.fk" has a foreign key referencing "public.u" \(trigger "RI_ConstraintTrigger_c_\d+"\)/],
  ["trg", /table "public.trg" has trigger "trg_ins" firing on INSERT/],
  ["gen", /column "b" of table "public.gen" is a generated column/],
  ["part", /table "public.part" is partitioned/],
  ["gi", /index "public.gi_r" on table "public.gi" is a gist index/],
  ["ex", /index "public.ex_initcap" on table "public.ex" is an expression index that cannot be evaluated offline: function 872 cannot be evaluated offline/],
  ["pt", /index "public.pt_part" on table "public.pt" is a partial index that cannot be evaluated offline: a cast through text from type 701 to type 25 cannot be evaluated offline/],
] as const) {
  test(`refused: ${table}: exit 1 naming the object, nothing changed`, () => {
    const r = load(table, "1\n", table === "ser" ? ["--columns", "v"] : []);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, pattern);
    assertUnchanged(table);
  });
}

test("a type pgdisk cannot encode is refused before reading input, naming column and type", () => {
  const r = load("rg", "1\tpg_class\n");
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /column "r" of table "public.rg" has type regclass/);
  // leaving it to its default (NULL) loads
  const ok = load("rg", "1\n2\n", ["--columns", "id", "--dry-run"]);
  assert.equal(ok.status, 0, ok.stderr);
  assertUnchanged("rg");
});

test("--dry-run parses, encodes, checks and reports, writing nothing", () => {
  const rows = Array.from({ length: 500 }, (_, i) => `${1000 + i}\tn${i}\t${i}\t2026-02-0${1 + (i % 9)}`).join("\n") + "\n";
  const r = load("u", rows, ["--dry-run", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout);
  assert.equal(rep.dryRun, true);
  assert.equal(rep.rows, 500);
  assert.ok(rep.heap.pagesAdded >= 3);
  assert.deepEqual(rep.indexes.map((i: { index: string; existingEntries: number; newEntries: number }) => [i.index, i.existingEntries, i.newEntries]), [["public.u_pkey", 50, 500]]);
  assertUnchanged("dry run");
  // and a dry run finds a duplicate as the load would
  const dup = load("u", "7\tx\t1\t2026-01-01\n", ["--dry-run"]);
  assert.equal(dup.status, 2);
  assertUnchanged("dry run with a duplicate");
});

test("the server still starts on the untouched cluster", () => {
  srv.start();
  try {
    assert.deepEqual(srv.rows("select count(*) from u", DB), [["50"]]);
  } finally {
    srv.stop();
  }
});
