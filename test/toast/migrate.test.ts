// `pgdisk migrate toast` on a copy of the real sample cluster: plain -> direct -> plain. The
// direct intermediate satisfies every invariant of new-formats.md §1.5 and reads back every
// value; back in stock form, PostgreSQL 15 starts on it, pg_amcheck --heapallindexed
// --parent-check finds nothing, and every row, keyed by ctid (so no TID moved), has the
// original's md5. Also: the report's figures, pg_control's name, the SQL file, removed forks,
// checksums, the refusals, and `pgdisk inspect value` on both forms and on damage.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { tinySampleCopy } from "../fixtures/sample.js";
import { Cluster, type DatabaseCatalog } from "../../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { pgChecksumPage, setPageChecksum } from "../../formats/page/checksum.js";
import { pageView, pdChecksum, pageIsNew } from "../../formats/page/page.js";
import { LP_UNUSED, makeLp } from "../../formats/page/item-id.js";
import { emptyStats, PageCache, Touch } from "../../formats/toast/pages.js";
import { ToastIndexScanner } from "../../formats/toast/toast-index.js";
import { sliceCount, tierOf } from "../../formats/toast/tiers.js";
import type { MigrateToastReport } from "../../migrate/toast/engine.js";
import { checkDirectInvariants, pgdisk, pgdiskMigrate, pointersOf, rowDigests, toastReaderOf } from "./cluster-helpers.js";

const DB = "pgdisk_sample";
const TOASTY = ["toast_docs", "compressed_docs", "embeddings"];
let work = "";
let input = "";
let inputRoot = "";
let direct = "";
let back = "";
let original: Map<string, Map<string, string>>;
let forward: MigrateToastReport;
const md5 = (b: Uint8Array): string => createHash("md5").update(b).digest("hex");

before(async () => {
  // a private copy: while it converts, pgdisk holds the input's postmaster.pid, which other test
  // files copying the shared sample at that moment would trip over
  const inputCopy = await tinySampleCopy();
  inputRoot = inputCopy.root;
  input = inputCopy.pgdata;
  work = mkdtempSync(join(tmpdir(), "pgdisk-toast-migrate-"));
  chmodSync(work, 0o755);
  direct = join(work, "direct", "data");
  back = join(work, "back", "data");
  mkdirSync(join(work, "direct"));
  mkdirSync(join(work, "back"));
  // the original rows, from a server on a private copy
  const copy = await tinySampleCopy();
  const srv = PgServer.attach(copy.root);
  srv.start();
  try {
    original = rowDigests(srv, DB);
  } finally {
    srv.destroy();
  }
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (inputRoot) rmSync(inputRoot, { recursive: true, force: true });
});

function inputFilesDigest(): string {
  const cat = new Cluster(input).database(DB);
  const h = createHash("md5");
  for (const t of TOASTY) {
    const rel = cat.findRelation(t);
    const toast = cat.classes.get(rel.toastRelid)!;
    for (const r of [rel, toast, cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!]) h.update(readFileSync(cat.path(r)));
  }
  return h.digest("hex");
}

function checksumsValid(cat: DatabaseCatalog, oid: number): number {
  const rel = cat.classes.get(oid)!;
  const fork = new RelationFork(cat.path(rel), cat.cluster.geometry);
  let n = 0;
  for (const [blk, page] of scanBlocks(fork)) {
    if (pageIsNew(pageView(page))) continue;
    assert.equal(pdChecksum(pageView(page)), pgChecksumPage(page, blk), `${rel.name} block ${blk} checksum`);
    n++;
  }
  fork.close();
  return n;
}

