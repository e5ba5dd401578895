// The browser's engine on the tiny sample cluster: every byte of every page labelled exactly
// once and matching the struct declarations and the deform offsets, hex regions and structured
// rows pointing at each other, lazy reading (a sparse 1 GiB relation), btree descent agreeing
// with a full leaf scan, TOAST chunk lookup through the index agreeing with a heap scan.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinySample } from "../fixtures/sample.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { resolveByName } from "../../inspect/dump/target.js";
import { pageRegions, regionAt, type HexRegion } from "../../inspect/browse/hex-layout.js";
import { pageRows } from "../../inspect/browse/page-rows.js";
import { itemRows } from "../../inspect/browse/item-rows.js";
import { buildView } from "../../inspect/browse/views.js";
import { relationView } from "../../inspect/browse/relation-pages.js";
import { screenLayout } from "../../inspect/browse/layout.js";
import { at, type Location, type RelRef } from "../../inspect/browse/navigation.js";
import { btreeDescend, btreeLeafScan, keyComparator, textKeyMatcher } from "../../inspect/browse/btree-search.js";
import { searchIndex } from "../../inspect/browse/search.js";
import { toastChunks, toastPointerAt } from "../../inspect/browse/toast.js";
import { commandActions } from "../../inspect/browse/controller.js";
import { initialState, navigate, type NavState } from "../../inspect/browse/navigation.js";
import { keyCommand } from "../../inspect/browse/keys.js";
import { defaultExpanded } from "../../inspect/browse/tree.js";
import { effectiveCursor, type RowsView, type ViewModel } from "../../inspect/browse/rows.js";
import { PageHeaderData } from "../../formats/page/page-header.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { LP_NORMAL } from "../../formats/page/item-id.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { itemIdWord, maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText } from "../../formats/datum/index.js";
import { tidText } from "../../formats/page/item-pointer.js";

const DB = "pgdisk_sample";
let pgdata = "";
let session: BrowseSession;
let db = 0;
const tmp: string[] = [];

