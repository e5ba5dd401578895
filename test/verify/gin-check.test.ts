// GIN structure checks (verify/gin) against real servers: GIN indexes of PostgreSQL 15 and 18
// over jsonb (jsonb_ops, jsonb_path_ops), int4[], text[], tsvector and pg_trgm, large enough for
// multi-level entry trees and posting trees, with deletes + VACUUM and an unflushed pending list,
// verify with zero findings (and PostgreSQL 18's gin_index_check agrees); a damage corpus (entry
// keys swapped, right links looping or past the end, a posting list out of order, a wrong leaf
// flag, a corrupt PostingItem child) is caught, each with its code, file, block and offset.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { Damager, BLCKSZ } from "./damage.js";
import { itemIdOffset, maxOffsetNumber } from "../../formats/page/page.js";
import { lpOff } from "../../formats/page/item-id.js";
import {
  GIN_DATA_RIGHTBOUND_OFFSET,
  GIN_META_OFFSET,
  GinMetaPageData,
  GIN_DATA,
  GIN_DATA_ITEMS_OFFSET,
  GIN_LEAF,
  GIN_LIST,
  GIN_META,
  GIN_DELETED,
  GinPageOpaqueData,
  ginTupleCompressed,
  ginTupleNPosting,
  ginTuplePostingOffset,
  GIN_POSTING_LIST_HEADER,
  GIN_TREE_POSTING,
  SizeOfPostingItem,
} from "../../formats/am/gin.js";

const DB = "postgres";
const SPECIAL = BLCKSZ - 8;
const flagsOf = (p: Uint8Array): number => GinPageOpaqueData.get.flags(p, SPECIAL);
const rightlinkOf = (p: Uint8Array): number => GinPageOpaqueData.get.rightlink(p, SPECIAL);

const INDEXES = ["g_jsonb", "g_jsonb_path", "g_int4", "g_text", "g_fts", "g_trgm", "g_multi", "g_pending"];

const SETUP = `
  CREATE EXTENSION pg_trgm;
  CREATE TABLE t (id int, doc jsonb, ints int4[], tags text[], fts tsvector, name text) WITH (autovacuum_enabled = off);
  INSERT INTO t SELECT i,
    jsonb_build_object('k' || (i % 300), i % 17, 'tag', 'v' || (i % 5), 'n', i),
    ARRAY[i % 7, i % 1000, i, 0],
    ARRAY['a' || (i % 3), 'word' || (i % 2000)],
    to_tsvector('simple', 'w' || (i % 50) || ' x' || (i % 13) || ' u' || i),
    md5(i::text)
  FROM generate_series(1, 60000) i;
  INSERT INTO t (id, doc, ints, tags) VALUES (0, NULL, NULL, NULL), (-1, '{}', '{}', '{}'), (-2, 'null', ARRAY[NULL]::int4[], ARRAY[NULL]::text[]);
  CREATE INDEX g_jsonb ON t USING gin (doc);
  CREATE INDEX g_jsonb_path ON t USING gin (doc jsonb_path_ops);
  CREATE INDEX g_int4 ON t USING gin (ints);
  CREATE INDEX g_text ON t USING gin (tags);
  CREATE INDEX g_fts ON t USING gin (fts);
  CREATE INDEX g_trgm ON t USING gin (name gin_trgm_ops);
  CREATE INDEX g_multi ON t USING gin (ints, tags);
  DELETE FROM t WHERE id % 3 = 0 OR id BETWEEN 20000 AND 30000;
  VACUUM t;
  CREATE INDEX g_pending ON t USING gin (ints) WITH (fastupdate = on, gin_pending_list_limit = 4096);
  INSERT INTO t (id, ints, tags, doc) SELECT i, ARRAY[i % 5, i], ARRAY['p' || i], jsonb_build_object('p', i) FROM generate_series(70001, 71500) i;
  CHECKPOINT;`;

const servers = new Map<number, PgServer>();

