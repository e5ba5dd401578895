// Reading a whole btree (pg-format-facts.md §7): the metapage, each level from its leftmost page
// along the sibling chain (found by following the minus-infinity downlink down from the root),
// pivots (truncated attributes, heap TID tiebreakers, minus infinity), and the leaf tuples in key
// order along the leaf chain, BTP_PREFIX pages decoded to their stock tuples.
import { FormatError } from "../schema/errors.js";
import type { RelationFork } from "../storage/relfile.js";
import { LP_DEAD, LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageFreeSpace, pageIsNew, pageView, pdSpecial } from "../page/page.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import { readTid, type Tid } from "../page/item-pointer.js";
import { BTP_LEAF, BTP_PREFIX, btpoFlagNames, P_NONE, pFirstDataKey, pIgnore, readBTOpaque, type BTPageOpaque } from "./opaque.js";
import { BTREE_MAGIC, readBTMeta, type BTMetaPage } from "./meta.js";
import { BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK, posidRaw, SizeOfItemPointerData, tInfoRaw } from "./index-tuple.js";
import { readPrefixLeafPage } from "./prefix-page.js";
import { expandPosting } from "./posting.js";

/** A pivot tuple (high key or internal-page item) read as nbtree reads it. */
export interface PivotInfo {
  /** t_tid block: the child on an internal page (meaningless in a high key) */
  downlink: number;
  /** key attributes present (0 = minus infinity) */
  natts: number;
  /** the heap TID tiebreaker (BT_PIVOT_HEAP_TID_ATTR), or null when truncated away */
  heapTid: Tid | null;
  minusInfinity: boolean;
  size: number;
}

export function readPivot(t: Uint8Array): PivotInfo {
  if (t.length < 8) throw new FormatError("BT_PIVOT_TRUNCATED", `pivot tuple of ${t.length} bytes`);
  const info = tInfoRaw(t);
  const posid = posidRaw(t);
  const size = info & INDEX_SIZE_MASK;
  const dv = new DataView(t.buffer, t.byteOffset, t.byteLength);
  const downlink = dv.getUint16(0, true) * 65536 + dv.getUint16(2, true);
  if (!(info & INDEX_ALT_TID_MASK) || posid & BT_IS_POSTING) {
    // a pre-v4 or damaged pivot: report what is there
    return { downlink, natts: -1, heapTid: null, minusInfinity: false, size };
  }
  const natts = posid & BT_OFFSET_MASK;
  let heapTid: Tid | null = null;
  if (posid & BT_PIVOT_HEAP_TID_ATTR) {
    if (size < 8 + SizeOfItemPointerData || size > t.length) throw new FormatError("BT_PIVOT_TID_OUT_OF_TUPLE", `pivot heap TID at ${size - 6} lies outside the ${t.length}-byte tuple`);
    heapTid = readTid(dv, size - SizeOfItemPointerData);
  }
  return { downlink, natts, heapTid, minusInfinity: natts === 0 && size === 8, size };
}

export interface BtreePageInfo {
  block: number;
  level: number;
  flags: number;
  flagNames: string[];
  prev: number;
  next: number;
  /** line pointers on the page */
  nitems: number;
  /** data items (not the high key, not a prefix directory) */
  dataItems: number;
  deadItems: number;
  highKey: PivotInfo | null;
  /** internal pages: every downlink item, in order (the first is minus infinity on a level's leftmost page) */
  downlinks?: PivotInfo[];
  freeSpace: number;
}

export interface BtreeLevelInfo {
  level: number;
  pages: BtreePageInfo[];
}

export interface BtreeStructure {
  meta: BTMetaPage;
  nblocks: number;
  /** root level first, leaf level last */
  levels: BtreeLevelInfo[];
  leftmostLeaf: number;
  /** blocks reached by no sibling chain (deleted or free pages, or damage) */
  unreachable: number[];
  findings: FormatError[];
}

const readPage = (fork: RelationFork, blk: number): Uint8Array => {
  const p = fork.readBlock(blk);
  if (pageIsNew(pageView(p))) throw new FormatError("BT_PAGE_NEW", `block ${blk} is an all-new (uninitialised) page`, { block: blk });
  return p;
};

function itemBytes(page: Uint8Array, dv: DataView, n: number, blk: number): { flags: number; bytes: Uint8Array } {
  const w = itemIdWord(dv, n);
  const off = lpOff(w);
  const len = lpLen(w);
  if (off < SizeOfPageHeaderData || off + len > pdSpecial(dv)) throw new FormatError("LP_OUT_OF_PAGE", `item ${n} [${off}, ${off + len}) lies outside the item area`, { block: blk, item: n, offset: off });
  return { flags: lpFlags(w), bytes: page.subarray(off, off + len) };
}

