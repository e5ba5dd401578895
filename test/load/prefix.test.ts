// A BTP_PREFIX index stays prefix-coded through `pgdisk load`, coded as a prefix rebuild codes
// it: the same file is loaded into two copies of a cluster, one whose text index was converted
// to BTP_PREFIX first; converting the plain copy's loaded index to BTP_PREFIX (rebuild, lead
// policy) must give the prefix copy's loaded index byte for byte.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { convertInPlace, copyRoot, indexPath, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { pgdiskLoad } from "./helpers.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { leafTuples } from "../../formats/nbtree/reader.js";

const DB = "app";
let srv: PgServer;
let dir = "";
const roots: string[] = [];

before(async () => {
  srv = await stoppedCluster(
    `create table p (id int primary key, url text);
     create index p_url on p (url);
     insert into p select g, 'https://example.com/archive/2026/' || lpad(g::text, 8, '0') from generate_series(1, 3000) g;`,
    { db: DB },
  );
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-prefix-"));
  chmodSync(dir, 0o755);
});
after(() => {
  srv?.destroy();
  for (const r of roots) removeRoot(r);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const codedLeaves = (path: string): number => {
  const fork = new RelationFork(path);
  try {
    return new Set([...leafTuples(fork)].filter((t) => t.prefixPage).map((t) => t.block)).size;
  } finally {
    fork.close();
  }
};

test("a BTP_PREFIX index is rebuilt prefix-coded, as a prefix rebuild of the plain result", () => {
  const file = join(dir, "rows.tsv");
  writeForPg(file, Array.from({ length: 4000 }, (_, i) => `${5000 + i}\thttps://example.com/archive/2027/${String(i * 13).padStart(8, "0")}`).join("\n") + "\n");
  const plainRoot = copyRoot(srv.root, "pfx-plain");
  const prefixRoot = copyRoot(srv.root, "pfx-coded");
  roots.push(plainRoot, prefixRoot);
  const plain = join(plainRoot, "data");
  const coded = join(prefixRoot, "data");
  convertInPlace(coded, DB, ["p_url"], { to: "prefix", mode: "rebuild", policy: "lead" });
  assert.ok(codedLeaves(indexPath(coded, DB, "p_url")) > 0);

  for (const pgdata of [plain, coded]) {
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "p", "--json", file]);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.indexes.find((i: { index: string }) => i.index === "public.p_url").prefix, pgdata === coded);
  }
  assert.equal(codedLeaves(indexPath(plain, DB, "p_url")), 0);
  convertInPlace(plain, DB, ["p_url"], { to: "prefix", mode: "rebuild", policy: "lead" });
  const expected = readFileSync(indexPath(plain, DB, "p_url"));
  const got = readFileSync(indexPath(coded, DB, "p_url"));
  assert.ok(codedLeaves(indexPath(coded, DB, "p_url")) > 0);
  assert.equal(got.length, expected.length);
  assert.ok(got.equals(expected), "the loaded BTP_PREFIX index differs from the prefix rebuild of the plain load");
});
