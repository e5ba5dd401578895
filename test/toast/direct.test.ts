// Direct TOAST written and read back without a server: values on every tier boundary (1, 2,
// 100, 101, 2500, 2501 and ~5000 slices), uncompressed and pglz/lz4-compressed; the chunk layout
// of new-formats.md §1.2 byte by byte; write order; the §1.5 invariant checker; slices and the
// iterator against whole reads; what a read touches; damaged chunks, TIDs and compressed bytes.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../../formats/schema/errors.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { itemIdWord, maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { LP_UNUSED, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { readTid, type Tid } from "../../formats/page/item-pointer.js";
import { decodeChunk, type Chunk } from "../../formats/toast/chunk.js";
import { directSlices, type DirectRole } from "../../formats/toast/direct-chunks.js";
import { checkDirectPointers } from "./direct-verify.js";
import { emptyStats, PageCache, Touch } from "../../formats/toast/pages.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { directChunkCount, sliceCount, tierOf, treeLevels } from "../../formats/toast/tiers.js";
import type { ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { rng } from "../compression/corpus.js";
import { compressedValue, GEOMETRY, MC, plainValue, TOAST_RELID, writeSynthetic, type SyntheticToast, type Value } from "./synthetic.js";

const values: Value[] = [
  plainValue(1, 1, 1),
  plainValue(1, 2),
  plainValue(2, 3, 1),
  plainValue(2, 4),
  plainValue(100, 5),
  plainValue(101, 6, 7),
  plainValue(2500, 7),
  plainValue(2501, 8, 1),
  plainValue(5000, 9, 999),
  compressedValue(1, 0, 11),
  compressedValue(2, 0, 12),
  compressedValue(100, 0, 13),
  compressedValue(101, 0, 14),
  compressedValue(1, 1, 21),
  compressedValue(2, 1, 22),
  compressedValue(100, 1, 23),
  compressedValue(101, 1, 24),
  compressedValue(5000, 1, 25),
];

interface Met {
  tid: Tid;
  chunk: Chunk;
  role: DirectRole;
}

/** Every chunk of a direct value, in the order a full walk meets them. */
function walk(path: string, p: ToastPointer): Met[] {
  if (p.tag !== 19) throw new Error("not direct");
  const met: Met[] = [];
  const heap = new PageCache(new RelationFork(path, GEOMETRY));
  const S = p.va_extinfo & 0x3fffffff;
  for (const _ of directSlices({ heap, maxChunk: MC, touch: new Touch(emptyStats()), visit: (tid, _t, chunk, role) => met.push({ tid, chunk, role }) }, p.root, S, 0, sliceCount(S, MC) - 1));
  heap.fork.close();
  return met;
}

const tidLess = (a: Tid, b: Tid): boolean => a.block < b.block || (a.block === b.block && a.offset < b.offset);

function expectError(f: () => unknown, code: RegExp): FormatError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof FormatError, `a FormatError, got ${String(e)}`);
    assert.match(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected an error ${code}`);
}

describe("Direct TOAST", () => {
  let syn: SyntheticToast;
  let reader: ToastReader;
  before(() => {
    syn = writeSynthetic(values, "direct");
    reader = syn.reader();
  });
  after(() => {
    reader?.close();
    syn?.cleanup();
  });

  test("values on every tier boundary read back whole, with every chunk read once", () => {
    values.forEach((v, i) => {
      const p = syn.pointers[i];
      const n = sliceCount(v.stored.length, MC);
      const st = emptyStats();
      assert.deepEqual(reader.fetch(p, st), v.raw, v.label);
      assert.deepEqual(reader.fetchStored(p), v.stored, v.label);
      assert.equal(st.chunksRead, directChunkCount(n), `${v.label}: chunks read`);
      assert.equal(st.indexPages, 0);
      assert.ok(st.heapPages <= Math.ceil(directChunkCount(n) / 4) + 2, `${v.label}: ${st.heapPages} heap pages`);
      assert.equal(st.bytesDecompressed, v.method === null ? 0 : v.raw.length);
      assert.deepEqual(st.via, ["direct"]);
    });
    const tiers = values.map((v) => tierOf(sliceCount(v.stored.length, MC)));
    assert.deepEqual(
      tiers.filter((t, i) => values[i].method === null),
      ["single", "single", "flat", "flat", "flat", "tree", "tree", "tree", "tree"],
    );
  });

  test("the tiers have the shapes of §1.3 (roots, levels, children per node)", () => {
    values.forEach((v, i) => {
      const n = sliceCount(v.stored.length, MC);
      const met = walk(syn.heapPath, syn.pointers[i]);
      const root = met[0].chunk;
      const leaves = met.filter((m) => m.role === "leaf");
      if (n === 1) {
        assert.equal(met.length, 1);
        assert.equal(root.seq, 0);
        assert.equal(root.tids, null);
        assert.equal(root.offsets, null);
      } else if (n <= 100) {
        assert.equal(root.seq, n - 1, v.label);
        assert.equal(root.tids?.count, n - 1);
        assert.equal(root.offsets, null);
        assert.equal(root.data?.length, v.stored.length - (n - 1) * MC);
        assert.deepEqual(leaves.map((m) => m.chunk.seq), [...Array(n - 1).keys()]);
      } else {
        const L = treeLevels(n);
        assert.equal(root.seq, -L, `${v.label}: root level`);
        assert.equal(root.data?.length, 0);
        assert.deepEqual(leaves.map((m) => m.chunk.seq), [...Array(n).keys()]);
        const nodes = met.filter((m) => m.role !== "leaf");
        for (const m of nodes) {
          assert.ok(m.chunk.tids!.count >= 1 && m.chunk.tids!.count <= 50);
          assert.equal(m.chunk.offsets!.count, m.chunk.tids!.count);
        }
        // level 1 has ceil(n/50) nodes
        assert.equal(nodes.filter((m) => m.chunk.seq === -1).length, Math.ceil(n / 50), v.label);
      }
    });
    assert.equal(treeLevels(101), 2);
    assert.equal(treeLevels(2500), 2);
    assert.equal(treeLevels(2501), 3);
    assert.equal(treeLevels(5000), 3);
  });

  test("chunks are laid out as §1.2 says: t_hoff 24, bitmap, 4-byte headers, int- and 8-aligned arrays", () => {
    let seen = 0;
    const fork = new RelationFork(syn.heapPath, GEOMETRY);
    for (const [blk, page] of scanBlocks(fork)) {
      const dv = pageView(page);
      assert.equal(dv.getUint16(10, true), 0, "pd_flags 0");
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = itemIdWord(dv, i);
        const off = lpOff(w);
        assert.equal(off % 8, 0, "items MAXALIGNed");
        const t = page.subarray(off, off + lpLen(w));
        const tv = new DataView(t.buffer, t.byteOffset, t.byteLength);
        assert.equal(t[22], 24, "t_hoff");
        assert.equal(tv.getUint16(18, true) & 0x07ff, 5, "natts 5");
        assert.equal(tv.getUint16(18, true) & 0xc000, 0, "no HOT flags");
        assert.equal(tv.getUint16(20, true) & 0x000f, 0x0003, "HASNULL | HASVARWIDTH, never HASEXTERNAL");
        assert.deepEqual(readTid(tv, 12), { block: blk, offset: i }, "t_ctid is the tuple itself");
        const bits = t[23];
        assert.ok([0x06, 0x0e, 0x1e].includes(bits), `bitmap 0x${bits.toString(16)}`);
        // chunk_seq at 24, chunk_data's 4-byte header at 28
        assert.equal(t[28] & 3, 0, "chunk_data has a 4-byte uncompressed header");
        const dataEnd = 28 + (tv.getUint32(28, true) >>> 2);
        if (bits & 0x08) {
          const tidsAt = (dataEnd + 3) & ~3;
          assert.equal(t[tidsAt] & 3, 0, "chunk_tids has a 4-byte header");
          const tidsEnd = tidsAt + (tv.getUint32(tidsAt, true) >>> 2);
          assert.equal(tv.getUint32(tidsAt + 12, true), 27, "element type tid");
          if (bits & 0x10) {
            const offAt = (tidsEnd + 7) & ~7;
            assert.equal(offAt % 8, 0);
            assert.equal(tv.getUint32(offAt + 12, true), 20, "element type int8");
            assert.equal((offAt + 24) % 8, 0, "int8 elements 8-aligned");
            assert.equal(offAt + (tv.getUint32(offAt, true) >>> 2), t.length, "offsets end the tuple");
          } else assert.equal(tidsEnd, t.length);
        } else assert.equal(dataEnd, t.length);
        seen++;
      }
    }
    fork.close();
    assert.ok(seen > 10000, `${seen} chunks checked`);
  });

  test("children are written before parents: leaves, then level 1, 2, ... contiguous per value", () => {
    let prevMax: Tid | null = null;
    values.forEach((v, i) => {
      const met = walk(syn.heapPath, syn.pointers[i]);
      const leaves = met.filter((m) => m.role === "leaf").map((m) => m.tid);
      for (let k = 1; k < leaves.length; k++) assert.ok(tidLess(leaves[k - 1], leaves[k]), `${v.label}: leaves in slice order`);
      const byLevel = new Map<number, Tid[]>();
      for (const m of met) if (m.role !== "leaf") byLevel.set(-m.chunk.seq!, [...(byLevel.get(-m.chunk.seq!) ?? []), m.tid]);
      const lastLeaf = leaves[leaves.length - 1];
      if (sliceCount(v.stored.length, MC) > 100) {
        for (let lvl = 1; byLevel.has(lvl); lvl++) {
          const below = lvl === 1 ? [lastLeaf] : byLevel.get(lvl - 1)!;
          const maxBelow = below.reduce((a, b) => (tidLess(a, b) ? b : a));
          for (const t of byLevel.get(lvl)!) assert.ok(tidLess(maxBelow, t), `${v.label}: level ${lvl} after level ${lvl - 1}`);
        }
      }
      // the root is the value's last chunk, and the next value starts after it
      const all = met.map((m) => m.tid);
      const root = met[0].tid;
      for (const t of all) assert.ok(t === root || tidLess(t, root), `${v.label}: root written last`);
      const min = all.reduce((a, b) => (tidLess(a, b) ? a : b));
      if (prevMax) assert.ok(tidLess(prevMax, min), `${v.label} follows the previous value`);
      prevMax = root;
    });
  });

  test("verify's §1.5 checker finds nothing in well-formed values", () => {
    const chk = checkDirectPointers(new RelationFork(syn.heapPath, GEOMETRY), TOAST_RELID, syn.pointers.map((pointer, i) => ({ pointer, where: { item: i + 1 } })));
    assert.deepEqual(chk.findings, []);
    assert.equal(chk.valuesWalked, values.length);
    assert.equal(chk.chunksReached, values.reduce((s, v) => s + directChunkCount(sliceCount(v.stored.length, MC)), 0));
  });

  test("slices and the iterator equal whole reads on random ranges; slices fetch only what they need", () => {
    const r = rng(7);
    values.forEach((v, i) => {
      const p = syn.pointers[i];
      const n = sliceCount(v.stored.length, MC);
      for (let k = 0; k < 12; k++) {
        const a = Math.floor(r() * v.raw.length);
        const b = Math.min(v.raw.length, a + 1 + Math.floor(r() * (k % 3 === 0 ? 50 : 5 * MC)));
        const st = emptyStats();
        assert.deepEqual(reader.fetchSlice(p, a, b, st), v.raw.subarray(a, b), `${v.label} [${a}, ${b})`);
        const pieces = [...reader.iterate(p, { start: a, end: b })];
        assert.deepEqual(Buffer.concat(pieces), Buffer.from(v.raw.subarray(a, b)));
        if (v.method === null) {
          const leaves = Math.floor((b - 1) / MC) - Math.floor(a / MC) + 1;
          const want = n === 1 ? 1 : n <= 100 ? leaves + (Math.floor((b - 1) / MC) === n - 1 ? 0 : 1) : leaves + nodesOnPath(n, a, b);
          assert.equal(st.chunksRead, want, `${v.label} [${a}, ${b}): chunks read`);
        }
      }
    });
  });

  test("a tree slice touches only L nodes above the leaf it needs", () => {
    const i = values.findIndex((v) => v.label === "raw-5000");
    const st = emptyStats();
    reader.fetchSlice(syn.pointers[i], 3_000_000, 3_000_100, st);
    assert.equal(st.chunksRead, treeLevels(5000) + 1);
    assert.ok(st.heapPages <= 4);
  });

  test("a consumer that stops early reads nothing further (uncompressed and compressed)", () => {
    for (const label of ["raw-5000", "raw-100", "lz4-5000", "pglz-101"]) {
      const i = values.findIndex((v) => v.label === label);
      const st = emptyStats();
      const it = reader.iterate(syn.pointers[i], { stats: st });
      const first = it.next();
      assert.ok(!first.done && first.value.length > 0);
      it.return(undefined);
      const n = sliceCount(values[i].stored.length, MC);
      assert.ok(st.chunksRead <= treeLevels(n) + 2, `${label}: ${st.chunksRead} chunks read after one piece`);
      assert.deepEqual(first.value, values[i].raw.subarray(0, first.value.length));
    }
  });

  test("a compressed slice decodes from the first chunk and stops at its end", () => {
    const i = values.findIndex((v) => v.label === "lz4-5000");
    const st = emptyStats();
    const got = reader.fetchSlice(syn.pointers[i], 10_000, 10_100, st);
    assert.deepEqual(got, values[i].raw.subarray(10_000, 10_100));
    assert.ok(st.bytesDecompressed < 20_000, `${st.bytesDecompressed} bytes decompressed`);
    assert.ok(st.chunksRead <= treeLevels(5000) + 8);
  });

  describe("damage gives an error, never bytes", () => {
    /** A copy of the heap file with `patch` applied to it. */
    function damaged(patch: (file: Buffer) => void): ToastReader {
      const path = join(syn.dir, `damaged-${Math.random().toString(36).slice(2)}`);
      cpSync(syn.heapPath, path);
      const f = readFileSync(path);
      patch(f);
      writeFileSync(path, f);
      return new ToastReader({ heap: new RelationFork(path, GEOMETRY), toastRelid: TOAST_RELID });
    }
    const lpAt = (t: Tid): number => t.block * 8192 + 24 + (t.offset - 1) * 4;
    const item = (f: Buffer, t: Tid): { off: number; len: number } => {
      const w = f.readUInt32LE(lpAt(t));
      return { off: t.block * 8192 + lpOff(w), len: lpLen(w) };
    };
    const idx = (label: string): number => values.findIndex((v) => v.label === label);

    test("a missing leaf (line pointer unused)", () => {
      const i = idx("raw-100");
      const leaf = walk(syn.heapPath, syn.pointers[i]).find((m) => m.role === "leaf" && m.chunk.seq === 40)!.tid;
      const r = damaged((f) => f.writeUInt32LE(makeLp(0, LP_UNUSED, 0), lpAt(leaf)));
      expectError(() => r.fetch(syn.pointers[i]), /^DTOAST_CHILD_INVALID$/);
      // slices that do not need it still read
      assert.deepEqual(r.fetchSlice(syn.pointers[i], 0, 100), values[i].raw.subarray(0, 100));
      r.close();
    });

    test("a leaf of the wrong size", () => {
      const i = idx("raw-101");
      const leaf = walk(syn.heapPath, syn.pointers[i]).find((m) => m.role === "leaf" && m.chunk.seq === 7)!.tid;
      const r = damaged((f) => {
        const it = item(f, leaf);
        // one byte shorter: chunk_data's header and lp_len
        f.writeUInt32LE(((1996 + 4 - 1) << 2) >>> 0, it.off + 28);
        f.writeUInt32LE(makeLp(it.off % 8192, 1, it.len - 1), lpAt(leaf));
      });
      expectError(() => r.fetch(syn.pointers[i]), /^DTOAST_(SLICE_BAD_SIZE|OFFSETS_BAD)$/);
      r.close();
    });

    test("a TID in a flat root that names nothing", () => {
      const i = idx("raw-100");
      const root = (syn.pointers[i] as { root: Tid }).root;
      const r = damaged((f) => {
        const it = item(f, root);
        const t = f.subarray(it.off, it.off + it.len);
        const c = decodeChunk(new Uint8Array(t.buffer, t.byteOffset, t.length));
        const at = c.tids!.payload.byteOffset - t.byteOffset + 20 + 6 * 3; // 4th TID
        t.writeUInt16LE(0, at);
        t.writeUInt16LE(60000, at + 2);
      });
      const e = expectError(() => r.fetch(syn.pointers[i]), /^DTOAST_CHILD_INVALID$/);
      assert.match(e.message, /beyond the end/);
      r.close();
    });

    test("a chunk_seq that does not match its place", () => {
      const i = idx("raw-2501");
      const leaf = walk(syn.heapPath, syn.pointers[i]).find((m) => m.role === "leaf" && m.chunk.seq === 1000)!.tid;
      const r = damaged((f) => f.writeInt32LE(1001, item(f, leaf).off + 24));
      expectError(() => r.fetch(syn.pointers[i]), /^DTOAST_CHUNK_BAD_SEQ$/);
      r.close();
    });

    test("bad compressed bytes (pglz and lz4)", () => {
      for (const label of ["pglz-100", "lz4-101"]) {
        const i = idx(label);
        const leaf = walk(syn.heapPath, syn.pointers[i]).find((m) => m.role === "leaf" && m.chunk.seq === 2)!.tid;
        const r = damaged((f) => {
          const it = item(f, leaf);
          for (let k = 0; k < 400; k += 3) f[it.off + 32 + 100 + k] ^= 0xa5;
        });
        const e = expectError(() => r.fetch(syn.pointers[i]), /^(PGLZ|LZ4|STREAM)_/);
        assert.match(e.message, /direct toast value at/);
        // verify's checker reports it too, naming the decoder's code
        const chk = checkDirectPointers(r.heap.fork, TOAST_RELID, [{ pointer: syn.pointers[i], where: { item: 1 } }]);
        assert.ok(chk.findings.some((f) => f.code === "TOAST_DECOMPRESS_FAILED" && /^(PGLZ|LZ4|STREAM)_/.test(f.detail ?? "")), JSON.stringify(chk.findings));
        r.close();
      }
    });

    test("pointer invariants: method bits, stored size, TOAST relation", () => {
      const p = syn.pointers[idx("raw-2")] as Extract<ToastPointer, { tag: 19 }>;
      expectError(() => reader.fetch({ ...p, va_extinfo: (p.va_extinfo | (1 << 30)) >>> 0 }), /^TOAST_POINTER_BAD_METHOD$/);
      expectError(() => reader.fetch({ ...p, va_extinfo: p.va_rawsize }), /^TOAST_POINTER_BAD_SIZE$/);
      expectError(() => reader.fetch({ ...p, va_toastrelid: 1 }), /^TOAST_POINTER_BAD_RELID$/);
      // stored size that implies another tier than the root's
      expectError(() => reader.fetch({ ...p, va_extinfo: 1996, va_rawsize: 2000 }), /^DTOAST_/);
    });

    test("verify's checker sees a chunk shared by two values and unreachable chunks", () => {
      const a = syn.pointers[idx("raw-2")] as Extract<ToastPointer, { tag: 19 }>;
      // a second "value" whose root is the first value's leaf
      const leaf = walk(syn.heapPath, a).find((m) => m.role === "leaf")!.tid;
      const second = { ...a, va_extinfo: 1996, va_rawsize: 2000, extsize: 1996, root: leaf };
      const f = checkDirectPointers(new RelationFork(syn.heapPath, GEOMETRY), TOAST_RELID, [{ pointer: a, where: { item: 1 } }, { pointer: second, where: { item: 2 } }]).findings;
      assert.ok(f.some((x) => x.code === "DTOAST_CHUNK_SHARED"), JSON.stringify(f.slice(0, 3)));
      assert.ok(f.some((x) => x.code === "DTOAST_UNREACHABLE_LIVE"));
    });
  });
});

/** Internal nodes a tree read of [a, b) visits: the paths from the root to its leaves. */
function nodesOnPath(n: number, a: number, b: number): number {
  const L = treeLevels(n);
  const first = Math.floor(a / MC);
  const last = Math.floor((b - 1) / MC);
  let count = 0;
  for (let lvl = 1; lvl <= L; lvl++) {
    const span = 50 ** lvl;
    count += Math.floor(last / span) - Math.floor(first / span) + 1;
  }
  return count;
}

void lpFlags;