before(async () => {
  pgdata = (await tinySample()).pgdata;
  session = new BrowseSession({ pgdata, database: DB });
  db = session.startDb!;
});
after(() => {
  session?.close();
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

const ref = (name: string): RelRef => session.findRelation(db, name);
/** toast_docs's TOAST relation and its index, by the catalog (their OIDs are the build's). */
const toastOfDocs = (): string => {
  const r = resolveByName(pgdata, DB, "toast_docs");
  return r.catalog!.classes.get(r.rel!.toastRelid)!.name;
};

function checkCoverage(regions: HexRegion[], size: number, where: string): void {
  assert.equal(regions[0].start, 0, where);
  for (let i = 0; i < regions.length; i++) {
    const r = regions[i];
    assert.ok(r.end > r.start, `${where}: empty region ${r.key}`);
    if (i) assert.equal(r.start, regions[i - 1].end, `${where}: ${regions[i - 1].key} then ${r.key}`);
  }
  assert.equal(regions[regions.length - 1].end, size, where);
  const keys = new Set(regions.map((r) => r.key));
  assert.equal(keys.size, regions.length, `${where}: duplicate region keys`);
}

/** Every page of these relations: regions cover the page, follow the declarations, map to rows. */
const RELATIONS = [
  "toast_docs", "TOAST of toast_docs", "compressed_docs", "embeddings", "accounts", "all_types", "archive.evolving", "web_links", "archive.places",
  "web_links_url_idx", "web_links_status_idx", "web_links_tenant_idx", "web_links_score_desc_idx", "web_links_created_incl_idx", "accounts_email_idx",
  "archive.places_code_hash_idx", "archive.places_area_gist_idx", "archive.places_tags_gin_idx", "archive.places_loc_spgist_idx", "archive.places_id_brin_idx",
];

test("hex regions label every byte once, follow the declarations and deform offsets, and map to structured rows", () => {
  let pages = 0;
  let attrRegions = 0;
  for (const name of RELATIONS) {
    const r = ref(name === "TOAST of toast_docs" ? toastOfDocs() : name);
    const h = session.relation(r);
    const last = Math.min(h.nblocks, h.firstBlock + 12);
    for (let b = h.firstBlock; b < last; b++) {
      const page = session.readPage(r, b);
      const d = session.page(r, b);
      const where = `${name} block ${b}`;
      assert.deepEqual(d.findings, [], `${where}: the sample is clean`);
      const regions = pageRegions(page, d, { desc: h.ctx.desc, indexDesc: h.ctx.indexDesc });
      checkCoverage(regions, page.length, where);
      assert.ok(!regions.some((x) => x.problem), `${where}: no problem regions on a clean page`);
      // Header fields exactly as declared.
      for (const f of PageHeaderData.layout()) {
        const x = regions.find((y) => y.key === `hdr.${f.path}`);
        assert.ok(x, `${where}: hdr.${f.path}`);
        assert.deepEqual([x.start, x.end], [f.offset, f.offset + f.size], `${where}: hdr.${f.path}`);
      }
      // One 4-byte region per line pointer.
      for (const it of d.items) {
        const x = regions.find((y) => y.key === `lp.${it.lp}`)!;
        assert.deepEqual([x.start, x.end], [24 + (it.lp - 1) * 4, 24 + it.lp * 4], `${where}: lp.${it.lp}`);
      }
      // Heap attributes at the deform slots, named by attribute.
      if (h.ctx.desc && d.am === "heap") {
        for (const it of d.items) {
          if (it.lp_flags !== LP_NORMAL) continue;
          const layout = deformHeapTuple(page.subarray(it.lp_off, it.lp_off + it.lp_len), h.ctx.desc);
          layout.attrs.forEach((slot, k) => {
            if (slot.isnull || slot.missing) return;
            const a = h.ctx.desc!.attrs[k];
            const x = regions.find((y) => y.key === `item.${it.lp}.att.${a.attnum}`);
            assert.ok(x, `${where}: item ${it.lp} ${a.name}`);
            assert.deepEqual([x.start, x.end], [it.lp_off + slot.off, it.lp_off + slot.off + slot.len], `${where}: item ${it.lp} ${a.name}`);
            assert.match(x.label, new RegExp(`${a.name}$`));
            attrRegions++;
          });
        }
      }
      // Regions point at rows that exist, and rows' hex keys at regions that exist.
      const pv = pageRows(r, page, d);
      const pageKeys = new Set(pv.rows.map((x) => x.key));
      const byItem = new Map<number, RowsView>();
      for (const x of regions) {
        if (x.view === "page") assert.ok(pageKeys.has(x.row), `${where}: region ${x.key} → page row ${x.row}`);
        else {
          let iv = byItem.get(x.item!);
          if (!iv) byItem.set(x.item!, (iv = itemRows({ rel: r, blockSize: 8192 }, d, page, x.item!)));
          assert.ok(iv.rows.some((y) => y.key === x.row), `${where}: region ${x.key} → item ${x.item} row ${x.row}`);
        }
      }
      const regionKeys = new Set(regions.map((x) => x.key));
      for (const row of pv.rows) if (row.hex) assert.ok(regionKeys.has(row.hex), `${where}: page row ${row.key} → region ${row.hex}`);
      for (const [n, iv] of byItem) for (const row of iv.rows) if (row.hex) assert.ok(regionKeys.has(row.hex), `${where}: item ${n} row ${row.key} → region ${row.hex}`);
      pages++;
    }
  }
  assert.ok(pages > 100, `${pages} pages checked`);
  assert.ok(attrRegions > 1000, `${attrRegions} attribute regions checked`);
});

test("regionAt finds the region holding a byte", () => {
  const r = ref("toast_docs");
  const regions = pageRegions(session.readPage(r, 0), session.page(r, 0), { desc: session.relation(r).ctx.desc });
  for (const off of [0, 7, 23, 24, 100, 4000, 8191]) {
    const x = regions[regionAt(regions, off)];
    assert.ok(x.start <= off && off < x.end, `offset ${off}`);
  }
});

test("the relation view reads only the visible window and one page per minimap cell", () => {
  const s = new BrowseSession({ pgdata, database: DB });
  try {
    const r = s.findRelation(s.startDb!, "web_links");
    const screen = screenLayout(80, 24, "relation");
    const v = relationView(s, at({ view: "relation", rel: r }) as Extract<Location, { view: "relation" }>, screen.list, screen.mapCells);
    assert.equal(v.nblocks, 291);
    assert.equal(v.pages.length, screen.list);
    assert.equal(v.minimap.length, screen.mapCells);
    assert.ok(s.stats.blocksRead <= screen.list + screen.mapCells, `${s.stats.blocksRead} blocks read`);
    assert.equal(s.stats.pageDumps, 0, "no full page decode for the list");
    const before = s.stats.blocksRead;
    relationView(s, { ...at({ view: "relation", rel: r }), cursor: 200, top: 190 } as Extract<Location, { view: "relation" }>, screen.list, screen.mapCells);
    assert.ok(s.stats.blocksRead - before <= screen.list, `scrolling read ${s.stats.blocksRead - before} blocks`);
  } finally {
    s.close();
  }
});

test("a 1 GiB relation file shows its first screen after a few dozen block reads", () => {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-browse-big-"));
  tmp.push(dir);
  const file = join(dir, "16384");
  // Sparse: real pages (copied from web_links) at the start and here and there, zeroes elsewhere.
  const src = session.relation(ref("web_links"));
  const fd = openSync(file, "w");
  const buf = new Uint8Array(8192);
  ftruncateSync(fd, 131072 * 8192);
  for (const b of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 65536, 131071]) {
    src.fork.readBlock(b % src.nblocks, buf);
    writeSync(fd, buf, 0, 8192, b * 8192);
  }
  closeSync(fd);
  const s = new BrowseSession({ file });
  try {
    assert.ok(s.startRel && "file" in s.startRel, "a lone file outside a cluster is browsed by path");
    const screen = screenLayout(80, 24, "relation");
    const v = buildView(s, at({ view: "relation", rel: s.startRel! }), screen, []);
    assert.equal(v.kind, "relation");
    if (v.kind !== "relation") return;
    assert.equal(v.nblocks, 131072);
    assert.equal(v.pages[0].kind, "data");
    assert.ok(s.stats.blocksRead <= screen.list + screen.mapCells, `${s.stats.blocksRead} of 131072 blocks read`);
    const before = s.stats.blocksRead;
    const far = buildView(s, { ...at({ view: "relation", rel: s.startRel! }), cursor: 65536, top: 65530 }, screen, []);
    assert.equal(far.kind === "relation" && far.pages.find((p) => p.block === 65536)?.kind, "data");
    assert.equal(far.kind === "relation" && far.pages.find((p) => p.block === 65535)?.kind, "new");
    assert.ok(s.stats.blocksRead - before <= screen.list, `jumping read ${s.stats.blocksRead - before} blocks`);
    // A lone file has no descriptor: its heap items are labelled header + data.
    const hex = buildView(s, at({ view: "hex", rel: s.startRel!, block: 0 }), screenLayout(80, 24, "hex"), []);
    assert.equal(hex.kind, "hex");
    if (hex.kind === "hex") {
      checkCoverage(hex.regions, 8192, "lone file block 0");
      assert.ok(hex.regions.some((x) => x.key === "item.1.data"), "item 1 data region");
    }
  } finally {
    s.close();
  }
});

/** First-column key text of the first data item of each leaf page (duplicates spanning pages included). */
function sampleKeys(r: RelRef, max: number): string[] {
  const h = session.relation(r);
  const out = new Set<string>();
  for (let b = 1; b < h.nblocks && out.size < max; b++) {
    const d = session.page(r, b);
    if (d.kind !== "leaf") continue;
    for (const it of d.items.slice(0, 3)) {
      const k = it.btree?.keys?.[0];
      if (k && !k.isnull && k.value !== undefined && it.btree!.kind !== "highkey") out.add(k.value);
    }
  }
  return [...out];
}

test("btree descent finds exactly the entries a full leaf scan finds", () => {
  let searches = 0;
  for (const name of ["web_links_pkey", "web_links_url_idx", "web_links_status_idx", "web_links_tenant_idx", "web_links_score_desc_idx", "web_links_path_idx", "web_links_created_incl_idx", "accounts_email_idx", "accounts_pkey", "TOAST index of toast_docs"]) {
    const r = ref(name === "TOAST index of toast_docs" ? `${toastOfDocs()}_index` : name);
    const h = session.relation(r);
    const desc = h.ctx.indexDesc!;
    const typid = h.decodeAs!(desc.attrs[0].typid);
    const read = (b: number): Uint8Array => session.readPage(r, b);
    for (const key of [...sampleKeys(r, 8), "no such key 0", "-1"]) {
      const col = { desc, typid, collation: h.index!.collations[0], option: h.index!.options[0], dbCollate: "C" };
      let c: ReturnType<typeof keyComparator>;
      try {
        c = keyComparator(col, key);
      } catch {
        continue; // not an integer, for an integer column
      }
      assert.ok("cmp" in c, `${name}: the sample's columns all have a plain order (${"unsupported" in c ? c.unsupported : ""})`);
      if (!("cmp" in c)) continue;
      const d = btreeDescend(read, c.cmp, desc.attrs.length, 1 << 20);
      const s = btreeLeafScan(read, textKeyMatcher(desc, typid, h.types!, key), 1 << 20);
      const ids = (x: typeof d): string[] => x.matches.map((m) => `${m.block}/${m.item}`).sort();
      assert.deepEqual(ids(d), ids(s), `${name} = '${key}'`);
      assert.ok(d.pagesVisited <= s.pagesVisited, `${name}: descent read ${d.pagesVisited} pages, the scan ${s.pagesVisited}`);
      searches++;
    }
  }
  assert.ok(searches > 40, `${searches} searches`);
});

test("searching the primary key for a row's id finds that row's TID", () => {
  const table = ref("web_links");
  const d = session.page(table, 5);
  const pk = ref("web_links_pkey");
  for (const it of d.items.slice(0, 5)) {
    const id = it.heap!.values!.find((v) => v.name === "id")!.value!;
    const res = searchIndex(session, pk, id);
    assert.equal(res.method, "descent");
    assert.deepEqual(res.matches.flatMap((m) => m.htids.map(tidText)), [`(5,${it.lp})`]);
  }
});

test("TOAST chunks found through the TOAST index are the ones a heap scan finds", () => {
  const t = ref("toast_docs");
  const d = session.page(t, 0);
  for (const it of d.items) {
    const body = it.heap!.values!.find((v) => v.name === "body")!;
    if (!body.toast) continue;
    const list = toastChunks(session, t, 0, it.lp, body.attnum);
    assert.equal(list.method, "toast index");
    assert.equal(list.chunks.length, list.expected, `item ${it.lp}`);
    assert.deepEqual(list.chunks.map((c) => c.seq), [...Array(list.expected).keys()]);
    // Scan the TOAST heap directly.
    const { pointer } = toastPointerAt(session, t, 0, it.lp, body.attnum);
    assert.equal(pointer.tag, 18);
    if (pointer.tag !== 18) continue;
    const th = session.relation(list.toastRel);
    const found: string[] = [];
    for (let b = 0; b < th.nblocks; b++) {
      const page = session.readPage(list.toastRel, b);
      const dv = pageView(page);
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const o = lpOff(w);
        const hoff = page[o + HTH.t_hoff];
        if (lpLen(w) > hoff + 8 && dv.getUint32(o + hoff, true) === pointer.va_valueid) found.push(`(${b},${i})`);
      }
    }
    assert.deepEqual(list.chunks.map((c) => tidText(c.tid)).sort(), found.sort(), `item ${it.lp}`);
  }
});

