// Shared by the index-page dump tests: a stopped cluster's indexes dumped as JSON pages and one
// relation's text dump, through bin/pgdisk.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import type { DumpPage } from "../../inspect/dump/model.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");

/** The pages of `index` in database `db` as `inspect dump --format json` gives them. */
export function dumpIndexJson(pgdata: string, index: string, db = "postgres"): DumpPage[] {
  const r = spawnSync(BIN, ["inspect", "dump", "--pgdata", pgdata, "-d", db, "-t", index, "--format", "json", "--jobs", "1"], { encoding: "utf8", maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).relations[0].pages as DumpPage[];
}

/** The text dump of `rel` (more options in `extra`). */
export function dumpRelationText(pgdata: string, rel: string, extra: string[] = [], db = "postgres"): string {
  const r = spawnSync(BIN, ["inspect", "dump", "--pgdata", pgdata, "-d", db, "-t", rel, "--jobs", "1", ...extra], { encoding: "utf8", maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** A cluster of `version` made by `setup`, its `indexes` dumped while it is stopped, `text` the text dump of `textRel`; then started again. */
export async function indexDumpFixture(version: number, setup: string, indexes: string[], textRel: string): Promise<{ srv: PgServer; dumps: Map<string, DumpPage[]>; text: string }> {
  const srv = await PgServer.create(version === 15 ? {} : { version });
  srv.sql(setup);
  srv.stop();
  const dumps = new Map(indexes.map((ix) => [ix, dumpIndexJson(srv.pgdata, ix)] as const));
  const text = dumpRelationText(srv.pgdata, textRel);
  srv.start();
  return { srv, dumps, text };
}
