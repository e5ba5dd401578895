// The conversion's hard cases on a purpose-built PostgreSQL 15 cluster: full pages where a
// pointer that grows by 2 bytes no longer fits (it stays plain, its chunks kept and indexed),
// tuples mixing direct and plain pointers, later attributes re-aligned (int4/int8/int2 after a
// pointer, a dropped column), one value named by two tuple versions (an UPDATE that kept it),
// deleted rows, dead tuples whose chunks VACUUM already removed (kept plain, reported), chunks
// no tuple names (dropped, counted) and an aborted insert. Round trip plain -> direct -> plain:
// invariants hold in between; after, PostgreSQL starts, pg_amcheck finds nothing and every row
// has its original ctid and contents.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { pageView, pdLower, pdUpper } from "../../formats/page/page.js";
import type { MigrateToastReport } from "../../migrate/toast/engine.js";
import { checkDirectInvariants, pgdiskMigrate, pointersOf, rowDigests, toastReaderOf } from "./cluster-helpers.js";

const DB = "edge";
const TABLES = ["tight", "mixed", "multi", "gone", "orphan"];
let work = "";
let srcRoot = "";
let original: Map<string, Map<string, string>>;
let fwd: MigrateToastReport;
let ids: Record<string, string> = {};

before(async () => {
  work = mkdtempSync(join(tmpdir(), "pgdisk-toast-edge-"));
  chmodSync(work, 0o755);
  const srv = await PgServer.create({ dir: join(work, "src"), checksums: false });
  srcRoot = join(work, "src");
  try {
    srv.sql(`CREATE DATABASE ${DB}`);
    const v = (n: number, seed: string): string => `(SELECT string_agg(md5(${seed} || ':' || g), '') FROM generate_series(1, ${Math.ceil(n / 32)}) g)`;
    srv.sql(
      `
      -- 48-byte tuples: 157 to a page, 4 bytes to spare; a converted pointer needs 8 more
      CREATE TABLE tight (a int4, b int2, v text); ALTER TABLE tight ALTER v SET STORAGE EXTERNAL;
      INSERT INTO tight SELECT i, i, ${v(2100, "'t' || i")} FROM generate_series(1, 400) i;
      -- 72-byte tuples: converting v costs nothing (b's padding absorbs it), converting w costs 8
      CREATE TABLE mixed (a int4, v text, b int4, w text, c int2); ALTER TABLE mixed ALTER v SET STORAGE EXTERNAL, ALTER w SET STORAGE EXTERNAL;
      INSERT INTO mixed SELECT i, ${v(2100, "'mv' || i")}, i, ${v(2500, "'mw' || i")}, i FROM generate_series(1, 250) i;
      -- two pointers, an int8 and an int2 behind them, a dropped column, compressed and not;
      -- few enough rows that no page is pruned (the updated rows' old versions stay)
      CREATE TABLE multi (id int, x int4, a text, b int8, c text, d int2); ALTER TABLE multi ALTER a SET STORAGE EXTERNAL;
      INSERT INTO multi SELECT i, i, ${v(5000, "'ma' || i")}, i * 1000, (SELECT string_agg(repeat(md5('c' || i || g), 2), '') FROM generate_series(1, 600) g), i FROM generate_series(1, 24) i;
      ALTER TABLE multi DROP COLUMN x;
      INSERT INTO multi SELECT i, ${v(300000, "'big' || i")}, i, repeat('x', 100), i FROM generate_series(25, 26) i;
      UPDATE multi SET d = d + 1 WHERE id % 3 = 0;
      DELETE FROM multi WHERE id % 7 = 0;
      BEGIN; INSERT INTO multi SELECT i, ${v(4000, "'ab' || i")}, i, repeat('y', 9000), i FROM generate_series(100, 104) i; ROLLBACK;
      CREATE TABLE gone (id int, v text); ALTER TABLE gone ALTER v SET STORAGE EXTERNAL;
      INSERT INTO gone SELECT i, ${v(3000, "'g' || i")} FROM generate_series(1, 20) i;
      DELETE FROM gone WHERE id <= 5;
      CREATE TABLE orphan (id int, v text); ALTER TABLE orphan ALTER v SET STORAGE EXTERNAL;
      INSERT INTO orphan SELECT i, ${v(3000, "'o' || i")} FROM generate_series(1, 20) i;
      DELETE FROM orphan WHERE id <= 6;
      `,
      DB,
    );
    // gone: the TOAST table vacuumed alone (the deleted rows' chunks go, the rows stay);
    // orphan: the table vacuumed without its TOAST table (the rows go, their chunks stay)
    const goneToast = srv.rows("SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 'gone'", DB)[0][0]!;
    srv.sql(`VACUUM ${goneToast}; VACUUM (PROCESS_TOAST false) orphan;`, DB);
    ids = Object.fromEntries(srv.rows("SELECT relname, oid FROM pg_class WHERE relname IN ('tight','mixed','multi','gone','orphan')", DB).map((r) => [r[0]!, r[1]!]));
  } finally {
    srv.stop();
  }
  // the conversion's input is a copy taken before anything scans the tables again
  mkdirSync(join(work, "in"));
  cpSync(join(srcRoot, "data"), join(work, "in", "data"), { recursive: true });
  srv.start();
  try {
    original = rowDigests(srv, DB);
  } finally {
    srv.stop();
  }
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const input = (): string => join(work, "in", "data");
const tableArgs = TABLES.flatMap((t) => ["-t", t]);

test("to direct: pointers that no longer fit stay plain, mixed tuples, dead values without chunks kept, orphans dropped", () => {
  mkdirSync(join(work, "direct"));
  const r = pgdiskMigrate(["toast", "--pgdata", input(), "--out", join(work, "direct", "data"), "-d", DB, ...tableArgs, "--to", "direct", "--json", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  fwd = JSON.parse(r.stdout) as MigrateToastReport;
  const rep = (t: string) => fwd.tables.find((x) => x.table === `public.${t}`)!;
  const inCat = new Cluster(input()).database(DB);
  const outCat = new Cluster(join(work, "direct", "data")).database(DB);

  // tight: on a full page nothing fits; the last, partly filled page converts
  const tight = rep("tight");
  assert.ok(tight.pointers.keptPlain["does-not-fit"] >= 300, JSON.stringify(tight.pointers));
  assert.ok(tight.pointers.converted > 0);
  assert.equal(tight.pointers.converted + tight.pointers.keptPlain["does-not-fit"], 400);
  assert.ok(tight.keptPlainList.every((k) => k.reason === "does-not-fit"));
  assert.ok(tight.chunks.after.plain > 0 && tight.toastIndexSize.pagesAfter > 1, "kept chunks are indexed");
  const tightOut = pointersOf(outCat, outCat.findRelation("tight"));
  const fork = new RelationFork(outCat.path(outCat.findRelation("tight")), outCat.cluster.geometry);
  for (const p of tightOut) {
    const dv = pageView(fork.readBlock(p.block));
    if (p.pointer.tag === 18) assert.ok(pdUpper(dv) - pdLower(dv) < 8, `a kept pointer is on a page without 8 free bytes (block ${p.block})`);
  }
  fork.close();

  // mixed: every v converts (free), w only while the page has room: tuples with both flavours
  const mixedOut = pointersOf(outCat, outCat.findRelation("mixed"));
  const flavours = new Map<string, Set<number>>();
  for (const p of mixedOut) flavours.set(`${p.block},${p.item}`, (flavours.get(`${p.block},${p.item}`) ?? new Set()).add(p.pointer.tag));
  assert.ok([...flavours.values()].some((s) => s.size === 2), "a tuple with a direct and a plain pointer");
  assert.ok(mixedOut.filter((p) => p.attnum === 2).every((p) => p.pointer.tag === 19), "v always converts");

  // multi: one value named by two tuple versions gets one root; dead and aborted tuples
  const multiOut = pointersOf(outCat, outCat.findRelation("multi"));
  const inMulti = pointersOf(inCat, inCat.findRelation("multi"));
  const byValue = new Map<number, Set<string>>();
  inMulti.forEach((p, i) => {
    if (p.pointer.tag !== 18 || multiOut[i].pointer.tag !== 19) return;
    const root = multiOut[i].pointer as { root: { block: number; offset: number } };
    byValue.set(p.pointer.va_valueid, (byValue.get(p.pointer.va_valueid) ?? new Set()).add(`${root.root.block},${root.root.offset}`));
  });
  assert.ok([...byValue.values()].every((s) => s.size === 1), "one root per value");
  assert.ok(inMulti.filter((p) => p.pointer.tag === 18).length > new Set(inMulti.map((p) => (p.pointer as { va_valueid: number }).va_valueid)).size, "some value is named twice");
  const multi = rep("multi");
  assert.ok(multi.chunks.droppedPlain.unusable > 0, "the aborted insert's chunks are not used");
  assert.ok(multi.pointers.keptPlain["chunks-missing"] > 0, "the aborted insert's pointers name no usable chunk");
  assert.ok(multi.values.direct.tree >= 2);

  // gone: the deleted rows' pointers name chunks VACUUM removed
  const gone = rep("gone");
  assert.equal(gone.pointers.keptPlain["chunks-missing"], 5);
  assert.equal(gone.pointers.converted, 15);
  // orphan: chunks no pointer names are dropped and counted
  const orphan = rep("orphan");
  assert.equal(orphan.chunks.droppedPlain.unreferenced, 6 * 2);
  assert.equal(orphan.oidsNoLongerUsed.count, 20);

  for (const t of TABLES) {
    // no parent TID changed and every readable value reads the same
    const a = pointersOf(inCat, inCat.findRelation(t));
    const b = pointersOf(outCat, outCat.findRelation(t));
    assert.deepEqual(b.map((p) => [p.block, p.item, p.attnum]), a.map((p) => [p.block, p.item, p.attnum]), t);
    const ra = toastReaderOf(inCat, inCat.findRelation(t));
    const rb = toastReaderOf(outCat, outCat.findRelation(t));
    for (let i = 0; i < a.length; i++) if (a[i].live) assert.deepEqual(rb.fetch(b[i].pointer), ra.fetch(a[i].pointer), `${t} (${a[i].block},${a[i].item})`);
    ra.close();
    rb.close();
    assert.deepEqual(checkDirectInvariants(outCat, outCat.findRelation(t)).findings, [], `${t}: §1.5`);
  }
  assert.equal(Number(ids.tight) > 0, true);
});

test("back to plain: PostgreSQL 15 starts, pg_amcheck finds nothing, rows and ctids as before", () => {
  mkdirSync(join(work, "back"));
  const r = pgdiskMigrate(["toast", "--pgdata", join(work, "direct", "data"), "--out", join(work, "back", "data"), "-d", DB, ...tableArgs, "--to", "plain", "--json", "-q"]);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as MigrateToastReport;
  assert.equal(rep.control.action, "restored");
  for (const t of rep.tables) assert.equal(t.chunks.after.direct, 0);
  const srv = PgServer.attach(join(work, "back"));
  srv.start();
  try {
    const am = srv.toolResult("pg_amcheck", [...srv.connArgs(DB), "--heapallindexed", "--parent-check", "--install-missing"]);
    assert.equal(am.status, 0, am.stdout + am.stderr);
    const now = rowDigests(srv, DB);
    for (const [t, rows] of original) assert.deepEqual(now.get(t), rows, t);
    // the server reads and writes the converted tables
    srv.sql("UPDATE tight SET v = v || 'x' WHERE a % 50 = 0; INSERT INTO mixed SELECT 1000, repeat('q', 5000), 1, repeat('r', 5000), 1; VACUUM FULL multi;", DB);
    const am2 = srv.toolResult("pg_amcheck", [...srv.connArgs(DB), "--heapallindexed", "--parent-check"]);
    assert.equal(am2.status, 0, am2.stdout + am2.stderr);
  } finally {
    srv.destroy();
  }
});
