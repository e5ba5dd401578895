// Stock TOAST values without a server: chunks written as toast_save_datum lays them out, the
// TOAST index built as CREATE INDEX would, then read through a real descent of that index (and
// through the heap-scan fallback): whole values, chunk ranges for slices, what each read
// touched, and damaged chunks and index pages.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../../formats/schema/errors.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { lpLen, lpOff, makeLp, LP_UNUSED } from "../../formats/page/item-id.js";
import { readBTMeta } from "../../formats/nbtree/meta.js";
import { emptyStats, PageCache, Touch } from "../../formats/toast/pages.js";
import { ToastIndexScanner } from "../../formats/toast/toast-index.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { sliceCount } from "../../formats/toast/tiers.js";
import type { Tid } from "../../formats/page/item-pointer.js";
import { rng } from "../compression/corpus.js";
import { compressedValue, GEOMETRY, MC, plainValue, TOAST_RELID, writeSynthetic, type SyntheticToast, type Value } from "./synthetic.js";

// many small values first so that the index has several levels before the big ones
const values: Value[] = [
  ...Array.from({ length: 1500 }, (_, i) => plainValue(1, 100 + i, 50 + (i % 40))),
  plainValue(2, 3, 1),
  plainValue(100, 5),
  plainValue(101, 6, 7),
  plainValue(5000, 9, 999),
  compressedValue(2, 0, 12),
  compressedValue(101, 1, 24),
];

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof FormatError, String(e));
    return e.code;
  }
  return "no error";
}

