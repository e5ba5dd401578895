// What a B-tree index's keys look like on disk and how two of them compare, as _bt_compare does
// with an insertion scan key built from a tuple (_bt_mkscankey, pivotsearch): key attributes in
// order (NULLS FIRST/LAST, DESC from indoption), truncated attributes as minus infinity, then
// the heap TID as the last key. A comparison that reaches a column without an on-disk
// comparator gives NaN ("unknown"): the invariant is then not judged. Used by verify's order
// checks and the loader's merge. Source: src/backend/access/nbtree/nbtsearch.c (_bt_compare),
// nbtutils.c (_bt_mkscankey) (PostgreSQL 15).
import type { AttrDesc } from "../heap/descriptor.js";
import { BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, INDEX_ALT_TID_MASK, INDEX_MAX_KEYS, INDEX_SIZE_MASK } from "./index-tuple.js";
import type { DatumCmp } from "../order/bytes.js";
import { tidBlockAt, tidKeyAt } from "../page/item-pointer.js";
import { AttrSpans } from "../heap/attr-spans.js";

export const INDOPTION_DESC = 1;
export const INDOPTION_NULLS_FIRST = 2;
/**
 * No heap TID. Not -1: a TID (block * 65536 + offset) of a block from 32768 on (16384 in a V8
 * with pointer compression) is past V8's small integers, and the first one stored would change
 * the representation of the fields that hold TIDs, deprecating their objects' maps and throwing
 * away every compiled function that read them. A value outside every small-integer range makes
 * those fields floating-point from the start.
 */
export const NO_TID = -(2 ** 40);

export interface IndexKeys {
  /** attributes of the index (key + INCLUDE), from the index's pg_attribute rows */
  attrs: AttrDesc[];
  natts: number;
  nkeyatts: number;
  /** comparator per key attribute; null where the order cannot be checked offline */
  cmps: (DatumCmp | null)[];
  desc: boolean[];
  nullsFirst: boolean[];
  heapkeyspace: boolean;
}

/** Facts of one index tuple at buf[start, start + len), read without allocation into a reusable object. */
export class TupleInfo {
  buf!: Uint8Array;
  start = 0;
  len = 0;
  tinfo = 0;
  size = 0;
  pivot = false;
  posting = false;
  /** BTreeTupleGetNAtts */
  natts = 0;
  /** BTreeTupleGetHeapTID as block * 65536 + offset, NO_TID when none */
  heapTid = NO_TID;
  /** BTreeTupleGetMaxHeapTID (non-pivot tuples) */
  maxTid = NO_TID;
  postingOff = 0;
  nposting = 0;
  /** raw t_tid */
  tidBlock = 0;
  tidOff = 0;
  /** the tuple's own bytes cannot even give a header (shorter than 8) */
  broken = false;

  load(buf: Uint8Array, start: number, len: number, indnatts: number): this {
    this.buf = buf;
    this.start = start;
    this.len = len;
    this.broken = len < 8;
    if (this.broken) {
      this.heapTid = this.maxTid = NO_TID;
      return this;
    }
    this.tidBlock = tidBlockAt(buf, start);
    this.tidOff = buf[start + 4] | (buf[start + 5] << 8);
    this.tinfo = buf[start + 6] | (buf[start + 7] << 8);
    this.size = this.tinfo & INDEX_SIZE_MASK;
    const alt = (this.tinfo & INDEX_ALT_TID_MASK) !== 0;
    this.posting = alt && (this.tidOff & BT_IS_POSTING) !== 0;
    this.pivot = alt && !this.posting;
    this.natts = this.pivot ? this.tidOff & BT_OFFSET_MASK : indnatts;
    this.postingOff = 0;
    this.nposting = 0;
    if (this.pivot) {
      if (this.tidOff & BT_PIVOT_HEAP_TID_ATTR && this.size >= 14 && this.size <= len) this.heapTid = tidKeyAt(buf, start + this.size - 6);
      else this.heapTid = NO_TID;
      this.maxTid = this.heapTid;
    } else if (this.posting) {
      this.postingOff = this.tidBlock;
      this.nposting = this.tidOff & BT_OFFSET_MASK;
      if (this.nposting > 0 && this.postingOff + 6 * this.nposting <= len) {
        this.heapTid = tidKeyAt(buf, start + this.postingOff);
        this.maxTid = tidKeyAt(buf, start + this.postingOff + 6 * (this.nposting - 1));
      } else this.heapTid = this.maxTid = NO_TID;
    } else {
      this.heapTid = this.maxTid = this.tidBlock * 65536 + this.tidOff;
    }
    return this;
  }

  /** BTreeTupleGetNKeyAtts */
  nkeyatts(nkeyatts: number): number {
    return Math.min(this.natts, nkeyatts);
  }
}

export const tidText = (t: number): string => (t === NO_TID ? "(none)" : `(${Math.floor(t / 65536)},${t % 65536})`);

/** Attribute offsets of one index tuple (absolute within buf), filled without allocation. */
export class KeyView extends AttrSpans {
  n = 0;
  buf!: Uint8Array;

  constructor() {
    super(INDEX_MAX_KEYS);
  }

  /** Walk `natts` attributes; false when they do not fit in the tuple. */
  load(t: TupleInfo, natts: number, attrs: AttrDesc[]): boolean {
    this.buf = t.buf;
    this.n = natts;
    if (t.broken) return false;
    let end = t.start + Math.min(t.len, t.size);
    if (t.posting && t.postingOff <= t.size) end = t.start + t.postingOff;
    return this.indexTuple(t.buf, t.start, end, natts, attrs) < 0;
  }
}

export function cmpTid(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * _bt_compare(scankey from X, Y): X's attributes compared with Y's up to the shorter of X's
 * keysz and Y's attribute count, then minus-infinity and heap TID rules. `scantid` is X's heap
 * TID key (NO_TID: none). Returns NaN when an attribute cannot be compared. Y must not be the
 * negative-infinity item of an internal page (callers handle that case).
 */
export function btCompare(k: IndexKeys, x: TupleInfo, xv: KeyView, xKeysz: number, scantid: number, y: TupleInfo, yv: KeyView): number {
  const ncmp = Math.min(y.natts, xKeysz);
  for (let i = 0; i < ncmp; i++) {
    let r: number;
    if (xv.isnull[i]) r = yv.isnull[i] ? 0 : k.nullsFirst[i] ? -1 : 1;
    else if (yv.isnull[i]) r = k.nullsFirst[i] ? 1 : -1;
    else {
      const c = k.cmps[i];
      if (!c) return NaN;
      r = c(xv.buf, xv.off[i], xv.len[i], yv.buf, yv.off[i], yv.len[i]);
      if (Number.isNaN(r)) return NaN;
      if (k.desc[i]) r = -r;
    }
    if (r !== 0) return r < 0 ? -1 : 1;
  }
  if (xKeysz > y.natts) return 1;
  if (scantid === NO_TID) return 0;
  if (y.heapTid === NO_TID) return 1;
  const r = cmpTid(scantid, y.heapTid);
  if (r <= 0 || !y.posting) return r;
  return cmpTid(scantid, y.maxTid) > 0 ? 1 : 0;
}