before(async () => {
  for (const version of [15, 18]) {
    const srv = await PgServer.create({ checksums: true, version: version === 15 ? undefined : version });
    srv.sql(SETUP);
    if (version === 15) {
      // a column under an ICU collation: its key order has no on-disk comparator
      srv.sql(`CREATE TABLE u (tags text[] COLLATE "und-x-icu"); INSERT INTO u SELECT ARRAY['w' || i] FROM generate_series(1, 500) i; CREATE INDEX g_icu ON u USING gin (tags); CHECKPOINT;`);
    }
    if (version === 18) {
      srv.sql("CREATE EXTENSION amcheck;");
      for (const ix of INDEXES) srv.sql(`SELECT gin_index_check('${ix}')`);
    }
    srv.stop();
    servers.set(version, srv);
  }
});
after(() => {
  for (const s of servers.values()) s.destroy();
});

interface Found {
  code: string;
  severity: string;
  file?: string;
  block?: number;
  item?: number;
  offset?: number;
  message: string;
}

async function findings(srv: PgServer, index: string): Promise<{ found: Found[]; stats: Record<string, number>; checks: string[] }> {
  const run = await runVerify({ pgdata: srv.pgdata, database: DB, relations: [index] }, { jobs: 1 });
  assert.equal(run.reports.length, 1);
  const r = run.reports[0]!;
  return { found: r.findings.map((f) => ({ code: f.code, severity: f.severity, file: f.location.file, block: f.location.block, item: f.location.item, offset: f.location.offset, message: f.message })), stats: r.stats, checks: r.checks };
}

for (const version of [15, 18]) {
  test(`PostgreSQL ${version}: clean GIN indexes verify with zero findings`, async () => {
    const srv = servers.get(version)!;
    const d = new Damager(srv.pgdata, DB);
    let trees = 0;
    let pending = 0;
    let levels = 0;
    let deleted = 0;
    for (const ix of INDEXES) {
      deleted += blocks(d, d.path(ix), (f) => (f & GIN_DELETED) !== 0).length;
      const r = await findings(srv, ix);
      assert.deepEqual(r.found, [], `${ix}: ${JSON.stringify(r.found)}`);
      assert.ok(r.checks.includes("gin"), ix);
      trees += r.stats.postingTrees!;
      pending += r.stats.pendingPages!;
      // the root is internal: a multi-level entry tree
      if (!(flagsOf(d.page(d.path(ix), 1)) & GIN_LEAF)) levels++;
      assert.ok(r.stats.heapTids! > 0, ix);
    }
    assert.ok(trees > 10, `posting trees: ${trees}`);
    assert.ok(pending > 0, "a pending list");
    assert.ok(levels >= 5, `multi-level entry trees: ${levels}`);
    // VACUUM deleted emptied posting tree pages (and the pending list's flushed pages): passed over
    assert.ok(deleted > 0, `deleted pages: ${deleted}`);
  });
}

/** Patch block `blk` of index `ix` on the PG 15 cluster, verify, restore. */
async function damaged(ix: string, pick: (d: Damager, path: string) => { blk: number; patch: (p: Uint8Array, dv: DataView) => void; keepChecksum?: boolean }): Promise<{ blk: number; path: string; found: Found[] }> {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const path = d.path(ix);
  const { blk, patch, keepChecksum } = pick(d, path);
  d.patch(path, blk, patch, keepChecksum);
  try {
    return { blk, path, found: (await findings(srv, ix)).found };
  } finally {
    d.restore();
  }
}

/** Blocks of `path` whose flags satisfy `pred`. */
function blocks(d: Damager, path: string, pred: (f: number, p: Uint8Array) => boolean): number[] {
  const out: number[] = [];
  for (let b = 1; b < d.nblocks(path); b++) {
    const p = d.page(path, b);
    if (new DataView(p.buffer, p.byteOffset).getUint16(14, true) === 0) continue;
    if (pred(flagsOf(p), p)) out.push(b);
  }
  return out;
}
const entryLeaf = (f: number): boolean => (f & (GIN_DATA | GIN_META | GIN_LIST | GIN_DELETED)) === 0 && (f & GIN_LEAF) !== 0;

