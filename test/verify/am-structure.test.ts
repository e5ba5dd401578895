// Structure checks of hash, BRIN and GiST indexes and of sequences (verify/am/): real ones built by
// PostgreSQL 15 and 18 (hash with overflow chains and bucket splits, BRIN with several revmap
// pages and re-summarized ranges, GiST of several levels, after deletes and VACUUM) verify with zero findings; a damage
// corpus per access method is caught, each check with its code and location.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { damagedFindings, foundAt, verifyRelation, type Found } from "./am-verify.js";
import { Damager } from "./damage.js";
import { itemIdOffset, maxOffsetNumber, pdSpecial, pdUpper } from "../../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { ItemPointerData } from "../../formats/page/item-pointer.js";
import { IndexTupleData } from "../../formats/nbtree/index-tuple.js";
import { HASH_META_OFFSET, HashIndexTupleData, HashMetaPageData, HashPageOpaqueData, LH_BUCKET_BEING_SPLIT, LH_BUCKET_PAGE, LH_META_PAGE, LH_OVERFLOW_PAGE, LH_PAGE_TYPE } from "../../formats/am/hash.js";
import { BRIN_META_OFFSET, BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR, BRIN_REVMAP_OFFSET, BrinMetaPageData, BrinSpecialSpace, BrinTupleData } from "../../formats/am/brin.js";
import { F_DELETED, F_LEAF, GISTPageOpaqueData } from "../../formats/am/gist.js";
import { SequenceMagic } from "../../formats/am/sequence.js";
import { HeapTupleHeaderData } from "../../formats/heap/tuple-header.js";
import { SequenceData } from "../../formats/am/sequence.js";

const DB = "postgres";
const SETUP = `
  CREATE TABLE t (id int, code int, k bigint, name text, seen timestamptz, pt point, pad text) WITH (autovacuum_enabled = off);
  INSERT INTO t SELECT i, i % 97, i, md5(i::text), timestamptz '2020-01-01' + i * interval '1 minute', point(i % 300, i / 300), repeat('x', 40) FROM generate_series(1, 150000) i;
  -- hash: few codes (long overflow chains), many keys (bucket splits), text
  CREATE INDEX t_code_hash ON t USING hash (code);
  CREATE INDEX t_k_hash ON t USING hash (k);
  CREATE INDEX t_name_hash ON t USING hash (name);
  -- BRIN: one range per heap page, more ranges than one revmap page holds
  CREATE INDEX t_id_brin ON t USING brin (id) WITH (pages_per_range = 1, autosummarize = off);
  CREATE INDEX t_seen_brin ON t USING brin (seen) WITH (pages_per_range = 4);
  -- GiST: several levels
  CREATE INDEX t_pt_gist ON t USING gist (pt);
  CREATE SEQUENCE s_plain;
  CREATE SEQUENCE s_small MAXVALUE 100 CYCLE;
  SELECT nextval('s_plain') FROM generate_series(1, 40);
  SELECT nextval('s_small') FROM generate_series(1, 150);
  DELETE FROM t WHERE id % 3 = 0;
  VACUUM t;
  INSERT INTO t SELECT i, i % 97, i, md5(i::text), timestamptz '2021-01-01' + i * interval '1 minute', point(i % 70, i / 70), 'y' FROM generate_series(150001, 170000) i;
  UPDATE t SET seen = seen + interval '1 year' WHERE id % 10 = 1;
  DELETE FROM t WHERE id % 5 = 0;
  SET enable_seqscan = off; SET enable_bitmapscan = off;
  SELECT count(*) FROM t WHERE code = 5; SELECT count(*) FROM t WHERE k = 10; SELECT count(*) FROM t WHERE pt <@ box '((0,0),(50,50))';
  RESET enable_seqscan; RESET enable_bitmapscan;
  SELECT brin_summarize_new_values('t_id_brin'); SELECT brin_summarize_new_values('t_seen_brin');
  SELECT brin_desummarize_range('t_id_brin', 0); SELECT brin_summarize_range('t_id_brin', 0);
  VACUUM t;
  CHECKPOINT;`;
const RELS = ["t_code_hash", "t_k_hash", "t_name_hash", "t_id_brin", "t_seen_brin", "t_pt_gist", "s_plain", "s_small"];

