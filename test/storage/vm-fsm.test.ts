// Visibility map and free space map forks decoded offline, compared block by block with
// pg_visibility_map and pg_freespace for every table, TOAST table, matview and index of the database.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  decodeFsmPage,
  fsmAvailForHeapBlock,
  fsmCatToAvail,
  fsmCategoriesForHeapBlocks,
  fsmAvailToCat,
  fsmLogicalToPhysical,
  fsmPhysicalToLogical,
  FSM_BOTTOM_LEVEL,
  FSM_ROOT_LEVEL,
  FSMPageData,
  MaxFSMRequestSize,
  NodesPerPage,
  SlotsPerFSMPage,
} from "../../formats/storage/fsm.js";
import { forkBlockCount, forkPage } from "../../formats/storage/fork-pages.js";
import { decodeVmPage, vmBitsForHeapBlock, vmLocation, vmStatusForHeapBlocks, VM_HEAPBLOCKS_PER_PAGE } from "../../formats/storage/vm.js";
import type { PgServer } from "../../samples/pg-server.js";
import { buildCluster, DB, readFork } from "./fixture.js";

interface Rel {
  oid: number;
  name: string;
  kind: string;
  path: string;
  nblocks: number;
  /** pg_visibility_map: all_visible | all_frozen << 1 per block (tables only) */
  vm?: Uint8Array;
  /** pg_freespace avail per block */
  avail: number[];
}
let srv: PgServer;
const rels: Rel[] = [];

before(async () => {
  srv = await buildCluster();
  const base = srv.rows(
    `SELECT c.oid, c.relname, c.relkind, pg_relation_filepath(c.oid), pg_relation_size(c.oid) / 8192
       FROM pg_class c WHERE c.relkind IN ('r', 't', 'm', 'i') ORDER BY c.oid`,
    DB,
  );
  const vm = new Map(
    srv.rows(
      `SELECT c.oid, coalesce(string_agg((v.all_visible::int + 2 * v.all_frozen::int)::text, '' ORDER BY v.blkno), '')
         FROM pg_class c LEFT JOIN LATERAL pg_visibility_map(c.oid) v ON true
        WHERE c.relkind IN ('r', 't', 'm') GROUP BY c.oid`,
      DB,
    ).map((r) => [Number(r[0]), Uint8Array.from(r[1]!, (ch) => Number(ch))]),
  );
  const fsm = new Map(
    srv.rows(
      `SELECT c.oid, coalesce(string_agg(f.avail::text, ',' ORDER BY f.blkno), '')
         FROM pg_class c LEFT JOIN LATERAL pg_freespace(c.oid) f ON true
        WHERE c.relkind IN ('r', 't', 'm', 'i') GROUP BY c.oid`,
      DB,
    ).map((r) => [Number(r[0]), r[1] ? r[1].split(",").map(Number) : []]),
  );
  for (const [oid, name, kind, path, n] of base) {
    rels.push({ oid: Number(oid), name: name!, kind: kind!, path: join(srv.pgdata, path!), nblocks: Number(n), vm: vm.get(Number(oid)), avail: fsm.get(Number(oid))! });
  }
  srv.stop(); // shutdown checkpoint: the map pages the server just read are the ones on disk
});
after(() => srv?.destroy());

const rel = (name: string): Rel => rels.find((r) => r.name === name)!;

