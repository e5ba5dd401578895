// formFromHeap (the heapallindexed fast path: the expected index tuple formed straight from the
// heap page) gives the same bytes as formIndexTuple over IndexValues, for random key layouts:
// fixed-width columns of every alignment, short and long varlenas with 1- and 4-byte headers,
// plain and packable storage, names stored as cstrings, NULLs; and it declines (-1) compressed
// and external varlenas and fast defaults, which need the slow path.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AttrDesc, Align } from "../../formats/heap/descriptor.js";
import { AttrSpans } from "../../formats/heap/attr-spans.js";
import { FormBuffer, formFromHeap, formIndexTuple, HeapFormPlan, IndexValues, VAL_CSTRING, VAL_FIXED, VAL_NULL, VAL_VARLENA } from "../../formats/nbtree/index-form.js";

let seed = 4242;
const rnd = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

/** Spans as AttrSpans keeps them (0-based) from this test's attnum-indexed arrays. */
function spansOf(off: Int32Array, len: Int32Array, isnull: Uint8Array, natts: number): AttrSpans {
  const s = new AttrSpans(off.length - 1);
  s.off.set(off.subarray(1));
  s.len.set(len.subarray(1));
  s.isnull.set(isnull.subarray(1));
  s.natts = natts;
  return s;
}

const attr = (attnum: number, typid: number, len: number, align: Align, storage: string): AttrDesc => ({ attnum, name: `a${attnum}`, typid, typmod: -1, len, byval: len > 0 && len <= 8, align, storage, dropped: false, notnull: false, missing: null });

// [heap attribute, index attribute] pairs (name_ops stores a name as a cstring in the index)
const KINDS: [AttrDesc, AttrDesc][] = [
  [attr(0, 23, 4, "i", "p"), attr(0, 23, 4, "i", "p")],
  [attr(0, 20, 8, "d", "p"), attr(0, 20, 8, "d", "p")],
  [attr(0, 21, 2, "s", "p"), attr(0, 21, 2, "s", "p")],
  [attr(0, 16, 1, "c", "p"), attr(0, 16, 1, "c", "p")],
  [attr(0, 2950, 16, "c", "p"), attr(0, 2950, 16, "c", "p")],
  [attr(0, 25, -1, "i", "x"), attr(0, 25, -1, "i", "x")],
  [attr(0, 17, -1, "i", "p"), attr(0, 17, -1, "i", "p")],
  [attr(0, 1700, -1, "i", "m"), attr(0, 1700, -1, "i", "m")],
  [attr(0, 19, 64, "c", "p"), attr(0, 2275, -2, "c", "p")],
];

test("formFromHeap forms the bytes formIndexTuple forms", () => {
  const page = new Uint8Array(8192);
  const off = new Int32Array(40);
  const len = new Int32Array(40);
  const isnull = new Uint8Array(40);
  const fast = new FormBuffer();
  const slow = new FormBuffer();
  const vals = new IndexValues();
  let formed = 0;
  for (let round = 0; round < 5000; round++) {
    const ncols = 1 + rnd(5);
    const heapAttrs: AttrDesc[] = [];
    const indexAttrs: AttrDesc[] = [];
    const indkey: number[] = [];
    let pos = 100 + rnd(8);
    for (let c = 0; c < ncols; c++) {
      const [h, i] = KINDS[rnd(KINDS.length)];
      const attnum = c + 1;
      heapAttrs.push({ ...h, attnum });
      indexAttrs.push({ ...i, attnum });
      indkey.push(attnum);
      isnull[attnum] = rnd(6) === 0 ? 1 : 0;
      if (isnull[attnum]) continue;
      let l: number;
      if (h.len > 0) {
        l = h.len;
        for (let k = 0; k < l; k++) page[pos + k] = rnd(256);
        if (h.typid === 19) {
          const nameLen = rnd(70); // up to a full 64 bytes without a NUL
          for (let k = 0; k < 64; k++) page[pos + k] = k < nameLen ? 97 + rnd(26) : 0;
        }
      } else {
        const payload = rnd(4) === 0 ? 120 + rnd(200) : rnd(130);
        for (let k = 0; k < payload + 4; k++) page[pos + k] = rnd(256);
        if (payload + 1 <= 127 && rnd(2) === 0) {
          page[pos] = ((payload + 1) << 1) | 1;
          l = payload + 1;
        } else {
          const total = (payload + 4) << 2;
          page[pos] = total & 0xff;
          page[pos + 1] = (total >>> 8) & 0xff;
          page[pos + 2] = (total >>> 16) & 0xff;
          page[pos + 3] = total >>> 24;
          l = payload + 4;
        }
      }
      off[attnum] = pos;
      len[attnum] = l;
      pos += l + rnd(9);
    }
    const size = formFromHeap(new HeapFormPlan(indexAttrs, indkey, heapAttrs), page, spansOf(off, len, isnull, ncols), fast);
    // the reference: values as the slow path hands them to formIndexTuple
    vals.n = ncols;
    for (let k = 0; k < ncols; k++) {
      const a = k + 1;
      const h = heapAttrs[k];
      if (isnull[a]) vals.set(k, VAL_NULL);
      else if (indexAttrs[k].len === -2 && h.typid === 19) {
        let e = off[a];
        while (e < off[a] + len[a] && page[e] !== 0) e++;
        vals.set(k, VAL_CSTRING, page, off[a], Math.min(e - off[a] + 1, len[a]));
      } else if (h.len !== -1) vals.set(k, VAL_FIXED, page, off[a], len[a]);
      else if (page[off[a]] & 1) vals.set(k, VAL_VARLENA, page, off[a] + 1, len[a] - 1);
      else vals.set(k, VAL_VARLENA, page, off[a] + 4, len[a] - 4);
    }
    const want = formIndexTuple(indexAttrs, vals, slow);
    assert.equal(size, want, `round ${round}: size`);
    assert.deepEqual(fast.bytes.subarray(0, size), slow.bytes.subarray(0, want), `round ${round}: bytes`);
    formed++;
  }
  assert.equal(formed, 5000);
});

test("formFromHeap declines compressed and external varlenas and fast defaults", () => {
  const page = new Uint8Array(256);
  const off = new Int32Array(4);
  const len = new Int32Array(4);
  const isnull = new Uint8Array(4);
  const out = new FormBuffer();
  const text = attr(1, 25, -1, "i", "x");
  const plan = new HeapFormPlan([text], [1], [text]);
  off[1] = 8;
  // compressed inline (4-byte header, VARATT_IS_4B_C)
  len[1] = 20;
  page[8] = (20 << 2) | 2;
  assert.equal(formFromHeap(plan, page, spansOf(off, len, isnull, 1), out), -1);
  // external TOAST pointer (1-byte header 0x01, tag 18)
  page[8] = 0x01;
  page[9] = 18;
  len[1] = 18;
  assert.equal(formFromHeap(plan, page, spansOf(off, len, isnull, 1), out), -1);
  // a column added after the tuple was written, with a fast default
  const withDefault = { ...text, missing: new Uint8Array(32) };
  isnull[1] = 1;
  assert.equal(formFromHeap(new HeapFormPlan([text], [1], [withDefault]), page, spansOf(off, len, isnull, 0), out), -1);
  // ... while a plain NULL forms
  assert.equal(formFromHeap(plan, page, spansOf(off, len, isnull, 1), out), 16);
});
