// Issue #15, items 4 and 9: a table in a tablespace converted --in-place. The cluster (Debian
// PostgreSQL 15, checksums on) has its table docs, docs' TOAST relation and TOAST index and its
// btree indexes in a tablespace outside PGDATA (pg_tblspc/<oid> a link), and pg_wal a link.
// `pgdisk migrate --in-place --toast direct --btree prefix`, run as root:
//  1. killed after a few journal records (and inside docs' TOAST unit), a stock server refuses
//     to start; resumed, it gives the bytes (md5, owner, mode) of an uninterrupted run, in PGDATA
//     and in the tablespace directory; every file pgdisk wrote inside the tablespace belongs to
//     the cluster owner with mode 0600;
//  2. killed, then --abort: every file (PGDATA and tablespace) has its original bytes;
//  3. back to plain in place: the server starts, returns the same rows, pg_amcheck
//     --heapallindexed --parent-check is clean;
//  4. with the tablespace on a filesystem too small for its new files (a tmpfs), the run is
//     refused before anything is written (OUTPUT_NO_SPACE naming the tablespace's directory);
//     so is --out --copy-mode copy with the output's tablespace mapped onto such a filesystem.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { rowDigests } from "../toast/cluster-helpers.js";
import { assertServerAgrees, assertServerRefuses, DB, dataDigests, linkedCluster, migrateCli, ownersUnder, pgIds, type LinkedCluster } from "./helpers.js";

let c: LinkedCluster;
let oid = "";
let original: Map<string, string>;
let rows: Map<string, Map<string, string>>;
let uninterrupted: Map<string, string>;
let records = 0;
const roots: string[] = [];

/** The relative paths (in PGDATA, links followed) of the files in the tablespace directory. */
const inTablespace = (digests: Map<string, string>): string[] => [...digests.keys()].filter((k) => k.startsWith(`/pg_tblspc/${oid}/`) && !k.endsWith("->"));

/**
 * A private copy of the cluster, tablespace and WAL directories included, whose pg_tblspc and
 * pg_wal links are pointed at the copy's own directories (cp -a keeps them naming the original's).
 */
function clusterCopy(tag: string): { pgdata: string; tablespaceDir: string } {
  const root = copyRoot(c.srv.root, tag);
  roots.push(root);
  const pgdata = join(root, "data");
  const relink = (link: string, target: string): void => {
    rmSync(link);
    symlinkSync(target, link);
  };
  const tablespaceDir = join(root, "ts");
  relink(join(pgdata, "pg_tblspc", oid), tablespaceDir);
  relink(join(pgdata, "pg_wal"), join(root, "wal"));
  // the links as PostgreSQL's own: owned by the cluster owner
  execFileSync("chown", ["-h", "postgres:postgres", join(pgdata, "pg_tblspc", oid), join(pgdata, "pg_wal")]);
  assert.equal(readlinkSync(join(pgdata, "pg_tblspc", oid)), tablespaceDir);
  return { pgdata, tablespaceDir };
}

const forward = (pgdata: string): string[] => ["--pgdata", pgdata, "--in-place", "--toast", "direct", "--btree", "prefix", "-q"];
const back = (pgdata: string): string[] => ["--pgdata", pgdata, "--in-place", "--toast", "plain", "--btree", "plain", "-q"];

interface Report {
  databases: { database: string; tables: { table: string }[]; indexes: { index: string }[] }[];
  journal: { records: number; resumed: boolean } | null;
}

