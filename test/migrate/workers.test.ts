// `pgdisk migrate -j N`: relations converted by worker threads, switched by the main thread in
// plan order. The result must be that of -j 1: the md5 (owner, mode) of every output file, the
// report's figures, and in place the journal (its record count); after kill -9 with workers
// running ahead, the rerun resumes to the same bytes and --abort gives back the original bytes of
// every file (the units staged ahead and never recorded leave nothing behind).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { removeRoot } from "../../samples/cluster-kit.js";
import { dataCopy, dataDigests, migrateCli, pgDir } from "./helpers.js";

const DB = "app";
let srv: PgServer;
let original: Map<string, string>;
const roots: string[] = [];

const copy = (tag: string): string => dataCopy(srv.root, tag, roots);

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`create database ${DB}`);
  // several tables and indexes of different sizes, so that two workers finish out of plan order
  srv.sql(
    `create table big (id int primary key, url text, body text);
     alter table big alter column body set storage external;
     insert into big select g, 'https://example.com/archive/2026/' || lpad(g::text, 8, '0'), repeat(md5(g::text), 40 + g % 90) from generate_series(1, 3000) g;
     create index big_url on big (url);
     create table small (id int primary key, body text);
     alter table small alter column body set storage external;
     insert into small select g, repeat(md5((g * 3)::text), 70 + g) from generate_series(1, 30) g;
     create table mid (id int primary key, tag text, body text);
     alter table mid alter column body set storage external;
     insert into mid select g, 'tag-' || (g % 13), repeat(md5((g * 7)::text), 60 + g % 40) from generate_series(1, 400) g;
     create index mid_tag on mid (tag);
     vacuum; checkpoint;`,
    DB,
  );
  srv.stop();
  original = dataDigests(srv.pgdata);
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
});

const forward = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "direct", "--btree", "prefix", "--mode", "rebuild", "-q", "--json", ...more];

interface Report {
  seconds: number;
  output: string;
  sqlFile: string;
  journal: { records: number } | null;
  databases: { tables: { seconds: number }[]; indexes: { seconds: number }[] }[];
}

function run(args: string[], env: Record<string, string> = {}): Report {
  const r = migrateCli(args, env);
  assert.equal(r.status, 0, `pgdisk migrate ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

/** The report without what differs between any two runs: times, and where the output is. */
function figures(r: Report): unknown {
  const text = JSON.stringify(r, (k, v) => (k === "seconds" ? undefined : v));
  return JSON.parse(text.split(r.output).join("OUT"));
}

test("--out -j 2 gives the files and the figures of -j 1", () => {
  const outs = [1, 2].map((j) => {
    const root = pgDir(`workers-out-${j}`);
    roots.push(root);
    const out = join(root, "data");
    return { r: run(forward(srv.pgdata, "--out", out, "--copy-mode", "copy", "-j", String(j))), out };
  });
  const [one, two] = outs.map((o) => dataDigests(o.out));
  assert.ok(one!.size > 100, `${one!.size} files`);
  assert.deepEqual(two, one, "md5, owner and mode of every file");
  assert.deepEqual(figures(outs[1]!.r), figures(outs[0]!.r));
  assert.deepEqual(dataDigests(srv.pgdata), original, "the input is unchanged");
});

let forwardResult: Map<string, string>;
let forwardRecords = 0;

test("--in-place -j 2 gives the files and the journal of -j 1", () => {
  const a = copy("workers-ip-1");
  const b = copy("workers-ip-2");
  const r1 = run(forward(a, "--in-place", "-j", "1"));
  const r2 = run(forward(b, "--in-place", "-j", "2"));
  forwardResult = dataDigests(a);
  forwardRecords = r1.journal!.records;
  assert.deepEqual(dataDigests(b), forwardResult);
  assert.equal(r2.journal!.records, r1.journal!.records);
  assert.deepEqual(figures(r2), figures(r1));
});

test("in place -j 2, kill -9 after journal records: the rerun resumes to the bytes of -j 1; --abort restores every file", () => {
  assert.ok(forwardRecords > 10, `${forwardRecords} journal records`);
  // the first unit's record (the next unit staged by the other worker), and a unit in the middle
  for (const k of [3, Math.floor(forwardRecords / 2)]) {
    const resume = copy(`workers-kill-${k}`);
    const killed = migrateCli(forward(resume, "--in-place", "-j", "2"), { PGDISK_FAULT_AT: `journal-${k}` });
    assert.equal(killed.signal, "SIGKILL", `killed after record ${k}: ${killed.stderr}`);
    run(forward(resume, "--in-place", "-j", "2"));
    assert.deepEqual(dataDigests(resume), forwardResult, `record ${k}: resumed`);

    const aborted = copy(`workers-abort-${k}`);
    assert.equal(migrateCli(forward(aborted, "--in-place", "-j", "2"), { PGDISK_FAULT_AT: `journal-${k}` }).signal, "SIGKILL");
    const a = migrateCli(["--abort", "--pgdata", aborted]);
    assert.equal(a.status, 0, a.stderr);
    assert.deepEqual(dataDigests(aborted), original, `record ${k}: abort restores every file, nothing staged is left`);
  }
});

test("-j must be a whole number of at least 1", () => {
  const r = migrateCli(forward(srv.pgdata, "--check", "-j", "0"));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--jobs must be a whole number of at least 1/);
});
