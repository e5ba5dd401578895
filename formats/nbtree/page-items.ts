// pageinspect's bt_page_items(bytea), bt_page_stats and bt_metap, computed from page bytes with
// the same rules as contrib/pageinspect/btreefuncs.c (PostgreSQL 15): same rows, same columns,
// same special cases. The *Text helpers give the text PostgreSQL prints for each column.
import { FormatError } from "../schema/errors.js";
import { lpFlags, lpOff, LP_DEAD } from "../page/item-id.js";
import { readTid, tidText, type Tid } from "../page/item-pointer.js";
import { itemIdWord, maxAlign, maxOffsetNumber, pageFreeSpace, pageIsNew, pageSizeOf, pageView, pdSpecial } from "../page/page.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import {
  P_HIKEY,
  pHasFullXid,
  pIgnore,
  pIsDeleted,
  pIsLeaf,
  pIsMeta,
  pIsRoot,
  readBTOpaque,
  SizeOfBTPageOpaqueData,
} from "./opaque.js";
import { BTREE_NOVAC_VERSION, readBTMeta } from "./meta.js";
import {
  BT_IS_POSTING,
  BT_OFFSET_MASK,
  BT_PIVOT_HEAP_TID_ATTR,
  INDEX_ALT_TID_MASK,
  INDEX_NULL_MASK,
  INDEX_SIZE_MASK,
  INDEX_VAR_MASK,
  IndexTupleData,
  indexDataOffset,
  SizeOfItemPointerData,
} from "./index-tuple.js";
import { ItemPointerData } from "../page/item-pointer.js";

/** One row of bt_page_items(bytea). */
export interface BtPageItem {
  itemoffset: number;
  /** the raw t_tid (downlink/natts for pivots, posting offset/count for posting tuples) */
  ctid: Tid;
  /** IndexTupleSize (t_info & 0x1FFF), not lp_len */
  itemlen: number;
  nulls: boolean;
  vars: boolean;
  /** key bytes as "xx xx ...", without a posting list or a pivot's heap TID */
  data: string;
  /** LP_DEAD; null for pivot tuples (internal pages, and the high key of a non-rightmost leaf) */
  dead: boolean | null;
  htid: Tid | null;
  tids: Tid[] | null;
}

const IT_INFO = IndexTupleData.offsets.t_info;
const IT_TID = IndexTupleData.offsets.t_tid;
const TID_HI = IT_TID + ItemPointerData.offsets.bi_hi;
const TID_LO = IT_TID + ItemPointerData.offsets.bi_lo;
const TID_POSID = IT_TID + ItemPointerData.offsets.ip_posid;

/**
 * bt_page_items(page bytea). Returns null for a new (pd_upper = 0) page, where pageinspect returns
 * a NULL result; throws FormatError where pageinspect raises an error; returns [] for a deleted page.
 */
export function btPageItems(page: Uint8Array, blcksz = 8192): BtPageItem[] | null {
  const shape = btItemsPageShape(page, blcksz);
  if (!shape) return null;
  if (shape.deleted) return [];
  const dv = pageView(page);
  const n = maxOffsetNumber(dv);
  const rows: BtPageItem[] = new Array(n);
  for (let off = 1; off <= n; off++) rows[off - 1] = printTuple(page, dv, off, shape.leaf, shape.rightmost);
  return rows;
}

export interface BtItemsPageShape {
  leaf: boolean;
  rightmost: boolean;
  /** a deleted page: bt_page_items shows no rows */
  deleted: boolean;
}

/** bt_page_items' page-level checks: null for a new page; throws FormatError where pageinspect errors. */
export function btItemsPageShape(page: Uint8Array, blcksz = 8192): BtItemsPageShape | null {
  if (page.length !== blcksz) throw new FormatError("PAGE_SIZE_INVALID", `invalid page size: expected ${blcksz} bytes, got ${page.length}`);
  const dv = pageView(page);
  if (pageIsNew(dv)) return null;
  const specialSize = page.length - pdSpecial(dv);
  if (specialSize !== maxAlign(SizeOfBTPageOpaqueData)) {
    throw new FormatError("BT_NOT_BTREE_PAGE", `input page is not a valid btree page: expected special size 16, got ${specialSize}`, { offset: pdSpecial(dv) });
  }
  const o = readBTOpaque(dv);
  if (pIsMeta(o.btpo_flags)) throw new FormatError("BT_PAGE_IS_META", "block is a meta page");
  if (pIsLeaf(o.btpo_flags) && o.btpo_level !== 0) throw new FormatError("BT_LEAF_LEVEL_NONZERO", "block is not a valid btree leaf page");
  return { leaf: pIsLeaf(o.btpo_flags), rightmost: o.btpo_next === 0, deleted: pIsDeleted(o.btpo_flags) };
}