describe("stock TOAST through its index", () => {
  let syn: SyntheticToast;
  let viaIndex: ToastReader;
  let viaHeap: ToastReader;
  before(() => {
    syn = writeSynthetic(values, "plain", 30000);
    viaIndex = syn.reader(true);
    viaHeap = syn.reader(false);
  });
  after(() => {
    viaIndex?.close();
    viaHeap?.close();
    syn?.cleanup();
  });

  test("the rebuilt index has several levels", () => {
    const meta = readBTMeta(new RelationFork(syn.indexPath!, GEOMETRY).readBlock(0));
    assert.ok(meta.btm_level >= 1, `index level ${meta.btm_level}`);
  });

  test("every value reads the same through the index and through a heap scan", () => {
    values.forEach((v, i) => {
      const a = emptyStats();
      assert.deepEqual(viaIndex.fetch(syn.pointers[i], a), v.raw, v.label);
      assert.deepEqual(a.via, ["index"]);
      assert.equal(a.chunksRead, sliceCount(v.stored.length, MC));
      assert.ok(a.indexPages >= 2, "metapage and at least one more");
      if (i % 50 === 0 || i >= 1500) assert.deepEqual(viaHeap.fetch(syn.pointers[i]), v.raw, `${v.label} via heap scan`);
    });
    const s = emptyStats();
    viaHeap.fetch(syn.pointers[1505], s);
    assert.deepEqual(s.via, ["heap-scan"]);
    assert.equal(s.indexPages, 0);
  });

  test("the descent finds exactly the chunks, in chunk_seq order, touching the index's height", () => {
    const meta = readBTMeta(new RelationFork(syn.indexPath!, GEOMETRY).readBlock(0));
    const scanner = new ToastIndexScanner(new PageCache(new RelationFork(syn.indexPath!, GEOMETRY)));
    const st = emptyStats();
    const seqs = [...scanner.scan(30000 + 1502, 0, 0x7fffffff, new Touch(st))].map((e) => e.seq);
    assert.deepEqual(seqs, [...Array(101).keys()]);
    const st2 = emptyStats();
    const one = [...scanner.scan(30000 + 700, 0, 0x7fffffff, new Touch(st2))];
    assert.equal(one.length, 1);
    assert.equal(st2.indexPages, meta.btm_level + 2, "metapage + one page per level");
    assert.deepEqual([...scanner.scan(99999, 0, 10, new Touch(emptyStats()))], []);
    assert.deepEqual([...scanner.scan(29999, 0, 10, new Touch(emptyStats()))], []);
  });

  test("slices fetch only their chunk_seq range; the iterator stops early", () => {
    const r = rng(3);
    for (const i of [1500, 1501, 1502, 1503, 1504, 1505]) {
      const v = values[i];
      for (let k = 0; k < 10; k++) {
        const a = Math.floor(r() * v.raw.length);
        const b = Math.min(v.raw.length, a + 1 + Math.floor(r() * 3 * MC));
        const st = emptyStats();
        assert.deepEqual(viaIndex.fetchSlice(syn.pointers[i], a, b, st), v.raw.subarray(a, b));
        if (v.method === null) assert.equal(st.chunksRead, Math.floor((b - 1) / MC) - Math.floor(a / MC) + 1);
      }
    }
    const st = emptyStats();
    const it = viaIndex.iterate(syn.pointers[1503], { stats: st });
    it.next();
    it.return(undefined);
    assert.equal(st.chunksRead, 1);
  });

  describe("damage", () => {
    function copy(path: string, patch: (f: Buffer) => void): string {
      const out = join(syn.dir, `dmg-${Math.random().toString(36).slice(2)}`);
      cpSync(path, out);
      const f = readFileSync(out);
      patch(f);
      writeFileSync(out, f);
      return out;
    }
    const tidsOf = (i: number): Tid[] => {
      const scanner = new ToastIndexScanner(new PageCache(new RelationFork(syn.indexPath!, GEOMETRY)));
      return [...scanner.scan((syn.pointers[i] as { va_valueid: number }).va_valueid, 0, 0x7fffffff, new Touch(emptyStats()))].map((e) => e.tid);
    };
    const lpAt = (t: Tid): number => t.block * 8192 + 24 + (t.offset - 1) * 4;

    test("a missing chunk, found by the index and by the heap scan", () => {
      const t = tidsOf(1502)[50];
      const heap = copy(syn.heapPath, (f) => f.writeUInt32LE(makeLp(0, LP_UNUSED, 0), lpAt(t)));
      const ri = new ToastReader({ heap: new RelationFork(heap, GEOMETRY), index: new RelationFork(syn.indexPath!, GEOMETRY), toastRelid: TOAST_RELID });
      assert.equal(code(() => ri.fetch(syn.pointers[1502])), "TOAST_CHUNK_MISSING");
      const rh = new ToastReader({ heap: new RelationFork(heap, GEOMETRY), toastRelid: TOAST_RELID });
      assert.equal(code(() => rh.fetch(syn.pointers[1502])), "TOAST_CHUNK_MISSING");
      assert.deepEqual(rh.fetch(syn.pointers[1501]), values[1501].raw);
    });

    test("a chunk of the wrong size", () => {
      const t = tidsOf(1503)[3];
      const heap = copy(syn.heapPath, (f) => {
        const w = f.readUInt32LE(lpAt(t));
        const off = t.block * 8192 + lpOff(w);
        f.writeUInt32LE(((1996 + 4 - 2) << 2) >>> 0, off + 32);
        f.writeUInt32LE(makeLp(lpOff(w), 1, lpLen(w) - 2), lpAt(t));
      });
      const r = new ToastReader({ heap: new RelationFork(heap, GEOMETRY), index: new RelationFork(syn.indexPath!, GEOMETRY), toastRelid: TOAST_RELID });
      assert.equal(code(() => r.fetch(syn.pointers[1503])), "TOAST_CHUNK_BAD_SIZE");
    });

    test("bad compressed bytes", () => {
      const t = tidsOf(1505)[1];
      const heap = copy(syn.heapPath, (f) => {
        const off = t.block * 8192 + lpOff(f.readUInt32LE(lpAt(t)));
        for (let k = 0; k < 300; k += 2) f[off + 36 + 200 + k] ^= 0x5a;
      });
      const r = new ToastReader({ heap: new RelationFork(heap, GEOMETRY), index: new RelationFork(syn.indexPath!, GEOMETRY), toastRelid: TOAST_RELID });
      assert.match(code(() => r.fetch(syn.pointers[1505])), /^(LZ4|STREAM)_/);
    });

    test("a damaged index: the reader falls back to a heap scan and says why", () => {
      const ix = copy(syn.indexPath!, (f) => f.writeUInt32LE(0xdeadbeef, 24)); // btm_magic
      const r = new ToastReader({ heap: new RelationFork(syn.heapPath, GEOMETRY), index: new RelationFork(ix, GEOMETRY), toastRelid: TOAST_RELID });
      const st = emptyStats();
      assert.deepEqual(r.fetch(syn.pointers[1503], st), values[1503].raw);
      assert.deepEqual(st.via, ["index", "heap-scan"]);
      assert.ok(st.heapScanPages > 0);
      assert.equal(r.indexProblem?.code, "TOAST_INDEX_BAD_META");
      assert.equal(r.usesIndex, false);
      const st2 = emptyStats();
      assert.deepEqual(r.fetch(syn.pointers[1504], st2), values[1504].raw);
      assert.deepEqual(st2.via, ["heap-scan"]);
      assert.equal(st2.heapScanPages, 0, "the scan happens once per reader");
    });

    test("an index that lost an entry: the heap scan finds the chunk", () => {
      const id = (syn.pointers[1502] as { va_valueid: number }).va_valueid;
      // the leaf tuple (id, 10) gets the key (id, 999): the index no longer has chunk 10
      const ix = copy(syn.indexPath!, (f) => {
        for (let at = 8192; at + 16 <= f.length; at += 8) {
          if (f.readUInt16LE(at + 6) === 16 && f.readUInt32LE(at + 8) === id && f.readInt32LE(at + 12) === 10) {
            f.writeInt32LE(999, at + 12);
            return;
          }
        }
        throw new Error("index tuple not found");
      });
      const r = new ToastReader({ heap: new RelationFork(syn.heapPath, GEOMETRY), index: new RelationFork(ix, GEOMETRY), toastRelid: TOAST_RELID });
      const st = emptyStats();
      assert.deepEqual(r.fetch(syn.pointers[1502], st), values[1502].raw);
      assert.deepEqual(st.via, ["index", "heap-scan"]);
      assert.equal(st.chunksRead, 101, "chunks 0..9 from the index path, 10..100 from the heap scan");
      assert.equal(r.usesIndex, true, "a missing entry is not a reason to stop using the index");
      // a slice that does not reach the lost entry needs no heap scan
      const st2 = emptyStats();
      assert.deepEqual(r.fetchSlice(syn.pointers[1502], 0, 5 * MC, st2), values[1502].raw.subarray(0, 5 * MC));
      assert.deepEqual(st2.via, ["index"]);
    });
  });
});