function has(r: { blk: number; path: string; found: Found[] }, code: string, extra: Partial<Found> = {}): boolean {
  return r.found.some((f) => f.code === code && f.block === r.blk && f.file === r.path && Object.entries(extra).every(([k, v]) => (f as unknown as Record<string, unknown>)[k] === v));
}

test("damage: swapped entry keys on a leaf", async () => {
  const r = await damaged("g_int4", (d, path) => {
    const blk = blocks(d, path, (f, p) => entryLeaf(f) && rightlinkOf(p) !== 0xffffffff)[0]!;
    return {
      blk,
      patch: (_p, dv) => {
        const a = dv.getUint32(itemIdOffset(2), true);
        const b = dv.getUint32(itemIdOffset(3), true);
        dv.setUint32(itemIdOffset(2), b, true);
        dv.setUint32(itemIdOffset(3), a, true);
      },
    };
  });
  assert.ok(has(r, "GIN_ENTRY_ORDER", { item: 3 }), JSON.stringify(r.found));
  assert.ok(r.found.find((f) => f.code === "GIN_ENTRY_ORDER")!.message.includes("has wrong tuple order on entry tree page"));
  assert.ok(r.found.find((f) => f.code === "GIN_ENTRY_ORDER")!.offset! > 0);
});

test("damage: right link in a cycle and past the end", async () => {
  let r = await damaged("g_text", (d, path) => {
    // a leaf's right sibling links back to it
    const left = blocks(d, path, (f, p) => entryLeaf(f) && rightlinkOf(p) !== 0xffffffff)[0]!;
    const blk = rightlinkOf(d.page(path, left));
    return { blk, patch: (p) => new DataView(p.buffer, p.byteOffset).setUint32(SPECIAL, left, true) };
  });
  assert.ok(has(r, "GIN_RIGHTLINK_CYCLE", { offset: SPECIAL }), JSON.stringify(r.found));
  r = await damaged("g_text", (d, path) => {
    const blk = blocks(d, path, (f, p) => entryLeaf(f) && rightlinkOf(p) !== 0xffffffff)[0]!;
    return { blk, patch: (p) => new DataView(p.buffer, p.byteOffset).setUint32(SPECIAL, d.nblocks(path) + 5, true) };
  });
  assert.ok(has(r, "GIN_RIGHTLINK_INVALID", { offset: SPECIAL }), JSON.stringify(r.found));
});

test("damage: a posting list out of order", async () => {
  let item = 0;
  let at = 0;
  const r = await damaged("g_jsonb", (d, path) => {
    for (const blk of blocks(d, path, entryLeaf)) {
      const p = d.page(path, blk);
      const dv = new DataView(p.buffer, p.byteOffset);
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = dv.getUint32(itemIdOffset(i), true);
        const off = lpOff(w);
        const np = ginTupleNPosting(p, off);
        if (np < 3 || np === GIN_TREE_POSTING || !ginTupleCompressed(p, off)) continue;
        item = i;
        at = off + ginTuplePostingOffset(p, off) + GIN_POSTING_LIST_HEADER;
        // the first delta becomes 0: the second TID equals the first
        return { blk, patch: (pg) => void (pg[at] = 0) };
      }
    }
    throw new Error("no posting list");
  });
  assert.ok(has(r, "GIN_POSTING_ORDER", { item }), JSON.stringify(r.found));
});

test("damage: a wrong leaf flag", async () => {
  const r = await damaged("g_fts", (d, path) => {
    const leaves = blocks(d, path, (f, p) => entryLeaf(f) && rightlinkOf(p) !== 0xffffffff);
    const blk = leaves[1]!;
    return { blk, patch: (p) => new DataView(p.buffer, p.byteOffset).setUint16(SPECIAL + 6, flagsOf(p) & ~GIN_LEAF, true) };
  });
  assert.ok(has(r, "GIN_LEAF_DEPTH", { offset: SPECIAL + 6 }), JSON.stringify(r.found));
});