// "01 ab ff": ASCII built in a byte buffer (reused), then decoded once.
const HEX_ASCII = new TextEncoder().encode("0123456789abcdef");
let hexScratch = new Uint8Array(3 * 8192);
const latin1 = new TextDecoder("latin1");
export function hexSpaced(b: Uint8Array, start: number, len: number): string {
  if (len <= 0) return "";
  if (hexScratch.length < 3 * len) hexScratch = new Uint8Array(3 * len);
  let o = 0;
  for (let i = 0; i < len; i++) {
    const v = b[start + i]!;
    hexScratch[o++] = HEX_ASCII[v >> 4]!;
    hexScratch[o++] = HEX_ASCII[v & 15]!;
    hexScratch[o++] = 32;
  }
  return latin1.decode(hexScratch.subarray(0, o - 1));
}

/**
 * The fields of one bt_page_items row, as numbers and byte ranges of the page (no allocation):
 * the hot path of page dumps fills one of these per item and formats straight from the page.
 */
export interface BtItemFields {
  /** raw t_tid */
  tidBlock: number;
  tidOffset: number;
  itemlen: number;
  nulls: boolean;
  vars: boolean;
  /** key bytes: [dataStart, dataStart + dataLen) of the page */
  dataStart: number;
  dataLen: number;
  /** LP_DEAD; null for pivot-position tuples */
  dead: boolean | null;
  /** heap TID shown by pageinspect; htidBlock -1 when NULL */
  htidBlock: number;
  htidOffset: number;
  /** posting list: count TIDs of 6 bytes from postingStart; postingCount -1 when not a posting tuple */
  postingStart: number;
  postingCount: number;
}

export const emptyBtItemFields = (): BtItemFields => ({ tidBlock: 0, tidOffset: 0, itemlen: 0, nulls: false, vars: false, dataStart: 0, dataLen: 0, dead: null, htidBlock: -1, htidOffset: 0, postingStart: 0, postingCount: -1 });

const tidBlockAt = (dv: DataView, at: number): number => dv.getUint16(at, true) * 65536 + dv.getUint16(at + 2, true);

/** Fill `out` with item `offset`'s bt_page_items fields; throws FormatError where pageinspect errors. */
export function readBtItemFields(page: Uint8Array, dv: DataView, offset: number, leaf: boolean, rightmost: boolean, out: BtItemFields): BtItemFields {
  const w = itemIdWord(dv, offset);
  const flags = lpFlags(w);
  // pageinspect's ItemIdIsValid only tests the pointer: an unused slot is read at lp_off (0) like any other
  const p = lpOff(w);
  if (p + 8 > page.length) throw new FormatError("LP_OUT_OF_PAGE", `item ${offset} header at ${p} lies beyond the page`, { item: offset, offset: p });
  const info = dv.getUint16(p + IT_INFO, true);
  const size = info & INDEX_SIZE_MASK;
  const posid = dv.getUint16(p + TID_POSID, true);
  const rawBlock = dv.getUint16(p + TID_HI, true) * 65536 + dv.getUint16(p + TID_LO, true);
  const alt = (info & INDEX_ALT_TID_MASK) !== 0;
  const posting = alt && (posid & BT_IS_POSTING) !== 0;
  const pivot = alt && !posting;
  const dataOff = indexDataOffset(info);
  let dlen = size - dataOff;
  if (posting) dlen -= size - rawBlock;
  else if (pivot && (posid & BT_PIVOT_HEAP_TID_ATTR) !== 0) dlen -= maxAlign(SizeOfItemPointerData);
  if (dlen < 0 || dlen > INDEX_SIZE_MASK) {
    throw new FormatError("BT_INVALID_TUPLE_LENGTH", `invalid tuple length ${dlen} for tuple at offset number ${offset}`, { item: offset, offset: p });
  }
  if (p + dataOff + dlen > page.length) throw new FormatError("LP_OUT_OF_PAGE", `item ${offset} data extends beyond the page`, { item: offset, offset: p });

  const isPivotPosition = !leaf || (!rightmost && offset === P_HIKEY);
  let htidAt = -1;
  if (pivot) {
    if ((posid & BT_PIVOT_HEAP_TID_ATTR) !== 0) {
      htidAt = p + size - SizeOfItemPointerData;
      if (htidAt < p || htidAt + 6 > page.length) throw new FormatError("BT_PIVOT_TID_OUT_OF_TUPLE", `pivot heap TID of item ${offset} lies outside the page`, { item: offset });
    }
  } else if (posting) {
    if (p + rawBlock + 6 > page.length) throw new FormatError("BT_POSTING_OUT_OF_TUPLE", `posting list of item ${offset} lies beyond the page`, { item: offset });
    htidAt = p + rawBlock;
  } else htidAt = p + IT_TID;
  // pageinspect hides the "heap TID" of a pivot-position tuple that is not a heapkeyspace pivot
  if (isPivotPosition && !pivot) htidAt = -1;

  out.postingCount = -1;
  if (posting) {
    const cnt = posid & BT_OFFSET_MASK;
    if (p + rawBlock + cnt * 6 > page.length) throw new FormatError("BT_POSTING_OUT_OF_TUPLE", `posting list of item ${offset} extends beyond the page`, { item: offset });
    out.postingStart = p + rawBlock;
    out.postingCount = cnt;
  }
  out.tidBlock = rawBlock;
  out.tidOffset = posid;
  out.itemlen = size;
  out.nulls = (info & INDEX_NULL_MASK) !== 0;
  out.vars = (info & INDEX_VAR_MASK) !== 0;
  out.dataStart = p + dataOff;
  out.dataLen = dlen;
  out.dead = isPivotPosition ? null : flags === LP_DEAD;
  out.htidBlock = htidAt < 0 ? -1 : tidBlockAt(dv, htidAt);
  out.htidOffset = htidAt < 0 ? 0 : dv.getUint16(htidAt + 4, true);
  return out;
}