test("index keys decode the same through the search path and the dump", () => {
  const r = ref("web_links_url_idx");
  const h = session.relation(r);
  const d = session.page(r, 1);
  const page = session.readPage(r, 1);
  for (const it of d.items.slice(1, 6)) {
    const t = page.subarray(it.lp_off, it.lp_off + it.lp_len);
    const slot = deformIndexTuple(t, h.ctx.indexDesc!)[0];
    const b = datumBytes(t, slot);
    assert.equal(b.kind, "inline");
    if (b.kind === "inline") assert.equal(datumToText(b.bytes, 25, -1, h.types!), it.btree!.keys![0].value);
  }
});

// ---- the controller over the real engine ----

function press(s: NavState, keys: (string | { [k: string]: boolean })[], cols = 80, rows = 24): NavState {
  for (const k of keys) {
    const screen = screenLayout(cols, rows, s.loc.view);
    const v: ViewModel = buildView(session, s.loc, screen, s.expanded);
    const cmd = typeof k === "string" ? keyCommand(k, {}, s.prompt !== undefined) : keyCommand("", k, s.prompt !== undefined);
    for (const a of commandActions(session, s, cmd, screen, v)) s = navigate(s, a);
  }
  return s;
}
const ENTER = { return: true };

test("controller: go prompt to a relation, a block, a TID; follow a TOAST pointer; back", () => {
  let s = initialState(at({ view: "tree" }), defaultExpanded(session));
  s = press(s, ["g", ..."toast_docs", ENTER]);
  assert.equal(s.loc.view, "relation");
  s = press(s, ["g", ..."(0,4)", ENTER]);
  assert.deepEqual([s.loc.view, "item" in s.loc && s.loc.item], ["item", 4]);
  // The item view starts on the first value; body is the fourth.
  s = press(s, [{ downArrow: true }, { downArrow: true }, { downArrow: true }, ENTER]);
  assert.equal(s.loc.view, "toast");
  const v = buildView(session, s.loc, screenLayout(80, 24, "toast"), []);
  assert.ok(v.kind === "rows" && v.rows.some((r) => r.text.startsWith("chunks: 100 found, 100 expected")), "100 chunks listed");
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "text");
  s = press(s, [{ backspace: true }]);
  assert.equal(s.loc.view, "toast");
  s = press(s, [{ leftArrow: true }, { leftArrow: true }]);
  assert.equal(s.loc.view, "relation");
  s = press(s, [{ rightArrow: true }]);
  assert.equal(s.loc.view, "item");
});