function run(args: string[], env: Record<string, string> = {}): Report {
  const r = migrateCli([...args, "--json"], env);
  assert.equal(r.status, 0, `pgdisk migrate ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

/**
 * Where the runs are killed: the first unit (docs' TOAST, in the tablespace) begun; its forks
 * half guarded; its new TOAST heap renamed in, the TOAST index and parent not yet; half way; the
 * record before the commit.
 */
const killPoints = (): string[] => ["journal-3", "journal-6", "toast-heap-committed", `journal-${Math.floor(records / 2)}`, `journal-${records - 1}`];

/** A copy killed (SIGKILL from inside) at the fault point; at toast-heap-committed the tablespace holds a switched file. */
function killedCopy(tag: string, point: string): { pgdata: string } {
  const { pgdata } = clusterCopy(tag);
  const r = migrateCli(forward(pgdata), { PGDISK_FAULT_AT: point });
  assert.equal(r.signal, "SIGKILL", `killed at ${point} (status ${r.status}: ${r.stderr})`);
  if (point === "toast-heap-committed") {
    const now = dataDigests(pgdata);
    assert.ok(inTablespace(now).some((k) => now.get(k) !== original.get(k)), "killed with a new file switched in inside the tablespace");
  }
  return { pgdata };
}

before(async () => {
  c = await linkedCluster();
  c.srv.start();
  // the TOAST relation, its index and the indexes of docs live in the tablespace
  const where = c.srv.rows(
    `select c.relname, coalesce(t.spcname, 'default') from pg_class c left join pg_tablespace t on t.oid = c.reltablespace
     where c.oid in ('docs'::regclass, (select reltoastrelid from pg_class where oid = 'docs'::regclass),
       (select indexrelid from pg_index where indrelid = (select reltoastrelid from pg_class where oid = 'docs'::regclass)),
       'docs_pkey'::regclass, 'docs_tag'::regclass, 'docs_url'::regclass)`,
    DB,
  );
  assert.equal(where.length, 6);
  for (const [rel, ts] of where) assert.equal(ts, "ts", `${rel} is in the tablespace`);
  rows = rowDigests(c.srv, DB);
  c.srv.stop();
  oid = readdirSync(join(c.srv.pgdata, "pg_tblspc"))[0]!;
  original = dataDigests(clusterCopy("original").pgdata);
});
after(() => {
  c?.srv.destroy();
  for (const r of roots) removeRoot(r);
});

test("in place, uninterrupted: the tablespace's files are rewritten, owned by the cluster owner with mode 0600", () => {
  const { pgdata, tablespaceDir } = clusterCopy("uninterrupted");
  const fwd = run(forward(pgdata));
  const db = fwd.databases.find((d) => d.database === DB)!;
  assert.ok(db.tables.some((t) => t.table === "public.docs"), JSON.stringify(db.tables));
  assert.ok(db.indexes.some((x) => x.index === "public.docs_url"), JSON.stringify(db.indexes));
  records = fwd.journal!.records;
  uninterrupted = dataDigests(pgdata);
  const changed = inTablespace(uninterrupted).filter((k) => uninterrupted.get(k) !== original.get(k));
  assert.ok(changed.length >= 3, `files rewritten in the tablespace: ${changed.join(", ")}`);
  assert.deepEqual([...uninterrupted.keys()].filter((k) => /pgdisk-(orig|tmp|build)|postmaster\.pid|pgdisk_journal/.test(k)), [], "no leftovers");
  const { uid, gid } = pgIds();
  for (const e of ownersUnder(tablespaceDir)) {
    assert.deepEqual([e.uid, e.gid], [uid, gid], `${e.path} belongs to the cluster's owner`);
    if (e.kind === "file") assert.equal(e.mode, 0o600, `${e.path} has mode 0600`);
  }
});

test("in place, a group-readable cluster (initdb -g): the files written in PGDATA and the tablespace are 0640, the server starts", () => {
  const { pgdata, tablespaceDir } = clusterCopy("group");
  // what initdb -g makes (PostgreSQL takes its file modes from PGDATA's), the tablespace included
  for (const d of [pgdata, tablespaceDir, join(pgdata, "..", "wal")]) {
    execFileSync("find", [d, "-type", "d", "-exec", "chmod", "0750", "{}", "+"]);
    execFileSync("find", [d, "-type", "f", "-exec", "chmod", "0640", "{}", "+"]);
  }
  run(forward(pgdata));
  const now = dataDigests(pgdata);
  const changed = inTablespace(now).filter((k) => now.get(k) !== original.get(k));
  assert.ok(changed.length >= 3, `files rewritten in the tablespace: ${changed.join(", ")}`);
  const { uid, gid } = pgIds();
  for (const dir of [tablespaceDir, pgdata]) {
    for (const e of ownersUnder(dir)) {
      if (e.kind === "link") continue;
      assert.deepEqual([e.uid, e.gid], [uid, gid], `${e.path} belongs to the cluster's owner`);
      if (e.kind === "file") assert.equal(e.mode, 0o640, `${e.path} has mode 0640`);
      if (e.kind === "dir") assert.equal(e.mode, 0o750, `${e.path} has mode 0750`);
    }
  }
  run(back(pgdata));
  assertServerAgrees(join(pgdata, ".."), rows);
});

