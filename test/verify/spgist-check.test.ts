// SP-GiST structure checks (verify/am/spgist.ts) against real servers: PostgreSQL 13 (the
// pre-14 leaf layout, nextOffset a whole OffsetNumber), 15 and 18 build quad-tree and k-d tree
// point indexes, a radix tree over text with long common prefixes, inet, range and box indexes,
// all with NULLs (the nulls tree), an INCLUDE column (14+: leaf tuples with a null bitmap), then
// DELETE + VACUUM and more inserts (redirect, dead and placeholder tuples); every index verifies
// with zero findings and is checked (no REL_NOT_CHECKED_AM), and so do polygon, text, inet and
// expression indexes that concurrent sessions filled while VACUUM ran. A damage corpus on copies
// is caught, each invariant with its code at its block and item.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { damagedFindings, foundAt, verifyRelation, type Found } from "./am-verify.js";
import { mulberry32 } from "../../samples/prng.js";
import { readFileSync } from "node:fs";
import { BLCKSZ, Damager } from "./damage.js";
import { itemIdOffset, maxOffsetNumber, pdSpecial, pdUpper } from "../../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { ItemPointerData } from "../../formats/page/item-pointer.js";
import { IndexTupleData, INDEX_SIZE_MASK } from "../../formats/nbtree/index-tuple.js";
import {
  SGITHDRSZ,
  SGLT_HASNULLMASK,
  sgitAllTheSame,
  sgitNNodes,
  sgitPrefixSize,
  SPGIST_DELETED,
  SPGIST_LEAF,
  SPGIST_LIVE,
  SPGIST_META_OFFSET,
  SPGIST_NULLS,
  SPGIST_PLACEHOLDER,
  SPGIST_REDIRECT,
  SPGIST_DEAD,
  SpGistDeadTupleData,
  SpGistInnerTupleData,
  SpGistLeafTupleData,
  SpGistMetaPageData,
  SpGistPageOpaqueData,
} from "../../formats/am/spgist.js";

const DB = "postgres";
const VERSIONS = [13, 15, 18];
const RELS = ["s_quad", "s_kd", "s_text", "s_inet", "s_range", "s_box"];
// SP-GiST INCLUDE columns exist from PostgreSQL 14
const SETUP = (v: number): string => `
  CREATE TABLE s (id int, p point, t text, a inet, r int4range, b box, note text) WITH (autovacuum_enabled = off);
  INSERT INTO s SELECT i,
    CASE WHEN i % 23 = 0 THEN NULL ELSE point((i * 7919) % 10007, (i * 4391) % 10009) END,
    CASE WHEN i % 29 = 0 THEN NULL ELSE 'https://www.example.com/catalogue/department/' || (i % 40) || '/section/' || (i % 700) || '/item-' || i END,
    CASE WHEN i % 31 = 0 THEN NULL ELSE ('10.' || (i % 256) || '.' || ((i / 256) % 256) || '.' || (i % 13) || '/' || (16 + i % 17))::inet END,
    CASE WHEN i % 37 = 0 THEN NULL ELSE int4range(i % 1000, i % 1000 + i % 50 + 1) END,
    CASE WHEN i % 41 = 0 THEN NULL ELSE box(point((i * 13) % 5000, (i * 17) % 5000), point((i * 13) % 5000 + i % 10, (i * 17) % 5000 + i % 7)) END,
    CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END
  FROM generate_series(1, 60000) i;
  CREATE INDEX s_quad ON s USING spgist (p quad_point_ops)${v >= 14 ? " INCLUDE (note)" : ""};
  CREATE INDEX s_kd ON s USING spgist (p kd_point_ops);
  CREATE INDEX s_text ON s USING spgist (t text_ops);
  CREATE INDEX s_inet ON s USING spgist (a inet_ops);
  CREATE INDEX s_range ON s USING spgist (r range_ops);
  CREATE INDEX s_box ON s USING spgist (b box_ops);
  DELETE FROM s WHERE id % 3 = 0;
  VACUUM s;
  INSERT INTO s SELECT i, point((i * 31) % 3000, (i * 53) % 3000), 'https://www.example.com/catalogue/department/' || (i % 40) || '/x/' || i,
    ('192.168.' || (i % 256) || '.' || (i % 200))::inet, int4range(i % 500, i % 500 + 3), box(point(i % 900, i % 800), point(i % 900 + 2, i % 800 + 2)), NULL
  FROM generate_series(60001, 80000) i;
  DELETE FROM s WHERE id % 5 = 0;
  VACUUM s;
  INSERT INTO s SELECT i, point((i * 7) % 2000, (i * 11) % 2000), 'https://www.example.com/catalogue/y/' || i, ('172.16.' || (i % 256) || '.1')::inet,
    int4range(i % 300, i % 300 + 9), box(point(i % 300, i % 300), point(i % 300 + 1, i % 300 + 1)), 'z'
  FROM generate_series(80001, 90000) i;
  DELETE FROM s WHERE id > 85000 AND id % 2 = 0;
  CREATE TABLE small (p point);
  INSERT INTO small SELECT point(i, i % 7) FROM generate_series(1, 60) i;
  CREATE INDEX s_small ON small USING spgist (p);
  DELETE FROM small WHERE p[0] < 10;
  VACUUM small;
  CREATE TABLE e (p point);
  CREATE INDEX s_empty ON e USING spgist (p);
  CREATE TABLE n (p point);
  INSERT INTO n SELECT NULL FROM generate_series(1, 3000);
  CREATE INDEX s_allnull ON n USING spgist (p);
  CHECKPOINT;`;

