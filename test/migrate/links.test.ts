// Issue #15, failures 1 and 5: a table in a tablespace (pg_tblspc/<oid> a symlink) and a
// symlinked pg_wal are never written through: after converting TOAST and btree indexes forth and
// back, the md5 (and owner and mode) of every input file, tablespace and WAL included, is
// unchanged; each output has its own tablespace directory and pg_wal; every file pgdisk writes
// (run as root here) belongs to the cluster's owner with the cluster's modes, so PostgreSQL,
// running as that owner, starts on the plain outputs with no chown and returns the same rows.
import { after, before, test } from "node:test";
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, lstatSync, readdirSync, readlinkSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { rowDigests } from "../toast/cluster-helpers.js";
import { DB, fileDigests, linkedCluster, migrateCli, ownersUnder, pgDir, pgIds, removeDirs, type LinkedCluster } from "./helpers.js";

let c: LinkedCluster;
let work = "";
let rows: Map<string, Map<string, string>>;
let digests: Map<string, string>;
let oid = "";
const inputDigests = (): Map<string, string> => fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);

before(async () => {
  c = await linkedCluster();
  c.srv.start();
  rows = rowDigests(c.srv, DB);
  c.srv.stop();
  work = pgDir("links");
  oid = readdirSync(join(c.srv.pgdata, "pg_tblspc"))[0]!;
  digests = inputDigests();
});
after(() => removeDirs(work, c?.srv.root));

function assertOwnOutput(out: string, tablespaceDir: string): void {
  const link = join(out, "pg_tblspc", oid);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readlinkSync(link), tablespaceDir, "the output's tablespace link names the output's own directory");
  assert.ok(statSync(join(tablespaceDir, readdirSync(tablespaceDir)[0]!)).isDirectory());
  assert.ok(!lstatSync(join(out, "pg_wal")).isSymbolicLink() && lstatSync(join(out, "pg_wal")).isDirectory(), "the output's pg_wal is its own directory");
  const { uid, gid } = pgIds();
  for (const e of [...ownersUnder(out), ...ownersUnder(tablespaceDir)]) {
    assert.deepEqual([e.uid, e.gid], [uid, gid], `${e.path} belongs to the cluster's owner`);
    if (e.kind === "file") assert.equal(e.mode, 0o600, `${e.path} has the cluster's file mode`);
    if (e.kind === "dir") assert.equal(e.mode, 0o700, `${e.path} has the cluster's directory mode`);
  }
}

function assertStartsWithSameRows(out: string): void {
  const srv = PgServer.attach(join(out, ".."), { asIs: true });
  srv.start();
  try {
    assert.deepEqual(rowDigests(srv, DB), rows);
  } finally {
    srv.stop();
  }
}

test("TOAST to direct and back: the input (tablespace and WAL included) is unchanged, the outputs have their own", () => {
  const direct = join(work, "direct", "data");
  const r = migrateCli(["toast", "--pgdata", c.srv.pgdata, "--out", direct, "-d", DB, "-t", "docs", "-t", "notes", "--to", "direct", "--measure", "0", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(inputDigests(), digests, "no input file changed");
  assertOwnOutput(direct, `${direct}.tblspc/${oid}`);
  const mapped = join(work, "plain-ts");
  const plain = join(work, "plain", "data");
  const b = migrateCli(["toast", "--pgdata", direct, "--out", plain, "-d", DB, "--all", "--to", "plain", "--measure", "0", "-q", "--tablespace-map", `${oid}=${mapped}`]);
  assert.equal(b.status, 0, b.stderr);
  assert.deepEqual(inputDigests(), digests, "no input file changed");
  assertOwnOutput(plain, mapped);
  assertStartsWithSameRows(plain);
});

test("btree to prefix and back: the input is unchanged, the plain output starts and returns the same rows", () => {
  const prefix = join(work, "prefix", "data");
  const r = migrateCli(["btree", "--pgdata", c.srv.pgdata, "--out", prefix, "-d", DB, "--all", "--to", "prefix", "--mode", "recode", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(inputDigests(), digests, "no input file changed");
  assert.ok(existsSync(join(prefix, "global", "pg_control.pgdisk")));
  assertOwnOutput(prefix, `${prefix}.tblspc/${oid}`);
  const plain = join(work, "bplain", "data");
  const b = migrateCli(["btree", "--pgdata", prefix, "--out", plain, "-d", DB, "--all", "--to", "plain", "--mode", "rebuild", "-q"]);
  assert.equal(b.status, 0, b.stderr);
  assertOwnOutput(plain, `${plain}.tblspc/${oid}`);
  assertStartsWithSameRows(plain);
});

test("an output or tablespace directory overlapping the input (also through a link), or a map for a tablespace that is not there, is refused before anything is written", () => {
  const out = join(work, "bad", "data");
  const inside = migrateCli(["toast", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "direct", "-q", "--tablespace-map", `${oid}=${join(c.tablespaceDir, "x")}`]);
  assert.equal(inside.status, 1);
  assert.match(inside.stderr, /OUTPUT_INSIDE_INPUT: .*tablespace/);
  const unknown = migrateCli(["toast", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "direct", "-q", "--tablespace-map", `1=${join(work, "y")}`]);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /names tablespace 1/);
  assert.equal(existsSync(out), false);
  // the same through links: an output, and a tablespace directory, reached through a link into the input
  symlinkSync(c.srv.pgdata, join(work, "to-input"));
  symlinkSync(c.tablespaceDir, join(work, "to-ts"));
  const viaLink = migrateCli(["toast", "--pgdata", c.srv.pgdata, "--out", join(work, "to-input", "new"), "-d", DB, "--all", "--to", "direct", "-q"]);
  assert.equal(viaLink.status, 1);
  assert.match(viaLink.stderr, /OUTPUT_INSIDE_INPUT: the output .* must not be the input cluster or inside it/);
  const tsViaLink = migrateCli(["toast", "--pgdata", c.srv.pgdata, "--out", out, "-d", DB, "--all", "--to", "direct", "-q", "--tablespace-map", `${oid}=${join(work, "to-ts", "new")}`]);
  assert.equal(tsViaLink.status, 1);
  assert.match(tsViaLink.stderr, /OUTPUT_INSIDE_INPUT: .*tablespace/);
  assert.equal(existsSync(join(c.srv.pgdata, "new")) || existsSync(join(c.tablespaceDir, "new")) || existsSync(out), false);
  assert.deepEqual(inputDigests(), digests);
});

test("any other symbolic link in the data directory is refused (INPUT_SYMLINK_UNSUPPORTED)", () => {
  const copy = join(work, "with-link", "data");
  execFileSync("mkdir", ["-p", join(work, "with-link")]);
  execFileSync("cp", ["-a", c.srv.pgdata, copy]);
  const base = join(copy, "base");
  const db = readdirSync(base).sort().at(-1)!;
  symlinkSync(c.tablespaceDir, join(base, db, "elsewhere"));
  const out = join(work, "with-link-out", "data");
  const r = migrateCli(["toast", "--pgdata", copy, "--out", out, "-d", DB, "--all", "--to", "direct", "-q"]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /INPUT_SYMLINK_UNSUPPORTED: .*elsewhere is a symbolic link/);
  assert.equal(existsSync(out), false);
  assert.deepEqual(inputDigests(), digests);
});
