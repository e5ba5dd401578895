// Find the leaf entries of a btree index whose first key column equals a value. Where the
// column's order is known byte for byte (a comparator of formats/order/ exists for its type and
// collation, and formats/datum has its input function to encode the key) it descends from the
// root like _bt_search, reading one page per level, then walks right along the leaf level while
// keys are equal. Otherwise it scans the leaf level from the leftmost leaf comparing the keys'
// text output. Pages are read through the caller's reader.
import { FormatError } from "../../formats/schema/errors.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText } from "../../formats/datum/index.js";
import { INPUT_FUNCTIONS } from "../../formats/datum/input-catalog.js";
import { set4bHeader, VARHDRSZ } from "../../formats/varlena/varlena.js";
import { comparatorFor } from "../../formats/order/procs.js";
import { collationIsBytewise } from "../../formats/order/collation.js";
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

const INDOPTION_DESC = 1;
const INDOPTION_NULLS_FIRST = 2;
/** name_ops stores name keys as cstring (its opckeytype): they compare and parse as name */
const CSTRINGOID = 2275;
const NAMEOID = 19;
/** text, varchar, bpchar, name: ordered by their collation */
const TEXT_LIKE = new Set([25, 1043, 1042, NAMEOID]);

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

/** The key text as the datum the index would store for it: the type's input function, a varlena given a 4-byte header. */
function keyDatum(typid: number, varlena: boolean, key: string): Uint8Array {
  const input = INPUT_FUNCTIONS.get(typid)!;
  let v: Uint8Array;
  try {
    v = input(key, { typmod: -1, timeZoneOffsetSeconds: 0 });
  } catch (e) {
    if (e instanceof FormatError) throw new FormatError("BROWSE_BAD_KEY", `"${key}" is not a value of the index's first column type ${typid}: ${e.message}`, {});
    throw e;
  }
  if (!varlena) return v;
  const out = new Uint8Array(VARHDRSZ + v.length);
  set4bHeader(new DataView(out.buffer), 0, out.length);
  out.set(v, VARHDRSZ);
  return out;
}

/**
 * A comparator for the first key column when pgdisk knows its order byte for byte (the btree
 * comparators of formats/order/: integers, floats, numeric, dates and times, uuid, network
 * types, and text-like types under a bytewise collation) and can encode the key as that type;
 * otherwise the reason it cannot.
 */
export function keyComparator(col: KeyColumn, key: string): { cmp: TupleCompare } | { unsupported: string } {
  const desc = (col.option & INDOPTION_DESC) !== 0;
  const nullsFirst = (col.option & INDOPTION_NULLS_FIRST) !== 0;
  const typid = col.typid === CSTRINGOID ? NAMEOID : col.typid;
  const order = comparatorFor(typid, "", collationIsBytewise(col.collation, col.dbCollate));
  if (!order) return { unsupported: TEXT_LIKE.has(typid) ? `collation ${col.collation} is not byte-ordered` : `type ${col.typid} has no on-disk order pgdisk knows` };
  if (!INPUT_FUNCTIONS.has(typid)) return { unsupported: `type ${col.typid} has no input function in pgdisk` };
  const want = keyDatum(typid, col.desc.attrs[0].len === -1, key);
  const cmp: TupleCompare = (t, natts) => {
    if (natts < 1) return -1; // truncated: minus infinity
    if (attIsNull(t, 1)) return nullsFirst ? -1 : 1;
    const slot = deformIndexTuple(t, col.desc, 1)[0];
    if (slot.varlena?.kind === "1b_e") throw new FormatError("BT_EXTERNAL_KEY", "index key is a TOAST pointer", {});
    const c = order(t, slot.off, slot.len, want, 0, want.length);
    if (Number.isNaN(c)) throw new FormatError("DATUM_TRUNCATED", `an index key of type ${col.typid} is too short or undecodable (${slot.len} bytes)`, {});
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
