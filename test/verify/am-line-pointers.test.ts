// Line pointer checks on every page of hash, GiST, GIN, SP-GiST and BRIN indexes: real indexes
// of every AM built by a PostgreSQL 15 server (with deletes, killed items, VACUUM, BRIN
// re-summarizing, a GIN pending list) verify with zero findings; a damage corpus per AM (a
// redirect with a length, an item past pd_special or before pd_upper, overlapping items, a
// state the AM never leaves) is caught on the AM's item pages, each with its code and
// location, and the states the AM does use (LP_DEAD in hash and GiST, LP_UNUSED in BRIN) pass.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { Damager, BLCKSZ } from "./damage.js";
import { detectPageKind, type AmName } from "../../formats/am/detect.js";
import { ITEM_PAGE_KINDS, type IndexAmWithItems } from "../../formats/am/line-pointers.js";
import { LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { itemIdOffset, maxOffsetNumber, pdUpper } from "../../formats/page/page.js";

const DB = "postgres";
let srv: PgServer;

/** One index per AM (some AMs twice, over other opclasses), on a table with real churn. */
const INDEXES: Record<string, IndexAmWithItems> = {
  t_code_hash: "hash",
  t_pt_gist: "gist",
  t_rng_gist: "gist",
  t_tags_gin: "gin",
  t_fts_gin: "gin",
  t_pt_spgist: "spgist",
  t_name_spgist: "spgist",
  t_seen_brin: "brin",
  t_id_brin: "brin",
};

before(async () => {
  srv = await PgServer.create({ checksums: true });
  srv.sql(`
    CREATE TABLE t (id int, code int, pt point, rng int4range, tags int[], fts tsvector, name text, seen timestamptz) WITH (autovacuum_enabled = off);
    INSERT INTO t SELECT i, i % 500, point(i % 100, i / 100), int4range(i, i + 10), ARRAY[i % 7, i % 11], to_tsvector('simple', 'w' || (i % 50) || ' x' || (i % 13)),
      md5(i::text), timestamptz '2020-01-01' + i * interval '1 minute' FROM generate_series(1, 20000) i;
    CREATE INDEX t_code_hash ON t USING hash (code);
    CREATE INDEX t_pt_gist ON t USING gist (pt);
    CREATE INDEX t_rng_gist ON t USING gist (rng);
    CREATE INDEX t_tags_gin ON t USING gin (tags);
    CREATE INDEX t_fts_gin ON t USING gin (fts) WITH (fastupdate = on, gin_pending_list_limit = 4096);
    CREATE INDEX t_pt_spgist ON t USING spgist (pt);
    CREATE INDEX t_name_spgist ON t USING spgist (name);
    CREATE INDEX t_seen_brin ON t USING brin (seen) WITH (pages_per_range = 4);
    CREATE INDEX t_id_brin ON t USING brin (id) WITH (pages_per_range = 2, autosummarize = off);
    -- churn: deletes and VACUUM, inserts and updates, then deletes and index scans over the dead
    -- rows (kill_prior_tuple marks them LP_DEAD in hash and GiST)
    DELETE FROM t WHERE id % 3 = 0;
    VACUUM t;
    INSERT INTO t SELECT i, i % 500, point(i % 100, i / 100), int4range(i, i + 10), ARRAY[i % 7], to_tsvector('simple', 'late' || (i % 9)),
      md5(i::text), timestamptz '2021-01-01' + i * interval '1 minute' FROM generate_series(20001, 21000) i;
    UPDATE t SET seen = seen + interval '1 year', id = id + 1 WHERE id % 10 = 1;
    DELETE FROM t WHERE id % 5 = 0;
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT count(*) FROM t WHERE code = 5; SELECT count(*) FROM t WHERE code = 10;
    SELECT count(*) FROM t WHERE pt <@ box '((0,0),(50,50))';
    SELECT count(*) FROM t WHERE rng && int4range(1, 3000);
    RESET enable_seqscan; RESET enable_bitmapscan;
    SELECT brin_summarize_new_values('t_seen_brin'); SELECT brin_summarize_new_values('t_id_brin');
    SELECT brin_desummarize_range('t_id_brin', 0); SELECT brin_summarize_range('t_id_brin', 0);
    INSERT INTO t (id, fts) SELECT i, to_tsvector('simple', 'pending' || i) FROM generate_series(1, 200) i;
    CHECKPOINT;`);
  srv.stop();
});
after(() => srv?.destroy());

async function findings(index: string): Promise<{ code: string; block?: number; item?: number; severity: string }[]> {
  const run = await runVerify({ pgdata: srv.pgdata, database: DB, relations: [index] }, { jobs: 1 });
  assert.equal(run.reports.length, 1);
  return run.reports[0]!.findings.filter((f) => f.severity !== "info").map((f) => ({ code: f.code, block: f.location.block, item: f.location.item, severity: f.severity }));
}

/** The first item page of an index (one of its AM's item pages) with `n` LP_NORMAL items, and those items' numbers. */
function itemPage(d: Damager, index: string, am: IndexAmWithItems, n = 2): { blk: number; items: number[] } {
  const path = d.path(index);
  for (let blk = 0; blk < d.nblocks(path); blk++) {
    const page = d.page(path, blk);
    if (!ITEM_PAGE_KINDS[am].includes(detectPageKind(page, am as AmName).kind)) continue;
    const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
    const items: number[] = [];
    for (let i = 1; i <= maxOffsetNumber(dv) && items.length < n; i++) if (lpFlags(dv.getUint32(itemIdOffset(i), true)) === LP_NORMAL) items.push(i);
    if (items.length === n) return { blk, items };
  }
  throw new Error(`${index} has no item page with ${n} normal items`);
}

test("real indexes of every AM verify with zero findings, their item pages included", async () => {
  const d = new Damager(srv.pgdata, DB);
  const states = new Map<string, Set<number>>();
  for (const [index, am] of Object.entries(INDEXES)) {
    assert.deepEqual(await findings(index), [], index);
    // the index has item pages (so the line pointer checks ran on real pages)
    itemPage(d, index, am, 1);
    const path = d.path(index);
    for (let blk = 0; blk < d.nblocks(path); blk++) {
      const page = d.page(path, blk);
      if (!ITEM_PAGE_KINDS[am].includes(detectPageKind(page, am as AmName).kind)) continue;
      const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
      for (let i = 1; i <= maxOffsetNumber(dv); i++) (states.get(am) ?? states.set(am, new Set()).get(am)!).add(lpFlags(dv.getUint32(itemIdOffset(i), true)));
    }
  }
  // the churn left the states the AMs use besides LP_NORMAL: killed items in hash and GiST
  assert.ok(states.get("hash")!.has(LP_DEAD), "hash has LP_DEAD items");
  assert.ok(states.get("gist")!.has(LP_DEAD), "GiST has LP_DEAD items");
  // and the unused line pointers BRIN leaves when it re-summarizes a range
  assert.ok(states.get("brin")!.has(LP_UNUSED), "BRIN has LP_UNUSED items");
});

/** Damage the first (1) or second (2) LP_NORMAL line pointer of an item page of `index`, verify, restore. */
async function damaged(index: string, am: IndexAmWithItems, lp: (w1: number, w2: number, upper: number) => [which: 1 | 2, word: number]): Promise<{ blk: number; item: number; found: { code: string; block?: number; item?: number }[] }> {
  const d = new Damager(srv.pgdata, DB);
  const path = d.path(index);
  const { blk, items } = itemPage(d, index, am);
  let item = 0;
  d.patch(path, blk, (_page, dv) => {
    const [which, w] = lp(dv.getUint32(itemIdOffset(items[0]!), true), dv.getUint32(itemIdOffset(items[1]!), true), pdUpper(dv));
    item = items[which - 1]!;
    dv.setUint32(itemIdOffset(item), w >>> 0, true);
  });
  try {
    return { blk, item, found: await findings(index) };
  } finally {
    d.restore();
  }
}

const has = (r: { blk: number; item: number; found: { code: string; block?: number; item?: number }[] }, code: string): boolean => r.found.some((f) => f.code === code && f.block === r.blk && f.item === r.item);

for (const [index, am] of Object.entries(INDEXES)) {
  test(`${am} (${index}): damaged line pointers on an item page are caught`, async () => {
    // a redirect that has a length (no index AM uses LP_REDIRECT)
    let r = await damaged(index, am, (w1) => [1, makeLp(lpOff(w1), LP_REDIRECT, lpLen(w1))]);
    assert.ok(has(r, "LP_REDIRECT_HAS_LENGTH") && has(r, "IDX_LP_INVALID_STATE"), JSON.stringify(r));
    // an item running past pd_special
    r = await damaged(index, am, (w1) => [1, makeLp(BLCKSZ - 16, LP_NORMAL, lpLen(w1) + 16)]);
    assert.ok(has(r, "LP_OUTSIDE_ITEM_AREA"), JSON.stringify(r));
    // an item starting before pd_upper (inside the free space)
    r = await damaged(index, am, (w1, _w2, upper) => [1, makeLp((upper - 64) & ~7, LP_NORMAL, lpLen(w1))]);
    assert.ok(has(r, "LP_OUTSIDE_ITEM_AREA"), JSON.stringify(r));
    // two items sharing storage
    r = await damaged(index, am, (w1) => [2, makeLp(lpOff(w1), LP_NORMAL, lpLen(w1))]);
    assert.ok(r.found.some((f) => f.code === "LP_OVERLAP" && f.block === r.blk), JSON.stringify(r));
    // LP_DEAD: kept storage is a state hash and GiST use; the others never kill items
    r = await damaged(index, am, (w1) => [1, makeLp(lpOff(w1), LP_DEAD, lpLen(w1))]);
    if (am === "hash" || am === "gist") assert.deepEqual(r.found, []);
    else assert.ok(has(r, "IDX_LP_INVALID_STATE"), JSON.stringify(r));
    // LP_DEAD without storage: no index AM
    r = await damaged(index, am, () => [1, makeLp(0, LP_DEAD, 0)]);
    assert.ok(has(r, "IDX_LP_INVALID_STATE"), JSON.stringify(r));
    // LP_UNUSED: only BRIN (PageIndexTupleDeleteNoCompact)
    r = await damaged(index, am, () => [1, makeLp(0, LP_UNUSED, 0)]);
    // (the line pointer checks pass it; BRIN's structure check finds its revmap entry naming nothing)
    if (am === "brin") assert.deepEqual(r.found.map((f) => f.code), ["BRIN_REVMAP_TID"]);
    else assert.ok(has(r, "IDX_LP_INVALID_STATE"), JSON.stringify(r));
  });
}
