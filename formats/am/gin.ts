// GIN page special space and metapage (src/include/access/ginblock.h). GIN has no page-id word:
// its 8-byte special space is told from SP-GiST's and BRIN's by their page ids (GIN flags use
// only the low byte).
import { defineStruct, i32, i64, nest, pad, register, u16, u32, type InferStruct } from "../schema/index.js";
import { ItemPointerData } from "../page/item-pointer.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import { maxAlign } from "../page/page.js";
import { IndexTupleData, INDEX_NULL_MASK, SizeOfIndexTupleData, indexDataOffset, indexTupleSize } from "../nbtree/index-tuple.js";
import { flagNames } from "./util.js";
import { grown } from "../schema/bytes.js";
import { alignBytes, type AttrDesc } from "../heap/descriptor.js";
import { varsizeAnyAt } from "../varlena/varlena.js";

export const GinPageOpaqueData = register(
  defineStruct("GinPageOpaqueData", "src/include/access/ginblock.h", [
    u32("rightlink", "next page if any, else InvalidBlockNumber"),
    u16("maxoff", "number of PostingItems on a data internal page; heap tuples on a pending-list page"),
    u16("flags", "GIN_DATA | GIN_LEAF | GIN_DELETED | GIN_META | GIN_LIST | GIN_LIST_FULLROW | GIN_INCOMPLETE_SPLIT | GIN_COMPRESSED"),
  ] as const),
);
export type GinPageOpaque = InferStruct<typeof GinPageOpaqueData>;

export const GIN_DATA = 1 << 0;
export const GIN_LEAF = 1 << 1;
export const GIN_DELETED = 1 << 2;
export const GIN_META = 1 << 3;
export const GIN_LIST = 1 << 4;
export const GIN_LIST_FULLROW = 1 << 5;
export const GIN_INCOMPLETE_SPLIT = 1 << 6;
export const GIN_COMPRESSED = 1 << 7;
/** gin_page_opaque_info's flag names, in its order. */
export const GIN_FLAG_NAMES = [
  [GIN_DATA, "data"],
  [GIN_LEAF, "leaf"],
  [GIN_DELETED, "deleted"],
  [GIN_META, "meta"],
  [GIN_LIST, "list"],
  [GIN_LIST_FULLROW, "list_fullrow"],
  [GIN_INCOMPLETE_SPLIT, "incomplete_split"],
  [GIN_COMPRESSED, "compressed"],
] as const;
export const ginFlagNames = (flags: number): string[] => flagNames(flags, GIN_FLAG_NAMES);

export const GIN_METAPAGE_BLKNO = 0;
export const GIN_ROOT_BLKNO = 1;
export const GIN_CURRENT_VERSION = 2;

export const GinMetaPageData = register(
  defineStruct("GinMetaPageData", "src/include/access/ginblock.h", [
    u32("head", "first page of the pending list, or InvalidBlockNumber"),
    u32("tail", "last page of the pending list"),
    u32("tailFreeSize", "free bytes on the pending list's tail page"),
    u32("nPendingPages", "pages in the pending list"),
    i64("nPendingHeapTuples", "heap tuples in the pending list"),
    u32("nTotalPages", "planner statistics (as of the last VACUUM): total pages"),
    u32("nEntryPages", "entry tree pages"),
    u32("nDataPages", "posting tree pages"),
    pad("pad_before_nEntries", 4),
    i64("nEntries", "distinct entries"),
    i32("ginVersion", "GIN_CURRENT_VERSION 2"),
  ] as const),
);
export type GinMetaPage = InferStruct<typeof GinMetaPageData>;
export const GIN_META_OFFSET = 24;

// ---------------------------------------------------------------------------------------------
// Entry tuples, posting lists and data pages (ginblock.h, gin_private.h, ginpostinglist.c,
// gindatapage.c). An entry tree tuple is an IndexTuple whose t_tid is reused: on an internal
// page its block number is the downlink; on a leaf page its block number is the byte offset of
// the posting list within the tuple (GIN_ITUP_COMPRESSED in the top bit when the list is a
// compressed GinPostingList) and its offset number the number of heap TIDs, or GIN_TREE_POSTING
// with the block number naming the root of a posting tree.

/** GinPostingList: one varbyte-coded segment of heap TIDs (ginblock.h). The coded deltas follow. */
export const GinPostingListData = register(
  defineStruct("GinPostingList", "src/include/access/ginblock.h", [
    nest("first", ItemPointerData, "first heap TID of the segment, stored plain"),
    u16("nbytes", "bytes of varbyte-coded deltas that follow"),
  ] as const),
);
/** offsetof(GinPostingList, bytes) */
export const GIN_POSTING_LIST_HEADER = GinPostingListData.size; // 8