/** The btree metapage, checked for the magic number. */
export function readBtreeMeta(fork: RelationFork): BTMetaPage {
  if (fork.nblocks === 0) throw new FormatError("BT_NO_METAPAGE", "the index has no blocks (not even a metapage)", { block: 0 });
  const meta = readBTMeta(fork.readBlock(0));
  if (meta.btm_magic !== BTREE_MAGIC) throw new FormatError("BT_BAD_MAGIC", `metapage magic 0x${meta.btm_magic.toString(16)}, expected 0x53162: not a btree`, { block: 0 });
  return meta;
}

/** Follow the leftmost downlinks from the root to the leftmost leaf (P_NONE for an empty index). */
export function leftmostLeaf(fork: RelationFork, meta: BTMetaPage = readBtreeMeta(fork)): number {
  let blk = meta.btm_root;
  if (blk === P_NONE) return P_NONE;
  for (let guard = 0; guard <= meta.btm_level + 1; guard++) {
    const page = readPage(fork, blk);
    const dv = pageView(page);
    const o = readBTOpaque(dv);
    if (o.btpo_flags & BTP_LEAF) return blk;
    const first = pFirstDataKey(o);
    if (maxOffsetNumber(dv) < first) throw new FormatError("BT_INTERNAL_EMPTY", `internal page ${blk} has no downlink`, { block: blk });
    blk = readPivot(itemBytes(page, dv, first, blk).bytes).downlink;
  }
  throw new FormatError("BT_DESCENT_TOO_DEEP", `no leaf below the root after ${meta.btm_level + 1} levels`, { block: meta.btm_root });
}

function pageInfo(page: Uint8Array, blk: number, withDownlinks: boolean): BtreePageInfo {
  const dv = pageView(page);
  const o = readBTOpaque(dv);
  const n = maxOffsetNumber(dv);
  const first = pFirstDataKey(o);
  let dead = 0;
  for (let i = first; i <= n; i++) if (lpFlags(itemIdWord(dv, i)) === LP_DEAD) dead++;
  const ignore = pIgnore(o.btpo_flags);
  const highKey = !ignore && first === 2 && n >= 1 ? readPivot(itemBytes(page, dv, 1, blk).bytes) : null;
  const info: BtreePageInfo = {
    block: blk,
    level: o.btpo_level,
    flags: o.btpo_flags,
    flagNames: btpoFlagNames(o.btpo_flags),
    prev: o.btpo_prev,
    next: o.btpo_next,
    nitems: ignore ? 0 : n,
    dataItems: ignore ? 0 : Math.max(0, n - first + 1 - (o.btpo_flags & BTP_PREFIX ? 1 : 0)),
    deadItems: dead,
    highKey,
    freeSpace: pageFreeSpace(dv),
  };
  if (withDownlinks && !(o.btpo_flags & BTP_LEAF) && !ignore) {
    info.downlinks = [];
    for (let i = first; i <= n; i++) info.downlinks.push(readPivot(itemBytes(page, dv, i, blk).bytes));
  }
  return info;
}

/**
 * Walk every level along its sibling chain, root level first. Checks as it goes (reported as
 * findings, the walk goes on): each page's level, the prev link matching the page before it,
 * chains that loop; blocks no chain reaches are listed.
 */
export function readBtree(fork: RelationFork, opts: { downlinks?: boolean } = {}): BtreeStructure {
  const meta = readBtreeMeta(fork);
  const findings: FormatError[] = [];
  const levels: BtreeLevelInfo[] = [];
  const seen = new Set<number>([0]);
  let start = meta.btm_root;
  let leftLeaf = P_NONE;
  for (let level = meta.btm_level; start !== P_NONE && level >= 0; level--) {
    const pages: BtreePageInfo[] = [];
    let prev = P_NONE;
    let nextLevelStart = P_NONE;
    for (let blk = start; blk !== P_NONE; ) {
      if (seen.has(blk)) {
        findings.push(new FormatError("BT_SIBLING_LOOP", `level ${level}: block ${blk} is reached twice along the sibling chain`, { block: blk }));
        break;
      }
      if (blk >= fork.nblocks) {
        findings.push(new FormatError("BT_SIBLING_OUT_OF_RANGE", `level ${level}: right sibling ${blk} is beyond the ${fork.nblocks}-block index`, { block: prev }));
        break;
      }
      seen.add(blk);
      const page = readPage(fork, blk);
      const info = pageInfo(page, blk, opts.downlinks ?? false);
      if (info.level !== level) findings.push(new FormatError("BT_LEVEL_MISMATCH", `block ${blk} has btpo_level ${info.level}, found on level ${level}`, { block: blk }));
      if (info.prev !== prev) findings.push(new FormatError("BT_PREV_LINK_MISMATCH", `block ${blk} has btpo_prev ${info.prev}, but its left sibling is ${prev}`, { block: blk }));
      if (nextLevelStart === P_NONE && level > 0 && !pIgnore(info.flags)) {
        const dv = pageView(page);
        const o: BTPageOpaque = readBTOpaque(dv);
        const first = pFirstDataKey(o);
        if (maxOffsetNumber(dv) >= first) nextLevelStart = readPivot(itemBytes(page, dv, first, blk).bytes).downlink;
      }
      pages.push(info);
      prev = blk;
      blk = info.next;
    }
    levels.push({ level, pages });
    if (level === 0) leftLeaf = start;
    start = nextLevelStart;
  }
  const unreachable: number[] = [];
  for (let b = 1; b < fork.nblocks; b++) if (!seen.has(b)) unreachable.push(b);
  return { meta, nblocks: fork.nblocks, levels, leftmostLeaf: leftLeaf, unreachable, findings };
}

