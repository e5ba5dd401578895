// Refusals before anything is written: an output on a filesystem without the free space the
// conversion needs (OUTPUT_NO_SPACE: a 5 MiB tmpfs mounted for the test), and --copy-mode link
// with the output on another filesystem than the input (LINK_CROSS_DEVICE: /dev/shm, a tmpfs,
// against the temporary directory's filesystem). Each: exit 1, the code, nothing written on the
// output's filesystem, the input unchanged.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { dataDigests, migrateCli, pgDir } from "./helpers.js";

let srv: PgServer;
let original: Map<string, string>;
let mnt = "";
let shm = "";

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(
    `create table docs (id int primary key, url text, body text);
     alter table docs alter column body set storage external;
     insert into docs select g, 'https://example.com/archive/' || lpad(g::text, 8, '0'), repeat(md5(g::text), 100) from generate_series(1, 300) g;
     create index docs_url on docs (url);
     vacuum; checkpoint;`,
  );
  srv.stop();
  original = dataDigests(srv.pgdata);
  mnt = pgDir("nospace");
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=5m", "tmpfs", mnt]);
  shm = mkdtempSync(join("/dev/shm", "pgdisk-xdev-"));
});
after(() => {
  if (mnt) {
    execFileSync("umount", [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  }
  if (shm) rmSync(shm, { recursive: true, force: true });
  srv?.destroy();
});

const args = (out: string, mode: string): string[] => ["--pgdata", srv.pgdata, "--out", out, "--copy-mode", mode, "--toast", "direct", "--btree", "prefix", "-q"];

test("OUTPUT_NO_SPACE: a copy that does not fit the output's filesystem is refused before anything is written", () => {
  const r = migrateCli(args(join(mnt, "data"), "copy"));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /OUTPUT_NO_SPACE: .*needs about [\d.]+ MiB on the filesystem of .* which has [\d.]+ MiB free; nothing was written/);
  assert.deepEqual(readdirSync(mnt), [], "nothing on the small filesystem");
  assert.deepEqual(dataDigests(srv.pgdata), original, "the input is unchanged");
});

test("LINK_CROSS_DEVICE: --copy-mode link into another filesystem is refused before anything is written", () => {
  assert.notEqual(statSync(shm).dev, statSync(srv.pgdata).dev, "/dev/shm is another filesystem than the input's");
  const r = migrateCli(args(join(shm, "data"), "link"));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /LINK_CROSS_DEVICE: --copy-mode link hard-links files of .* into .*, which is on another filesystem/);
  assert.deepEqual(readdirSync(shm), [], "nothing in the output's filesystem");
  assert.deepEqual(dataDigests(srv.pgdata), original, "the input is unchanged, its pg_control not renamed");
});
