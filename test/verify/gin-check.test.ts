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
import { lpLen, lpOff, makeLp, LP_NORMAL } from "../../formats/page/item-id.js";
import {
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
    ARRAY[i % 7, i % 1000, i],
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
    for (const ix of INDEXES) {
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
  });
}

/** Patch block `blk` of index `ix` on the PG 15 cluster, verify, restore. */
async function damaged(ix: string, pick: (d: Damager, path: string) => { blk: number; patch: (p: Uint8Array, dv: DataView) => void }): Promise<{ blk: number; path: string; found: Found[] }> {
  const srv = servers.get(15)!;
  const d = new Damager(srv.pgdata, DB);
  const path = d.path(ix);
  const { blk, patch } = pick(d, path);
  d.patch(path, blk, patch);
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
  void SizeOfPostingItem;
  void lpLen;
  void makeLp;
  void LP_NORMAL;
});
