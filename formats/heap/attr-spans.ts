// Attribute spans of heap and index tuples for the hot scans (verify's checks, heapallindexed,
// key comparison): where each attribute's bytes lie, filled into arrays reused tuple after tuple,
// no allocation and no exceptions. The layout rules are heap_deform_tuple's and
// index_deform_tuple's (src/backend/access/common/heaptuple.c, indextuple.c): a fixed-length or
// cstring attribute aligns nominally; a varlena whose first byte is non-zero starts right there
// (1-byte headers are unaligned), a zero byte is padding before an aligned 4-byte header.
// This is the one attribute walk: walkAttributes (deform.ts) is a layer over it that builds
// AttrSlots and names what is wrong with the attribute that does not fit.
import { alignBytes, type AttrDesc } from "./descriptor.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HeapTupleHeaderData, HTH, SizeofHeapTupleHeader } from "./tuple-header.js";
import { indexDataOffset, INDEX_NULL_MASK, IndexTupleData, SizeOfIndexTupleData } from "../nbtree/index-tuple.js";
import { varsizeAnyAt } from "../varlena/varlena.js";

const heapGet = HeapTupleHeaderData.get;
const indexGet = IndexTupleData.get;

export class AttrSpans {
  /** absolute offset of attribute i's bytes (0-based: attnum - 1) */
  readonly off: Int32Array;
  /** its length in bytes, varlena header included */
  readonly len: Int32Array;
  /** 1: NULL, or beyond the tuple's natts (the caller decides about a fast default) */
  readonly isnull: Uint8Array;
  /** the tuple's natts, as its header says */
  natts = 0;
  /** where the last attribute that fit ends (the data start when none did) */
  end = 0;

  constructor(capacity: number) {
    this.off = new Int32Array(capacity);
    this.len = new Int32Array(capacity);
    this.isnull = new Uint8Array(capacity);
  }

  /**
   * Attributes 1..need of the heap tuple page[t, t + tupleLen). Returns -1, or the 0-based
   * attribute that does not fit (spans before it are filled).
   */
  heapTuple(page: Uint8Array, t: number, tupleLen: number, need: number, attrs: readonly AttrDesc[]): number {
    const natts = heapGet.t_infomask2(page, t) & HEAP_NATTS_MASK;
    const bitsAt = heapGet.t_infomask(page, t) & HEAP_HASNULL ? t + SizeofHeapTupleHeader : -1;
    return this.walk(page, t, t + tupleLen, t + page[t + HTH.t_hoff]!, page, bitsAt, natts, need, attrs);
  }

  /**
   * Attributes 1..natts of the index tuple starting at buf[start], its data ending before `end`
   * (the tuple's end, or its posting list's start).
   */
  indexTuple(buf: Uint8Array, start: number, end: number, natts: number, attrs: readonly AttrDesc[]): number {
    const tInfo = indexGet.t_info(buf, start);
    const bitsAt = tInfo & INDEX_NULL_MASK ? start + SizeOfIndexTupleData : -1;
    return this.walk(buf, start, end, start + indexDataOffset(tInfo), buf, bitsAt, natts, natts, attrs);
  }

  /**
   * Attributes 1..need of the data buf[dataAt, end), aligned relative to `base` (the tuple's
   * start), null bitmap at bits[bitsAt] (1 = present; bitsAt -1: no bitmap). Attributes beyond
   * natts are NULL. Returns -1, or the 0-based attribute that does not fit.
   */
  walk(buf: Uint8Array, base: number, end: number, dataAt: number, bits: Uint8Array, bitsAt: number, natts: number, need: number, attrs: readonly AttrDesc[]): number {
    const { off, len, isnull } = this;
    this.natts = natts;
    let p = dataAt;
    this.end = p;
    for (let i = 0; i < need; i++) {
      if (i >= natts || (bitsAt >= 0 && (bits[bitsAt + (i >> 3)]! & (1 << (i & 7))) === 0)) {
        isnull[i] = 1;
        off[i] = 0;
        len[i] = 0;
        continue;
      }
      isnull[i] = 0;
      const a = attrs[i];
      if (!a) return i;
      const al = alignBytes(a.align);
      let l: number;
      if (a.len > 0) {
        p = base + ((p - base + al - 1) & ~(al - 1));
        l = a.len;
      } else if (a.len === -1) {
        if (p < end && buf[p] === 0) p = base + ((p - base + al - 1) & ~(al - 1));
        if (p >= end) return i;
        l = varsizeAnyAt(buf, p, end);
        if (l < 1 || ((buf[p]! & 1) === 0 && l < 4)) return i;
      } else if (a.len === -2) {
        p = base + ((p - base + al - 1) & ~(al - 1));
        let e = p;
        while (e < end && buf[e] !== 0) e++;
        if (e >= end) return i;
        l = e - p + 1;
      } else return i;
      if (p + l > end) return i;
      off[i] = p;
      len[i] = l;
      p += l;
      this.end = p;
    }
    return -1;
  }
}