test("controller: hex view and back to the same field", () => {
  let s = initialState(at({ view: "item", rel: ref("toast_docs"), block: 0, item: 4 }));
  // Select t_infomask (4 rows above the first value), open hex, come back.
  const iv = buildView(session, s.loc, screenLayout(80, 24, "item"), []) as RowsView;
  const want = iv.rows.findIndex((r) => r.key === "item.4.t_infomask");
  s = navigate(s, { type: "move", from: iv.defaultCursor, delta: want - iv.defaultCursor, total: iv.rows.length, height: 19 });
  s = press(s, ["x"]);
  assert.equal(s.loc.view, "hex");
  const hv = buildView(session, s.loc, screenLayout(80, 24, "hex"), []);
  assert.ok(hv.kind === "hex", "hex view");
  if (hv.kind !== "hex") return;
  const sel = hv.regions[effectiveCursor(s.loc, hv)];
  assert.equal(sel.key, "item.4.t_infomask");
  assert.match(sel.value!, /0x0906.*HEAP_HASEXTERNAL/);
  // Next field in hex is t_hoff; Enter shows it in the item view.
  s = press(s, [{ downArrow: true }, ENTER]);
  assert.equal(s.loc.view, "item");
  const back = buildView(session, s.loc, screenLayout(80, 24, "item"), []) as RowsView;
  assert.equal(back.rows[effectiveCursor(s.loc, back)].key, "item.4.t_hoff");
});