test("damage: a corrupt PostingItem child", async () => {
  let item = 0;
  const r = await damaged("g_int4", (d, path) => {
    const blk = blocks(d, path, (f) => (f & (GIN_DATA | GIN_LEAF | GIN_DELETED)) === GIN_DATA)[0];
    if (blk === undefined) throw new Error("no posting tree internal page");
    item = 1;
    return { blk, patch: (p) => new DataView(p.buffer, p.byteOffset).setUint16(GIN_DATA_ITEMS_OFFSET + 2, 0xfff0, true) };
  });
  assert.ok(r.found.some((f) => f.code === "GIN_DOWNLINK_INVALID" && f.block === r.blk), JSON.stringify(r.found));
  void item;
});

/** The first leaf entry tuple of `ix` with a compressed posting list of at least 3 TIDs. */
function postingTuple(d: Damager, path: string): { blk: number; item: number; off: number; list: number } {
  for (const blk of blocks(d, path, entryLeaf)) {
    const p = d.page(path, blk);
    const dv = new DataView(p.buffer, p.byteOffset);
    for (let i = 1; i <= maxOffsetNumber(dv); i++) {
      const off = lpOff(dv.getUint32(itemIdOffset(i), true));
      const np = ginTupleNPosting(p, off);
      if (np >= 3 && np !== GIN_TREE_POSTING && ginTupleCompressed(p, off)) return { blk, item: i, off, list: off + ginTuplePostingOffset(p, off) };
    }
  }
  throw new Error("no posting list");
}
const u16at = (p: Uint8Array, at: number, v: number): void => new DataView(p.buffer, p.byteOffset).setUint16(at, v, true);
const u32at = (p: Uint8Array, at: number, v: number): void => new DataView(p.buffer, p.byteOffset).setUint32(at, v, true);
const M = GinMetaPageData.offsets;
const postingInternal = (f: number): boolean => (f & (GIN_DATA | GIN_LEAF | GIN_DELETED)) === GIN_DATA;
const postingLeaf = (f: number, p: Uint8Array): boolean => (f & (GIN_DATA | GIN_LEAF | GIN_DELETED)) === (GIN_DATA | GIN_LEAF) && rightlinkOf(p) !== 0xffffffff;

test("damage: metapage and pending list", async () => {
  let r = await damaged("g_int4", () => ({ blk: 0, patch: (p) => u32at(p, GIN_META_OFFSET + M.ginVersion, 1) }));
  assert.ok(has(r, "GIN_META_VERSION", { offset: GIN_META_OFFSET + M.ginVersion }), JSON.stringify(r.found));
  r = await damaged("g_int4", () => ({ blk: 0, patch: (p) => u16at(p, SPECIAL + 6, 0) }));
  assert.ok(has(r, "GIN_META_INVALID"), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => ({ blk: 0, patch: (p) => u32at(p, GIN_META_OFFSET + M.nTotalPages, d.nblocks(path) + 100) }));
  assert.ok(has(r, "GIN_META_STATS"), JSON.stringify(r.found));
  r = await damaged("g_pending", () => ({ blk: 0, patch: (p) => u32at(p, GIN_META_OFFSET + M.nPendingPages, GinMetaPageData.get.nPendingPages(p, GIN_META_OFFSET) + 1) }));
  assert.ok(has(r, "GIN_PENDING_LIST"), JSON.stringify(r.found));
});

