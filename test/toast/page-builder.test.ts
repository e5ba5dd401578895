// The generic pieces the converter writes with, checked against what PostgreSQL 15 wrote in the
// sample cluster: a heap page rebuilt from its tuples by HeapPageBuilder puts every item where
// PageAddItem put it; re-forming a tuple without changes reproduces its bytes (the alignment
// rules for every attribute shape); re-laying out a page keeps every line pointer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { HeapPageBuilder, relayoutPage } from "../../formats/heap/page-builder.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView, pdLower, pdUpper } from "../../formats/page/page.js";
import { reformTuple } from "../../formats/toast/reform.js";

const DB = "pgdisk_sample";

test("a TOAST page rebuilt from its chunks with PageAddItem semantics has every item where PostgreSQL put it", async () => {
  const cat = new Cluster((await tinySample()).pgdata).database(DB);
  const toast = cat.classes.get(cat.findRelation("toast_docs").toastRelid)!;
  const fork = new RelationFork(cat.path(toast), cat.cluster.geometry);
  const b = new HeapPageBuilder(8192);
  let pages = 0;
  for (const [, page] of scanBlocks(fork)) {
    const dv = pageView(page);
    const n = maxOffsetNumber(dv);
    // pages written by plain inserts only (every item normal and in address order)
    let inserted = true;
    for (let i = 1; i <= n && inserted; i++) inserted = lpFlags(itemIdWord(dv, i)) === LP_NORMAL && (i === 1 || lpOff(itemIdWord(dv, i)) < lpOff(itemIdWord(dv, i - 1)));
    if (!inserted || n === 0) continue;
    b.reset();
    for (let i = 1; i <= n; i++) {
      const w = itemIdWord(dv, i);
      assert.ok(b.fits(lpLen(w)));
      assert.equal(b.add(page.subarray(lpOff(w), lpOff(w) + lpLen(w))), i);
    }
    assert.deepEqual(b.page.subarray(24, pdLower(dv)), page.subarray(24, pdLower(dv)), "line pointers");
    assert.deepEqual(b.page.subarray(pdUpper(dv)), page.subarray(pdUpper(dv)), "items");
    assert.equal(pdUpper(b.dv), pdUpper(dv));
    pages++;
  }
  fork.close();
  assert.ok(pages > 1000, `${pages} pages rebuilt`);
});

test("re-forming a tuple without changes reproduces it; re-laying out a page keeps every line pointer", async () => {
  const cat = new Cluster((await tinySample()).pgdata).database(DB);
  let tuples = 0;
  let pages = 0;
  for (const rel of [...cat.classes.values()].filter((c) => c.kind === "r" && c.oid >= 16384)) {
    const desc = cat.descriptor(rel.oid);
    const fork = new RelationFork(cat.path(rel), cat.cluster.geometry);
    for (const [blk, page] of scanBlocks(fork)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      const same = new Map<number, Uint8Array>();
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const t = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
        const layout = deformHeapTuple(t, desc);
        assert.deepEqual(reformTuple(t, layout, desc, new Map()), t.subarray(0, layout.end), `${rel.name} (${blk},${i})`);
        same.set(i, t);
        tuples++;
      }
      const out = relayoutPage(page, same)!;
      const odv = pageView(out);
      assert.equal(pdLower(odv), pdLower(dv));
      assert.ok(pdUpper(odv) >= pdUpper(dv));
      assert.deepEqual(out.subarray(0, 12), page.subarray(0, 12), "LSN, checksum, flags kept");
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const a = itemIdWord(dv, i);
        const c = itemIdWord(odv, i);
        assert.equal(lpFlags(c), lpFlags(a));
        assert.equal(lpLen(c), lpLen(a));
        if (lpFlags(a) === LP_NORMAL) assert.deepEqual(out.subarray(lpOff(c), lpOff(c) + lpLen(c)), page.subarray(lpOff(a), lpOff(a) + lpLen(a)));
        else assert.equal(lpOff(c), lpOff(a));
      }
      pages++;
    }
    fork.close();
  }
  assert.ok(tuples > 10000 && pages > 400, `${tuples} tuples, ${pages} pages`);
});
