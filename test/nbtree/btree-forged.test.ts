// Edge cases the server does not produce on its own (half-dead and deleted internal pages, unused
// line pointers, old metapage versions, odd float values), forged from real pages and fed to
// pageinspect both as bytea and through the relation file, against our decoder.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { readRelation, BLCKSZ } from "./helpers.js";
import { btMetap, btMetapText, btPageItems, btPageItemText, btPageStats, btPageStatsText } from "../../formats/nbtree/page-items.js";
import { BTPageOpaqueData, BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_LEAF, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { BTMetaPageData, BT_META_OFFSET } from "../../formats/nbtree/meta.js";
import { LP_DEAD, LP_UNUSED, lpOff, makeLp, lpLen } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { FormatError } from "../../formats/schema/errors.js";
import { isPosting } from "../../formats/nbtree/index-tuple.js";

let srv: PgServer;
let pages: Uint8Array[];
const hex = (p: Uint8Array) => Buffer.from(p).toString("hex");

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    create extension pageinspect;
    create table t (id int4, d int4);
    insert into t select i, i % 20 from generate_series(1, 30000) i;
    create index f_id on t (id);
    create index f_dup on t (d);
    create index f_meta2 on t (id) where id < 100;
    create index f_meta3 on t (d) where id < 100;
    checkpoint;
  `);
  pages = readRelation(srv, "f_id");
});
after(() => srv?.destroy());

function setFlags(p: Uint8Array, f: (o: ReturnType<typeof readBTOpaque>) => void): Uint8Array {
  const q = p.slice();
  const o = readBTOpaque(pageView(q));
  f(o);
  BTPageOpaqueData.encodeInto(o, q, BLCKSZ - 16);
  return q;
}
const leafOf = (ps: Uint8Array[]) => ps.findIndex((p, b) => b > 0 && readBTOpaque(pageView(p)).btpo_flags & BTP_LEAF && readBTOpaque(pageView(p)).btpo_next !== 0);
const internalOf = (ps: Uint8Array[]) => ps.findIndex((p, b) => b > 0 && !(readBTOpaque(pageView(p)).btpo_flags & BTP_LEAF));

/** The forged pages, by name. */
function forged(): Record<string, Uint8Array> {
  const leaf = pages[leafOf(pages)]!;
  const internal = pages[internalOf(pages)]!;
  const dup = readRelation(srv, "f_dup");
  const dupLeaf = dup.find((p, b) => b > 0 && readBTOpaque(pageView(p)).btpo_flags & BTP_LEAF && [...Array(maxOffsetNumber(pageView(p))).keys()].some((i) => isPosting(p.subarray(lpOff(itemIdWord(pageView(p), i + 1))))))!;
  const withLp = (p: Uint8Array, n: number, flags: number) => {
    const q = p.slice();
    const dv = pageView(q);
    const w = itemIdWord(dv, n);
    dv.setUint32(24 + (n - 1) * 4, flags === LP_UNUSED ? 0 : makeLp(lpOff(w), flags, lpLen(w)), true);
    return q;
  };
  return {
    halfDeadLeaf: setFlags(leaf, (o) => (o.btpo_flags |= BTP_HALF_DEAD)),
    deletedInternal: setFlags(internal, (o) => (o.btpo_flags = BTP_DELETED | BTP_HAS_FULLXID)),
    deletedLeafOld: setFlags(leaf, (o) => ((o.btpo_flags = BTP_DELETED | BTP_LEAF), (o.btpo_level = 12345))),
    deadPosting: withLp(dupLeaf, 3, LP_DEAD),
    deadItems: withLp(withLp(leaf, 2, LP_DEAD), 7, LP_DEAD),
    unusedItem: withLp(leaf, 5, LP_UNUSED),
    leafLevel1: setFlags(leaf, (o) => (o.btpo_level = 1)),
    internalRoot: setFlags(internal, (o) => (o.btpo_flags |= 2)),
  };
}

test("bt_page_items(bytea) on forged pages: same rows or the same refusal", (t) => {
  const outcome: string[] = [];
  for (const [name, p] of Object.entries(forged())) {
    let want: (string | null)[][] | Error;
    try {
      want = srv.rows(`select * from bt_page_items(decode('${hex(p)}', 'hex'))`);
    } catch (e) {
      want = e as Error;
    }
    if (want instanceof Error) {
      assert.throws(() => btPageItems(p), (e: unknown) => e instanceof FormatError, name);
      const msg = want.message.includes("not a valid btree leaf page") ? "BT_LEAF_LEVEL_NONZERO" : want.message.includes("invalid tuple length") ? "BT_INVALID_TUPLE_LENGTH" : "?";
      assert.throws(() => btPageItems(p), (e: unknown) => (e as FormatError).code === msg, `${name}: ${want.message}`);
    } else {
      assert.deepEqual(btPageItems(p)!.map(btPageItemText), want, name);
    }
    outcome.push(`${name}: ${want instanceof Error ? "error" : want.length + " rows"}`);
  }
  t.diagnostic(outcome.join("; "));
});

test("bt_page_stats and bt_metap on forged blocks written into the relation files", () => {
  const f = forged();
  const names = Object.keys(f);
  // metapages: version 2 (defaults), version 3 with odd float values and a magic above 2^31
  const m2 = readRelation(srv, "f_meta2")[0]!.slice();
  const m3 = readRelation(srv, "f_meta3")[0]!.slice();
  const meta2 = BTMetaPageData.decode(m2, BT_META_OFFSET);
  BTMetaPageData.encodeInto({ ...meta2, btm_version: 2, btm_last_cleanup_num_heap_tuples: 7.25, btm_allequalimage: true }, m2, BT_META_OFFSET);
  const meta3 = BTMetaPageData.decode(m3, BT_META_OFFSET);
  BTMetaPageData.encodeInto({ ...meta3, btm_magic: 0x80000001, btm_version: 3, btm_last_cleanup_num_delpages: 0xfffffffe, btm_last_cleanup_num_heap_tuples: 1 / 3 + 1e20 * 0 + 123456.0000007 }, m3, BT_META_OFFSET);
  const paths = Object.fromEntries(["f_id", "f_meta2", "f_meta3"].map((r) => [r, join(srv.pgdata, srv.rows(`select pg_relation_filepath('${r}')`)[0]![0]!)]));
  srv.stop();
  const write = (path: string, block: number, p: Uint8Array) => {
    const fd = openSync(path, "r+");
    writeSync(fd, p, 0, BLCKSZ, block * BLCKSZ);
    closeSync(fd);
  };
  // forged pages go to blocks 1..n of f_id (its leaves are not read again by the test)
  names.forEach((n, i) => write(paths.f_id!, i + 1, f[n]!));
  write(paths.f_meta2!, 0, m2);
  write(paths.f_meta3!, 0, m3);
  srv.start();
  const want = srv.rows(`select s.* from generate_series(1, ${names.length}) b, lateral bt_page_stats('f_id', b) s order by 1`);
  const got = names.map((n, i) => btPageStatsText(btPageStats(f[n]!, i + 1)));
  assert.deepEqual(got, want);
  assert.deepEqual(got.map((r) => r[1]), ["e", "D", "d", "l", "l", "l", "l", "r"]);
  for (const [r, p] of [["f_meta2", m2], ["f_meta3", m3]] as const) assert.deepEqual(btMetapText(btMetap(p)), srv.rows(`select * from bt_metap('${r}')`)[0], r);
  assert.equal(btMetapText(btMetap(m2))[7], "-1");
});