test("damage: entry tree pages (zeroed, deleted, wrong kind, empty, linked twice, unlinked, unreachable)", async () => {
  const leaf = (d: Damager, path: string): number => {
    const left = blocks(d, path, (f, p) => entryLeaf(f) && rightlinkOf(p) !== 0xffffffff)[0]!;
    return rightlinkOf(d.page(path, left));
  };
  let r = await damaged("g_int4", (d, path) => ({ blk: leaf(d, path), patch: (p) => p.fill(0), keepChecksum: true }));
  assert.ok(has(r, "GIN_PAGE_ZERO"), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => ({ blk: leaf(d, path), patch: (p) => u16at(p, SPECIAL + 6, flagsOf(p) | GIN_DELETED) }));
  assert.ok(has(r, "GIN_DELETED_REACHABLE"), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => ({ blk: leaf(d, path), patch: (p) => u16at(p, SPECIAL + 6, flagsOf(p) | GIN_DATA) }));
  assert.ok(has(r, "GIN_PAGE_KIND"), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => ({ blk: leaf(d, path), patch: (p) => u32at(p, SPECIAL, 0xffffffff) }));
  assert.ok(has(r, "GIN_SIBLING_MISMATCH", { offset: SPECIAL }), JSON.stringify(r.found));
  // the root (internal): no line pointers; a second downlink to the first child; a leaf flag
  r = await damaged("g_int4", () => ({ blk: 1, patch: (p) => u16at(p, 12, 24) }));
  assert.ok(has(r, "GIN_INTERNAL_EMPTY"), JSON.stringify(r.found));
  let child = 0;
  r = await damaged("g_int4", (d, path) => {
    const p = d.page(path, 1);
    const dv = new DataView(p.buffer, p.byteOffset);
    const t1 = lpOff(dv.getUint32(itemIdOffset(1), true));
    child = (dv.getUint16(t1, true) << 16) | dv.getUint16(t1 + 2, true);
    return { blk: 1, patch: (pg, v) => { const t2 = lpOff(v.getUint32(itemIdOffset(2), true)); v.setUint16(t2, child >>> 16, true); v.setUint16(t2 + 2, child & 0xffff, true); void pg; } };
  });
  assert.ok(r.found.some((f) => f.code === "GIN_DOWNLINK_DUPLICATE" && f.block === child), JSON.stringify(r.found));
  r = await damaged("g_int4", () => ({ blk: 1, patch: (p) => u16at(p, SPECIAL + 6, flagsOf(p) | GIN_LEAF) }));
  assert.ok(r.found.some((f) => f.code === "GIN_PAGE_UNREACHABLE" && f.severity === "warning"), JSON.stringify(r.found));
});

test("damage: entry tuples (size, column number, parent key, posting count, invalid TID, truncated list)", async () => {
  let t = { blk: 0, item: 0, off: 0, list: 0 };
  const pick = (f: (p: Uint8Array) => void) => (d: Damager, path: string) => ((t = postingTuple(d, path)), { blk: t.blk, patch: f });
  let r = await damaged("g_int4", pick((p) => u16at(p, t.off + 6, (p[t.off + 6]! | (p[t.off + 7]! << 8)) + 16)));
  assert.ok(has(r, "GIN_TUPLE_SIZE", { item: t.item, offset: t.off }), JSON.stringify(r.found));
  r = await damaged("g_multi", pick((p) => u16at(p, t.off + 8, 9)));
  assert.ok(has(r, "GIN_TUPLE_CORRUPT", { item: t.item }), JSON.stringify(r.found));
  r = await damaged("g_int4", pick((p) => u16at(p, t.off + 4, ginTupleNPosting(p, t.off) + 1)));
  assert.ok(has(r, "GIN_POSTING_COUNT", { item: t.item }), JSON.stringify(r.found));
  r = await damaged("g_int4", pick((p) => u16at(p, t.list + 4, 0)));
  assert.ok(has(r, "GIN_POSTING_INVALID_TID", { item: t.item }), JSON.stringify(r.found));
  r = await damaged("g_int4", pick((p) => u16at(p, t.list + 6, 4000)));
  assert.ok(has(r, "GIN_POSTING_TRUNCATED", { item: t.item }), JSON.stringify(r.found));
  // the root's first key (an int4) lowered below its child's last key
  let child = 0;
  const rr = await damaged("g_int4", (d, path) => {
    const p = d.page(path, 1);
    const dv = new DataView(p.buffer, p.byteOffset);
    const t1 = lpOff(dv.getUint32(itemIdOffset(1), true));
    child = (dv.getUint16(t1, true) << 16) | dv.getUint16(t1 + 2, true);
    return { blk: 1, patch: (_pg, v) => v.setInt32(t1 + 8, -2147483648, true) };
  });
  assert.ok(rr.found.some((f) => f.code === "GIN_PARENT_KEY" && f.block === child && f.message.includes("has inconsistent records")), JSON.stringify(rr.found));
});

