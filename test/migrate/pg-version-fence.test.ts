// Issue #15: the format fence holds against pg_resetwal. While pg_control has a pgdisk name
// (pg_control.pgdisk, or pg_control.pgdisk-incomplete during a run), PG_VERSION holds pgdisk's
// fence line: a stock server refuses to start naming it and the way back, and `pg_resetwal -f`,
// even after a DBA recreates global/pg_control, refuses the directory and changes nothing.
// Converted back, PG_VERSION has its original bytes, owner and mode, and the server starts.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { PgServer } from "../../samples/pg-server.js";
import { removeRoot } from "../../samples/cluster-kit.js";
import { parsePgVersion, pgVersionFenceText } from "../../formats/catalog/control.js";
import { rowDigests } from "../toast/cluster-helpers.js";
import { assertServerAgrees, assertServerRefuses, dataCopy, dataDigests, DB, migrateCli, pgDir } from "./helpers.js";

const roots: string[] = [];
const servers: PgServer[] = [];
after(() => {
  for (const s of servers) s.destroy();
  for (const r of roots) removeRoot(r);
});

async function cluster(version?: number): Promise<{ srv: PgServer; rows: ReturnType<typeof rowDigests> }> {
  const srv = await PgServer.create({ checksums: true, version });
  servers.push(srv);
  srv.sql(`create database ${DB};`);
  srv.sql(
    `create table docs (id int primary key, body text);
     alter table docs alter column body set storage external;
     insert into docs select g, repeat(md5(g::text), 80 + g) from generate_series(1, 60) g;
     vacuum; checkpoint;`,
    DB,
  );
  const rows = rowDigests(srv, DB);
  srv.stop();
  return { srv, rows };
}

const forward = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "direct", "--btree", "prefix", "--mode", "rebuild", "-q", ...more];
const back = (pgdata: string, ...more: string[]): string[] => ["--pgdata", pgdata, "--toast", "plain", "--btree", "plain", "-q", ...more];

function migrate(args: string[]): void {
  const r = migrateCli(args);
  assert.equal(r.status, 0, `pgdisk migrate ${args.join(" ")}: ${r.stderr}`);
}

test("the fence line: the server reads 0 from its first word, which fits the 63 characters it prints", () => {
  for (const major of [13, 15, 18]) {
    const text = pgVersionFenceText(major);
    const word = text.split(/\s/)[0]!;
    assert.ok(word.length <= 63, word);
    assert.equal(Number.parseInt(word, 10), 0);
    assert.notEqual(text.split("\n")[0], String(major), "pg_resetwal compares the whole first line");
    assert.deepEqual(parsePgVersion(text), { major: String(major), fenced: true });
    assert.deepEqual(parsePgVersion(`${major}\n`), { major: String(major), fenced: false });
  }
});

let fifteen: Awaited<ReturnType<typeof cluster>>;
before(async () => {
  fifteen = await cluster();
});

test("PostgreSQL 15: a fenced output refuses the server and pg_resetwal -f; back in place it starts", () => {
  const { srv, rows } = fifteen;
  const original = readFileSync(join(srv.pgdata, "PG_VERSION"));
  const originalStat = statSync(join(srv.pgdata, "PG_VERSION"));
  const outRoot = pgDir("fence-out");
  roots.push(outRoot);
  const out = join(outRoot, "data");
  migrate(forward(srv.pgdata, "--out", out));
  assert.deepEqual(readFileSync(join(srv.pgdata, "PG_VERSION")), original, "the input's PG_VERSION is unchanged");
  assert.equal(readFileSync(join(out, "PG_VERSION"), "utf8"), pgVersionFenceText(15));
  const st = statSync(join(out, "PG_VERSION"));
  assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [originalStat.uid, originalStat.gid, originalStat.mode & 0o777]);
  assertServerRefuses(out, "a cluster holding Direct TOAST and BTP_PREFIX");

  // what a DBA might try on the server's complaint: recreate pg_control and force a WAL reset
  const tried = dataCopy(outRoot, "resetwal", roots);
  copyFileSync(join(tried, "global", "pg_control.pgdisk"), join(tried, "global", "pg_control"));
  execFileSync("chown", ["postgres:postgres", join(tried, "global", "pg_control")]);
  const before = dataDigests(tried);
  const probe = PgServer.attach(join(tried, ".."), { asIs: true });
  for (const args of [["-f", "-D", tried], ["-n", "-D", tried]]) {
    const r = probe.toolResult("pg_resetwal", args);
    assert.notEqual(r.status, 0, `pg_resetwal ${args.join(" ")} must refuse: ${r.stdout}`);
    assert.match(r.stderr, /data directory is of wrong version/);
    assert.match(r.stderr, /0-pgdisk-fenced:15:pgdisk-migrate--toast=plain--btree=plain/);
  }
  assert.deepEqual(dataDigests(tried), before, "pg_resetwal changed nothing");

  const inPlace = dataCopy(outRoot, "back", roots);
  migrate(back(inPlace, "--in-place"));
  assert.deepEqual(readFileSync(join(inPlace, "PG_VERSION")), original, "PG_VERSION has its original bytes again");
  assertServerAgrees(join(inPlace, ".."), rows);
});

test("in place: fenced while pg_control.pgdisk stays, stock again when the last new format goes", () => {
  const { srv, rows } = fifteen;
  const original = readFileSync(join(srv.pgdata, "PG_VERSION"));
  const pgdata = dataCopy(srv.root, "fence-inplace", roots);
  migrate(forward(pgdata, "--in-place"));
  assert.equal(readFileSync(join(pgdata, "PG_VERSION"), "utf8"), pgVersionFenceText(15));
  assertServerRefuses(pgdata, "a cluster converted in place");
  // only the btree back: Direct TOAST values remain, so the cluster stays fenced
  migrate(["--pgdata", pgdata, "--btree", "plain", "-q", "--in-place"]);
  assert.equal(readFileSync(join(pgdata, "PG_VERSION"), "utf8"), pgVersionFenceText(15));
  migrate(back(pgdata, "--in-place"));
  assert.deepEqual(readFileSync(join(pgdata, "PG_VERSION")), original);
  assertServerAgrees(join(pgdata, ".."), rows);
});

test("PostgreSQL 18: the server refuses the fenced output naming the fence", async () => {
  const { srv, rows } = await cluster(18);
  const outRoot = pgDir("fence-18");
  roots.push(outRoot);
  const out = join(outRoot, "data");
  migrate(forward(srv.pgdata, "--out", out));
  assert.equal(readFileSync(join(out, "PG_VERSION"), "utf8"), pgVersionFenceText(18));
  const s = PgServer.attach(outRoot, { asIs: true, version: 18 });
  const log = join(outRoot, "start.log");
  const start = s.toolResult("pg_ctl", ["-D", out, "-o", `-p ${s.port} -k ${s.socketDir}`, "-l", log, "-w", "-t", "30", "start"]);
  assert.notEqual(start.status, 0);
  assert.match(readFileSync(log, "utf8"), /version 0-pgdisk-fenced:18:pgdisk-migrate--toast=plain--btree=plain, which is not compatible/);
  const backRoot = pgDir("fence-18-back");
  roots.push(backRoot);
  migrate(back(out, "--out", join(backRoot, "data")));
  assert.equal(readFileSync(join(backRoot, "data", "PG_VERSION"), "utf8"), "18\n");
  const s2 = PgServer.attach(backRoot, { asIs: true, version: 18 });
  s2.start();
  try {
    assert.deepEqual(rowDigests(s2, DB), rows);
  } finally {
    s2.stop();
  }
});