const servers = new Map<number, PgServer>();
before(async () => {
  for (const version of [15, 18]) {
    const srv = await PgServer.create({ checksums: true, ...(version === 15 ? {} : { version }) });
    servers.set(version, srv);
    srv.sql(SETUP);
    srv.stop();
  }
});
after(() => {
  for (const s of servers.values()) s.destroy();
});

const verify = (srv: PgServer, rel: string): ReturnType<typeof verifyRelation> => verifyRelation(srv, DB, rel);

for (const version of [15, 18]) {
  test(`PostgreSQL ${version}: real hash, BRIN and GiST indexes and sequences verify with zero findings`, async () => {
    const srv = servers.get(version)!;
    const d = new Damager(srv.pgdata, DB);
    for (const rel of RELS) {
      const { found, checks } = await verify(srv, rel);
      assert.deepEqual(found, [], rel);
      assert.ok(checks.includes(rel.startsWith("s_") ? "sequence" : (rel.split("_").pop() as string)), `${rel}: ${checks}`);
    }
    // the indexes have the shapes the checks are about
    const code = hashPages(d, "t_code_hash");
    assert.ok(code.overflow.length > 10, `t_code_hash has overflow pages (${code.overflow.length})`);
    const k = HashMetaPageData.decode(d.page(d.path("t_k_hash"), 0), HASH_META_OFFSET);
    assert.ok(k.hashm_maxbucket > 64, `t_k_hash has split buckets (maxbucket ${k.hashm_maxbucket})`);
    const b = BrinMetaPageData.decode(d.page(d.path("t_id_brin"), 0), BRIN_META_OFFSET);
    assert.ok(b.lastRevmapPage >= 2, `t_id_brin has several revmap pages (last ${b.lastRevmapPage})`);
  });
}

const HO = HashPageOpaqueData.offsets;
function hashPages(d: Damager, index: string): { bucket: number[]; overflow: number[]; chained: number[] } {
  const path = d.path(index);
  const out = { bucket: [] as number[], overflow: [] as number[], chained: [] as number[] };
  for (let blk = 1; blk < d.nblocks(path); blk++) {
    const page = d.page(path, blk);
    const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
    if (pdUpper(dv) === 0) continue; // a new page
    const sp = pdSpecial(dv);
    const t = dv.getUint16(sp + HO.hasho_flag, true) & LH_PAGE_TYPE;
    if (t === LH_BUCKET_PAGE) {
      out.bucket.push(blk);
      if (dv.getUint32(sp + HO.hasho_nextblkno, true) !== 0xffffffff && maxOffsetNumber(dv) > 2) out.chained.push(blk);
    }
    if (t === LH_OVERFLOW_PAGE) out.overflow.push(blk);
  }
  return out;
}

/** The first LP_NORMAL item of block `blk`: its number and lp_off. */
function firstItem(dv: DataView): { item: number; off: number; len: number } {
  for (let i = 1; i <= maxOffsetNumber(dv); i++) {
    const w = dv.getUint32(itemIdOffset(i), true);
    if (lpFlags(w) === LP_NORMAL) return { item: i, off: lpOff(w), len: lpLen(w) };
  }
  throw new Error("no normal item");
}

const damaged = (srv: PgServer, rel: string, blk: number, f: (page: Uint8Array, dv: DataView) => void): Promise<Found[]> => damagedFindings(srv, DB, rel, blk, f);

const at = foundAt;

