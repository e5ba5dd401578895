// detectPageKind and the AM special-space structs against pageinspect on a real PostgreSQL 15:
// hash_page_type, brin_page_type, gist_page_opaque_info, gin_page_opaque_info, the metapage
// functions, and the SP-GiST fixed blocks; every struct round-trips on every page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { readRelation, serverPageMd5s, md5 } from "./helpers.js";
import { detectPageKind, type AmName } from "../../formats/am/detect.js";
import { HashMetaPageData, HashPageOpaqueData, HASH_META_OFFSET, hashMapp, hashSpares } from "../../formats/am/hash.js";
import { GISTPageOpaqueData, gistFlagNames } from "../../formats/am/gist.js";
import { GinMetaPageData, GinPageOpaqueData, GIN_META_OFFSET, ginFlagNames } from "../../formats/am/gin.js";
import { SpGistMetaPageData, SpGistPageOpaqueData, SPGIST_MAGIC_NUMBER, SPGIST_META_OFFSET } from "../../formats/am/spgist.js";
import { BrinMetaPageData, BrinSpecialSpace, BRIN_META_OFFSET, brinPageTypeName } from "../../formats/am/brin.js";
import { SequenceMagic, SEQ_MAGIC } from "../../formats/am/sequence.js";
import { btPageStats } from "../../formats/nbtree/page-items.js";
import { float8Text } from "../../formats/nbtree/page-items.js";
import { pageView, pdSpecial, pageIsNew } from "../../formats/page/page.js";
import type { AnyStruct } from "../../formats/schema/struct.js";

