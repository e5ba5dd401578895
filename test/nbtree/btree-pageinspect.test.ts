// bt_page_items / bt_page_stats / bt_metap from our decoder vs pageinspect on a real PostgreSQL 15,
// for every page of indexes of many shapes, plus byte-exact struct round trips on those pages.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { readRelation, serverPageMd5s, md5 } from "./helpers.js";
import { btMetap, btMetapText, btPageItems, btPageItemText, btPageStats, btPageStatsText, btItemAt } from "../../formats/nbtree/page-items.js";
import { BTPageOpaqueData, BTDeletedPageData, BTP_DELETED, BTP_HAS_FULLXID } from "../../formats/nbtree/opaque.js";
import { BTMetaPageData, BT_META_OFFSET, BTREE_MAGIC } from "../../formats/nbtree/meta.js";
import { IndexAttributeBitMapData, IndexTupleData, isPivot, isPosting, heapTid, postingTids, keyDataOffset, nattsOf, nullBitmap, attIsNull } from "../../formats/nbtree/index-tuple.js";
import { PageHeaderData } from "../../formats/page/page-header.js";
import { maxOffsetNumber, pageView, pdSpecial } from "../../formats/page/page.js";
import { FormatError } from "../../formats/schema/errors.js";

let srv: PgServer;
const INDEXES: { name: string; natts: number }[] = [];

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    create extension pageinspect;
    create table t (id int4, v int8, txt text, a int4, b text, d int4, w text);
    insert into t select i, i * 7, 'customer-account-identifier-prefix-' || lpad(i::text, 8, '0'),
      case when i % 7 = 0 then null else i % 1000 end, case when i % 5 = 0 then null else 'val-' || (i % 333) end,
      i % 50, repeat(chr(97 + i % 26), i % 40) from generate_series(1, 30000) i;
    create index i_int4 on t (id);
    create index i_text on t (txt);
    create index i_multi on t (a desc nulls last, b);
    create index i_incl on t (a) include (txt, w);
    create index i_dup on t (d);
    create index i_dup_text on t (b);
    create unique index i_uniq on t (id, v);
    create index i_nodedup on t (d) with (deduplicate_items = off);
    create table big (k int8);
    insert into big select i from generate_series(1, 150000) i;
    create index i_int8 on big (k);
    create table rt (k int4, s text);
    create index i_rt_dup on rt (k);
    create index i_rt_text on rt (s);
    insert into rt select (i * 7919) % 100, md5(i::text) from generate_series(1, 40000) i;
    create table del (id int4);
    insert into del select i from generate_series(1, 60000) i;
    create index i_del on del (id);
    delete from del where id between 10000 and 30000;
    vacuum del;
    delete from del where id between 40000 and 45000 and id % 2 = 0;
    create table wide (b bytea);
    insert into wide select decode(string_agg(md5(i::text || '-' || j), ''), 'hex') from generate_series(1, 300) i, generate_series(1, 168) j group by i;
    create index i_wide on wide (b);
    create table empty (x int);
    create index i_empty on empty (x);
  `);
  // index scans over dead heap tuples set LP_DEAD on the index items (kill_prior_tuple)
  srv.sql(`set enable_seqscan = off; set enable_bitmapscan = off; set enable_indexonlyscan = off;
    select count(*) from del where id between 40000 and 45000;`);
  srv.sql("checkpoint");
  for (const [name, natts] of [
    ["i_int4", 1], ["i_text", 1], ["i_multi", 2], ["i_incl", 3], ["i_dup", 1], ["i_dup_text", 1], ["i_uniq", 2], ["i_nodedup", 1],
    ["i_int8", 1], ["i_rt_dup", 1], ["i_rt_text", 1], ["i_del", 1], ["i_wide", 1], ["i_empty", 1],
  ] as const) INDEXES.push({ name, natts });
});
after(() => srv?.destroy());

test("disk pages equal the server's buffered pages after CHECKPOINT", () => {
  for (const { name } of INDEXES) {
    const pages = readRelation(srv, name);
    assert.deepEqual(pages.map(md5), serverPageMd5s(srv, name, pages.length), name);
  }
});

test("bt_metap matches pageinspect for every index", () => {
  for (const { name } of INDEXES) {
    const pages = readRelation(srv, name);
    const want = srv.rows(`select * from bt_metap('${name}')`)[0];
    assert.deepEqual(btMetapText(btMetap(pages[0]!)), want, name);
    assert.equal(btMetap(pages[0]!).magic, BTREE_MAGIC);
  }
});

test("bt_page_stats matches pageinspect for every page", (t) => {
  const seen = new Set<string>();
  let pagesChecked = 0;
  for (const { name } of INDEXES) {
    const pages = readRelation(srv, name);
    if (pages.length < 2) continue;
    const want = srv.rows(`select s.* from generate_series(1, ${pages.length - 1}) b, lateral bt_page_stats('${name}', b) s order by 1`);
    const got = pages.slice(1).map((p, i) => btPageStatsText(btPageStats(p, i + 1)));
    assert.deepEqual(got, want, name);
    for (const r of got) seen.add(r[1]!);
    pagesChecked += got.length;
  }
  // the fixture must exercise leaf, internal, root and deleted pages
  for (const ty of ["l", "i", "r", "d"]) assert.ok(seen.has(ty), `page type ${ty} present`);
  t.diagnostic(`${pagesChecked} pages; types ${[...seen].sort().join(",")}`);
  assert.ok(pagesChecked > 1000, `checked ${pagesChecked} pages`);
});

test("bt_page_items(bytea) matches pageinspect for every page, all columns", (t) => {
  let rowsChecked = 0;
  let postings = 0;
  let pivotsWithTid = 0;
  let dead = 0;
  let nullsRows = 0;
  for (const { name } of INDEXES) {
    const pages = readRelation(srv, name);
    if (pages.length < 2) continue;
    const want = srv.rows(`select b, i.* from generate_series(1, ${pages.length - 1}) b, lateral bt_page_items(get_raw_page('${name}', b)) i`);
    const got: (string | null)[][] = [];
    for (let b = 1; b < pages.length; b++) {
      const rows = btPageItems(pages[b]!);
      if (rows === null) got.push([String(b), ...Array(9).fill(null)]);
      else for (const r of rows) got.push([String(b), ...btPageItemText(r)]);
    }
    assert.equal(got.length, want.length, `${name}: row count`);
    for (let i = 0; i < got.length; i++) assert.deepEqual(got[i], want[i], `${name} row ${i}`);
    rowsChecked += got.length;
    postings += got.filter((r) => r[9] !== null).length;
    pivotsWithTid += got.filter((r) => r[7] === null && r[8] !== null).length;
    dead += got.filter((r) => r[7] === "t").length;
    nullsRows += got.filter((r) => r[4] === "t").length;
  }
  t.diagnostic(`${rowsChecked} rows; ${postings} posting, ${pivotsWithTid} pivots with heap TID, ${dead} LP_DEAD, ${nullsRows} with nulls`);
  assert.ok(rowsChecked > 200000, `rows ${rowsChecked}`);
  assert.ok(postings > 100, `posting rows ${postings}`);
  assert.ok(pivotsWithTid > 10, `pivots with heap TID ${pivotsWithTid}`);
  assert.ok(dead > 100, `LP_DEAD rows ${dead}`);
  assert.ok(nullsRows > 100, `rows with nulls ${nullsRows}`);
});

test("bt_page_items refuses a metapage and a non-btree page like pageinspect, returns null for a new page", () => {
  const pages = readRelation(srv, "i_int4");
  assert.throws(() => btPageItems(pages[0]!), (e: unknown) => e instanceof FormatError && e.code === "BT_PAGE_IS_META");
  assert.throws(() => srv.sql(`select * from bt_page_items(get_raw_page('i_int4', 0))`), /block is a meta page/);
  const heap = readRelation(srv, "t")[0]!;
  assert.throws(() => btPageItems(heap), (e: unknown) => e instanceof FormatError && e.code === "BT_NOT_BTREE_PAGE");
  assert.throws(() => srv.sql(`select * from bt_page_items(get_raw_page('t', 0))`), /not a valid btree page/);
  assert.equal(btPageItems(new Uint8Array(8192)), null);
  const zeroRow = srv.rows(`select i.* from bt_page_items(decode(repeat('00', 8192), 'hex')) i`);
  assert.deepEqual(zeroRow, [Array(9).fill(null)]);
});

test("index tuple helpers agree with pageinspect's view of the same items", () => {
  const pages = readRelation(srv, "i_multi");
  let checked = 0;
  for (let b = 1; b < pages.length; b++) {
    const page = pages[b]!;
    const rows = btPageItems(page)!;
    for (const r of rows) {
      const t = btItemAt(page, r.itemoffset);
      const h = heapTid(t);
      if (!isPivot(t) || r.htid) assert.deepEqual(h, r.htid ?? null);
      if (isPosting(t)) assert.deepEqual(postingTids(t), r.tids);
      assert.equal(keyDataOffset(t), r.nulls ? 16 : 8);
      if (!isPivot(t)) assert.equal(nattsOf(t, 2), 2);
      if (r.nulls) assert.ok(nullBitmap(t) && (attIsNull(t, 1) || attIsNull(t, 2)));
      checked++;
    }
  }
  assert.ok(checked > 100);
});

test("every struct round-trips byte for byte on real pages", (t) => {
  let n = 0;
  for (const { name } of INDEXES) {
    const pages = readRelation(srv, name);
    const meta = pages[0]!;
    assert.deepEqual(BTMetaPageData.encode(BTMetaPageData.decode(meta, BT_META_OFFSET)), meta.subarray(BT_META_OFFSET, BT_META_OFFSET + 48));
    for (const page of pages) {
      const s = pdSpecial(pageView(page));
      assert.deepEqual(PageHeaderData.encode(PageHeaderData.decode(page)), page.subarray(0, 24));
      const o = BTPageOpaqueData.decode(page, s);
      assert.deepEqual(BTPageOpaqueData.encode(o), page.subarray(s, s + 16));
      n++;
      if (o.btpo_flags & BTP_DELETED) {
        assert.ok(o.btpo_flags & BTP_HAS_FULLXID);
        assert.deepEqual(BTDeletedPageData.encode(BTDeletedPageData.decode(page, 24)), page.subarray(24, 32));
        continue;
      }
      if (page === meta) continue;
      const dv = pageView(page);
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const t = btItemAt(page, i);
        assert.deepEqual(IndexTupleData.encode(IndexTupleData.decode(t)), t.subarray(0, 8));
        n++;
        if (nullBitmap(t)) {
          assert.deepEqual(IndexAttributeBitMapData.encode(IndexAttributeBitMapData.decode(t, 8)), t.subarray(8, 12));
          n++;
        }
      }
    }
  }
  t.diagnostic(`${n} structs round-tripped`);
  assert.ok(n > 100000, `${n} structs`);
});
