// readBtree (levels along sibling chains, pivots, downlinks) against pageinspect, and leafTuples
// (key order along the leaf chain, posting lists, LP_DEAD, keys decoded through the catalog's
// column types) against SELECT ... ORDER BY on a real PostgreSQL 15.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { leafTuples, readBtree, type BtreeStructure } from "../../formats/nbtree/reader.js";
import { indexKeyTexts } from "../../formats/nbtree/keys.js";
import { comparePages, convertInPlace, outputCopy, reindexCopy, removeRoot } from "../../samples/cluster-kit.js";
import { readFileSync } from "node:fs";

let srv: PgServer;
let pgdata: string;
const pageStats = new Map<string, Map<number, string[]>>();
const pageItems = new Map<string, Map<number, (string | null)[][]>>();
const sqlOrder = new Map<string, string[]>();
let liveRows = 0;
let dir: string | undefined;

const INDEXES = ["rd_url", "rd_multi", "rd_dup", "rd_id", "rd_dead"];

before(async () => {
  srv = await PgServer.create();
  srv.sql(`
    create extension pageinspect;
    create table rd (id int, url text, a int, b text, d int);
    insert into rd select i, 'https://example.com/item/' || lpad(((i * 7919) % 50000)::text, 6, '0') || '/detail',
      case when i % 13 = 0 then null else i % 300 end, 'b-' || (i % 97), i % 25 from generate_series(1, 50000) i;
    create index rd_url on rd (url);
    create index rd_multi on rd (a desc nulls last, b);
    create index rd_dup on rd (d);
    create index rd_id on rd (id);
    delete from rd where id between 10000 and 30000;
    vacuum rd;
    create table dead (id int, k text);
    insert into dead select i, 'key-' || lpad(i::text, 6, '0') from generate_series(1, 20000) i;
    create index rd_dead on dead (k);
    vacuum dead;
    delete from dead where id % 3 = 0;
    set enable_seqscan = off; set enable_bitmapscan = off; set enable_indexonlyscan = off;
    select count(*) from dead where k >= '';
    checkpoint;
  `);
  liveRows = Number(srv.rows("select count(*) from dead")[0]![0]);
  for (const idx of INDEXES) {
    const n = Number(srv.rows(`select pg_relation_size('${idx}') / 8192`)[0]![0]);
    const st = new Map<number, string[]>();
    const it = new Map<number, (string | null)[][]>();
    for (const r of srv.rows(`select b, type, btpo_prev, btpo_next, btpo_level, live_items + dead_items from generate_series(1, ${n - 1}) b, bt_page_stats('${idx}', b) order by b`)) st.set(Number(r[0]), r.slice(1).map(String));
    for (const r of srv.rows(
      `select b, itemoffset, ctid, itemlen, htid from generate_series(1, ${n - 1}) b, bt_page_stats('${idx}', b) s, bt_page_items('${idx}', b) i where s.type in ('i', 'r') order by b, itemoffset`,
    )) {
      const b = Number(r[0]);
      if (!it.has(b)) it.set(b, []);
      it.get(b)!.push(r.slice(1));
    }
    pageStats.set(idx, st);
    pageItems.set(idx, it);
  }
  sqlOrder.set("rd_url", srv.rows("select url from rd order by url").map((r) => r[0]!));
  sqlOrder.set("rd_multi", srv.rows("select coalesce(a::text, 'NULL') || '|' || b from rd order by a desc nulls last, b").map((r) => r[0]!));
  srv.stop();
  pgdata = srv.pgdata;
});

after(() => {
  srv?.destroy();
  if (dir) removeRoot(dirname(dir));
});

function withIndex<T>(name: string, f: (fork: RelationFork, cat: ReturnType<Cluster["database"]>) => T): T {
  const cat = new Cluster(pgdata).database("postgres");
  const fork = new RelationFork(cat.path(cat.findRelation(name)));
  try {
    return f(fork, cat);
  } finally {
    fork.close();
  }
}

test("readBtree: levels, sibling chains and page kinds match bt_page_stats; deleted pages are unreachable", () => {
  for (const idx of INDEXES) {
    const s: BtreeStructure = withIndex(idx, (fork) => readBtree(fork, { downlinks: true }));
    assert.deepEqual(s.findings, [], idx);
    assert.equal(s.levels.length, s.meta.btm_level + 1, idx);
    const stats = pageStats.get(idx)!;
    const reached = new Set<number>();
    for (const lvl of s.levels) {
      lvl.pages.forEach((p, i) => {
        reached.add(p.block);
        const st = stats.get(p.block)!;
        assert.equal(Number(st[3]), lvl.level, `${idx} block ${p.block} level`);
        assert.equal(Number(st[1]), p.prev, `${idx} block ${p.block} prev`);
        assert.equal(Number(st[2]), p.next, `${idx} block ${p.block} next`);
        if (i > 0) assert.equal(p.prev, lvl.pages[i - 1]!.block);
        if (!["d", "D"].includes(st[0]!)) assert.equal(p.nitems, Number(st[4]), `${idx} block ${p.block} items`);
        if (lvl.level === 0) assert.ok(st[0] === "l" || st[0] === "e" || (st[0] === "r" && s.levels.length === 1));
      });
    }
    for (const [b, st] of stats) if (!reached.has(b)) assert.ok(["d", "D"].includes(st[0]!), `${idx}: block ${b} (${st[0]}) unreachable`);
    assert.deepEqual(s.unreachable, [...stats.keys()].filter((b) => !reached.has(b)), idx);
  }
  assert.ok(withIndex("rd_url", (fork) => readBtree(fork)).levels.length >= 2, "rd_url has internal levels");
  const ids = withIndex("rd_id", (fork) => readBtree(fork));
  assert.ok(ids.unreachable.length > 10, "the DELETE of an id range + VACUUM left deleted pages in rd_id");
});

