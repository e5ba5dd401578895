// plain -> BTP_PREFIX -> plain through the converter (migrate/btree/engine.ts), for both modes and
// both encoder policies: every coded page passes every §2.5 check (split-fit bound, exact T and M,
// 16 C <= 15 T, group runs) and decodes to exactly the original tuples; the plain result is
// byte-identical to the server's REINDEX, passes pg_amcheck --heapallindexed --parent-check on a
// stock server started on it, and its index scans return the same rows as heap scans of the input.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { KEY_SHAPES, shapeIndexVariants, shapeTableSql, type KeyShape } from "../../samples/key-shapes.js";
import { comparePages, indexPath, leafStream, reindexCopy, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { migrateBtree, type MigrateBtreeReport } from "../../migrate/btree/engine.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { readPrefixLeafPage, plainLeafItems } from "../../formats/nbtree/prefix-page.js";
import { BTP_LEAF, BTP_PREFIX, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { pageView } from "../../formats/page/page.js";
import type { PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import type { ConvertMode } from "../../migrate/btree/convert.js";

const DB = "rt";
const SHAPES = ["urls", "trsn", "jsonb", "tbt", "email", "short"].map((n) => KEY_SHAPES.find((s) => s.name === n)!);
const variants = new Map<KeyShape, string[]>();
let srv: PgServer;
let reRoot: string | undefined;
let reindexed: Map<string, Buffer>;
const allIndexes: string[] = [];
const cleanup: string[] = [];

/** What heap scans of the input return, per index: ids of rows with a non-null first key, in id order. */
const heapAnswers = new Map<string, string>();
const scanSql = (s: KeyShape, table: string): string =>
  `select count(*) || ':' || md5(coalesce(string_agg(id::text, ',' order by id), '')) from ${table} where ${s.keys[0]} >= (select min(${s.keys[0]}) from ${table})`;

before(async () => {
  const sql: string[] = [];
  for (const s of SHAPES) {
    const table = `r_${s.name}`;
    sql.push(shapeTableSql(s, table, 4000, 2500));
    // delete some rows before the index is built and vacuumed: the heap has holes, TIDs are not dense
    sql.push(`delete from ${table} where id % 9 = 0;`);
    const v = shapeIndexVariants(s, table).filter((x) => /_(base|desc|incl|ff100|uniq)$/.test(x.name));
    variants.set(s, v.map((x) => x.name));
    allIndexes.push(...v.map((x) => x.name));
    sql.push(...v.map((x) => x.sql + ";"));
  }
  srv = await stoppedCluster(sql.join("\n"), { checksums: true, db: DB });
  const re = reindexCopy(srv.root, DB, allIndexes);
  reRoot = re.root;
  reindexed = re.files;
  srv.start();
  for (const s of SHAPES) heapAnswers.set(s.name, srv.rows(`set enable_indexscan = off; set enable_indexonlyscan = off; set enable_bitmapscan = off; ${scanSql(s, `r_${s.name}`)}`, DB)[0]![0]!);
  srv.stop();
});

after(() => {
  srv?.destroy();
  removeRoot(reRoot);
  for (const c of cleanup) removeRoot(c);
});

function outDir(tag: string): string {
  const root = mkdtempSync(join(tmpdir(), `pgdisk-rt-${tag}-`));
  cleanup.push(root);
  return join(root, "data");
}

/** Every BTP_PREFIX page of an index passes readPrefixLeafPage with no finding; returns the coded page count. */
function checkPrefixPages(path: string): number {
  const fork = new RelationFork(path);
  let coded = 0;
  try {
    for (const [blk, page] of scanBlocks(fork)) {
      if (blk === 0) continue;
      const o = readBTOpaque(pageView(page));
      if (!(o.btpo_flags & BTP_PREFIX)) continue;
      coded++;
      const r = readPrefixLeafPage(page, { btmVersion: 4 });
      assert.deepEqual(r.findings.map((f) => f.code), [], `${path} block ${blk}`);
      assert.ok(r.T + (r.highKey ? ((r.highKey.length + 7) & ~7) + 4 : 0) + 2 * r.M + 8 <= 2 * (8192 - 40), "split-fit bound");
      assert.ok(16 * r.C <= 15 * r.T, "saves at least a sixteenth");
    }
  } finally {
    fork.close();
  }
  return coded;
}

/** recode: each leaf page's decoded items are the original page's items, byte for byte; other pages are unchanged. */
function checkRecodedPages(origPath: string, codedPath: string): void {
  const a = readFileSync(origPath);
  const b = readFileSync(codedPath);
  assert.equal(a.length, b.length);
  for (let blk = 0; blk < a.length / 8192; blk++) {
    const pa = new Uint8Array(a.buffer, a.byteOffset + blk * 8192, 8192);
    const pb = new Uint8Array(b.buffer, b.byteOffset + blk * 8192, 8192);
    const o = readBTOpaque(pageView(pb));
    if (blk > 0 && o.btpo_flags & BTP_PREFIX) {
      const r = readPrefixLeafPage(pb);
      const orig = plainLeafItems(pa);
      const decoded = [...(r.highKey ? [r.highKey] : []), ...r.items.map((x) => x.tuple)];
      assert.equal(decoded.length, orig.length, `block ${blk}`);
      decoded.forEach((t, i) => assert.deepEqual(t, orig[i]!.tuple, `block ${blk} item ${i + 1}`));
    } else {
      assert.deepEqual(pb.subarray(10), pa.subarray(10), `block ${blk} (flags ${o.btpo_flags}) must be unchanged`);
    }
  }
}

const combos: [ConvertMode, PrefixPolicyName][] = [
  ["rebuild", "lead"],
  ["rebuild", "v9"],
  ["recode", "lead"],
  ["recode", "v9"],
];

for (const [mode, policy] of combos) {
  test(`plain -> prefix (${mode}, ${policy}) -> plain (rebuild): decodes exactly, REINDEX-identical, amcheck-clean, same index scan rows`, async (t) => {
    const prefixOut = outDir(`${mode}-${policy}-prefix`);
    const p: MigrateBtreeReport = await migrateBtree({ pgdata: srv.pgdata, out: prefixOut, database: DB, all: true, to: "prefix", mode, policy });
    assert.equal(p.indexes.length, allIndexes.length);
    assert.equal(p.control.action, "renamed");
    assert.ok(existsSync(join(prefixOut, "global", "pg_control.pgdisk")) && !existsSync(join(prefixOut, "global", "pg_control")));
    const sql = readFileSync(join(prefixOut, "pgdisk-migrate.sql"), "utf8");
    for (const i of allIndexes) assert.match(sql, new RegExp(`ALTER INDEX public\\.${i} SET \\(prefix_compression = on\\);`));
    assert.ok(p.totals.leafCoded > 0 && p.totals.bytesShared > 0);
    for (const name of allIndexes) {
      const src = indexPath(srv.pgdata, DB, name);
      const dst = indexPath(prefixOut, DB, name);
      const coded = checkPrefixPages(dst);
      const rep = p.indexes.find((x) => x.index === `public.${name}`)!;
      assert.equal(coded, rep.leafCoded, `${name}: coded pages counted`);
      if (mode === "recode") checkRecodedPages(src, dst);
      else {
        assert.deepEqual(leafStream(dst, true), leafStream(src, true), `${name}: the decoded leaf tuples are the input's`);
        assert.ok(!existsSync(`${dst}_fsm`), `${name}: FSM fork removed`);
      }
    }
    const short = p.indexes.find((x) => x.index === "public.r_short_base")!;
    t.diagnostic(`prefix ${mode}/${policy}: ${p.totals.pagesBefore} -> ${p.totals.pagesAfter} pages, ${p.totals.leafCoded} coded, ${p.totals.leafPlain} plain leaves; short keys coded ${short.leafCoded}`);

    const plainOut = outDir(`${mode}-${policy}-plain`);
    const q = await migrateBtree({ pgdata: prefixOut, out: plainOut, database: DB, all: true, to: "plain", mode: "rebuild", policy });
    assert.equal(q.control.action, "restored");
    assert.ok(existsSync(join(plainOut, "global", "pg_control")));
    assert.match(readFileSync(join(plainOut, "pgdisk-migrate.sql"), "utf8"), /RESET \(prefix_compression\)/);
    for (const name of allIndexes) {
      const cmp = comparePages(readFileSync(indexPath(plainOut, DB, name)), reindexed.get(name)!);
      assert.equal(cmp.pages, cmp.theirPages, name);
      assert.deepEqual(cmp.differing, [], `${name}: pages ${cmp.differing.join(",")} differ from REINDEX`);
    }

    const check = PgServer.attach(dirname(plainOut));
    check.start();
    try {
      const am = check.toolResult("pg_amcheck", [...check.connArgs(DB), "--install-missing", "--heapallindexed", "--parent-check"]);
      assert.equal(am.status, 0, `pg_amcheck:\n${am.stdout}${am.stderr}`);
      for (const s of SHAPES) {
        for (const idx of variants.get(s)!) {
          const got = check.rows(
            `set enable_seqscan = off; set enable_bitmapscan = off; set enable_indexonlyscan = off;
             update pg_index set indisvalid = indexrelid = '${idx}'::regclass where indrelid = 'r_${s.name}'::regclass;
             ${scanSql(s, `r_${s.name}`)}`,
            DB,
          );
          assert.equal(got[0]![0], heapAnswers.get(s.name), `${idx}: index scan rows`);
        }
      }
    } finally {
      check.destroy();
    }
  });
}

test("prefix (recode) -> plain (recode): each page decodes back to the original items", async () => {
  const prefixOut = outDir("recode-recode-prefix");
  await migrateBtree({ pgdata: srv.pgdata, out: prefixOut, database: DB, indexes: ["r_urls_base", "r_trsn_desc"], to: "prefix", mode: "recode", policy: "lead" });
  const plainOut = outDir("recode-recode-plain");
  const r = await migrateBtree({ pgdata: prefixOut, out: plainOut, database: DB, indexes: ["r_urls_base", "r_trsn_desc"], to: "plain", mode: "recode", policy: "lead" });
  assert.equal(r.control.action, "restored");
  for (const name of ["r_urls_base", "r_trsn_desc"]) {
    const a = readFileSync(indexPath(srv.pgdata, DB, name));
    const b = readFileSync(indexPath(plainOut, DB, name));
    assert.equal(a.length, b.length);
    for (let blk = 1; blk < a.length / 8192; blk++) {
      const pa = new Uint8Array(a.buffer, a.byteOffset + blk * 8192, 8192);
      const pb = new Uint8Array(b.buffer, b.byteOffset + blk * 8192, 8192);
      assert.equal(readBTOpaque(pageView(pb)).btpo_flags & BTP_PREFIX, 0);
      if (readBTOpaque(pageView(pa)).btpo_flags & BTP_LEAF) assert.deepEqual(plainLeafItems(pb).map((x) => x.tuple), plainLeafItems(pa).map((x) => x.tuple), `${name} block ${blk}`);
    }
  }
});
