// Issue #15: `pgdisk migrate` converts both formats over every database in one run, into a new
// cluster or in place through the journal. In place, pgdisk is killed (SIGKILL from inside, at
// every journal record, and inside a unit) and then: a stock server refuses to start on the
// half-converted cluster; rerunning the same command resumes and gives byte for byte (md5 of
// every file, owners and modes) the result of an uninterrupted run; `--abort` gives back the
// original bytes of every file. Round trips end with PostgreSQL starting on the plain result,
// the same rows and a clean pg_amcheck.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { rowDigests } from "../toast/cluster-helpers.js";
import { removeRoot } from "../../samples/cluster-kit.js";
import { assertServerRefuses, dataCopy, dataDigests, migrateCli, pgDir, removeDirs } from "./helpers.js";

const DB = "app";
let srv: PgServer;
let original: Map<string, string>;
const rows = new Map<string, ReturnType<typeof rowDigests>>();
const roots: string[] = [];

const copy = (tag: string): string => dataCopy(srv.root, tag, roots);

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`create database ${DB}; create database other;`);
  srv.sql(
    `create table docs (id int primary key, tag text, body text);
     alter table docs alter column body set storage external;
     insert into docs select g, 'tag-' || (g % 7), repeat(md5(g::text), 60 + g % 90) from generate_series(1, 120) g;
     create index docs_tag on docs (tag);
     vacuum; checkpoint;`,
    DB,
  );
  srv.sql(
    `create table notes (id int primary key, body text);
     alter table notes alter column body set storage external;
     insert into notes select g, repeat(md5((g * 3)::text), 70 + g) from generate_series(1, 40) g;
     vacuum; checkpoint;`,
    "other",
  );
  for (const db of [DB, "other"]) rows.set(db, rowDigests(srv, db));
  srv.stop();
  original = dataDigests(srv.pgdata);
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
});

const forward = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "direct", "--btree", "prefix", "--mode", "rebuild", "-q", ...more];
const back = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "plain", "--btree", "plain", "-q", ...more];

interface Report {
  databases: { database: string; tables: { table: string; values: { direct: Record<string, number> } }[]; indexes: { index: string; leafCoded: number }[] }[];
  control: { action: string; file: string };
  journal: { records: number; resumed: boolean; redone: string[] } | null;
}