test("controller: btree links — downlink, siblings, heap TID, search", () => {
  const ix = ref("web_links_url_idx");
  let s = initialState(at({ view: "page", rel: ix, block: 0 }));
  // The metapage's root link.
  const meta = buildView(session, s.loc, screenLayout(80, 24, "page"), []) as RowsView;
  const rootRow = meta.rows.findIndex((r) => r.key === "meta.btm_root");
  s = navigate(s, { type: "move", from: meta.defaultCursor, delta: rootRow - meta.defaultCursor, total: meta.rows.length, height: 19 });
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "page");
  const root = session.page(ix, (s.loc as { block: number }).block);
  assert.equal(root.kind, "internal");
  // First data item of the root: a downlink.
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "item");
  s = press(s, [{ downArrow: true }]);
  const iv = buildView(session, s.loc, screenLayout(80, 24, "item"), []) as RowsView;
  const tidRow = iv.rows.findIndex((r) => r.key.endsWith(".t_tid"));
  s = navigate(s, { type: "move", from: 0, delta: tidRow, total: iv.rows.length, height: 19 });
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "page");
  const child = (s.loc as { block: number }).block;
  assert.equal(session.page(ix, child).special!.btpo_level, Number(root.special!.btpo_level) - 1);
  // > follows btpo_next.
  const next = Number(session.page(ix, child).special!.btpo_next);
  s = press(s, [">"]);
  assert.equal((s.loc as { block: number }).block, next);
  s = press(s, ["<"]);
  assert.equal((s.loc as { block: number }).block, child);
  // Search, open the hit, follow its heap TID.
  s = press(s, ["/", ..."http://legacy.example.net/articles/2023/engineering/databases/postgresql/product-00000007", ENTER]);
  assert.equal(s.loc.view, "search");
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "item");
  const hit = buildView(session, s.loc, screenLayout(80, 24, "item"), []) as RowsView;
  const heapRow = hit.rows.findIndex((r) => r.target?.view === "item" && r.key.endsWith(".t_tid"));
  s = navigate(s, { type: "move", from: 0, delta: heapRow, total: hit.rows.length, height: 19 });
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "item");
  const loc = s.loc as { block: number; item: number };
  const url = session.page(ref("web_links"), loc.block).items.find((i) => i.lp === loc.item)!.heap!.values!.find((v) => v.name === "url")!.value;
  assert.equal(url, "http://legacy.example.net/articles/2023/engineering/databases/postgresql/product-00000007");
});

test("controller: errors become messages, not exceptions", () => {
  let s = initialState(at({ view: "tree" }));
  s = press(s, ["g", ..."3", ENTER]);
  assert.match(s.message!.text, /open a relation first/);
  s = press(s, ["g", ..."no_such_table", ENTER]);
  assert.match(s.message!.text, /RELATION_NOT_FOUND/);
  s = press(s, ["g", ..."toast_docs", ENTER, "g", ..."99999", ENTER]);
  assert.match(s.message!.text, /no block 99999/);
  s = press(s, ["/", ..."x", ENTER]);
  assert.match(s.message!.text, /searches btree indexes/);
  // A view of a block past the end is an error view, and Enter goes back.
  s = navigate(s, { type: "go", to: at({ view: "page", rel: ref("toast_docs"), block: 100000 }) });
  const v = buildView(session, s.loc, screenLayout(80, 24, "page"), []);
  assert.equal(v.kind, "error");
  s = press(s, [ENTER]);
  assert.equal(s.loc.view, "relation");
});
