// `pgdisk load` of TOASTed rows on the oldest and newest npm servers (PostgreSQL 13 has no
// attcompression; 18 the newest catalog layout): every stored value equals what COPY FROM stored
// in a twin, SELECT returns the same rows, and the TOAST index equals that server's REINDEX.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NPM_SERVER_VERSIONS, PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { comparePages, copyRoot, reindexCopy, removeRoot } from "../../samples/cluster-kit.js";
import { pgdiskLoad, storedValues, tableDigest } from "./helpers.js";

const DB = "app";
const VERSIONS = [NPM_SERVER_VERSIONS[0]!, NPM_SERVER_VERSIONS[NPM_SERVER_VERSIONS.length - 1]!];
const cleanup: (() => void)[] = [];
after(() => cleanup.forEach((f) => f()));

function rows(): string {
  const r = new Rng(20261202, "load-toast-versions");
  const lines: string[] = [];
  for (let i = 0; i < 60; i++) {
    const n = r.int(1000, 30000);
    const x = i % 3 === 0 ? r.base64(n) : i % 3 === 1 ? "text ".repeat(n / 5) : "start ".repeat(100) + r.base64(n);
    lines.push([String(100 + i), x, r.chance(0.5) ? "e".repeat(r.int(100, 5000)) : "\\N"].join("\t"));
  }
  return lines.join("\n") + "\n";
}

for (const version of VERSIONS) {
  test(`PostgreSQL ${version}: the twin's TOAST decisions, rows and REINDEX-identical TOAST index`, async () => {
    const srv = await PgServer.create({ version, checksums: true });
    cleanup.push(() => srv.destroy());
    srv.sql(`create database ${DB}`);
    srv.sql("create table d (id int primary key, x text, e text); alter table d alter column e set storage external; insert into d select g, repeat('old ' || g, 3000), repeat('e', 2500) from generate_series(1, 10) g; checkpoint;", DB);
    srv.stop();
    const dir = mkdtempSync(join(tmpdir(), `pgdisk-load-toast-v${version}-`));
    chmodSync(dir, 0o755);
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "d.tsv");
    writeForPg(file, rows());
    const loaded = copyRoot(srv.root, `toast-v${version}`);
    const twin = copyRoot(srv.root, `toast-v${version}-twin`);
    cleanup.push(() => removeRoot(loaded), () => removeRoot(twin));
    const r = pgdiskLoad(["--pgdata", join(loaded, "data"), "-d", DB, "-t", "d", "--json", file]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(JSON.parse(r.stdout).toast.values.externalPlain > 20);
    const t = PgServer.attach(twin, { version });
    t.start();
    t.sql(`copy d from '${file}'; checkpoint;`, DB);
    t.stop();
    assert.deepEqual(storedValues(DB, join(loaded, "data"), "d"), storedValues(DB, join(twin, "data"), "d"));
    const cat = new Cluster(join(loaded, "data")).database(DB);
    const toast = cat.classes.get(cat.findRelation("d").toastRelid)!;
    const ix = cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!;
    const name = `pg_toast.${ix.name}`;
    const re = reindexCopy(loaded, DB, [name], version);
    cleanup.push(() => removeRoot(re.root));
    const cmp = comparePages(readFileSync(cat.path(ix)), re.files.get(name)!);
    assert.deepEqual({ pages: cmp.pages, differing: cmp.differing }, { pages: cmp.theirPages, differing: [] });
    const a = PgServer.attach(loaded, { version });
    const b = PgServer.attach(twin, { version });
    a.start();
    b.start();
    try {
      assert.deepEqual(tableDigest(a, DB, "d", "id"), tableDigest(b, DB, "d", "id"));
      assert.deepEqual(a.rows("select count(*) from d where length(x) > 0 and length(coalesce(e, '')) >= 0", DB), [["70"]]);
    } finally {
      a.stop();
      b.stop();
    }
  });
}