const servers = new Map<number, PgServer>();
before(async () => {
  for (const version of VERSIONS) {
    const srv = await PgServer.create({ checksums: true, ...(version === 15 ? {} : { version }) });
    servers.set(version, srv);
    srv.sql(SETUP(version));
    srv.stop();
  }
});
after(() => {
  for (const s of servers.values()) s.destroy();
});

const verify = (srv: PgServer, rel: string): ReturnType<typeof verifyRelation> => verifyRelation(srv, DB, rel);

// ---- an independent reading of the pages, to find what to damage and to assert the shapes
const SO = SpGistPageOpaqueData.offsets;
interface Tup {
  item: number;
  off: number;
  len: number;
  state: number;
}
interface SpPage {
  blk: number;
  flags: number;
  tuples: Tup[];
  page: Uint8Array;
  dv: DataView;
}
/** The index's pages after block 0 that are not new, read from one read of the file. */
function spgPages(d: Damager, rel: string): SpPage[] {
  const file = new Uint8Array(readFileSync(d.path(rel)));
  const out: SpPage[] = [];
  for (let blk = 1; blk < file.length / BLCKSZ; blk++) {
    const p = file.subarray(blk * BLCKSZ, (blk + 1) * BLCKSZ);
    const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
    if (pdUpper(dv) === 0) continue;
    const flags = dv.getUint16(pdSpecial(dv) + SO.flags, true);
    const tuples: Tup[] = [];
    for (let i = 1; i <= maxOffsetNumber(dv); i++) {
      const w = dv.getUint32(itemIdOffset(i), true);
      if (lpFlags(w) !== LP_NORMAL) continue;
      tuples.push({ item: i, off: lpOff(w), len: lpLen(w), state: p[lpOff(w)]! & 3 });
    }
    out.push({ blk, flags, tuples, page: p, dv });
  }
  return out;
}
const isLeaf = (pg: SpPage): boolean => (pg.flags & SPGIST_LEAF) !== 0;
const LEAF_NEXT = SpGistLeafTupleData.offsets.t_info;
const LEAF_TID = SpGistLeafTupleData.offsets.heapPtr;
const IP = ItemPointerData.offsets;
/** The byte offsets (in the page) of an inner tuple's node tuples. */
function nodesOf(p: Uint8Array, t: Tup): number[] {
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const w = dv.getUint32(t.off, true);
  const out: number[] = [];
  let at = t.off + SGITHDRSZ + sgitPrefixSize(w);
  for (let k = 0; k < sgitNNodes(w); k++) {
    out.push(at);
    at += dv.getUint16(at + IndexTupleData.offsets.t_info, true) & INDEX_SIZE_MASK;
  }
  return out;
}
const nodeTid = (dv: DataView, at: number): { block: number; offset: number } => ({
  block: dv.getUint16(at + IP.bi_hi, true) * 65536 + dv.getUint16(at + IP.bi_lo, true),
  offset: dv.getUint16(at + IP.ip_posid, true),
});