test("hash: a damage corpus is caught with its codes and locations", async () => {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const IX = "t_code_hash";
  const M = HashMetaPageData.offsets;
  const meta = (field: keyof typeof M, v: number) => (_p: Uint8Array, dv: DataView) => dv.setUint32(HASH_META_OFFSET + M[field], v, true);
  const pages = hashPages(d, IX);
  let r = await damaged(srv, IX, 0, meta("hashm_magic", 0x1234));
  assert.ok(at(r, "HASH_META_MAGIC", 0), JSON.stringify(r));
  r = await damaged(srv, IX, 0, meta("hashm_version", 3));
  assert.ok(at(r, "HASH_META_VERSION", 0), JSON.stringify(r));
  r = await damaged(srv, IX, 0, meta("hashm_lowmask", 0x7));
  assert.ok(at(r, "HASH_META_MASKS", 0), JSON.stringify(r));
  // a bitmap page named at a bucket page
  r = await damaged(srv, IX, 0, meta("hashm_mapp", pages.bucket[0]!));
  assert.ok(at(r, "HASH_META_BITMAPS", pages.bucket[0]!), JSON.stringify(r));
  // a primary bucket page that names another bucket (its chain's overflow pages then disagree too)
  const b0 = pages.chained[0]!;
  r = await damaged(srv, IX, b0, (_p, dv) => dv.setUint32(pdSpecial(dv) + HO.hasho_bucket, 9999, true));
  assert.ok(at(r, "HASH_BUCKET_PAGE", b0), JSON.stringify(r));
  // the first overflow page of a chain with a wrong back link
  const ov = d.page(d.path(IX), b0);
  const ovDv = new DataView(ov.buffer, ov.byteOffset, ov.byteLength);
  const first = ovDv.getUint32(pdSpecial(ovDv) + HO.hasho_nextblkno, true);
  r = await damaged(srv, IX, first, (_p, dv) => dv.setUint32(pdSpecial(dv) + HO.hasho_prevblkno, first, true));
  assert.ok(at(r, "HASH_OVERFLOW_LINK", first), JSON.stringify(r));
  // a chain that loops back to its own primary page
  r = await damaged(srv, IX, first, (_p, dv) => dv.setUint32(pdSpecial(dv) + HO.hasho_nextblkno, b0, true));
  assert.ok(at(r, "HASH_OVERFLOW_LINK", first), JSON.stringify(r));
  // a link beyond the end of the file
  r = await damaged(srv, IX, first, (_p, dv) => dv.setUint32(pdSpecial(dv) + HO.hasho_nextblkno, 1e6, true));
  assert.ok(at(r, "HASH_OVERFLOW_LINK", first), JSON.stringify(r));
  // a chain cut after its primary page: the overflow pages become orphans (a warning)
  r = await damaged(srv, IX, b0, (_p, dv) => dv.setUint32(pdSpecial(dv) + HO.hasho_nextblkno, 0xffffffff, true));
  assert.ok(at(r, "HASH_OVERFLOW_ORPHAN", first) && r.every((f) => f.severity === "warning"), JSON.stringify(r));
  // a second metapage
  r = await damaged(srv, IX, first, (_p, dv) => dv.setUint16(pdSpecial(dv) + HO.hasho_flag, LH_META_PAGE, true));
  assert.ok(at(r, "HASH_PAGE_TYPE", first), JSON.stringify(r));
  // tuples: a hash code of another bucket (also out of order), a heap TID beyond the table, a size that is not the item's
  const KEY = HashIndexTupleData.offsets.hashkey;
  const TID = IndexTupleData.offsets.t_tid + ItemPointerData.offsets.bi_hi;
  const INFO = IndexTupleData.offsets.t_info;
  let item = 0;
  r = await damaged(srv, IX, b0, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint32(it.off + KEY, dv.getUint32(it.off + KEY, true) ^ 1, true);
  });
  assert.ok(at(r, "HASH_TUPLE_BUCKET", b0, item), JSON.stringify(r));
  r = await damaged(srv, IX, b0, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint32(it.off + KEY, 0xffffffff, true);
  });
  assert.ok(at(r, "HASH_TUPLE_ORDER", b0, item + 1), JSON.stringify(r));
  r = await damaged(srv, IX, b0, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint16(it.off + TID, 0x7fff, true);
  });
  assert.ok(at(r, "HASH_TID_OUT_OF_RANGE", b0, item), JSON.stringify(r));
  r = await damaged(srv, IX, b0, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint16(it.off + INFO, (dv.getUint16(it.off + INFO, true) & ~0x1fff) | 24, true);
  });
  assert.ok(at(r, "HASH_TUPLE_SIZE", b0, item), JSON.stringify(r));
  // an unfinished split: the bucket's tuples' buckets are not checked (a note)
  r = await damaged(srv, IX, b0, (_p, dv) => {
    const f = pdSpecial(dv) + HO.hasho_flag;
    dv.setUint16(f, dv.getUint16(f, true) | LH_BUCKET_BEING_SPLIT, true);
    const it = firstItem(dv);
    dv.setUint32(it.off + KEY, dv.getUint32(it.off + KEY, true) ^ 1, true);
  });
  assert.ok(at(r, "HASH_BUCKET_SPLITTING", b0) && !r.some((f) => f.code === "HASH_TUPLE_BUCKET"), JSON.stringify(r));
});

