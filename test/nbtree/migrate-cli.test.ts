// `pgdisk migrate btree` as a user runs it: exit codes (0 done, 1 usage or impossible, 2 damage),
// --json, progress on stderr, the input never written, pg_control renamed and restored, the SQL
// file, and the refusals (running server, output inside the input, recode that cannot fit).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, openSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinySampleCopy } from "../fixtures/sample.js";
import { PgServer } from "../../samples/pg-server.js";
import { indexPath, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { KEY_SHAPES, shapeTableSql } from "../../samples/key-shapes.js";
import type { MigrateBtreeReport } from "../../migrate/btree/engine.js";

const ENTRY = new URL("./migrate-cli-entry.ts", import.meta.url).pathname;
const DB = "pgdisk_sample";
let sample: { root: string; pgdata: string };
const roots: string[] = [];

function run(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", ENTRY, "migrate", "btree", ...args], { encoding: "utf8", cwd: new URL("../..", import.meta.url).pathname });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
function newOut(tag: string): string {
  const r = mkdtempSync(join(tmpdir(), `pgdisk-cli-${tag}-`));
  roots.push(r);
  return join(r, "data");
}
function treeDigest(dir: string): string {
  const h = createHash("md5");
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(p).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

before(async () => {
  sample = await tinySampleCopy();
});
after(() => {
  removeRoot(sample?.root);
  for (const r of roots) removeRoot(r);
});

test("--all to prefix, then back to plain: JSON report, progress on stderr, pg_control renamed and restored, input untouched", () => {
  const before = treeDigest(sample.pgdata);
  const out = newOut("prefix");
  const r = run(["--pgdata", sample.pgdata, "--out", out, "-d", DB, "--all", "--to", "prefix", "--mode", "rebuild", "--policy", "lead", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as MigrateBtreeReport;
  assert.equal(rep.schema, "pgdisk.migrate-btree/1");
  assert.ok(rep.indexes.some((i) => i.index === "public.web_links_url_idx" && i.leafCoded > 0));
  assert.ok(!rep.indexes.some((i) => /gist|gin|brin|hash/.test(i.index)), "only btree indexes");
  assert.equal(rep.control.action, "renamed");
  assert.equal(rep.totals.savingsHistogram.reduce((a, b) => a + b, 0), rep.totals.leafPages);
  assert.ok(existsSync(join(out, "global", "pg_control.pgdisk")) && !existsSync(join(out, "global", "pg_control")));
  assert.match(readFileSync(join(out, "pgdisk-migrate.sql"), "utf8"), /ALTER INDEX public\.web_links_url_idx SET \(prefix_compression = on\);/);
  assert.match(r.stderr, /pgdisk: copying/);
  assert.match(r.stderr, /web_links_url_idx: \d+ -> \d+ pages/);
  assert.equal(treeDigest(sample.pgdata), before, "the input is not written");

  const back = newOut("plain");
  const b = run(["--pgdata", out, "--out", back, "-d", DB, "--all", "--to", "plain", "-q"]);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(b.stderr, "");
  assert.match(b.stdout, /pg_control restored/);
  assert.match(b.stdout, /per-page savings/);
  assert.ok(existsSync(join(back, "global", "pg_control")));
  const srv = PgServer.attach(join(back, ".."));
  srv.start();
  try {
    const am = srv.toolResult("pg_amcheck", [...srv.connArgs(DB), "--install-missing", "--heapallindexed", "--parent-check"]);
    assert.equal(am.status, 0, am.stdout + am.stderr);
  } finally {
    srv.stop();
  }
});

test("usage errors exit 1 with a precise message", () => {
  const cases: [string[], RegExp][] = [
    [["--pgdata", sample.pgdata, "--out", newOut("u1"), "-d", DB, "--to", "prefix"], /name an index with --index NAME, or use --all/],
    [["--pgdata", sample.pgdata, "--out", newOut("u2"), "-d", DB, "--to", "prefix", "--all", "--index", "web_links_url_idx"], /not both/],
    [["--pgdata", sample.pgdata, "--out", newOut("u3"), "-d", DB, "--all"], /--to/],
    [["--pgdata", sample.pgdata, "--out", newOut("u4"), "-d", DB, "--to", "prefix", "--index", "no_such_index"], /RELATION_NOT_FOUND/],
    [["--pgdata", sample.pgdata, "--out", newOut("u5"), "-d", DB, "--to", "prefix", "--index", "places_area_gist_idx"], /only btree indexes/],
    [["--pgdata", sample.pgdata, "--out", join(sample.pgdata, "inside"), "-d", DB, "--to", "prefix", "--all"], /OUTPUT_INSIDE_INPUT/],
    [["--pgdata", sample.pgdata, "--out", sample.root, "-d", DB, "--to", "prefix", "--all"], /OUTPUT_EXISTS/],
    [["--pgdata", sample.pgdata, "--out", newOut("u8"), "-d", "nodb", "--to", "prefix", "--all"], /DATABASE_NOT_FOUND/],
  ];
  for (const [args, msg] of cases) {
    const r = run(args);
    assert.equal(r.status, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
  assert.ok(!existsSync(join(sample.pgdata, "inside")));
});

test("a running server on the input is refused (exit 1)", () => {
  const srv = PgServer.attach(sample.root);
  srv.start();
  try {
    const r = run(["--pgdata", sample.pgdata, "--out", newOut("running"), "-d", DB, "--to", "prefix", "--all"]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /CLUSTER_RUNNING/);
  } finally {
    srv.stop();
  }
});

test("--index with several names; short keys alone leave pg_control as it is", () => {
  const out = newOut("short");
  const r = run(["--pgdata", sample.pgdata, "--out", out, "-d", DB, "--to", "prefix", "--index", "embeddings_doc_idx", "--index", "web_links_score_desc_idx", "--mode", "recode", "--json", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as MigrateBtreeReport;
  assert.deepEqual(rep.indexes.map((i) => i.index).sort(), ["public.embeddings_doc_idx", "public.web_links_score_desc_idx"]);
  assert.equal(rep.totals.leafCoded, 0);
  assert.equal(rep.control.action, "unchanged");
  assert.ok(existsSync(join(out, "global", "pg_control")));
});

test("damage in the input exits 2, names the block, and nothing is written", () => {
  const copy = mkdtempSync(join(tmpdir(), "pgdisk-cli-damage-"));
  roots.push(copy);
  spawnSync("cp", ["-a", sample.root + "/.", copy]);
  const path = indexPath(join(copy, "data"), DB, "web_links_url_idx");
  // block 1 is a leaf: point its first line pointer far outside the page
  const fd = openSync(path, "r+");
  const lp = Buffer.alloc(4);
  lp.writeUInt32LE((0x7ff0 | (1 << 15) | (64 << 17)) >>> 0);
  writeSync(fd, lp, 0, 4, 8192 + 24 + 4);
  closeSync(fd);
  const out = newOut("damage");
  const r = run(["--pgdata", join(copy, "data"), "--out", out, "-d", DB, "--to", "prefix", "--index", "web_links_url_idx"]);
  assert.equal(r.status, 2, r.stderr);
  // the input's pages are checked before the copy: the page's checksum no longer matches
  assert.match(r.stderr, /PAGE_CHECKSUM_MISMATCH: .*block 1\b.*nothing was converted/);
  assert.ok(!existsSync(out));
});

test("prefix pages packed fuller than one plain page cannot be recoded back: exit 1, rebuild works", async () => {
  const srv = await stoppedCluster(shapeTableSql(KEY_SHAPES[0]!, "u", 6000) + "\ncreate index u_full on u (url) with (fillfactor = 100);");
  roots.push(srv.root);
  const p = newOut("full-prefix");
  assert.equal(run(["--pgdata", srv.pgdata, "--out", p, "-d", "postgres", "--to", "prefix", "--index", "u_full", "-q"]).status, 0);
  const r = run(["--pgdata", p, "--out", newOut("full-recode"), "-d", "postgres", "--to", "plain", "--mode", "recode", "--index", "u_full"]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /PREFIX_RECODE_DOES_NOT_FIT.*--mode rebuild/);
  const ok = run(["--pgdata", p, "--out", newOut("full-rebuild"), "-d", "postgres", "--to", "plain", "--mode", "rebuild", "--index", "u_full", "-q"]);
  assert.equal(ok.status, 0, ok.stderr);
});