/** PostingItem: a downlink of a posting tree internal page (ginblock.h). */
export const PostingItemData = register(
  defineStruct("PostingItem", "src/include/access/ginblock.h", [
    u16("child_bi_hi", "child block number, high 16 bits (BlockIdData)"),
    u16("child_bi_lo", "child block number, low 16 bits"),
    nest("key", ItemPointerData, "the child's high key (right bound); (0,0) on the rightmost item of a level"),
  ] as const),
);
export const SizeOfPostingItem = PostingItemData.size; // 10

/** GinDataPageGetRightBound: the data page's high key, at PageGetContents (MAXALIGN(SizeOfPageHeaderData)). */
export const GIN_DATA_RIGHTBOUND_OFFSET = maxAlign(SizeOfPageHeaderData);
/** GinDataPageGetData / GinDataLeafPageGetPostingList: PostingItems, posting list segments or plain TIDs start here. */
export const GIN_DATA_ITEMS_OFFSET = GIN_DATA_RIGHTBOUND_OFFSET + maxAlign(ItemPointerData.size);

/** the top bit of t_tid's block number on a leaf entry tuple: its posting list is compressed */
export const GIN_ITUP_COMPRESSED = 0x80000000;
/** t_tid's offset number of a leaf entry tuple that points to a posting tree */
export const GIN_TREE_POSTING = 0xffff;
/** MaxHeapTuplesPerPageBits: a TID is coded as (block << 11) | offset (ginpostinglist.c) */
export const GIN_TID_OFFSET_BITS = 11;

/** GinNullCategory values stored in entry tuples (gin.h) */
export const GIN_CAT_NORM_KEY = 0;
export const GIN_CAT_NULL_KEY = 1;
export const GIN_CAT_EMPTY_ITEM = 2;
export const GIN_CAT_NULL_ITEM = 3;

const TID = ItemPointerData.get;
const tidBlock = (b: Uint8Array, at: number): number => TID.bi_hi(b, at) * 65536 + TID.bi_lo(b, at);
const T_TID = IndexTupleData.offsets.t_tid;

/** GinGetDownlink / GinGetPostingTree: t_tid's block number (the whole 32 bits). */
export const ginTupleBlock = (b: Uint8Array, tup: number): number => tidBlock(b, tup + T_TID);
/** GinGetNPosting: t_tid's offset number (GIN_TREE_POSTING for a posting tree pointer). */
export const ginTupleNPosting = (b: Uint8Array, tup: number): number => TID.ip_posid(b, tup + T_TID);
/** GinItupIsCompressed */
export const ginTupleCompressed = (b: Uint8Array, tup: number): boolean => ginTupleBlock(b, tup) >= GIN_ITUP_COMPRESSED;
/** GinGetPostingOffset: the posting list's offset within the tuple. */
export const ginTuplePostingOffset = (b: Uint8Array, tup: number): number => ginTupleBlock(b, tup) % GIN_ITUP_COMPRESSED;

/** The child block number of the PostingItem at `at`. */
export const postingItemChild = (b: Uint8Array, at: number): number => PostingItemData.get.child_bi_hi(b, at) * 65536 + PostingItemData.get.child_bi_lo(b, at);
/** The offset of the PostingItem's key TID. */
export const POSTING_ITEM_KEY = PostingItemData.offsets.key;
/** The bytes of GinPostingList at `at` take: header + SHORTALIGN(nbytes) (SizeOfGinPostingList). */
export const ginPostingListSize = (b: Uint8Array, at: number): number => GIN_POSTING_LIST_HEADER + ((GinPostingListData.get.nbytes(b, at) + 1) & ~1);

/** A TID as the number ginpostinglist.c codes: block * 2^11 + offset (exact: at most 43 bits). */
export const ginTidCode = (block: number, offset: number): number => block * 2048 + offset;
/** The TID coded as ginTidCode, as a tidKey (block * 65536 + offset). */
export const ginCodeToTidKey = (code: number): number => Math.floor(code / 2048) * 65536 + (code % 2048);

/** Where decodeGinPostingList puts its TIDs; the caller keeps one and reuses it. */
export class GinPostingDecode {
  /** ginTidCode of each TID decoded, in stored order */
  codes = new Float64Array(256);
  n = 0;
  /** a varbyte number ran past the segment's end (or beyond 7 bytes): decoding stopped there */
  truncated = false;
  /** byte offset (within the buffer) where decoding stopped short */
  stopAt = 0;
  push(code: number): void {
    this.codes = grown(this.codes, this.n + 1);
    this.codes[this.n++] = code;
  }
}