/** The posting list of fields `f` as TIDs. */
export function btPostingTids(dv: DataView, f: BtItemFields): Tid[] | null {
  if (f.postingCount < 0) return null;
  const tids: Tid[] = new Array(f.postingCount);
  for (let i = 0; i < f.postingCount; i++) tids[i] = readTid(dv, f.postingStart + i * 6);
  return tids;
}

const scratchFields = emptyBtItemFields();
function printTuple(page: Uint8Array, dv: DataView, offset: number, leaf: boolean, rightmost: boolean): BtPageItem {
  const f = readBtItemFields(page, dv, offset, leaf, rightmost, scratchFields);
  return {
    itemoffset: offset,
    ctid: { block: f.tidBlock, offset: f.tidOffset },
    itemlen: f.itemlen,
    nulls: f.nulls,
    vars: f.vars,
    data: hexSpaced(page, f.dataStart, f.dataLen),
    dead: f.dead,
    htid: f.htidBlock < 0 ? null : { block: f.htidBlock, offset: f.htidOffset },
    tids: btPostingTids(dv, f),
  };
}

/** bt_page_stats(relname, blkno) for one page. */
export interface BtPageStats {
  blkno: number;
  /** l leaf, i internal, r root (internal), e half-dead, d deleted leaf (or pre-14), D deleted internal */
  type: string;
  live_items: number;
  dead_items: number;
  avg_item_size: number;
  page_size: number;
  free_size: number;
  btpo_prev: number;
  btpo_next: number;
  btpo_level: number;
  btpo_flags: number;
}

/** bt_page_stats: pageinspect reads the block through the buffer manager without checking the page kind. */
export function btPageStats(page: Uint8Array, blkno: number): BtPageStats {
  if (blkno === 0) throw new FormatError("BT_BLOCK_ZERO_IS_META", "block 0 is a meta page", { block: 0 });
  const dv = pageView(page);
  const o = readBTOpaque(dv);
  const flags = o.btpo_flags;
  let type: string;
  let maxoff = maxOffsetNumber(dv);
  if (pIsDeleted(flags)) {
    type = pIsLeaf(flags) || !pHasFullXid(flags) ? "d" : "D";
    maxoff = 0; // BTDeletedPageData is not index tuples
  } else if (pIgnore(flags)) type = "e";
  else if (pIsLeaf(flags)) type = "l";
  else if (pIsRoot(flags)) type = "r";
  else type = "i";
  let live = 0;
  let dead = 0;
  let itemSize = 0;
  for (let off = 1; off <= maxoff; off++) {
    const w = itemIdWord(dv, off);
    const p = lpOff(w); // PageGetItem does not look at lp_flags: an unused slot reads at offset 0
    if (p + 8 > page.length) throw new FormatError("LP_OUT_OF_PAGE", `item ${off} header at ${p} lies beyond the page`, { item: off, offset: p, block: blkno });
    itemSize += dv.getUint16(p + IT_INFO, true) & INDEX_SIZE_MASK;
    if (lpFlags(w) === LP_DEAD) dead++;
    else live++;
  }
  const n = live + dead;
  return {
    blkno,
    type,
    live_items: live,
    dead_items: dead,
    avg_item_size: n > 0 ? Math.floor(itemSize / n) : 0,
    page_size: pageSizeOf(dv),
    free_size: pageFreeSpace(dv),
    btpo_prev: o.btpo_prev,
    btpo_next: o.btpo_next,
    btpo_level: o.btpo_level,
    btpo_flags: o.btpo_flags,
  };
}