for (const version of VERSIONS) {
  test(`PostgreSQL ${version}: real SP-GiST indexes of six operator classes verify with zero findings`, async () => {
    const srv = servers.get(version)!;
    const d = new Damager(srv.pgdata, DB);
    const states = [0, 0, 0, 0];
    let nullMaskLeaves = 0;
    let allTheSame = 0;
    for (const rel of RELS) {
      const { found, checks } = await verify(srv, rel);
      assert.deepEqual(found, [], rel);
      assert.ok(checks.includes("spgist"), `${rel}: ${checks}`);
      const pages = spgPages(d, rel);
      for (const pg of pages) {
        for (const t of pg.tuples) {
          states[t.state]!++;
          if (!isLeaf(pg) && t.state === SPGIST_LIVE && sgitAllTheSame(pg.dv.getUint32(t.off, true))) allTheSame++;
        }
      }
      // the tree has levels: inner pages besides the root, inner tuples pointing at inner pages
      const inner = pages.filter((pg) => !isLeaf(pg) && !(pg.flags & SPGIST_NULLS));
      assert.ok(inner.length >= 2, `${rel}: ${inner.length} inner pages`);
      assert.ok(pages.some((pg) => pg.flags & SPGIST_NULLS && pg.blk !== 2), `${rel}: the nulls tree grew past its root`);
      if (rel === "s_quad") {
        for (const pg of pages.filter(isLeaf)) for (const t of pg.tuples) if (t.state === SPGIST_LIVE && pg.dv.getUint16(t.off + LEAF_NEXT, true) & SGLT_HASNULLMASK) nullMaskLeaves++;
      }
      if (rel === "s_text") {
        // the radix tree keeps the long common prefixes in its inner tuples
        const withPrefix = inner.some((pg) => pg.tuples.some((t) => t.state === SPGIST_LIVE && sgitPrefixSize(pg.dv.getUint32(t.off, true)) > 0));
        assert.ok(withPrefix, "s_text has inner tuples with a prefix");
      }
    }
    // a small index (its root a leaf page), an empty one, one of NULLs only
    for (const rel of ["s_small", "s_empty", "s_allnull"]) {
      const small = await verify(srv, rel);
      assert.deepEqual(small.found, [], rel);
      assert.ok(small.checks.includes("spgist"), rel);
    }
    // the declarations decode real tuples: a leaf root's leaf tuples, the quad tree's root inner tuple
    const leafRoot = spgPages(d, "s_small").find((pg) => pg.blk === 1)!;
    for (const t of leafRoot.tuples) {
      const lt = SpGistLeafTupleData.decode(leafRoot.page, t.off);
      assert.deepEqual([lt.tupstate, lt.size, lt.t_info & 0x3fff, lt.heapPtr.ip_posid > 0], [SPGIST_LIVE, t.len, 0, true]);
    }
    const quadRoot = spgPages(d, "s_quad").find((pg) => pg.blk === 1)!;
    const it = SpGistInnerTupleData.decode(quadRoot.page, quadRoot.tuples[0]!.off);
    assert.deepEqual([it.tupstate, it.size, it.nNodes, it.prefixSize], [SPGIST_LIVE, quadRoot.tuples[0]!.len, 4, 16], "quad_point_ops: four quadrants around a centroid point");
    assert.ok(states[SPGIST_LIVE]! > 100_000 && states[SPGIST_REDIRECT]! > 0 && states[SPGIST_DEAD]! > 0 && states[SPGIST_PLACEHOLDER]! > 0, `tuple states ${states}`);
    // the nulls trees split their leaves into allTheSame inner tuples
    assert.ok(allTheSame > 0, `${allTheSame} allTheSame inner tuples`);
    // 14+: INCLUDE (note) with NULLs gives leaf tuples whose t_info has SGLT_HASNULLMASK, which
    // a whole-word nextOffset would read as a chain link far beyond the page
    if (version >= 14) assert.ok(nullMaskLeaves > 1000, `${nullMaskLeaves} leaf tuples with a null bitmap`);
    else assert.equal(nullMaskLeaves, 0);
  });
}