test("BRIN: a damage corpus is caught with its codes and locations", async () => {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const IX = "t_id_brin";
  const M = BrinMetaPageData.offsets;
  const meta = (field: keyof typeof M, v: number) => (_p: Uint8Array, dv: DataView) => dv.setUint32(BRIN_META_OFFSET + M[field], v, true);
  const m = BrinMetaPageData.decode(d.page(d.path(IX), 0), BRIN_META_OFFSET);
  const firstRegular = m.lastRevmapPage + 1;
  let r = await damaged(srv, IX, 0, meta("brinMagic", 0x1234));
  assert.ok(at(r, "BRIN_META_MAGIC", 0), JSON.stringify(r));
  r = await damaged(srv, IX, 0, meta("brinVersion", 2));
  assert.ok(at(r, "BRIN_META_VERSION", 0), JSON.stringify(r));
  r = await damaged(srv, IX, 0, meta("pagesPerRange", 0));
  assert.ok(at(r, "BRIN_META_FIELDS", 0), JSON.stringify(r));
  r = await damaged(srv, IX, 0, meta("lastRevmapPage", 1e6));
  assert.ok(at(r, "BRIN_META_FIELDS", 0), JSON.stringify(r));
  // a revmap page that says it is a regular page; a regular page that says it is a metapage
  const setType = (t: number) => (_p: Uint8Array, dv: DataView) => dv.setUint16(pdSpecial(dv) + BrinSpecialSpace.offsets.type, t, true);
  r = await damaged(srv, IX, 1, setType(BRIN_PAGETYPE_REGULAR));
  assert.ok(at(r, "BRIN_PAGE_TYPE", 1), JSON.stringify(r));
  r = await damaged(srv, IX, firstRegular, setType(BRIN_PAGETYPE_META));
  assert.ok(at(r, "BRIN_PAGE_TYPE", firstRegular), JSON.stringify(r));
  // revmap entries: one beyond the file, one naming entry 0's summary, one cleared (its summary an orphan)
  const E = (i: number): number => BRIN_REVMAP_OFFSET + i * ItemPointerData.size;
  const BI = ItemPointerData.offsets;
  r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint16(E(3) + BI.bi_lo, 60000, true));
  assert.ok(r.some((f) => f.code === "BRIN_REVMAP_TID" && f.block === 1 && f.offset === E(3)), JSON.stringify(r));
  r = await damaged(srv, IX, 1, (p) => p.copyWithin(E(1), E(0), E(0) + ItemPointerData.size));
  assert.ok(r.some((f) => f.code === "BRIN_REVMAP_DUPLICATE" && f.block === 1 && f.offset === E(1)), JSON.stringify(r));
  assert.ok(r.some((f) => f.code === "BRIN_TUPLE_BLKNO") && r.some((f) => f.code === "BRIN_TUPLE_ORPHAN"), JSON.stringify(r));
  r = await damaged(srv, IX, 1, (_p, dv) => dv.setUint16(E(5) + BI.ip_posid, 0, true));
  assert.ok(r.length === 1 && r[0]!.code === "BRIN_TUPLE_ORPHAN" && r[0]!.severity === "warning", JSON.stringify(r));
  // summaries: a wrong bt_blkno, a data offset beyond the item
  let item = 0;
  r = await damaged(srv, IX, firstRegular, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint32(it.off + BrinTupleData.offsets.bt_blkno, 777777, true);
  });
  assert.ok(at(r, "BRIN_TUPLE_BLKNO", firstRegular, item), JSON.stringify(r));
  r = await damaged(srv, IX, firstRegular, (p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    p[it.off + BrinTupleData.offsets.bt_info] = (p[it.off + BrinTupleData.offsets.bt_info]! & ~0x1f) | 3;
  });
  assert.ok(at(r, "BRIN_TUPLE_SIZE", firstRegular, item), JSON.stringify(r));
  // a summary's line pointer made unused: the revmap entry names nothing
  r = await damaged(srv, IX, firstRegular, (_p, dv) => dv.setUint32(itemIdOffset(firstItem(dv).item), makeLp(0, 0, 0), true));
  assert.ok(r.some((f) => f.code === "BRIN_REVMAP_TID"), JSON.stringify(r));
});

