// Suffix truncation of leaf high keys (pg-format-facts.md §7.8; nbtutils.c _bt_truncate and
// _bt_keep_natts, indextuple.c index_truncate_tuple), and the key equality deduplication uses
// (_bt_keep_natts_fast). Works on index tuple bytes and the index's tuple descriptor.
import type { TupleDesc } from "../heap/descriptor.js";
import { walkAttributes, type AttrSlot } from "../heap/deform.js";
import { maxAlign } from "../page/page.js";
import { readTid, writeTid, type Tid } from "../page/item-pointer.js";
import { FormatError } from "../schema/errors.js";
import { attrsEqual, imageEqual, type AttEqKind } from "./att-equal.js";
import {
  BT_IS_POSTING,
  BT_PIVOT_HEAP_TID_ATTR,
  INDEX_ALT_TID_MASK,
  INDEX_NULL_MASK,
  INDEX_SIZE_MASK,
  INDEX_VAR_MASK,
  indexDataOffset,
  posidRaw,
  SizeOfIndexTupleData,
  SizeOfItemPointerData,
  tInfoRaw,
} from "./index-tuple.js";

/** What truncation needs to know about an index. */
export interface KeySpec {
  /** the index's descriptor: all indnatts attributes, INCLUDE columns last */
  desc: TupleDesc;
  /** indnkeyatts */
  nkeyatts: number;
  /** how to compare each key attribute (length nkeyatts) */
  eq: readonly AttEqKind[];
  /**
   * The opclass's exact order per key attribute where the caller has one (over datum bytes with
   * their headers, <0/0/>0, NaN when undecidable): decides equality where `eq` cannot ("unknown").
   */
  order?: readonly (((a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number) => number) | null)[];
}

const dvOf = (t: Uint8Array): DataView => new DataView(t.buffer, t.byteOffset, t.byteLength);
const isPostingRaw = (t: Uint8Array): boolean => (tInfoRaw(t) & INDEX_ALT_TID_MASK) !== 0 && (posidRaw(t) & BT_IS_POSTING) !== 0;
const postingOffsetRaw = (t: Uint8Array): number => (t[0]! | (t[1]! << 8)) * 65536 + (t[2]! | (t[3]! << 8));

export const tidCompare = (a: Tid, b: Tid): number => a.block - b.block || a.offset - b.offset;

/** The first `natts` attribute slots of a non-pivot index tuple. */
export function attrSlots(t: Uint8Array, desc: TupleDesc, natts: number): { slots: AttrSlot[]; end: number } {
  const info = tInfoRaw(t);
  const size = info & INDEX_SIZE_MASK;
  const start = indexDataOffset(info);
  const bits = info & INDEX_NULL_MASK ? t.subarray(SizeOfIndexTupleData, SizeOfIndexTupleData + 4) : undefined;
  const used: TupleDesc = natts === desc.attrs.length ? desc : { attrs: desc.attrs.slice(0, natts) };
  const body = t.subarray(0, isPostingRaw(t) ? postingOffsetRaw(t) : size);
  const r = walkAttributes(body, start, bits, natts, used);
  return { slots: r.attrs, end: r.end };
}

/** BTreeTupleGetHeapTID of a non-pivot tuple: t_tid, or a posting list's first TID. */
export function firstHeapTid(t: Uint8Array): Tid {
  const dv = dvOf(t);
  return isPostingRaw(t) ? readTid(dv, postingOffsetRaw(t)) : readTid(dv, 0);
}
/** BTreeTupleGetMaxHeapTID of a non-pivot tuple: t_tid, or a posting list's last TID. */
export function lastHeapTid(t: Uint8Array): Tid {
  const dv = dvOf(t);
  if (!isPostingRaw(t)) return readTid(dv, 0);
  const n = posidRaw(t) & 0x0fff;
  return readTid(dv, postingOffsetRaw(t) + (n - 1) * SizeOfItemPointerData);
}

/**
 * _bt_keep_natts_fast(...) > nkeyatts: every key attribute of a and b is image-equal (NULL = NULL).
 * Deduplication only runs on allequalimage indexes, where this is what the comparator says.
 */
export function keysImageEqual(a: Uint8Array, b: Uint8Array, spec: KeySpec, sa = attrSlots(a, spec.desc, spec.nkeyatts).slots, sb = attrSlots(b, spec.desc, spec.nkeyatts).slots): boolean {
  for (let i = 0; i < spec.nkeyatts; i++) {
    const x = sa[i]!;
    const y = sb[i]!;
    if (x.isnull !== y.isnull) return false;
    if (!x.isnull && !imageEqual(a, x, b, y)) return false;
  }
  return true;
}

export interface KeepDecision {
  /** key attributes kept in the pivot (1..nkeyatts) */
  keep: number;
  /** a heap TID tiebreaker is appended (BT_PIVOT_HEAP_TID_ATTR) */
  heapTid: boolean;
  /** some attribute could not be compared exactly (an "unknown" kind with different images) */
  uncertain: boolean;
}

/**
 * How many attributes the high key between lastleft and firstright keeps (_bt_keep_natts).
 * Exact when every attribute compares exactly. When an "unknown" attribute differs in its image,
 * the values may still be equal, so the decision stays correct either way: truncate after the
 * first attribute that surely differs; if none does, append lastleft's max heap TID when that is
 * below firstright's heap TID (a valid separator whether the keys are equal or not), else the
 * keys must differ (equal keys are in heap TID order) and all key attributes are kept.
 */