test("VM: every block of every table matches pg_visibility_map (bulk and per-block readers)", () => {
  let blocks = 0;
  let tables = 0;
  const totals = [0, 0, 0, 0];
  for (const r of rels) {
    if (!r.vm) continue;
    tables++;
    assert.equal(r.vm.length, r.nblocks, r.name);
    const fork = readFork(r.path + "_vm");
    const ours = vmStatusForHeapBlocks(fork, r.nblocks);
    assert.deepEqual(ours, r.vm, r.name);
    for (let h = 0; h < r.nblocks; h++) {
      const b = vmBitsForHeapBlock(fork, h);
      assert.equal((b.all_visible ? 1 : 0) | (b.all_frozen ? 2 : 0), r.vm[h], `${r.name} block ${h}`);
      totals[r.vm[h]]++;
    }
    blocks += r.nblocks;
  }
  // The fixture must give all three states, on both VM pages of t_wide, or the comparison proves little.
  assert.ok(totals[0] > 0 && totals[1] > 0 && totals[3] > 0, JSON.stringify(totals));
  const wide = rel("t_wide");
  assert.ok(wide.nblocks > VM_HEAPBLOCKS_PER_PAGE);
  const second = wide.vm!.subarray(VM_HEAPBLOCKS_PER_PAGE);
  assert.ok(second.includes(0) && second.includes(1), "t_wide's second VM page has set and cleared bits");
  assert.ok(rel("t_frozen").vm!.every((s) => s === 3), "VACUUM FREEZE: all frozen");
  console.log(`VM: ${tables} tables, ${blocks} heap blocks matched (none ${totals[0]}, visible ${totals[1]}, visible+frozen ${totals[3]}, frozen-only ${totals[2]})`);
});

test("VM pages decode: locations, counts, missing fork reads as all zero", () => {
  const wide = rel("t_wide");
  const fork = readFork(wide.path + "_vm");
  assert.equal(forkBlockCount(fork), 2);
  for (let mb = 0; mb < 2; mb++) {
    const p = decodeVmPage(forkPage(fork, mb)!, mb);
    assert.equal(p.isNew, false);
    assert.equal(p.header.pd_lower, 24);
    assert.equal(p.firstHeapBlock, mb * VM_HEAPBLOCKS_PER_PAGE);
    const slice = wide.vm!.subarray(p.firstHeapBlock, p.firstHeapBlock + VM_HEAPBLOCKS_PER_PAGE);
    assert.equal(p.allVisible, slice.filter((s) => s & 1).length);
    assert.equal(p.allFrozen, slice.filter((s) => s & 2).length);
    assert.deepEqual(p.frozenNotVisible, []);
  }
  assert.deepEqual(vmLocation(32673), { mapBlock: 1, mapByte: 0, mapOffset: 2 });
  const novac = rel("t_novac");
  assert.equal(readFork(novac.path + "_vm").length, 0, "t_novac has no VM fork");
  assert.deepEqual(vmStatusForHeapBlocks(new Uint8Array(0), novac.nblocks), novac.vm);
  // Page arrays with holes are read as missing pages.
  assert.deepEqual(vmBitsForHeapBlock([null, forkPage(fork, 1)], 5), { all_visible: false, all_frozen: false });
  assert.equal(vmBitsForHeapBlock([null, forkPage(fork, 1)], VM_HEAPBLOCKS_PER_PAGE + 1).all_visible, wide.vm![VM_HEAPBLOCKS_PER_PAGE + 1] === 1 || wide.vm![VM_HEAPBLOCKS_PER_PAGE + 1] === 3);
});

test("FSM: every block of every relation (tables, TOAST, indexes) matches pg_freespace", () => {
  let blocks = 0;
  let relsWithFsm = 0;
  const cats = new Set<number>();
  for (const r of rels) {
    assert.equal(r.avail.length, r.nblocks, r.name);
    const fork = readFork(r.path + "_fsm");
    if (fork.length) relsWithFsm++;
    const ours = Array.from(fsmCategoriesForHeapBlocks(fork, r.nblocks), fsmCatToAvail);
    assert.deepEqual(ours, r.avail, r.name);
    for (let h = 0; h < r.nblocks; h++) {
      assert.equal(fsmAvailForHeapBlock(fork, h), r.avail[h], `${r.name} block ${h}`);
      cats.add(r.avail[h] / 32);
    }
    blocks += r.nblocks;
  }
  // Several FSM leaf pages of t_wide carry values, including leaves past the first.
  const wide = rel("t_wide");
  assert.ok(wide.nblocks > 8 * SlotsPerFSMPage);
  const leaves = new Set<number>();
  wide.avail.forEach((a, h) => a > 0 && leaves.add(Math.floor(h / SlotsPerFSMPage)));
  assert.ok(leaves.size >= 3 && [...leaves].some((l) => l >= 5), `leaves with free space: ${[...leaves]}`);
  assert.ok(cats.size > 20, `${cats.size} distinct categories`);
  console.log(`FSM: ${rels.length} relations (${relsWithFsm} with an FSM fork), ${blocks} blocks matched, ${cats.size} distinct categories, t_wide leaves with values: ${[...leaves].sort((a, b) => a - b)}`);
});