test("sequences: a damage corpus is caught with its codes and locations", async () => {
  const srv = servers.get(15)!;
  let r = await damaged(srv, "s_plain", 0, (_p, dv) => dv.setUint32(pdSpecial(dv) + SequenceMagic.offsets.magic, 0x1718, true));
  assert.ok(at(r, "SEQ_MAGIC", 0), JSON.stringify(r));
  const lastValue = (v: bigint) => (_p: Uint8Array, dv: DataView) => {
    const it = firstItem(dv);
    dv.setBigInt64(it.off + dv.getUint8(it.off + HeapTupleHeaderData.offsets.t_hoff) + SequenceData.offsets.last_value, v, true);
  };
  r = await damaged(srv, "s_small", 0, lastValue(1000n));
  assert.ok(at(r, "SEQ_VALUE_RANGE", 0, 1), JSON.stringify(r));
  r = await damaged(srv, "s_small", 0, lastValue(0n));
  assert.ok(at(r, "SEQ_VALUE_RANGE", 0, 1), JSON.stringify(r));
  r = await damaged(srv, "s_plain", 0, (_p, dv) => {
    const it = firstItem(dv);
    dv.setUint32(itemIdOffset(it.item), makeLp(it.off, LP_NORMAL, 28), true);
  });
  assert.ok(at(r, "SEQ_SHAPE", 0), JSON.stringify(r));
});

test("GiST: a damage corpus is caught with its codes and locations", async () => {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const IX = "t_pt_gist";
  const path = d.path(IX);
  const G = GISTPageOpaqueData.offsets;
  const flagsOf = (dv: DataView): number => dv.getUint16(pdSpecial(dv) + G.flags, true);
  let leaf = -1;
  for (let blk = 1; blk < d.nblocks(path) && leaf < 0; blk++) {
    const p = d.page(path, blk);
    const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
    if (pdUpper(dv) !== 0 && (flagsOf(dv) & (F_LEAF | F_DELETED)) === F_LEAF) leaf = blk;
  }
  const root = d.page(path, 0);
  assert.equal(flagsOf(new DataView(root.buffer, root.byteOffset, root.byteLength)) & F_LEAF, 0, "the root is an internal page");
  let r = await damaged(srv, IX, 0, (_p, dv) => dv.setUint16(pdSpecial(dv) + G.flags, flagsOf(dv) | F_DELETED, true));
  assert.ok(at(r, "GIST_ROOT", 0), JSON.stringify(r));
  const BI = IndexTupleData.offsets.t_tid + ItemPointerData.offsets.bi_lo;
  const BH = IndexTupleData.offsets.t_tid + ItemPointerData.offsets.bi_hi;
  let item = 0;
  // a downlink beyond the file; a downlink to the same child as another
  r = await damaged(srv, IX, 0, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint16(it.off + BI, 60000, true);
  });
  assert.ok(at(r, "GIST_DOWNLINK", 0, item), JSON.stringify(r));
  r = await damaged(srv, IX, 0, (_p, dv) => {
    const w = dv.getUint32(itemIdOffset(2), true);
    dv.setUint16(lpOff(w) + BI, dv.getUint16(firstItem(dv).off + BI, true), true);
    dv.setUint16(lpOff(w) + BH, dv.getUint16(firstItem(dv).off + BH, true), true);
  });
  assert.ok(at(r, "GIST_LEVEL", 0, 2), JSON.stringify(r));
  // a leaf that says it is an internal page: levels mixed
  r = await damaged(srv, IX, leaf, (_p, dv) => dv.setUint16(pdSpecial(dv) + G.flags, flagsOf(dv) & ~F_LEAF, true));
  assert.ok(r.some((f) => f.code === "GIST_LEVEL"), JSON.stringify(r));
  // a right link beyond the file
  r = await damaged(srv, IX, leaf, (_p, dv) => dv.setUint32(pdSpecial(dv) + G.rightlink, 1e6, true));
  assert.ok(at(r, "GIST_RIGHTLINK", leaf), JSON.stringify(r));
  // leaf tuples: a size that is not the item's, a heap TID beyond the table
  r = await damaged(srv, IX, leaf, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    const at = it.off + IndexTupleData.offsets.t_info;
    dv.setUint16(at, (dv.getUint16(at, true) & ~0x1fff) | (it.len + 8), true);
  });
  assert.ok(at(r, "GIST_TUPLE_SIZE", leaf, item), JSON.stringify(r));
  r = await damaged(srv, IX, leaf, (_p, dv) => {
    const it = firstItem(dv);
    item = it.item;
    dv.setUint16(it.off + BH, 0x7fff, true);
  });
  assert.ok(at(r, "GIST_TID_OUT_OF_RANGE", leaf, item), JSON.stringify(r));
});