test("in place, kill -9 after a few journal records: no stock server starts; resume gives the bytes of an uninterrupted run, PGDATA and tablespace", () => {
  assert.ok(records > 6, `${records} journal records`);
  for (const point of killPoints()) {
    const { pgdata } = killedCopy(`kill-${point}`, point);
    assertServerRefuses(pgdata);
    const resumed = run(forward(pgdata));
    assert.equal(resumed.journal!.resumed, true, point);
    const now = dataDigests(pgdata);
    assert.ok(inTablespace(now).length > 0);
    assert.deepEqual(now, uninterrupted, `${point}: resume gives the bytes of an uninterrupted run`);
  }
});

test("in place, kill -9 after a few journal records, then --abort: every file has its original bytes, PGDATA and tablespace", () => {
  for (const point of killPoints()) {
    const { pgdata } = killedCopy(`abort-${point}`, point);
    const a = migrateCli(["--abort", "--pgdata", pgdata]);
    assert.equal(a.status, 0, a.stderr);
    assert.deepEqual(dataDigests(pgdata), original, `${point}: abort restores every file`);
  }
});

test("in place forward, then back to plain: PostgreSQL starts, returns the same rows, pg_amcheck is clean", () => {
  const { pgdata } = clusterCopy("round-trip");
  run(forward(pgdata));
  run(back(pgdata));
  assertServerAgrees(join(pgdata, ".."), rows);
});

test("in place, a tablespace on a filesystem without room for its new files: refused (OUTPUT_NO_SPACE naming it) before anything is written", () => {
  const { pgdata, tablespaceDir } = clusterCopy("nospace");
  // the tablespace moved onto a tmpfs with 256 KiB more than its files; PGDATA's filesystem has room
  const used = Number(execFileSync("du", ["-sb", tablespaceDir]).toString().split("\t")[0]);
  const mnt = join(pgdata, "..", "small-ts");
  execFileSync("mkdir", [mnt]);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${used + (256 << 10)},mode=0700`, "tmpfs", mnt]);
  try {
    execFileSync("cp", ["-a", `${tablespaceDir}/.`, mnt]);
    execFileSync("chown", ["postgres:postgres", mnt]);
    rmSync(join(pgdata, "pg_tblspc", oid));
    symlinkSync(mnt, join(pgdata, "pg_tblspc", oid));
    execFileSync("chown", ["-h", "postgres:postgres", join(pgdata, "pg_tblspc", oid)]);
    const before = dataDigests(pgdata);
    const r = migrateCli(forward(pgdata));
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`OUTPUT_NO_SPACE: converting in place needs about [\\d.]+ MiB on the filesystem of ${pgdata}/pg_tblspc/${oid}/\\S+, which has [\\d.]+ MiB free; nothing was written`));
    assert.deepEqual(dataDigests(pgdata), before, "nothing written, no journal, no fence");
  } finally {
    execFileSync("umount", [mnt]);
  }
});

test("--out, the output's tablespace mapped to a filesystem without room: refused (OUTPUT_NO_SPACE naming it) before anything is written", () => {
  const { pgdata, tablespaceDir } = clusterCopy("out-nospace");
  const used = Number(execFileSync("du", ["-sb", tablespaceDir]).toString().split("\t")[0]);
  const mnt = join(pgdata, "..", "small-out-ts");
  execFileSync("mkdir", [mnt]);
  // room for a copy of the tablespace's files and 256 KiB, not for the converted relations too
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${used + (256 << 10)}`, "tmpfs", mnt]);
  try {
    const before = dataDigests(pgdata);
    const out = join(pgdata, "..", "out", "data");
    const r = migrateCli(["--pgdata", pgdata, "--out", out, "--copy-mode", "copy", "--tablespace-map", `${oid}=${join(mnt, "ts")}`, "--toast", "direct", "--btree", "prefix", "-q"]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`OUTPUT_NO_SPACE: the output needs about [\\d.]+ MiB on the filesystem of ${mnt}, which has [\\d.]+ MiB free; nothing was written`));
    assert.deepEqual(readdirSync(mnt), [], "nothing on the small filesystem");
    assert.deepEqual(dataDigests(pgdata), before, "the input is unchanged");
  } finally {
    execFileSync("umount", [mnt]);
  }
});