test("FSM pages decode: depth-first addresses, heap-ordered nodes, upper slots hold child maxima", () => {
  const wide = rel("t_wide");
  const fork = readFork(wide.path + "_fsm");
  const n = forkBlockCount(fork);
  const pages = Array.from({ length: n }, (_, b) => decodeFsmPage(forkPage(fork, b)!, b));
  assert.deepEqual(pages[0].address, { level: FSM_ROOT_LEVEL, logpageno: 0 });
  assert.deepEqual(pages[1].address, { level: 1, logpageno: 0 });
  assert.deepEqual(pages[2].address, { level: FSM_BOTTOM_LEVEL, logpageno: 0 });
  const leaves = pages.filter((p) => p.address.level === FSM_BOTTOM_LEVEL);
  assert.equal(leaves.length, Math.ceil(wide.nblocks / SlotsPerFSMPage));
  for (const p of pages) {
    assert.equal(fsmLogicalToPhysical(p.address), p.blkno);
    assert.deepEqual(p.treeMismatches, [], `FSM block ${p.blkno}: non-leaf nodes equal the max of their children`);
    assert.equal(p.nodes.length, NodesPerPage);
    assert.equal(p.root, Math.max(...p.slots));
    assert.ok(p.fp_next_slot >= 0 && p.fp_next_slot < SlotsPerFSMPage);
  }
  for (const leaf of leaves) {
    const first = leaf.address.logpageno * SlotsPerFSMPage;
    const want = wide.avail.slice(first, first + SlotsPerFSMPage).map((a) => a / 32);
    assert.deepEqual(Array.from(leaf.slots.subarray(0, want.length)), want);
    assert.ok(leaf.slots.subarray(want.length).every((c) => c === 0), "slots past the last heap block are 0");
  }
  // After VACUUM (FreeSpaceMapVacuum) each upper slot holds its child's maximum.
  const mid = pages[1];
  for (const leaf of leaves) assert.equal(mid.slots[leaf.address.logpageno], leaf.root, `mid slot ${leaf.address.logpageno}`);
  assert.equal(pages[0].slots[0], mid.root);
  assert.equal(FSMPageData.offsets.fp_nodes, 4);
});

test("FSM address arithmetic: logical ↔ physical round trip and category conversion", () => {
  assert.equal(fsmLogicalToPhysical({ level: 2, logpageno: 0 }), 0);
  assert.equal(fsmLogicalToPhysical({ level: 1, logpageno: 0 }), 1);
  assert.equal(fsmLogicalToPhysical({ level: 0, logpageno: 0 }), 2);
  assert.equal(fsmLogicalToPhysical({ level: 0, logpageno: 1 }), 3);
  for (const b of [0, 1, 2, 3, 4070, 4071, 4072, 8141, 8142, 123456, 16_000_000]) assert.equal(fsmLogicalToPhysical(fsmPhysicalToLogical(b)), b, `block ${b}`);
  for (let leaf = 0; leaf < 20000; leaf += 37) assert.deepEqual(fsmPhysicalToLogical(fsmLogicalToPhysical({ level: 0, logpageno: leaf })), { level: 0, logpageno: leaf });
  assert.equal(fsmCatToAvail(255), MaxFSMRequestSize);
  assert.equal(fsmAvailToCat(8160), 255);
  assert.equal(fsmAvailToCat(8159), 254);
  assert.equal(fsmAvailToCat(31), 0);
  assert.equal(fsmAvailToCat(32), 1);
});