const damaged = (srv: PgServer, rel: string, blk: number, f: (page: Uint8Array, dv: DataView) => void): Promise<Found[]> => damagedFindings(srv, DB, rel, blk, f);
const at = foundAt;
const only = (found: Found[], code: string): boolean => found.length > 0 && found.every((f) => f.code === code);

for (const version of [13, 15]) {
  test(`PostgreSQL ${version}: an SP-GiST damage corpus is caught with its codes and locations`, async () => {
    const srv = servers.get(version)!;
    const d = new Damager(srv.pgdata, DB);
    const IX = "s_quad";
    const pages = spgPages(d, IX);
    const flagsAt = (dv: DataView): number => dv.getUint16(pdSpecial(dv) + SO.flags, true);
    // the metapage: a wrong magic, its flag lost; a second metapage
    let r = await damaged(srv, IX, 0, (_p, dv) => dv.setUint32(SPGIST_META_OFFSET + SpGistMetaPageData.offsets.magicNumber, 0xba0babed, true));
    assert.ok(at(r, "SPGIST_META", 0) && only(r, "SPGIST_META"), JSON.stringify(r));
    r = await damaged(srv, IX, 0, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.flags, 0, true));
    assert.ok(at(r, "SPGIST_META", 0), JSON.stringify(r));
    const leaf = pages.find((pg) => isLeaf(pg) && pg.blk > 2 && !(pg.flags & SPGIST_NULLS) && pg.tuples.some((t) => t.state === SPGIST_LIVE))!;
    r = await damaged(srv, IX, leaf.blk, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.flags, flagsAt(dv) | 1, true));
    assert.ok(at(r, "SPGIST_META", leaf.blk), JSON.stringify(r));
    // the roots: the root deleted, the nulls root without SPGIST_NULLS
    r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.flags, flagsAt(dv) | SPGIST_DELETED, true));
    assert.ok(at(r, "SPGIST_ROOT", 1) && only(r, "SPGIST_ROOT"), JSON.stringify(r));
    r = await damaged(srv, IX, 2, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.flags, flagsAt(dv) & ~SPGIST_NULLS, true));
    assert.ok(at(r, "SPGIST_ROOT", 2), JSON.stringify(r));
    // a page id; the opaque counts
    r = await damaged(srv, IX, leaf.blk, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.spgist_page_id, 0xff81, true));
    assert.ok(at(r, "SPGIST_PAGE_ID", leaf.blk), JSON.stringify(r));
    r = await damaged(srv, IX, leaf.blk, (_p, dv) => dv.setUint16(pdSpecial(dv) + SO.nPlaceholder, dv.getUint16(pdSpecial(dv) + SO.nPlaceholder, true) + 1, true));
    assert.ok(at(r, "SPGIST_PAGE_COUNTS", leaf.blk) && only(r, "SPGIST_PAGE_COUNTS"), JSON.stringify(r));
    // a leaf tuple: its size, its heap TID
    const lt = leaf.tuples.find((t) => t.state === SPGIST_LIVE)!;
    r = await damaged(srv, IX, leaf.blk, (_p, dv) => dv.setUint32(lt.off, dv.getUint32(lt.off, true) + (8 << 2), true));
    assert.ok(at(r, "SPGIST_TUPLE_SIZE", leaf.blk, lt.item), JSON.stringify(r));
    r = await damaged(srv, IX, leaf.blk, (_p, dv) => dv.setUint16(lt.off + LEAF_TID + IP.bi_hi, 0x7fff, true));
    assert.ok(at(r, "SPGIST_TID_OUT_OF_RANGE", leaf.blk, lt.item) && only(r, "SPGIST_TID_OUT_OF_RANGE"), JSON.stringify(r));
    // a dead-kind tuple that is not SGDTSIZE
    const dpg = pages.find((pg) => pg.tuples.some((t) => t.state !== SPGIST_LIVE))!;
    const dt = dpg.tuples.find((t) => t.state !== SPGIST_LIVE)!;
    r = await damaged(srv, IX, dpg.blk, (_p, dv) => dv.setUint32(dt.off, (dv.getUint32(dt.off, true) & 3) | (24 << 2), true));
    assert.ok(at(r, "SPGIST_TUPLE_SIZE", dpg.blk, dt.item), JSON.stringify(r));
    // a redirect out of the index
    const rpg = pages.find((pg) => pg.tuples.some((t) => t.state === SPGIST_REDIRECT));
    assert.ok(rpg, "the index keeps redirect tuples");
    {
      const rt = rpg.tuples.find((t) => t.state === SPGIST_REDIRECT)!;
      r = await damaged(srv, IX, rpg.blk, (_p, dv) => dv.setUint16(rt.off + SpGistDeadTupleData.offsets.pointer + IP.bi_hi, 0x7fff, true));
      assert.ok(at(r, "SPGIST_REDIRECT", rpg.blk, rt.item), JSON.stringify(r));
    }
    // leaf chains: a nextOffset beyond the page, a self loop, a live tuple with a link on the root leaf of the nulls tree
    const linked = (pg: SpPage, t: Tup): boolean => t.state === SPGIST_LIVE && (pg.dv.getUint16(t.off + LEAF_NEXT, true) & 0x3fff) !== 0;
    const chained = pages.find((pg) => isLeaf(pg) && pg.blk > 2 && pg.tuples.some((t) => linked(pg, t)))!;
    const ct = chained.tuples.find((t) => linked(chained, t))!;
    const setNext = (t: Tup, next: number) => (_p: Uint8Array, dv: DataView) => dv.setUint16(t.off + LEAF_NEXT, (dv.getUint16(t.off + LEAF_NEXT, true) & ~0x3fff) | next, true);
    r = await damaged(srv, IX, chained.blk, setNext(ct, 0x3000));
    assert.ok(at(r, "SPGIST_LEAF_CHAIN", chained.blk, ct.item), JSON.stringify(r));
    r = await damaged(srv, IX, chained.blk, setNext(ct, ct.item));
    assert.ok(at(r, "SPGIST_LEAF_CHAIN", chained.blk, ct.item) && r.some((f) => /cycle/.test(f.message)), JSON.stringify(r));
    // bit 0x4000 of the word: a chain link far beyond the page for PostgreSQL 13, an unused bit of t_info from 14
    r = await damaged(srv, IX, chained.blk, (_p, dv) => dv.setUint16(ct.off + LEAF_NEXT, dv.getUint16(ct.off + LEAF_NEXT, true) | 0x4000, true));
    if (version === 13) assert.ok(at(r, "SPGIST_LEAF_CHAIN", chained.blk, ct.item), JSON.stringify(r));
    else assert.deepEqual(r, []);
    // a small index's root is a leaf page, whose tuples are not chained
    const small = spgPages(d, "s_small").find((pg) => pg.blk === 1)!;
    assert.ok(isLeaf(small) && small.tuples.length > 10, "s_small's root is a leaf page");
    r = await damaged(srv, "s_small", 1, setNext(small.tuples[0]!, 2));
    assert.ok(at(r, "SPGIST_LEAF_CHAIN", 1, small.tuples[0]!.item) && only(r, "SPGIST_LEAF_CHAIN"), JSON.stringify(r));
    // the root inner tuple: no nodes; a downlink beyond the file, into the nulls tree, to a placeholder;
    // two nodes with one downlink (reached twice, and the other subtree orphaned); an emptied node (orphans)
    const root = pages.find((pg) => pg.blk === 1)!;
    assert.ok(!isLeaf(root), "the root is an inner page");
    const rootTup = root.tuples.find((t) => t.item === 1)!;
    const rdv = root.dv;
    const nodes = nodesOf(root.page, rootTup).filter((at) => nodeTid(rdv, at).offset !== 0);
    assert.ok(nodes.length >= 2, `root nodes ${nodes.length}`);
    r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint32(rootTup.off, dv.getUint32(rootTup.off, true) & ~(0x1fff << 3), true));
    assert.ok(at(r, "SPGIST_INNER_TUPLE", 1, 1), JSON.stringify(r));
    r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint32(rootTup.off, dv.getUint32(rootTup.off, true) + (1 << 16) * 8, true));
    assert.ok(at(r, "SPGIST_INNER_TUPLE", 1, 1), JSON.stringify(r));
    r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint16(rootTup.off + SpGistInnerTupleData.offsets.size, rootTup.len + 8, true));
    assert.ok(at(r, "SPGIST_TUPLE_SIZE", 1, 1), JSON.stringify(r));
    const setTid = (node: number, block: number, offset: number) => (_p: Uint8Array, dv: DataView) => {
      dv.setUint16(node + IP.bi_hi, Math.floor(block / 65536), true);
      dv.setUint16(node + IP.bi_lo, block & 0xffff, true);
      dv.setUint16(node + IP.ip_posid, offset, true);
    };
    r = await damaged(srv, IX, 1, setTid(nodes[0]!, 60000, 1));
    assert.ok(at(r, "SPGIST_DOWNLINK", 1, 1) && r.some((f) => /beyond the end/.test(f.message)), JSON.stringify(r));
    r = await damaged(srv, IX, 1, setTid(nodes[0]!, 2, 1));
    assert.ok(at(r, "SPGIST_DOWNLINK", 1, 1) && r.some((f) => /nulls tree/.test(f.message)), JSON.stringify(r));
    r = await damaged(srv, IX, 1, setTid(nodes[0]!, 0, 1));
    assert.ok(at(r, "SPGIST_DOWNLINK", 1, 1) && r.some((f) => /metapage/.test(f.message)), JSON.stringify(r));
    const ph = pages.find((pg) => !(pg.flags & SPGIST_NULLS) && pg.tuples.some((t) => t.state === SPGIST_PLACEHOLDER));
    assert.ok(ph, "the index has placeholder tuples");
    {
      r = await damaged(srv, IX, 1, setTid(nodes[0]!, ph.blk, ph.tuples.find((t) => t.state === SPGIST_PLACEHOLDER)!.item));
      assert.ok(at(r, "SPGIST_DOWNLINK", 1, 1) && r.some((f) => /placeholder/.test(f.message)), JSON.stringify(r));
    }
    const first = nodeTid(rdv, nodes[0]!);
    r = await damaged(srv, IX, 1, setTid(nodes[1]!, first.block, first.offset));
    assert.ok(at(r, "SPGIST_REACHED", first.block, first.offset), JSON.stringify(r));
    assert.ok(r.some((f) => f.code === "SPGIST_ORPHAN" && f.severity === "warning"), JSON.stringify(r));
    r = await damaged(srv, IX, 1, setTid(nodes[1]!, 0xffffffff, 0));
    assert.ok(only(r, "SPGIST_ORPHAN") && r.every((f) => f.severity === "warning"), JSON.stringify(r));
    // a downlink to a redirect that redirects to itself: followed, it loops
    const mainRedirect = pages.find((pg) => !(pg.flags & SPGIST_NULLS) && pg.tuples.some((t) => t.state === SPGIST_REDIRECT));
    assert.ok(mainRedirect, "the main tree has a redirect tuple");
    const loop = mainRedirect.tuples.find((t) => t.state === SPGIST_REDIRECT)!;
    d.patch(d.path(IX), 1, setTid(nodes[0]!, mainRedirect.blk, loop.item));
    d.patch(d.path(IX), mainRedirect.blk, setTid(loop.off + SpGistDeadTupleData.offsets.pointer, mainRedirect.blk, loop.item));
    try {
      r = (await verify(srv, IX)).found;
    } finally {
      d.restore();
    }
    assert.ok(at(r, "SPGIST_REDIRECT", mainRedirect.blk, loop.item) && r.some((f) => /loop/.test(f.message)), JSON.stringify(r));
  });
}