let srv: PgServer;
const REL: Record<string, Uint8Array[]> = {};

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    create extension pageinspect;
    create table t (id int4, d int4, p point, bx box, arr int4[], tv tsvector, s text);
    insert into t select i, i % 40, point(i % 300, i / 300), box(point(i % 100, i % 77), point(i % 100 + 3, i % 77 + 5)),
      array[i % 100, i % 37, i % 11], to_tsvector('simple', 'word' || (i % 500) || ' common term' || (i % 13)),
      case when i % 9 = 0 then null else 'str-' || md5((i % 2000)::text) end
      from generate_series(1, 20000) i;
    create index h_id on t using hash (id);
    create index h_dup on t using hash (d);
    create index g_pt on t using gist (p);
    create index g_box on t using gist (bx);
    create index gin_arr on t using gin (arr) with (fastupdate = off);
    create index gin_tv on t using gin (tv);
    create index sp_txt on t using spgist (s);
    create index sp_pt on t using spgist (p);
    create index brin_id on t using brin (id) with (pages_per_range = 1);
    create index bt_id on t (id);
    create sequence sq;
    select nextval('sq');
    -- pending-list pages: fast-update inserts after the build
    create index gin_pending on t using gin (arr) with (fastupdate = on, gin_pending_list_limit = 4096);
    insert into t (id, arr) select i, array[i, i + 1] from generate_series(20001, 21000) i;
    checkpoint;
  `);
  for (const r of ["h_id", "h_dup", "g_pt", "g_box", "gin_arr", "gin_tv", "gin_pending", "sp_txt", "sp_pt", "brin_id", "bt_id", "sq", "t"]) REL[r] = readRelation(srv, r);
});
after(() => srv?.destroy());

const AMS: Record<string, AmName> = {
  h_id: "hash", h_dup: "hash", g_pt: "gist", g_box: "gist", gin_arr: "gin", gin_tv: "gin", gin_pending: "gin",
  sp_txt: "spgist", sp_pt: "spgist", brin_id: "brin", bt_id: "btree", sq: "sequence", t: "heap",
};

test("disk pages equal the server's buffered pages", () => {
  for (const [r, pages] of Object.entries(REL)) assert.deepEqual(pages.map(md5), serverPageMd5s(srv, r, pages.length), r);
});

test("every page is detected as its own AM from the bytes alone, and with the catalog hint", (t) => {
  const counts: Record<string, number> = {};
  for (const [r, pages] of Object.entries(REL)) {
    pages.forEach((p, b) => {
      const k = detectPageKind(p);
      assert.equal(k.am, AMS[r], `${r} block ${b}: ${JSON.stringify(k)}`);
      assert.equal(k.problem, undefined, `${r} block ${b}`);
      assert.deepEqual(detectPageKind(p, AMS[r]), k);
      counts[`${k.am}/${k.kind}`] = (counts[`${k.am}/${k.kind}`] ?? 0) + 1;
    });
  }
  t.diagnostic(JSON.stringify(counts));
  for (const want of ["hash/meta", "hash/bucket", "hash/overflow", "hash/bitmap", "brin/meta", "brin/revmap", "brin/regular", "gin/meta", "gin/entry-leaf", "gin/pending-list",
    "gist/leaf", "gist/internal", "spgist/meta", "spgist/leaf", "spgist/inner", "spgist/nulls-leaf", "btree/meta", "btree/leaf", "sequence/data", "heap/data"]) {
    assert.ok(counts[want], `fixture has ${want}`);
  }
});

test("hash: kind = hash_page_type, metapage = hash_metapage_info", () => {
  for (const r of ["h_id", "h_dup"]) {
    const pages = REL[r]!;
    const want = srv.rows(`select hash_page_type(get_raw_page('${r}', b)) from generate_series(0, ${pages.length - 1}) b order by b`).map((x) => x[0]);
    assert.deepEqual(pages.map((p) => { const k = detectPageKind(p).kind; return k === "meta" ? "metapage" : k; }), want, r);
    const m = HashMetaPageData.decode(pages[0]!, HASH_META_OFFSET);
    const info = srv.rows(`select magic, version, ntuples, ffactor, bsize, bmsize, bmshift, maxbucket, highmask, lowmask, ovflpoint, firstfree, nmaps, procid, spares, mapp from hash_metapage_info(get_raw_page('${r}', 0))`)[0];
    assert.deepEqual([
      m.hashm_magic, m.hashm_version, float8Text(m.hashm_ntuples), m.hashm_ffactor, m.hashm_bsize, m.hashm_bmsize, m.hashm_bmshift, m.hashm_maxbucket, m.hashm_highmask,
      m.hashm_lowmask, m.hashm_ovflpoint, m.hashm_firstfree, m.hashm_nmaps, m.hashm_procid, `{${hashSpares(m).join(",")}}`, `{${hashMapp(m).join(",")}}`,
    ].map(String), info, r);
  }
});

test("brin: kind = brin_page_type, metapage = brin_metapage_info; gin_page_opaque_info would misread these pages", () => {
  const pages = REL.brin_id!;
  const want = srv.rows(`select brin_page_type(get_raw_page('brin_id', b)) from generate_series(0, ${pages.length - 1}) b order by b`).map((x) => x[0]);
  assert.deepEqual(pages.map((p) => detectPageKind(p).kind), want);
  assert.deepEqual(pages.map((p) => brinPageTypeName(BrinSpecialSpace.decode(p, pdSpecial(pageView(p))).type)), want);
  const m = BrinMetaPageData.decode(pages[0]!, BRIN_META_OFFSET);
  const info = srv.rows(`select * from brin_metapage_info(get_raw_page('brin_id', 0))`)[0];
  assert.deepEqual([`0x${m.brinMagic.toString(16).toUpperCase().padStart(8, "0")}`, String(m.brinVersion), String(m.pagesPerRange), String(m.lastRevmapPage)], info);
  // the GIN reading of the same 8 bytes (what pg_filedump prints) is nonsense: flags 0xF091...
  const asGin = srv.rows(`select flags from gin_page_opaque_info(get_raw_page('brin_id', 0))`)[0]![0]!;
  assert.match(asGin, /f000/);
  const hinted = detectPageKind(pages[0]!, "gin");
  assert.equal(hinted.am, "gin");
  assert.match(hinted.problem ?? "", /page id says brin/);
});

test("gist: flags, rightlink and nsn = gist_page_opaque_info for every page", () => {
  for (const r of ["g_pt", "g_box"]) {
    const pages = REL[r]!;
    const want = srv.rows(`select b, o.nsn, o.rightlink, o.flags from generate_series(0, ${pages.length - 1}) b, lateral gist_page_opaque_info(get_raw_page('${r}', b)) o order by b`);
    const got = pages.map((p, b) => {
      const o = GISTPageOpaqueData.decode(p, pdSpecial(pageView(p)));
      const k = detectPageKind(p);
      assert.equal(k.kind, o.flags & 1 ? "leaf" : "internal");
      assert.deepEqual(k.flags, gistFlagNames(o.flags));
      return [String(b), `${o.nsn_xlogid.toString(16).toUpperCase()}/${o.nsn_xrecoff.toString(16).toUpperCase()}`, String(o.rightlink), `{${gistFlagNames(o.flags).join(",")}}`];
    });
    assert.deepEqual(got, want, r);
  }
});

test("gin: rightlink, maxoff, flags = gin_page_opaque_info; metapage = gin_metapage_info", () => {
  for (const r of ["gin_arr", "gin_tv", "gin_pending"]) {
    const pages = REL[r]!;
    const want = srv.rows(`select b, o.* from generate_series(0, ${pages.length - 1}) b, lateral gin_page_opaque_info(get_raw_page('${r}', b)) o order by b`);
    const got = pages.map((p, b) => {
      const o = GinPageOpaqueData.decode(p, pdSpecial(pageView(p)));
      assert.deepEqual(detectPageKind(p).flags, ginFlagNames(o.flags));
      return [String(b), String(o.rightlink), String(o.maxoff), `{${ginFlagNames(o.flags).join(",")}}`];
    });
    assert.deepEqual(got, want, r);
    const m = GinMetaPageData.decode(pages[0]!, GIN_META_OFFSET);
    const info = srv.rows(`select * from gin_metapage_info(get_raw_page('${r}', 0))`)[0];
    assert.deepEqual([m.head, m.tail, m.tailFreeSize, m.nPendingPages, m.nPendingHeapTuples, m.nTotalPages, m.nEntryPages, m.nDataPages, m.nEntries, m.ginVersion].map(String), info, r);
  }
});

test("spgist: metapage, fixed roots and the nulls tree", () => {
  for (const r of ["sp_txt", "sp_pt"]) {
    const pages = REL[r]!;
    assert.equal(detectPageKind(pages[0]!).kind, "meta");
    assert.equal(SpGistMetaPageData.decode(pages[0]!, SPGIST_META_OFFSET).magicNumber, SPGIST_MAGIC_NUMBER);
    // block 2 is the root of the tree of NULL values (SPGIST_NULL_BLKNO)
    assert.match(detectPageKind(pages[2]!).kind, /^nulls-/);
    for (const p of pages.slice(3)) {
      const o = SpGistPageOpaqueData.decode(p, pdSpecial(pageView(p)));
      assert.equal(o.spgist_page_id, 0xff82);
      assert.equal(detectPageKind(p).kind, (o.flags & 8 ? "nulls-" : "") + (o.flags & 4 ? "leaf" : "inner"));
    }
  }
});

test("btree pages: kind agrees with bt_page_stats type", () => {
  const pages = REL.bt_id!;
  assert.equal(detectPageKind(pages[0]!).kind, "meta");
  for (let b = 1; b < pages.length; b++) {
    const s = btPageStats(pages[b]!, b);
    assert.equal(detectPageKind(pages[b]!).kind, s.type === "l" ? "leaf" : "internal");
  }
});

test("sequence and heap pages; a GIN page that looks like a sequence is settled by the hint", () => {
  const seq = REL.sq![0]!;
  assert.equal(SequenceMagic.decode(seq, pdSpecial(pageView(seq))).magic, SEQ_MAGIC);
  // forge a GIN entry-internal special space with rightlink 0x1717: bytes alone say sequence
  const fake = seq.slice();
  assert.equal(detectPageKind(fake).am, "sequence");
  const k = detectPageKind(fake, "gin");
  assert.equal(k.am, "gin");
  assert.equal(k.kind, "entry-internal");
  assert.match(k.problem!, /says sequence/);
  // hints that do not fit the special size
  assert.equal(detectPageKind(REL.t![0]!, "btree").kind, "invalid");
  assert.equal(detectPageKind(new Uint8Array(8192)).kind, "new");
  assert.ok(pageIsNew(pageView(new Uint8Array(8192))));
});

test("every AM struct round-trips byte for byte on every page", (t) => {
  let n = 0;
  const rt = (s: AnyStruct, p: Uint8Array, off: number): void => {
    assert.deepEqual(s.encode(s.decode(p, off)), p.subarray(off, off + s.size), s.name);
    n++;
  };
  for (const [r, pages] of Object.entries(REL)) {
    pages.forEach((p, b) => {
      const sp = pdSpecial(pageView(p));
      switch (AMS[r]) {
        case "hash":
          rt(HashPageOpaqueData, p, sp);
          if (b === 0) rt(HashMetaPageData, p, HASH_META_OFFSET);
          break;
        case "gist":
          rt(GISTPageOpaqueData, p, sp);
          break;
        case "gin":
          rt(GinPageOpaqueData, p, sp);
          if (b === 0) rt(GinMetaPageData, p, GIN_META_OFFSET);
          break;
        case "spgist":
          rt(SpGistPageOpaqueData, p, sp);
          if (b === 0) rt(SpGistMetaPageData, p, SPGIST_META_OFFSET);
          break;
        case "brin":
          rt(BrinSpecialSpace, p, sp);
          if (b === 0) rt(BrinMetaPageData, p, BRIN_META_OFFSET);
          break;
        case "sequence":
          rt(SequenceMagic, p, sp);
          break;
      }
    });
  }
  t.diagnostic(`${n} structs round-tripped`);
});
