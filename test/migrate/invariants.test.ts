// Damage the page checks cannot see is refused too: before a unit is converted, verify's own
// checks of what it reads run (migrate/unit-verify.ts). A btree leaf with two keys swapped (line
// pointers exchanged, checksum recomputed: every page passes the page checks) stops `pgdisk
// migrate` with exit 2, BT_ITEM_ORDER, the index's file and the leaf's block; into a copy no
// output is left, in place every file keeps its bytes (the journal's undo), with -j 1 and -j 2.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { removeRoot } from "../../samples/cluster-kit.js";
import { Damager, leafPages, lpWord, setLpWord } from "../verify/damage.js";
import { dataCopy, dataDigests, migrateCli, pgDir } from "./helpers.js";

const DB = "app";
let srv: PgServer;
const roots: string[] = [];
let damaged = "";
let leaf = -1;
let indexFile = "";

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`create database ${DB}`);
  srv.sql(
    `create table docs (id int primary key, url text, body text);
     alter table docs alter column body set storage external;
     insert into docs select g, 'https://example.com/archive/' || lpad(g::text, 8, '0'), repeat(md5(g::text), 80) from generate_series(1, 2000) g;
     create index docs_url on docs (url);
     vacuum; checkpoint;`,
    DB,
  );
  srv.stop();
  damaged = dataCopy(srv.root, "invariants", roots);
  const d = new Damager(damaged, DB);
  indexFile = d.path("docs_url");
  leaf = leafPages(d, "docs_url")[1]!;
  d.patch(indexFile, leaf, (_p, dv) => {
    const a = lpWord(dv, 5);
    setLpWord(dv, 5, lpWord(dv, 6));
    setLpWord(dv, 6, a);
  });
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
});

const args = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "direct", "--btree", "prefix", "--mode", "rebuild", "-q", ...more];

function assertRefused(r: { status: number | null; stderr: string }): void {
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /BT_ITEM_ORDER/);
  assert.ok(r.stderr.includes(indexFile), r.stderr);
  assert.match(r.stderr, new RegExp(`block ${leaf}\\b`));
}

test("a btree leaf with keys out of order: --out refuses with BT_ITEM_ORDER, file and block, no output left", () => {
  for (const j of ["1", "2"]) {
    const root = pgDir(`invariants-out-${j}`);
    roots.push(root);
    const out = join(root, "data");
    assertRefused(migrateCli(args(damaged, "--out", out, "-j", j)));
    assert.equal(existsSync(out), false, "no output");
  }
});

test("a btree leaf with keys out of order: --in-place refuses, every file keeps its bytes", () => {
  const before = dataDigests(damaged);
  for (const j of ["1", "2"]) {
    assertRefused(migrateCli(args(damaged, "--in-place", "-j", j)));
    assert.deepEqual(dataDigests(damaged), before, `-j ${j}: nothing changed`);
  }
});