export function keepNatts(lastleft: Uint8Array, firstright: Uint8Array, spec: KeySpec): KeepDecision {
  const l = attrSlots(lastleft, spec.desc, spec.nkeyatts).slots;
  const r = attrSlots(firstright, spec.desc, spec.nkeyatts).slots;
  let uncertain = false;
  for (let i = 0; i < spec.nkeyatts; i++) {
    const x = l[i]!;
    const y = r[i]!;
    if (x.isnull !== y.isnull) return { keep: i + 1, heapTid: false, uncertain };
    if (x.isnull) continue;
    let eq = attrsEqual(spec.eq[i] ?? "image", lastleft, x, firstright, y);
    const order = eq === null ? spec.order?.[i] : null;
    if (order) {
      const c = order(lastleft, x.off, x.len, firstright, y.off, y.len);
      if (!Number.isNaN(c)) eq = c === 0;
    }
    if (eq === false) return { keep: i + 1, heapTid: false, uncertain };
    if (eq === null) uncertain = true;
  }
  if (!uncertain) return { keep: spec.nkeyatts, heapTid: true, uncertain };
  if (tidCompare(lastHeapTid(lastleft), firstHeapTid(firstright)) < 0) return { keep: spec.nkeyatts, heapTid: true, uncertain };
  return { keep: spec.nkeyatts, heapTid: false, uncertain };
}

/**
 * index_truncate_tuple(firstright, leave) then BTreeTupleSetNAtts: the pivot's bytes before any
 * heap TID. leave == indnatts copies the tuple (cutting a posting list off); otherwise the first
 * `leave` attributes are re-formed as index_form_tuple would (the null bitmap only when a kept
 * attribute is NULL, INDEX_VAR_MASK only when a kept attribute is a non-NULL varlena or cstring).
 */
function truncatedCopy(firstright: Uint8Array, leave: number, spec: KeySpec): Uint8Array {
  const natts = spec.desc.attrs.length;
  const info = tInfoRaw(firstright);
  if (leave === natts) {
    const size = isPostingRaw(firstright) ? maxAlign(postingOffsetRaw(firstright)) : info & INDEX_SIZE_MASK;
    const out = new Uint8Array(size);
    out.set(firstright.subarray(0, Math.min(size, firstright.length)));
    dvOf(out).setUint16(6, (info & ~INDEX_SIZE_MASK) | size, true);
    return out;
  }
  const { slots, end } = attrSlots(firstright, spec.desc, leave);
  const srcOff = indexDataOffset(info);
  const anyNull = slots.some((s) => s.isnull);
  let anyVar = false;
  slots.forEach((s, i) => {
    if (!s.isnull && spec.desc.attrs[i]!.len < 0) anyVar = true;
  });
  const hoff = anyNull ? indexDataOffset(INDEX_NULL_MASK) : SizeOfIndexTupleData;
  const size = maxAlign(hoff + (end - srcOff));
  if (size > INDEX_SIZE_MASK) throw new FormatError("BT_PIVOT_TOO_LARGE", `truncated pivot of ${size} bytes does not fit t_info`);
  const out = new Uint8Array(size);
  out.set(firstright.subarray(0, SizeOfItemPointerData), 0);
  dvOf(out).setUint16(6, size | (anyNull ? INDEX_NULL_MASK : 0) | (anyVar ? INDEX_VAR_MASK : 0), true);
  if (anyNull) {
    // heap_fill_tuple writes one bit per kept attribute (1 = present); the rest of the 4 bytes stay 0
    slots.forEach((s, i) => {
      if (!s.isnull) out[SizeOfIndexTupleData + (i >> 3)]! |= 1 << (i & 7);
    });
  }
  out.set(firstright.subarray(srcOff, end), hoff);
  return out;
}

/** Set a pivot's attribute count (and the heap-TID flag) in t_tid's offset, with INDEX_ALT_TID_MASK. */
function setNAtts(t: Uint8Array, natts: number, heapTid: boolean): void {
  const dv = dvOf(t);
  dv.setUint16(6, dv.getUint16(6, true) | INDEX_ALT_TID_MASK, true);
  dv.setUint16(4, natts | (heapTid ? BT_PIVOT_HEAP_TID_ATTR : 0), true);
}

/** A pivot keeping `keep` key attributes of firstright, with lastleft's max heap TID when heapTid. */
export function formPivot(lastleft: Uint8Array, firstright: Uint8Array, d: Pick<KeepDecision, "keep" | "heapTid">, spec: KeySpec): Uint8Array {
  const pivot = truncatedCopy(firstright, Math.min(d.keep, spec.nkeyatts), spec);
  if (!d.heapTid) {
    setNAtts(pivot, d.keep, false);
    return pivot;
  }
  const size = maxAlign(pivot.length) + maxAlign(SizeOfItemPointerData);
  const out = new Uint8Array(size);
  out.set(pivot);
  const dv = dvOf(out);
  dv.setUint16(6, (dv.getUint16(6, true) & ~INDEX_SIZE_MASK) | size, true);
  setNAtts(out, spec.nkeyatts, true);
  writeTid(dv, size - SizeOfItemPointerData, lastHeapTid(lastleft));
  return out;
}

/** _bt_truncate: the leaf high key that separates lastleft from firstright. */
export function truncatePivot(lastleft: Uint8Array, firstright: Uint8Array, spec: KeySpec): Uint8Array {
  return formPivot(lastleft, firstright, keepNatts(lastleft, firstright, spec), spec);
}
