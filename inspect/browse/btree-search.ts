// Find the leaf entries of a btree index whose first key column equals a value. Where the
// column's order is known byte for byte (integers; text, varchar, name, bpchar under the C
// collation) it descends from the root like _bt_search, reading one page per level, then walks
// right along the leaf level while keys are equal. Otherwise it scans the leaf level from the
// leftmost leaf comparing the keys' text output. Pages are read through the caller's reader.
import { FormatError } from "../../formats/schema/errors.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText } from "../../formats/datum/index.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { lpFlags, LP_DEAD, LP_UNUSED } from "../../formats/page/item-id.js";
import type { Tid } from "../../formats/page/item-pointer.js";
import { readBTMeta, BTREE_MAGIC } from "../../formats/nbtree/meta.js";
import { readBTOpaque, pFirstDataKey, pIgnore, pIsLeaf, pRightmost, P_HIKEY } from "../../formats/nbtree/opaque.js";
import { btItemAt } from "../../formats/nbtree/page-items.js";
import { attIsNull, downlink, heapTid, isPivot, isPosting, nattsOf, postingTids } from "../../formats/nbtree/index-tuple.js";

export interface BtreeMatch {
  block: number;
  item: number;
  /** heap TIDs: one, or a posting list's */
  htids: Tid[];
  dead: boolean;
  /** the index tuple's bytes (a copy) */
  tuple: Uint8Array;
}

export interface BtreeSearchResult {
  method: "descent" | "leaf scan";
  matches: BtreeMatch[];
  /** index pages read for this search */
  pagesVisited: number;
  truncated: boolean;
  note?: string;
}

/** Sign of (the tuple's first key − the search key) in index order; -1 for a truncated (minus infinity) key. */
export type TupleCompare = (tuple: Uint8Array, natts: number) => number;

export type PageReader = (block: number) => Uint8Array;

const MAX_DEPTH = 32;

function rootOf(read: PageReader): number {
  const meta = readBTMeta(read(0));
  if (meta.btm_magic !== BTREE_MAGIC) throw new FormatError("BT_BAD_META", `block 0 is not a btree metapage (magic 0x${meta.btm_magic.toString(16)})`, { block: 0 });
  return meta.btm_fastroot || meta.btm_root;
}

function collect(page: Uint8Array, block: number, off: number, t: Uint8Array): BtreeMatch {
  const dead = lpFlags(itemIdWord(pageView(page), off)) === LP_DEAD;
  const htids = isPosting(t) ? postingTids(t) : [heapTid(t)].filter((x): x is Tid => x !== null);
  return { block, item: off, htids, dead, tuple: t.slice() };
}

/** Equality search by descent. `indnatts` is the index's column count (non-pivot tuples hold them all). */
export function btreeDescend(read: PageReader, cmp: TupleCompare, indnatts: number, limit = 1000): BtreeSearchResult {
  const res: BtreeSearchResult = { method: "descent", matches: [], pagesVisited: 1, truncated: false };
  let block = rootOf(read);
  if (block === 0) return { ...res, note: "the index is empty (no root page)" };
  for (let depth = 0; ; depth++) {
    if (depth > MAX_DEPTH) throw new FormatError("BT_DESCENT_TOO_DEEP", `descent passed ${MAX_DEPTH} levels: the downlinks loop`, { block });
    const page = read(block);
    res.pagesVisited++;
    const dv = pageView(page);
    if (pageIsNew(dv)) throw new FormatError("BT_DESCENT_NEW_PAGE", `downlink leads to new (all-zero) page ${block}`, { block });
    const o = readBTOpaque(dv);
    if (pIsLeaf(o.btpo_flags)) break;
    const n = maxOffsetNumber(dv);
    const first = pFirstDataKey(o);
    if (first > n) throw new FormatError("BT_INTERNAL_EMPTY", `internal page ${block} has no downlinks`, { block });
    // The first data item is minus infinity; follow the last pivot strictly below the key.
    let child = downlink(btItemAt(page, first));
    for (let off = first + 1; off <= n; off++) {
      const t = btItemAt(page, off);
      if (cmp(t, nattsOf(t, indnatts)) >= 0) break;
      child = downlink(t);
    }
    block = child;
  }
  // Leaf level: from here, walk right while keys are not greater.
  for (let hops = 0; ; hops++) {
    const page = read(block);
    if (hops) res.pagesVisited++;
    const dv = pageView(page);
    const o = readBTOpaque(dv);
    if (!pIgnore(o.btpo_flags)) {
      const n = maxOffsetNumber(dv);
      for (let off = pFirstDataKey(o); off <= n; off++) {
        if (lpFlags(itemIdWord(dv, off)) === LP_UNUSED) continue;
        const t = btItemAt(page, off);
        const c = cmp(t, indnatts);
        if (c < 0) continue;
        if (c > 0) return res;
        if (res.matches.length >= limit) return { ...res, truncated: true };
        res.matches.push(collect(page, block, off, t));
      }
      if (!pRightmost(o) && cmp(btItemAt(page, P_HIKEY), nattsOf(btItemAt(page, P_HIKEY), indnatts)) > 0) return res;
    }
    if (pRightmost(o)) return res;
    block = o.btpo_next;
  }
}

/** The leftmost leaf: follow the first downlink of every level. */
function leftmostLeaf(read: PageReader, res: BtreeSearchResult): number {
  let block = rootOf(read);
  for (let depth = 0; block !== 0; depth++) {
    if (depth > MAX_DEPTH) throw new FormatError("BT_DESCENT_TOO_DEEP", `descent passed ${MAX_DEPTH} levels`, { block });
    const page = read(block);
    res.pagesVisited++;
    const o = readBTOpaque(pageView(page));
    if (pIsLeaf(o.btpo_flags)) return block;
    block = downlink(btItemAt(page, pFirstDataKey(o)));
  }
  return 0;
}