/** bt_metap(relname): block 0 read without checks. */
export interface BtMetap {
  magic: number;
  version: number;
  root: number;
  level: number;
  fastroot: number;
  fastlevel: number;
  last_cleanup_num_delpages: number;
  last_cleanup_num_tuples: number;
  allequalimage: boolean;
}

export function btMetap(page: Uint8Array): BtMetap {
  const m = readBTMeta(page);
  const novac = m.btm_version >= BTREE_NOVAC_VERSION;
  return {
    magic: m.btm_magic | 0, // printed with %d
    version: m.btm_version | 0,
    root: m.btm_root,
    level: m.btm_level,
    fastroot: m.btm_fastroot,
    fastlevel: m.btm_fastlevel,
    last_cleanup_num_delpages: novac ? m.btm_last_cleanup_num_delpages : 0,
    // printed with "%f" (6 decimals) and read back as float8
    last_cleanup_num_tuples: novac ? printfF(m.btm_last_cleanup_num_heap_tuples) : -1,
    allequalimage: novac ? m.btm_allequalimage : false,
  };
}

function printfF(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Math.abs(x) >= 1e21 ? x : Number(x.toFixed(6));
}

// ---- PostgreSQL text forms ----

/** float8out with extra_float_digits > 0: shortest exact digits, %e style outside 1e-4 <= |x| < 1e15. */
export function float8Text(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const e = x.toExponential(); // shortest round-trip digits
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(e)!;
  const exp = Number(m[3]) * (m[2] === "-" ? -1 : 1);
  if (exp >= -4 && exp < 15) return String(x);
  return `${m[1]}e${m[2]}${m[3]!.padStart(2, "0")}`;
}
const boolText = (b: boolean): string => (b ? "t" : "f");
/** tid[] output: every element is quoted because "(b,o)" contains a comma. */
export const tidArrayText = (tids: Tid[]): string => `{${tids.map((t) => `"${tidText(t)}"`).join(",")}}`;

/** Columns of a bt_page_items row as PostgreSQL prints them (null = SQL NULL). */
export function btPageItemText(r: BtPageItem): (string | null)[] {
  return [
    String(r.itemoffset),
    tidText(r.ctid),
    String(r.itemlen),
    boolText(r.nulls),
    boolText(r.vars),
    r.data,
    r.dead === null ? null : boolText(r.dead),
    r.htid ? tidText(r.htid) : null,
    r.tids ? tidArrayText(r.tids) : null,
  ];
}
export function btPageStatsText(s: BtPageStats): string[] {
  return [s.blkno, s.type, s.live_items, s.dead_items, s.avg_item_size, s.page_size, s.free_size, s.btpo_prev, s.btpo_next, s.btpo_level, s.btpo_flags].map(String);
}
export function btMetapText(m: BtMetap): string[] {
  return [
    String(m.magic),
    String(m.version),
    String(m.root),
    String(m.level),
    String(m.fastroot),
    String(m.fastlevel),
    String(m.last_cleanup_num_delpages),
    float8Text(m.last_cleanup_num_tuples),
    boolText(m.allequalimage),
  ];
}

/** Item bytes for item `n` (1-based) bounded by IndexTupleSize, as pageinspect reads them. */
export function btItemAt(page: Uint8Array, n: number): Uint8Array {
  const dv = pageView(page);
  const p = lpOff(itemIdWord(dv, n));
  if (p < SizeOfPageHeaderData || p + 8 > page.length) throw new FormatError("LP_OUT_OF_PAGE", `item ${n} at ${p} lies outside the page`, { item: n, offset: p });
  const size = dv.getUint16(p + IT_INFO, true) & INDEX_SIZE_MASK;
  if (p + size > page.length) throw new FormatError("LP_OUT_OF_PAGE", `item ${n} at ${p} with size ${size} extends beyond the page`, { item: n, offset: p });
  return page.subarray(p, p + size);
}
