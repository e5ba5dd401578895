// Hash index pages (src/include/access/hash.h): the 16-byte special space on every page and the
// metapage (block 0) at PageGetContents. pd_lower of the metapage points past HashMetaPageData.
import { bytes, defineStruct, f64, register, u16, u32, type InferStruct } from "../schema/index.js";
import { u32Array } from "./util.js";

export const HashPageOpaqueData = register(
  defineStruct("HashPageOpaqueData", "src/include/access/hash.h", [
    u32("hasho_prevblkno", "previous overflow page of the bucket chain (bucket pages: hashm_maxbucket at the last split)"),
    u32("hasho_nextblkno", "next overflow page, or InvalidBlockNumber"),
    u32("hasho_bucket", "bucket number this page belongs to"),
    u16("hasho_flag", "page type (LH_PAGE_TYPE bits) | LH_BUCKET_* / LH_PAGE_HAS_DEAD_TUPLES flags"),
    u16("hasho_page_id", "HASHO_PAGE_ID 0xFF80"),
  ] as const),
);
export type HashPageOpaque = InferStruct<typeof HashPageOpaqueData>;

export const HASHO_PAGE_ID = 0xff80;
export const LH_UNUSED_PAGE = 0;
export const LH_OVERFLOW_PAGE = 1 << 0;
export const LH_BUCKET_PAGE = 1 << 1;
export const LH_BITMAP_PAGE = 1 << 2;
export const LH_META_PAGE = 1 << 3;
export const LH_BUCKET_BEING_POPULATED = 1 << 4;
export const LH_BUCKET_BEING_SPLIT = 1 << 5;
export const LH_BUCKET_NEEDS_SPLIT_CLEANUP = 1 << 6;
export const LH_PAGE_HAS_DEAD_TUPLES = 1 << 7;
export const LH_PAGE_TYPE = LH_OVERFLOW_PAGE | LH_BUCKET_PAGE | LH_BITMAP_PAGE | LH_META_PAGE;

export const HASH_MAGIC = 0x6440640;
export const HASH_VERSION = 4;
/** ((32 - 10) * 4) + 10 */
export const HASH_MAX_SPLITPOINTS = 98;
/** Min(BLCKSZ / 8, 1024) for 8 KiB blocks */
export const HASH_MAX_BITMAPS = 1024;

export const HashMetaPageData = register(
  defineStruct("HashMetaPageData", "src/include/access/hash.h", [
    u32("hashm_magic", "HASH_MAGIC 0x6440640"),
    u32("hashm_version", "HASH_VERSION 4"),
    f64("hashm_ntuples", "number of tuples stored in the index"),
    u16("hashm_ffactor", "target fill factor (tuples per bucket)"),
    u16("hashm_bsize", "index page size usable for tuples (bytes)"),
    u16("hashm_bmsize", "bitmap array size in bytes (a power of 2)"),
    u16("hashm_bmshift", "log2(bitmap array size in bits)"),
    u32("hashm_maxbucket", "ID of the highest bucket in use"),
    u32("hashm_highmask", "mask to modulo into the entire table"),
    u32("hashm_lowmask", "mask to modulo into the lower half of the table"),
    u32("hashm_ovflpoint", "splitpoint from which overflow pages are being allocated"),
    u32("hashm_firstfree", "lowest-numbered free overflow page (bit number)"),
    u32("hashm_nmaps", "number of bitmap pages"),
    u32("hashm_procid", "hash function OID (pg_proc)"),
    bytes("hashm_spares", HASH_MAX_SPLITPOINTS * 4, "uint32[98]: overflow pages allocated at or before each splitpoint"),
    bytes("hashm_mapp", HASH_MAX_BITMAPS * 4, "BlockNumber[1024]: blocks of the overflow bitmap pages"),
  ] as const),
);
export type HashMetaPage = InferStruct<typeof HashMetaPageData>;
/** HashPageGetMeta: PageGetContents = MAXALIGN(24) */
export const HASH_META_OFFSET = 24;

export const hashSpares = (m: HashMetaPage): number[] => u32Array(m.hashm_spares);
export const hashMapp = (m: HashMetaPage): number[] => u32Array(m.hashm_mapp);

/** hash_page_type's names for the LH_PAGE_TYPE bits. */
export function hashPageTypeName(hashoFlag: number): "metapage" | "overflow" | "bucket" | "bitmap" | "unused" {
  switch (hashoFlag & LH_PAGE_TYPE) {
    case LH_META_PAGE:
      return "metapage";
    case LH_OVERFLOW_PAGE:
      return "overflow";
    case LH_BUCKET_PAGE:
      return "bucket";
    case LH_BITMAP_PAGE:
      return "bitmap";
    default:
      return "unused";
  }
}

/** A hash index tuple: IndexTupleData, then the uint32 hash code (hash indexes store no nulls). */
export const HashIndexTupleData = register(
  defineStruct("HashIndexTupleData", "src/include/access/hash.h", [
    bytes("header", 8, "IndexTupleData: t_tid (heap TID) and t_info"),
    u32("hashkey", "the key's hash code (_hash_get_indextuple_hashkey)"),
  ] as const),
);

const HASH_SPLITPOINT_PHASE_BITS = 2;
const HASH_SPLITPOINT_PHASE_MASK = (1 << HASH_SPLITPOINT_PHASE_BITS) - 1;
const HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE = 10;
const ceilLog2 = (n: number): number => (n <= 1 ? 0 : 32 - Math.clz32(n - 1));

/** _hash_spareindex: the splitpoint phase at which bucket count `numBucket` was reached. */
export function hashSpareIndex(numBucket: number): number {
  const group = ceilLog2(numBucket);
  if (group < HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE) return group;
  return (
    HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE +
    ((group - HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE) << HASH_SPLITPOINT_PHASE_BITS) +
    (((numBucket - 1) >>> (group - (HASH_SPLITPOINT_PHASE_BITS + 1))) & HASH_SPLITPOINT_PHASE_MASK)
  );
}

/** BUCKET_TO_BLKNO: the primary page of bucket `b` (after the overflow pages allocated before its splitpoint). */
export const hashBucketBlock = (spares: readonly number[], b: number): number => b + (b ? spares[hashSpareIndex(b + 1) - 1]! : 0) + 1;

/** _hash_hashkey2bucket: the bucket a hash code belongs to. */
export function hashKeyBucket(hashkey: number, maxbucket: number, highmask: number, lowmask: number): number {
  let bucket = (hashkey & highmask) >>> 0;
  if (bucket > maxbucket) bucket = (bucket & lowmask) >>> 0;
  return bucket;
}