/** One data item of a leaf page, in key order. */
export interface LeafTuple {
  block: number;
  /** offset number on its page */
  offset: number;
  /** the stock tuple bytes (decoded from a BTP_PREFIX page when coded) */
  tuple: Uint8Array;
  dead: boolean;
  posting: boolean;
  /** it sat on a BTP_PREFIX page */
  prefixPage: boolean;
}

export interface LeafTupleOptions {
  /** split posting tuples into one plain tuple per heap TID (as CREATE INDEX sorts them) */
  expandPostings?: boolean;
  /** yield LP_DEAD items too (default: skip them) */
  includeDead?: boolean;
  /** called for every leaf page visited */
  onPage?: (block: number, page: Uint8Array) => void;
}

/** The leaf tuples in index order, following the leaf sibling chain from the leftmost leaf. */
export function* leafTuples(fork: RelationFork, opts: LeafTupleOptions = {}): Generator<LeafTuple> {
  const meta = readBtreeMeta(fork);
  let blk = leftmostLeaf(fork, meta);
  let visited = 0;
  while (blk !== P_NONE) {
    if (++visited > fork.nblocks) throw new FormatError("BT_SIBLING_LOOP", "the leaf sibling chain loops", { block: blk });
    const page = readPage(fork, blk);
    const dv = pageView(page);
    const o = readBTOpaque(dv);
    if (!(o.btpo_flags & BTP_LEAF) || o.btpo_level !== 0) throw new FormatError("BT_CHAIN_NOT_LEAF", `block ${blk} on the leaf chain is not a leaf (flags 0x${o.btpo_flags.toString(16)}, level ${o.btpo_level})`, { block: blk });
    opts.onPage?.(blk, page);
    if (!pIgnore(o.btpo_flags)) {
      const items: { offset: number; flags: number; tuple: Uint8Array }[] = [];
      const prefix = (o.btpo_flags & BTP_PREFIX) !== 0;
      if (prefix) {
        try {
          for (const it of readPrefixLeafPage(page, { blcksz: page.length, btmVersion: meta.btm_version }).items) items.push({ offset: it.offset, flags: it.lpFlags, tuple: it.tuple });
        } catch (e) {
          throw e instanceof FormatError ? e.at({ block: blk }) : e;
        }
      } else {
        const n = maxOffsetNumber(dv);
        for (let i = pFirstDataKey(o); i <= n; i++) {
          const it = itemBytes(page, dv, i, blk);
          if (it.flags !== LP_NORMAL && it.flags !== LP_DEAD) throw new FormatError("BT_LEAF_BAD_LP", `leaf item ${i} has line pointer flags ${it.flags}`, { block: blk, item: i });
          items.push({ offset: i, flags: it.flags, tuple: it.bytes });
        }
      }
      for (const it of items) {
        const dead = it.flags === LP_DEAD;
        if (dead && !opts.includeDead) continue;
        const t = it.tuple;
        if (t.length < 8) throw new FormatError("BT_TUPLE_TRUNCATED", `leaf item ${it.offset} has ${t.length} bytes`, { block: blk, item: it.offset });
        const size = tInfoRaw(t) & INDEX_SIZE_MASK;
        if (size > t.length) throw new FormatError("BT_TUPLE_SIZE_MISMATCH", `leaf item ${it.offset}: t_info size ${size} exceeds lp_len ${t.length}`, { block: blk, item: it.offset });
        const posting = (tInfoRaw(t) & INDEX_ALT_TID_MASK) !== 0 && (posidRaw(t) & BT_IS_POSTING) !== 0;
        const tuple = t.subarray(0, size);
        if (posting && opts.expandPostings) {
          let parts: Uint8Array[];
          try {
            parts = expandPosting(tuple);
          } catch (e) {
            throw e instanceof FormatError ? e.at({ block: blk, item: it.offset }) : e;
          }
          for (const p of parts) yield { block: blk, offset: it.offset, tuple: p, dead, posting: false, prefixPage: prefix };
        } else yield { block: blk, offset: it.offset, tuple, dead, posting, prefixPage: prefix };
      }
    }
    blk = o.btpo_next;
  }
}