test("PostgreSQL 18: SP-GiST indexes built by concurrent sessions inserting and deleting while VACUUM runs verify with zero findings", async () => {
  const srv = await PgServer.create({ checksums: true, version: 18 });
  try {
    srv.sql(`CREATE TABLE c (id serial, p point, t text, pg polygon, q inet) WITH (autovacuum_enabled = off);
      CREATE INDEX c_p ON c USING spgist (p); CREATE INDEX c_t ON c USING spgist (t); CREATE INDEX c_pg ON c USING spgist (pg);
      CREATE INDEX c_q ON c USING spgist (q); CREATE INDEX c_nulls ON c USING spgist ((CASE WHEN id % 2 = 0 THEN NULL ELSE p END));`);
    // each session commits 40 rounds of 500 inserts and a delete of recent rows; VACUUM runs meanwhile
    const session = (k: number): string => `DO $$ BEGIN FOR j IN 1..40 LOOP
        INSERT INTO c (p, t, pg, q) SELECT point((i * ${k} + j) % 997, (i * 7 + j * ${k}) % 991), 'pfx/' || ((i + j) % 50) || '/' || md5((i * j + ${k})::text),
          polygon(box(point(i % 100, j), point(i % 100 + 1, j + 2))), ('10.' || (i % 200) || '.' || (j % 250) || '.' || ${k})::inet FROM generate_series(1, 500) i;
        DELETE FROM c WHERE id % 7 = ${k} AND id > (SELECT max(id) - 3000 FROM c);
        COMMIT;
      END LOOP; END $$;`;
    const vacuums = "VACUUM c; SELECT pg_sleep(0.3); VACUUM c; SELECT pg_sleep(0.5); VACUUM c; SELECT pg_sleep(1); VACUUM c;";
    await Promise.all([srv.sqlConcurrent(session(1)), srv.sqlConcurrent(session(2)), srv.sqlConcurrent(session(3)), srv.sqlConcurrent(vacuums)]);
    assert.ok(Number(srv.sql("SELECT count(*) FROM c")) > 30_000);
    srv.sql("CHECKPOINT");
    srv.stop();
    for (const rel of ["c_p", "c_t", "c_pg", "c_q", "c_nulls"]) {
      const { found, checks } = await verify(srv, rel);
      assert.deepEqual(found, [], rel);
      assert.ok(checks.includes("spgist"), rel);
    }
  } finally {
    srv.destroy();
  }
});