test("to direct: the report, pg_control renamed, the SQL file, forks removed, checksums set, the input untouched", () => {
  const before = inputFilesDigest();
  const r = pgdiskMigrate(["toast", "--pgdata", input, "--out", direct, "-d", DB, "--all", "--to", "direct", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /pgdisk: \[1\/\d+\]/, "progress on stderr");
  forward = JSON.parse(r.stdout) as MigrateToastReport;
  assert.equal(inputFilesDigest(), before, "the input's files did not change");

  const inCat = new Cluster(input).database(DB);
  for (const t of TOASTY) {
    const rel = inCat.findRelation(t);
    const rep = forward.tables.find((x) => x.table === `public.${t}`)!;
    const ptrs = pointersOf(inCat, rel);
    // tiers from the input's pointers: each distinct value once
    const tiers = { single: 0, flat: 0, tree: 0 };
    const seen = new Set<number>();
    for (const p of ptrs) {
      if (p.pointer.tag !== 18 || seen.has(p.pointer.va_valueid)) continue;
      seen.add(p.pointer.va_valueid);
      tiers[tierOf(sliceCount(p.pointer.extsize, 1996))]++;
    }
    assert.deepEqual(rep.values.direct, tiers, `${t}: values by tier`);
    assert.equal(rep.pointers.total, ptrs.length);
    assert.equal(rep.pointers.converted, ptrs.length, `${t}: every pointer fits in the sample`);
    assert.equal(rep.oidsNoLongerUsed.count, seen.size);
    assert.equal(rep.chunks.after.plain, 0);
    assert.equal(rep.toastIndexSize.pagesAfter, 1, "the TOAST index holds only its metapage");
    assert.ok(rep.toastHeap.pagesAfter >= rep.toastHeap.pagesBefore - 2);
    for (const f of rep.forksRemoved) assert.equal(existsSync(f), false, `${f} removed`);
    assert.ok(rep.forksRemoved.some((f) => f.endsWith("_vm")) && rep.forksRemoved.some((f) => f.endsWith("_fsm")), `${t}: ${rep.forksRemoved}`);
    // pages touched: a direct read needs no index
    for (const cls of ["single", "multi", "tree"] as const) {
      const m = rep.pagesTouched[cls];
      if (!m.values) continue;
      assert.equal(m.after!.indexMedian, 0);
      assert.ok(m.before!.indexMedian >= 2);
      assert.ok(m.after!.median < m.before!.median + 2, `${t} ${cls}: ${JSON.stringify(m)}`);
    }
  }
  assert.equal(forward.control.action, "renamed");
  assert.equal(existsSync(join(direct, "global", "pg_control")), false);
  assert.ok(existsSync(join(direct, "global", "pg_control.pgdisk")));
  const sql = readFileSync(join(direct, "pgdisk-migrate.sql"), "utf8");
  for (const t of TOASTY) assert.match(sql, new RegExp(`ALTER TABLE public\\.${t} SET \\(toast_flavour = 'direct'\\);`));
  assert.match(sql, /chunk_tids SET STORAGE PLAIN, ALTER COLUMN chunk_tid_offsets SET STORAGE PLAIN/);

  const cat = new Cluster(direct).database(DB);
  for (const t of TOASTY) {
    const rel = cat.findRelation(t);
    const toast = cat.classes.get(rel.toastRelid)!;
    assert.ok(checksumsValid(cat, toast.oid) > 0);
    checksumsValid(cat, rel.oid);
    checksumsValid(cat, cat.toastIndexOf(toast.oid)!.indexOid);
  }
});

test("the direct intermediate satisfies every invariant of §1.5", () => {
  const cat = new Cluster(direct).database(DB);
  for (const t of TOASTY) {
    const { findings, byTier } = checkDirectInvariants(cat, cat.findRelation(t));
    assert.deepEqual(findings, [], t);
    const rep = forward.tables.find((x) => x.table === `public.${t}`)!;
    assert.deepEqual(byTier, rep.values.direct);
  }
});

test("every value reads the same from the direct copy as from the input, without the index", () => {
  const inCat = new Cluster(input).database(DB);
  const cat = new Cluster(direct).database(DB);
  let n = 0;
  for (const t of TOASTY) {
    const a = pointersOf(inCat, inCat.findRelation(t));
    const b = pointersOf(cat, cat.findRelation(t));
    assert.deepEqual(b.map((p) => [p.block, p.item, p.attnum]), a.map((p) => [p.block, p.item, p.attnum]), "pointers stay at the same TIDs");
    const ra = toastReaderOf(inCat, inCat.findRelation(t));
    const rb = toastReaderOf(cat, cat.findRelation(t));
    for (let i = 0; i < a.length; i++) {
      assert.equal(b[i].pointer.tag, 19);
      assert.equal(b[i].bytes.length, 20);
      const st = emptyStats();
      assert.equal(md5(rb.fetch(b[i].pointer, st)), md5(ra.fetch(a[i].pointer)));
      assert.equal(st.indexPages, 0);
      n++;
    }
    ra.close();
    rb.close();
  }
  assert.ok(n >= 50);
});

test("inspect value: the same value from the stock and the direct form, with --stats, --slice, --pointer, --out, --json", () => {
  const common = ["-d", DB, "-t", "toast_docs", "-c", "body", "--tid", "(0,7)"];
  const stock = pgdisk(["inspect", "value", "--pgdata", input, ...common, "--stats"]);
  const dir = pgdisk(["inspect", "value", "--pgdata", direct, ...common, "--stats"]);
  assert.equal(stock.status, 0, stock.stderr);
  assert.equal(dir.status, 0, dir.stderr);
  assert.ok(stock.stdout.length > 1_000_000);
  assert.deepEqual(dir.stdout, stock.stdout);
  assert.match(stock.stderr, /pages touched: heap \d+, index [1-9]\d*; chunks read \d+/);
  assert.match(dir.stderr, /pages touched: heap \d+, index 0; chunks read \d+; bytes decompressed 0; via direct/);
  const sl = pgdisk(["inspect", "value", "--pgdata", direct, ...common, "--slice", "10000:10050"]);
  assert.equal(sl.stdout.toString(), stock.stdout.subarray(10000, 10050).toString() + "\n");
  const json = JSON.parse(pgdisk(["inspect", "value", "--pgdata", direct, ...common, "--slice", "0:10", "--json"]).stdout.toString());
  assert.equal(json.pointer.flavour, "direct");
  assert.equal(json.pointer.tier, "tree");
  assert.equal(json.text, stock.stdout.subarray(0, 10).toString());
  // straight from the pointer bytes, saved to a file
  const inCat = new Cluster(input).database(DB);
  const p = pointersOf(inCat, inCat.findRelation("compressed_docs")).find((x) => x.pointer.compressed)!;
  const out = join(work, "value.bin");
  const r = pgdisk(["inspect", "value", "--pgdata", input, "-d", DB, "-t", "compressed_docs", "--pointer", Buffer.from(p.bytes).toString("hex"), "--out", out, "--stats"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.length, 0);
  const reader = toastReaderOf(inCat, inCat.findRelation("compressed_docs"));
  assert.deepEqual(new Uint8Array(readFileSync(out)), reader.fetch(p.pointer));
  reader.close();
  assert.match(r.stderr, /bytes decompressed [1-9]/);
  // usage errors exit 1
  assert.equal(pgdisk(["inspect", "value", "--pgdata", input, ...common.slice(0, 4), "-c", "nope", "--tid", "(0,1)"]).status, 1);
  assert.equal(pgdisk(["inspect", "value", "--pgdata", input, "-d", DB, "-t", "toast_docs", "--tid", "(0,1)"]).status, 1);
});

test("inspect value on a damaged direct value exits 2 and prints nothing", () => {
  const dmg = join(work, "damaged");
  cpSync(direct, dmg, { recursive: true });
  const cat = new Cluster(dmg).database(DB);
  const rel = cat.findRelation("toast_docs");
  const p = pointersOf(cat, rel).find((x) => x.block === 0 && x.item === 3)!;
  assert.equal(p.pointer.tag, 19);
  // the value's root line pointer becomes unused
  const root = (p.pointer as { root: { block: number; offset: number } }).root;
  const path = cat.path(cat.classes.get(rel.toastRelid)!);
  const f = readFileSync(path);
  f.writeUInt32LE(makeLp(0, LP_UNUSED, 0), root.block * 8192 + 24 + (root.offset - 1) * 4);
  writeFileSync(path, f);
  const r = pgdisk(["inspect", "value", "--pgdata", dmg, "-d", DB, "-t", "toast_docs", "-c", "body", "--tid", "(0,3)"]);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout.length, 0);
  assert.match(r.stderr, /DTOAST_ROOT_INVALID/);
  rmSync(dmg, { recursive: true, force: true });
});

test("back to plain: PostgreSQL 15 starts, pg_amcheck finds nothing, every row by ctid equals the original", () => {
  const r = pgdiskMigrate(["toast", "--pgdata", direct, "--out", back, "-d", DB, "--all", "--to", "plain", "--json", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const rep = JSON.parse(r.stdout) as MigrateToastReport;
  assert.equal(rep.control.action, "restored");
  assert.ok(existsSync(join(back, "global", "pg_control")));
  for (const t of rep.tables) {
    assert.equal(t.chunks.after.direct, 0);
    assert.equal(t.values.newOids, forward.tables.find((x) => x.table === t.table)!.oidsNoLongerUsed.count, `${t.table}: a fresh OID per value`);
  }
  const srv = PgServer.attach(join(work, "back"));
  srv.start();
  try {
    const am = srv.toolResult("pg_amcheck", [...srv.connArgs(DB), "--heapallindexed", "--parent-check", "--install-missing"]);
    assert.equal(am.status, 0, am.stdout + am.stderr);
    assert.equal(am.stdout.trim(), "");
    const now = rowDigests(srv, DB);
    assert.deepEqual([...now.keys()], [...original.keys()]);
    for (const [t, rows] of original) assert.deepEqual(now.get(t), rows, t);
    assert.ok(original.get("public.toast_docs")!.size >= 20);
  } finally {
    srv.destroy();
  }
});

test("a live row whose value lost a chunk: the conversion stops with exit 2 and leaves no output", async () => {
  const copy = await tinySampleCopy();
  try {
    const cat = new Cluster(copy.pgdata).database(DB);
    const rel = cat.findRelation("toast_docs");
    const p = pointersOf(cat, rel).find((x) => x.live && x.pointer.tag === 18 && x.pointer.extsize > 10 * 1996)!;
    // find chunk 3's TID through the index
    let seq = 0;
    let tid = { block: 0, offset: 0 };
    const toast = cat.classes.get(rel.toastRelid)!;
    const scanner = new ToastIndexScanner(new PageCache(new RelationFork(cat.path(cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!), cat.cluster.geometry)));
    for (const e of scanner.scan((p.pointer as { va_valueid: number }).va_valueid, 3, 3, new Touch(emptyStats()))) ({ seq, tid } = e);
    assert.equal(seq, 3);
    const path = cat.path(toast);
    const f = readFileSync(path);
    f.writeUInt32LE(makeLp(0, LP_UNUSED, 0), tid.block * 8192 + 24 + (tid.offset - 1) * 4);
    // a page a server wrote so (checksum valid): the page checks pass, the value is incomplete
    setPageChecksum(f.subarray(tid.block * 8192, (tid.block + 1) * 8192), tid.block);
    writeFileSync(path, f);
    const out = join(work, "fails", "data");
    const r = pgdiskMigrate(["toast", "--pgdata", copy.pgdata, "--out", out, "-d", DB, "-t", "toast_docs", "--to", "direct", "-q"]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /TOAST_VALUE_INCOMPLETE: a live tuple names toast value \d+, which cannot be read: chunk 3 of \d+ of toast value \d+ is missing/);
    assert.match(r.stderr, /the output .* was removed; the input was not changed/);
    assert.equal(existsSync(out), false);
    // and reading it says the same
    const v = pgdisk(["inspect", "value", "--pgdata", copy.pgdata, "-d", DB, "-t", "toast_docs", "-c", "body", "--tid", `(${p.block},${p.item})`]);
    assert.equal(v.status, 2);
    assert.equal(v.stdout.length, 0);
    assert.match(v.stderr, /TOAST_CHUNK_MISSING: missing chunk number 3/);
  } finally {
    rmSync(copy.root, { recursive: true, force: true });
  }
});

test("refuses a running cluster, one not cleanly shut down, and an existing output", async () => {
  const copy = await tinySampleCopy();
  const srv = PgServer.attach(copy.root);
  srv.start();
  try {
    const r = pgdiskMigrate(["toast", "--pgdata", copy.pgdata, "--out", join(work, "x1"), "-d", DB, "--all", "--to", "direct"]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /CLUSTER_RUNNING: a server \(pid \d+\) is running/);
    assert.equal(existsSync(join(work, "x1")), false);
    srv.tool("pg_ctl", ["-D", copy.pgdata, "-m", "immediate", "stop"]);
    const u = pgdiskMigrate(["toast", "--pgdata", copy.pgdata, "--out", join(work, "x2"), "-d", DB, "--all", "--to", "direct"]);
    assert.equal(u.status, 1);
    assert.match(u.stderr, /CLUSTER_NOT_CLEAN: .* was not shut down cleanly/);
    const e = pgdiskMigrate(["toast", "--pgdata", input, "--out", direct, "-d", DB, "-t", "toast_docs", "--to", "direct"]);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /OUTPUT_EXISTS/);
    const n = pgdiskMigrate(["toast", "--pgdata", input, "--out", join(work, "x3"), "-d", DB, "-t", "web_links_pkey", "--to", "direct"]);
    assert.equal(n.status, 1);
    assert.match(n.stderr, /not a table/);
  } finally {
    srv.destroy();
    rmSync(copy.root, { recursive: true, force: true });
  }
});