test("damage: posting tree pages (pd_lower, key order, rightmost key, parent key, right bound, deleted internal page)", async () => {
  let r = await damaged("g_int4", (d, path) => ({ blk: blocks(d, path, postingInternal)[0]!, patch: (p) => u16at(p, 12, (p[12]! | (p[13]! << 8)) + SizeOfPostingItem) }));
  assert.ok(has(r, "GIN_DATA_PD_LOWER"), JSON.stringify(r.found));
  const wide = (d: Damager, path: string): number => blocks(d, path, (f, p) => postingInternal(f) && GinPageOpaqueData.get.maxoff(p, SPECIAL) >= 3)[0]!;
  const key = (i: number): number => GIN_DATA_ITEMS_OFFSET + (i - 1) * SizeOfPostingItem + 4;
  r = await damaged("g_int4", (d, path) => ({ blk: wide(d, path), patch: (p) => { const a = p.slice(key(1), key(1) + 6); p.copyWithin(key(1), key(2), key(2) + 6); p.set(a, key(2)); } }));
  assert.ok(has(r, "GIN_DATA_ITEM_ORDER", { item: 2, offset: key(2) }), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => {
    const blk = blocks(d, path, (f, p) => postingInternal(f) && rightlinkOf(p) === 0xffffffff)[0]!;
    return { blk, patch: (p) => u16at(p, key(GinPageOpaqueData.get.maxoff(p, SPECIAL)) + 4, 5) };
  });
  assert.ok(has(r, "GIN_DATA_RIGHTMOST_KEY"), JSON.stringify(r.found));
  // the first downlink's key lowered to (0,1): the child's TIDs exceed it, its right bound differs
  let child = 0;
  const rr = await damaged("g_int4", (d, path) => {
    const blk = wide(d, path);
    const p = d.page(path, blk);
    child = (p[GIN_DATA_ITEMS_OFFSET]! | (p[GIN_DATA_ITEMS_OFFSET + 1]! << 8)) * 65536 + (p[GIN_DATA_ITEMS_OFFSET + 2]! | (p[GIN_DATA_ITEMS_OFFSET + 3]! << 8));
    return { blk, patch: (pg) => { u16at(pg, key(1), 0); u16at(pg, key(1) + 2, 0); u16at(pg, key(1) + 4, 1); } };
  });
  assert.ok(rr.found.some((f) => f.code === "GIN_DATA_PARENT_KEY" && f.block === child), JSON.stringify(rr.found));
  assert.ok(rr.found.some((f) => f.code === "GIN_DATA_HIGHKEY" && f.block === child && f.offset === GIN_DATA_RIGHTBOUND_OFFSET), JSON.stringify(rr.found));
  r = await damaged("g_int4", (d, path) => ({ blk: blocks(d, path, postingLeaf)[0]!, patch: (p) => { u16at(p, GIN_DATA_RIGHTBOUND_OFFSET, 0); u16at(p, GIN_DATA_RIGHTBOUND_OFFSET + 2, 0); u16at(p, GIN_DATA_RIGHTBOUND_OFFSET + 4, 1); } }));
  assert.ok(has(r, "GIN_DATA_RIGHTBOUND", { offset: GIN_DATA_RIGHTBOUND_OFFSET }), JSON.stringify(r.found));
  r = await damaged("g_int4", (d, path) => ({ blk: blocks(d, path, postingInternal)[0]!, patch: (p) => u16at(p, SPECIAL + 6, flagsOf(p) | GIN_DELETED) }));
  assert.ok(has(r, "GIN_DELETED_PAGE") && has(r, "GIN_DELETED_REACHABLE"), JSON.stringify(r.found));
});

test("a key column without an on-disk comparator is a counted note, the structure still checked", async () => {
  const r = await findings(servers.get(15)!, "g_icu");
  assert.deepEqual(r.found.map((f) => f.code), ["GIN_ORDER_NOT_CHECKED"]);
  assert.equal(r.found[0]!.severity, "info");
  assert.ok(r.stats.heapTids! >= 500);
});