test("PostgreSQL 15: random damage to SP-GiST tuple headers and pages gives findings, never a crash", async () => {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const r = mulberry32(Number(process.env.FUZZ_SEED ?? 20261203));
  const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 80);
  const crashes: string[] = [];
  let withFindings = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const rel = RELS[Math.floor(r() * RELS.length)]!;
    const pages = spgPages(d, rel).filter((pg) => pg.tuples.length > 0);
    const pg = pages[Math.floor(r() * pages.length)]!;
    const t = pg.tuples[Math.floor(r() * pg.tuples.length)]!;
    // mostly a tuple's header (state, size, nextOffset or nodes, TIDs), else anywhere in the page
    const spots = Array.from({ length: 1 + Math.floor(r() * 4) }, () => (r() < 0.8 ? t.off + Math.floor(r() * Math.min(t.len, 32)) : Math.floor(r() * BLCKSZ)));
    const bits = spots.map(() => 1 << Math.floor(r() * 8));
    d.patch(d.path(rel), pg.blk, (p) => spots.forEach((s, k) => (p[s] ^= bits[k]!)));
    try {
      const { found } = await verify(srv, rel);
      if (found.some((f) => f.severity === "error")) withFindings++;
      for (const f of found) if (f.code === "REL_VERIFY_FAILED") crashes.push(`${rel} block ${pg.blk} bytes ${spots.join(",")}: ${f.message.slice(0, 300)}`);
    } catch (e) {
      crashes.push(`${rel} block ${pg.blk} bytes ${spots.join(",")}: ${(e as Error).stack?.slice(0, 400)}`);
    } finally {
      d.restore();
    }
  }
  assert.deepEqual(crashes, []);
  assert.ok(withFindings > ROUNDS / 3, `damage found in ${withFindings} of ${ROUNDS} rounds`);
});