function run(args: string[], env: Record<string, string> = {}): Report {
  const r = migrateCli([...args, "--json"], env);
  assert.equal(r.status, 0, `pgdisk migrate ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

/** PostgreSQL starts on the cluster, every row is as it was, pg_amcheck finds nothing. */
function assertServerAgrees(pgdata: string): void {
  const s = PgServer.attach(join(pgdata, ".."), { asIs: true });
  s.start();
  try {
    for (const [db, want] of rows) {
      assert.deepEqual(rowDigests(s, db), want, db);
      const am = s.toolResult("pg_amcheck", [...s.connArgs(db), "--install-missing", "--heapallindexed", "--parent-check"]);
      assert.equal(am.status, 0, am.stdout + am.stderr);
    }
  } finally {
    s.stop();
  }
}

let forwardResult: Map<string, string>;
let forwardRecords = 0;

test("--out: both formats over every database in one run, then back; the input is unchanged, the server agrees", () => {
  const [fwdRoot, backRoot] = [pgDir("engine-fwd"), pgDir("engine-back")];
  roots.push(fwdRoot, backRoot);
  const fwd = run(forward(srv.pgdata, "--out", join(fwdRoot, "data")));
  const byDb = new Map(fwd.databases.map((d) => [d.database, d]));
  assert.deepEqual(byDb.get(DB)!.tables.map((t) => t.table), ["public.docs"]);
  assert.deepEqual(byDb.get(DB)!.indexes.map((x) => x.index).sort(), ["public.docs_pkey", "public.docs_tag"]);
  assert.deepEqual(byDb.get("other")!.tables.map((t) => t.table), ["public.notes"]);
  assert.deepEqual(byDb.get("other")!.indexes.map((x) => x.index), ["public.notes_pkey"]);
  assert.ok(fwd.databases.flatMap((d) => d.tables).every((t) => t.values.direct.single + t.values.direct.flat + t.values.direct.tree > 0));
  assert.equal(fwd.control.action, "renamed");
  const bk = run(back(join(fwdRoot, "data"), "--out", join(backRoot, "data")));
  assert.equal(bk.control.action, "restored");
  assert.deepEqual(dataDigests(srv.pgdata), original, "the input is unchanged");
  assertServerAgrees(join(backRoot, "data"));
});

test("in place: forward, then back; the journal is gone, PostgreSQL starts on the plain result and agrees", () => {
  const pgdata = copy("inplace");
  const fwd = run(forward(pgdata, "--in-place"));
  assert.equal(fwd.control.action, "renamed");
  assert.ok(existsSync(join(pgdata, "global", "pg_control.pgdisk")));
  assert.equal(existsSync(join(pgdata, "pgdisk_journal")), false);
  assert.equal(fwd.journal!.resumed, false);
  forwardRecords = fwd.journal!.records;
  forwardResult = dataDigests(pgdata);
  assert.deepEqual([...forwardResult.keys()].filter((k) => /pgdisk-(orig|tmp|build)|postmaster\.pid/.test(k)), [], "no leftovers");
  const bk = run(back(pgdata, "--in-place"));
  assert.equal(bk.control.action, "restored");
  assertServerAgrees(pgdata);
});

test("in place, kill -9 after every journal record and inside a unit: no stock server starts; rerun resumes to the same bytes", () => {
  assert.ok(forwardRecords > 10, `${forwardRecords} journal records`);
  const points = [...Array.from({ length: forwardRecords }, (_, k) => `journal-${k + 1}`), "toast-heap-committed", "relation-done", "before-unfence"];
  for (const point of points) {
    const pgdata = copy(`kill-${point}`);
    const r = migrateCli(forward(pgdata, "--in-place"), { PGDISK_FAULT_AT: point });
    assert.equal(r.signal, "SIGKILL", `killed at ${point} (status ${r.status}: ${r.stderr})`);
    if (point === "journal-1" || point === "journal-2") {
      // the plan, then the fence's record: nothing was changed yet (the fence goes up right after record 2)
      const now = dataDigests(pgdata);
      for (const k of ["/pgdisk_journal", "/postmaster.pid"]) now.delete(k);
      assert.deepEqual(now, original, `${point}: nothing changed`);
    } else assertServerRefuses(pgdata);
    const again = migrateCli(forward(pgdata, "--out", join(pgdata, "..", "elsewhere")));
    assert.equal(again.status, 1, `${point}: another command is refused`);
    assert.match(again.stderr, /CLUSTER_JOURNAL_PRESENT/);
    const resumed = run(forward(pgdata, "--in-place"));
    assert.equal(resumed.journal!.resumed, point !== "journal-1" && point !== "journal-2", point);
    assert.deepEqual(dataDigests(pgdata), forwardResult, `${point}: resume gives the bytes of an uninterrupted run`);
    removeDirs(join(pgdata, ".."));
  }
});

test("in place, SIGTERM and SIGINT: a stop at the next safe point (exit 143, 130), the cluster fenced, the rerun resumes to the same bytes", () => {
  for (const [signal, status] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    const pgdata = copy(`stop-${signal}`);
    const r = migrateCli(forward(pgdata, "--in-place"), { PGDISK_FAULT_AT: `relation-done:${signal}` });
    assert.equal(r.status, status, r.stderr);
    assert.match(r.stderr, /INTERRUPTED: .*rerun the same command to resume/s);
    assert.ok(existsSync(join(pgdata, "pgdisk_journal")));
    assertServerRefuses(pgdata);
    run(forward(pgdata, "--in-place"));
    assert.deepEqual(dataDigests(pgdata), forwardResult, `${signal}: resumed`);
    removeDirs(join(pgdata, ".."));
  }
});

test("in place, kill -9 after every journal record, then --abort: every file has its original bytes", () => {
  for (let k = 1; k < forwardRecords; k++) {
    const pgdata = copy(`abort-${k}`);
    const r = migrateCli(forward(pgdata, "--in-place"), { PGDISK_FAULT_AT: `journal-${k}` });
    assert.equal(r.signal, "SIGKILL", `killed after record ${k}: ${r.stderr}`);
    const a = migrateCli(["--abort", "--pgdata", pgdata]);
    assert.equal(a.status, 0, a.stderr);
    assert.match(a.stdout, /journal records undone/);
    assert.deepEqual(dataDigests(pgdata), original, `record ${k}: abort restores every file`);
    removeDirs(join(pgdata, ".."));
  }
  // after the commit record there is no way back: abort refuses, the same command finishes
  const pgdata = copy("abort-committed");
  assert.equal(migrateCli(forward(pgdata, "--in-place"), { PGDISK_FAULT_AT: `journal-${forwardRecords}` }).signal, "SIGKILL");
  const refused = migrateCli(["--abort", "--pgdata", pgdata]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /JOURNAL_COMMITTED/);
  run(forward(pgdata, "--in-place"));
  assert.deepEqual(dataDigests(pgdata), forwardResult);
  const none = migrateCli(["--abort", "--pgdata", srv.pgdata]);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /JOURNAL_MISSING/);
});