/** Equality search by scanning every leaf page left to right. */
export function btreeLeafScan(read: PageReader, matches: (tuple: Uint8Array) => boolean, limit = 1000): BtreeSearchResult {
  const res: BtreeSearchResult = { method: "leaf scan", matches: [], pagesVisited: 1, truncated: false };
  let block = leftmostLeaf(read, res);
  if (block === 0) return { ...res, note: "the index is empty (no root page)" };
  const seen = new Set<number>();
  for (;;) {
    if (seen.has(block)) throw new FormatError("BT_SIBLING_LOOP", `right-links loop back to block ${block}`, { block });
    seen.add(block);
    const page = read(block);
    const dv = pageView(page);
    const o = readBTOpaque(dv);
    if (!pIgnore(o.btpo_flags)) {
      const n = maxOffsetNumber(dv);
      for (let off = pFirstDataKey(o); off <= n; off++) {
        if (lpFlags(itemIdWord(dv, off)) === LP_UNUSED) continue;
        const t = btItemAt(page, off);
        if (!matches(t)) continue;
        if (res.matches.length >= limit) return { ...res, truncated: true };
        res.matches.push(collect(page, block, off, t));
      }
    }
    if (pRightmost(o)) return res;
    block = o.btpo_next;
    res.pagesVisited++;
  }
}

// ---- key comparison ----

const INT_TYPES: Record<number, "int2" | "int4" | "int8" | "oid"> = { 21: "int2", 23: "int4", 20: "int8", 26: "oid" };
const TEXT_TYPES: Record<number, "text" | "bpchar"> = { 25: "text", 1043: "text", 19: "text", 1042: "bpchar" };
/** pg_collation OIDs whose order is plain byte order: C, POSIX. */
const BYTE_ORDER_COLLATIONS = new Set([950, 951]);
const DEFAULT_COLLATION = 100;
const INDOPTION_DESC = 1;
const INDOPTION_NULLS_FIRST = 2;

export interface KeyColumn {
  desc: TupleDesc;
  /** type OID that decodes the first column (domains resolved) */
  typid: number;
  /** pg_index.indcollation[0] */
  collation: number;
  /** pg_index.indoption[0] */
  option: number;
  /** the database's datcollate */
  dbCollate: string;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function trimSpaces(b: Uint8Array): Uint8Array {
  let e = b.length;
  while (e > 0 && b[e - 1] === 0x20) e--;
  return b.subarray(0, e);
}

/**
 * A comparator for the first key column when its order is plain (integers, or strings under a
 * byte-order collation); otherwise the reason it is not.
 */
export function keyComparator(col: KeyColumn, key: string): { cmp: TupleCompare } | { unsupported: string } {
  const desc = (col.option & INDOPTION_DESC) !== 0;
  const nullsFirst = (col.option & INDOPTION_NULLS_FIRST) !== 0;
  let compareValue: (v: Uint8Array) => number;
  const intType = INT_TYPES[col.typid];
  const textType = TEXT_TYPES[col.typid];
  if (intType) {
    if (!/^[-+]?\d+$/.test(key.trim())) throw new FormatError("BROWSE_BAD_KEY", `"${key}" is not an integer (the index's first column is ${intType})`, {});
    const want = BigInt(key.trim());
    compareValue = (v) => {
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      const got = intType === "int2" ? BigInt(dv.getInt16(0, true)) : intType === "int4" ? BigInt(dv.getInt32(0, true)) : intType === "int8" ? dv.getBigInt64(0, true) : BigInt(dv.getUint32(0, true));
      return got < want ? -1 : got > want ? 1 : 0;
    };
  } else if (textType) {
    const byteOrder = BYTE_ORDER_COLLATIONS.has(col.collation) || (col.collation === DEFAULT_COLLATION && (col.dbCollate === "C" || col.dbCollate === "POSIX")) || (col.typid === 19 && col.collation === 0);
    if (!byteOrder) return { unsupported: `collation ${col.collation} is not byte-ordered` };
    const want = new TextEncoder().encode(textType === "bpchar" ? key.replace(/ +$/, "") : key);
    compareValue = textType === "bpchar" ? (v) => compareBytes(trimSpaces(v), want) : (v) => compareBytes(v, want);
  } else {
    return { unsupported: `type ${col.typid} has no plain byte order here` };
  }
  const cmp: TupleCompare = (t, natts) => {
    if (natts < 1) return -1; // truncated: minus infinity
    if (attIsNull(t, 1)) return nullsFirst ? -1 : 1;
    const slot = deformIndexTuple(t, col.desc, 1)[0];
    const d = datumBytes(t, slot);
    if (d.kind !== "inline") throw new FormatError("BT_EXTERNAL_KEY", "index key is a TOAST pointer", {});
    const c = compareValue(d.bytes);
    return desc ? -c : c;
  };
  return { cmp };
}

/** Does the first key column's text output equal `key`? (for the leaf scan) */
export function textKeyMatcher(desc: TupleDesc, typid: number, types: TypeLookup, key: string): (t: Uint8Array) => boolean {
  const a = desc.attrs[0];
  return (t) => {
    if (isPivot(t) && nattsOf(t, desc.attrs.length) < 1) return false;
    if (attIsNull(t, 1)) return key.toUpperCase() === "NULL";
    try {
      const slot = deformIndexTuple(t, desc, 1)[0];
      const d = datumBytes(t, slot);
      return d.kind === "inline" && datumToText(d.bytes, typid, a.typmod, types) === key;
    } catch (e) {
      if (e instanceof FormatError) return false;
      throw e;
    }
  };
}