/**
 * Decode the GinPostingList segment at `at` (appending to `out`, which the caller resets): its
 * first TID, then each varbyte-coded delta (7 bits a byte, low first, the high bit set on every
 * byte but the last) added to the one before. Bytes past `limit` are never read.
 */
export function decodeGinPostingList(b: Uint8Array, at: number, limit: number, out: GinPostingDecode): void {
  const first = at + GinPostingListData.offsets.first;
  let val = ginTidCode(tidBlock(b, first), TID.ip_posid(b, first));
  out.push(val);
  let p = at + GIN_POSTING_LIST_HEADER;
  const end = Math.min(limit, p + GinPostingListData.get.nbytes(b, at));
  while (p < end) {
    let delta = 0;
    let scale = 1;
    let c = 0x80;
    let k = 0;
    while (c & 0x80) {
      if (p >= end || k === 7) {
        out.truncated = true;
        out.stopAt = p;
        return;
      }
      c = b[p++]!;
      delta += (c & 0x7f) * scale;
      scale *= 128;
      k++;
    }
    val += delta;
    out.push(val);
  }
}

/** A leaf or internal entry tuple's key: which column, its category, and its datum's bytes. */
export class GinKeySpan {
  /** 1-based index column (always 1 in a one-column index) */
  attnum = 1;
  category = GIN_CAT_NORM_KEY;
  /** the key datum's offset in the buffer and its length (0 for a null category) */
  off = 0;
  len = 0;
}

/** What ginEntryKey needs of an index's columns: one column or several, each stored key's attlen and alignment in bytes. */
export interface GinKeyShape {
  oneCol: boolean;
  keyLen: number[];
  keyAlign: number[];
}

/** The GinKeyShape of an index whose key columns are `attrs` (its pg_attribute rows: the stored key types). */
export function ginKeyShape(attrs: readonly AttrDesc[]): GinKeyShape {
  return { oneCol: attrs.length === 1, keyLen: attrs.map((a) => a.len), keyAlign: attrs.map((a) => alignBytes(a.align)) };
}

/**
 * Read the key of the entry tuple at `tup` (lp_len `tupLen`) into `span` (gintuple_get_attrnum,
 * gintuple_get_key): in a multi-column index an int2 column number comes first; a NULL key (the
 * null bitmap's bit clear) stores its GinNullCategory byte where the key would start
 * (GinCategoryOffset). `keyLen`/`keyAlign` are the key column's attlen and alignment in bytes,
 * per column (index attnum - 1). False when the tuple's bytes do not hold what they claim.
 */
export function ginEntryKey(b: Uint8Array, tup: number, tupLen: number, oneCol: boolean, keyLen: readonly number[], keyAlign: readonly number[], span: GinKeySpan): boolean {
  const tInfo = IndexTupleData.get.t_info(b, tup);
  const size = Math.min(indexTupleSize(tInfo), tupLen);
  const end = tup + size;
  let off = tup + indexDataOffset(tInfo);
  const hasNulls = (tInfo & INDEX_NULL_MASK) !== 0;
  const bitmap = tup + SizeOfIndexTupleData;
  let keyAtt = 0; // attribute index of the key within the tuple
  span.attnum = 1;
  if (!oneCol) {
    if (off + 2 > end) return false;
    span.attnum = (b[off]! | (b[off + 1]! << 8)) & 0xffff;
    off += 2;
    keyAtt = 1;
  }
  const col = span.attnum - 1;
  if (col < 0 || col >= keyLen.length) return false;
  if (hasNulls && (b[bitmap + (keyAtt >> 3)]! & (1 << (keyAtt & 7))) === 0) {
    if (off + 1 > end) return false;
    span.category = b[off]!;
    span.off = off;
    span.len = 0;
    return span.category >= GIN_CAT_NULL_KEY && span.category <= GIN_CAT_NULL_ITEM;
  }
  span.category = GIN_CAT_NORM_KEY;
  const len = keyLen[col]!;
  const align = keyAlign[col]!;
  // att_align_pointer: a varlena with a short header is stored unaligned (pad bytes are zero)
  if (!(len === -1 && off < end && b[off] !== 0)) off = (off + align - 1) & ~(align - 1);
  if (off >= end) return false;
  const n = len > 0 ? len : len === -1 ? varsizeAnyAt(b, off, end) : cstringLen(b, off, end);
  if (n <= 0 || off + n > end) return false;
  span.off = off;
  span.len = n;
  return true;
}

function cstringLen(b: Uint8Array, off: number, end: number): number {
  for (let p = off; p < end; p++) if (b[p] === 0) return p - off + 1;
  return 0;
}
