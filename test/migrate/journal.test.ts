// The journal's generic steps (migrate/journal.ts), each kind once, as a bulk loader would use
// them: killed (SIGKILL from inside) right after every record, `abort` gives every file of the
// directory its original bytes (pg_control included) and removes the journal; run to its end,
// the changes hold (pg_control's nextOid moved, CRC valid) and no original or journal is left.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { ROOT } from "../toast/cluster-helpers.js";
import { Journal } from "../../migrate/journal.js";
import { clusterOwner } from "../../migrate/file-owner.js";
import { readControlFile } from "../../formats/catalog/control.js";
import { fileDigests } from "./helpers.js";

let srv: PgServer;
const roots: string[] = [];
const RECORDS = 11;

before(async () => {
  srv = await PgServer.create();
  srv.stop();
  for (const [name, body] of [["replaced.txt", "original\n"], ["appended.txt", "first\n"], ["removed.txt", "doomed\n"]]) writeFileSync(join(srv.pgdata, name), body);
  writeFileSync(join(srv.pgdata, "base", "1", "99999"), "segment 0 as it was");
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
});

function copy(tag: string): string {
  const root = copyRoot(srv.root, tag);
  roots.push(root);
  return join(root, "data");
}

const digests = (pgdata: string): Map<string, string> => new Map([...fileDigests(pgdata)].map(([k, v]) => [k.slice(pgdata.length), v]));
const steps = (pgdata: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "test", "migrate", "journal-steps.ts"), pgdata], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...env } });

test("killed after each record, abort restores every file's bytes", () => {
  const original = digests(srv.pgdata);
  for (let k = 1; k <= RECORDS - 1; k++) {
    const pgdata = copy(`journal-${k}`);
    const r = steps(pgdata, { PGDISK_FAULT_AT: `journal-${k}` });
    assert.equal(r.signal, "SIGKILL", `record ${k}: ${r.stderr}`);
    Journal.open(pgdata, clusterOwner(pgdata)).abort();
    assert.deepEqual(digests(pgdata), original, `record ${k}`);
  }
});

test("run to the end: every change holds, nothing of the journal is left; after commit, abort refuses", () => {
  const pgdata = copy("journal-all");
  const nextOid = readControlFile(pgdata).control.fields.checkPointCopy.nextOid;
  const r = steps(pgdata);
  assert.equal(r.status, 0, r.stderr);
  const after = digests(pgdata);
  assert.deepEqual([...after.keys()].filter((k) => /pgdisk/.test(k)), [], "no journal, original, temporary file or fenced pg_control left");
  assert.equal(readFileSync(join(pgdata, "created.txt"), "utf8"), "new\n");
  assert.equal(readFileSync(join(pgdata, "replaced.txt"), "utf8"), "replacement\n");
  assert.equal(readFileSync(join(pgdata, "appended.txt"), "utf8"), "first\nmore\n");
  assert.equal(existsSync(join(pgdata, "removed.txt")), false);
  assert.equal(readFileSync(join(pgdata, "base", "1", "99999.1"), "utf8"), "a new segment 1");
  const control = readControlFile(pgdata);
  assert.equal(control.name, "pg_control", "commit(null): stock formats only, the fence is down");
  assert.equal(control.control.fields.checkPointCopy.nextOid, nextOid + 1000, "nextOid moved, the CRC is valid (decoded)");
  const committed = copy("journal-committed");
  assert.equal(steps(committed, { PGDISK_FAULT_AT: `journal-${RECORDS}` }).signal, "SIGKILL");
  assert.throws(() => Journal.open(committed, clusterOwner(committed)).abort(), /JOURNAL_COMMITTED|was committed/);
});
