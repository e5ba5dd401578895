// Issue #15, --out --copy-mode: `copy` and `clone` leave the input's files as they were (clone
// says when the filesystem has no reflinks, and copies); `link` hard-links the untouched relation
// files (same inode as the input's) but writes every converted relation anew (its own inode), and
// fences the input as pg_upgrade --link does (global/pg_control.old). Each time PostgreSQL starts
// on the result, returns the same rows and pg_amcheck finds nothing. A table and its indexes in a
// tablespace, pg_wal a link.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { rowDigests } from "../toast/cluster-helpers.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { assertServerAgrees, DB, fileDigests, linkedCluster, migrateCli, pgDir, removeDirs, type LinkedCluster } from "./helpers.js";
import { reflinksWork } from "../../migrate/copy-mode.js";

let c: LinkedCluster;
let rows: ReturnType<typeof rowDigests>;
let digests: Map<string, string>;
let inCat: ReturnType<Cluster["database"]>;
const roots: string[] = [];

before(async () => {
  c = await linkedCluster();
  c.srv.start();
  rows = rowDigests(c.srv, DB);
  c.srv.stop();
  digests = fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);
  inCat = new Cluster(c.srv.pgdata).database(DB); // read now: in link mode the input's pg_control is renamed
});
after(() => removeDirs(...roots, c?.srv.root));

interface Report {
  copy: { mode: string; notes: string[]; inputControl: string | null };
  databases: { database: string; tables: { table: string }[]; indexes: { index: string }[] }[];
}

function convert(mode: string): { root: string; out: string; report: Report } {
  const root = pgDir(`copy-${mode}`);
  roots.push(root, join(root, "data.tblspc"));
  const out = join(root, "data");
  const r = migrateCli(["--pgdata", c.srv.pgdata, "--out", out, "--copy-mode", mode, "-d", DB, "--toast", "plain", "--btree", "plain", "--json", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  return { root, out, report: JSON.parse(r.stdout) as Report };
}

test("copy and clone: the input is unchanged, clone says whether it could clone, the server agrees", () => {
  for (const mode of ["copy", "clone"]) {
    const { root, report } = convert(mode);
    if (mode === "clone" && !reflinksWork(root)) {
      assert.equal(report.copy.mode, "copy");
      assert.match(report.copy.notes.join("\n"), /no reflinks \(FICLONE\): files are copied/);
    } else assert.equal(report.copy.mode, mode);
    assert.equal(report.copy.inputControl, null);
    assert.deepEqual(fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir), digests, `${mode}: the input is unchanged`);
    assertServerAgrees(root, rows);
  }
});

test("link: untouched relation files are hard links, converted ones are new files, the input is fenced as pg_upgrade fences it", () => {
  const { root, out, report } = convert("link");
  assert.equal(report.copy.mode, "link");
  assert.equal(report.copy.inputControl, "pg_control.old");
  assert.ok(existsSync(join(c.srv.pgdata, "global", "pg_control.old")));
  assert.equal(existsSync(join(c.srv.pgdata, "global", "pg_control")), false, "a stock server cannot start on the input");
  const converted = new Set(report.databases.flatMap((d) => [...d.tables.map((t) => t.table), ...d.indexes.map((x) => x.index)]));
  assert.ok(converted.has("public.docs") && converted.has("public.docs_url"), [...converted].join(", "));
  const outCat = new Cluster(out).database(DB);
  const ino = (p: string): number => statSync(p).ino;
  for (const name of ["public.docs_url", "public.notes_pkey"]) {
    const rel = inCat.findRelation(name);
    assert.notEqual(ino(inCat.path(rel)), ino(outCat.path(outCat.classes.get(rel.oid)!)), `${name} was converted: a file of its own`);
  }
  // the converted table's own heap file is shared when no pointer changed (plain to plain); a catalog is always shared
  const pgClass = inCat.findRelation("pg_catalog.pg_class");
  assert.equal(ino(inCat.path(pgClass)), ino(outCat.path(outCat.classes.get(pgClass.oid)!)), "pg_class is a hard link");
  // the input's bytes are unchanged but for pg_control's name
  const now = fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);
  const renamed = (m: Map<string, string>): Map<string, string> => new Map([...m].map(([k, v]) => [k.replace("/global/pg_control.old", "/global/pg_control"), v]));
  assert.deepEqual(renamed(now), digests);
  assertServerAgrees(root, rows);
});