test("readBtree: downlinks, minus infinity, pivot natts and heap TIDs match bt_page_items on internal pages", () => {
  for (const idx of INDEXES) {
    const s = withIndex(idx, (fork) => readBtree(fork, { downlinks: true }));
    const items = pageItems.get(idx)!;
    for (const lvl of s.levels.filter((l) => l.level > 0)) {
      for (const p of lvl.pages) {
        const rows = items.get(p.block)!;
        const all = [...(p.highKey ? [p.highKey] : []), ...p.downlinks!];
        assert.equal(all.length, rows.length, `${idx} block ${p.block}`);
        all.forEach((piv, i) => {
          const [off, ctid, itemlen, htid] = rows[i]!;
          const m = /^\((\d+),(\d+)\)$/.exec(ctid!)!;
          assert.equal(piv.downlink, Number(m[1]), `${idx} ${p.block}/${off} block`);
          assert.equal(piv.natts, Number(m[2]) & 0xfff, `${idx} ${p.block}/${off} natts`);
          assert.equal(piv.size, Number(itemlen));
          assert.equal(piv.heapTid ? `(${piv.heapTid.block},${piv.heapTid.offset})` : null, htid);
        });
        if (p.prev === 0) assert.ok(p.downlinks![0]!.minusInfinity, `${idx}: the leftmost page of level ${lvl.level} starts with minus infinity`);
      }
    }
  }
});

test("leafTuples: key order along the leaf chain equals ORDER BY, keys decoded through the catalog's types", () => {
  const cat = new Cluster(pgdata).database("postgres");
  const lookup = typeLookupFor(cat);
  for (const idx of ["rd_url", "rd_multi"]) {
    const desc = cat.descriptor(cat.findRelation(idx).oid);
    const got = withIndex(idx, (fork) =>
      [...leafTuples(fork, { expandPostings: true })].map((t) => {
        const k = indexKeyTexts(t.tuple, desc, { types: lookup.types, decodeAs: lookup.decodeAs });
        return idx === "rd_url" ? k[0]! : `${k[0] ?? "NULL"}|${k[1]}`;
      }),
    );
    assert.deepEqual(got, sqlOrder.get(idx), idx);
  }
});

test("leafTuples: posting lists stay whole or expand to one tuple per heap TID", () => {
  const whole = withIndex("rd_dup", (fork) => [...leafTuples(fork)]);
  const expanded = withIndex("rd_dup", (fork) => [...leafTuples(fork, { expandPostings: true })]);
  assert.ok(whole.some((t) => t.posting));
  assert.ok(expanded.every((t) => !t.posting));
  assert.equal(expanded.length, 50000 - 20001);
});

test("LP_DEAD items are skipped (or shown with includeDead), and the rebuild without them equals REINDEX", () => {
  const live = withIndex("rd_dead", (fork) => [...leafTuples(fork)]);
  const all = withIndex("rd_dead", (fork) => [...leafTuples(fork, { includeDead: true })]);
  const dead = all.filter((t) => t.dead).length;
  assert.ok(dead > 0, "the index scan marked dead items");
  assert.equal(live.length, all.length - dead);
  assert.equal(live.length, liveRows, "every deleted row's entry was marked LP_DEAD");
  const re = reindexCopy(dirname(pgdata), "postgres", ["rd_dead"]);
  try {
    dir = outputCopy(pgdata, "dead");
    const r = convertInPlace(dir, "postgres", ["rd_dead"], { to: "plain", mode: "rebuild" }).get("rd_dead")!;
    assert.equal(r.report.heapTids, liveRows);
    const cmp = comparePages(readFileSync(r.path), re.files.get("rd_dead")!);
    assert.deepEqual(cmp.differing, []);
    assert.equal(cmp.pages, cmp.theirPages);
  } finally {
    removeRoot(re.root);
  }
});

test("recode keeps LP_DEAD items (coded, still dead) and the rebuild from the coded index drops them", () => {
  const copy = outputCopy(pgdata, "dead-recode");
  try {
    const r = convertInPlace(copy, "postgres", ["rd_dead"], { to: "prefix", mode: "recode", policy: "lead" }).get("rd_dead")!;
    assert.ok(r.report.leafCoded > 0);
    const fork = new RelationFork(r.path);
    try {
      const all = [...leafTuples(fork, { includeDead: true })];
      assert.ok(all.some((t) => t.dead && t.prefixPage), "dead items on coded pages");
      assert.equal(all.filter((t) => !t.dead).length, liveRows);
    } finally {
      fork.close();
    }
    const back = convertInPlace(copy, "postgres", ["rd_dead"], { to: "plain", mode: "rebuild" }).get("rd_dead")!;
    assert.equal(back.report.heapTids, liveRows);
  } finally {
    removeRoot(dirname(copy));
  }
});
