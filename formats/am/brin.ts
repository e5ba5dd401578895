// BRIN page special space and metapage (src/include/access/brin_page.h). The special space is one
// MAXALIGN unit (8 bytes) of uint16: the page type is the LAST half-word, the flags the one before.
import { defineStruct, pad, register, u8, u16, u32, type InferStruct } from "../schema/index.js";

export const BrinSpecialSpace = register(
  defineStruct("BrinSpecialSpace", "src/include/access/brin_page.h", [
    u16("vector_0", "unused"),
    u16("vector_1", "unused"),
    u16("flags", "vector[2]: BRIN_EVACUATE_PAGE"),
    u16("type", "vector[3]: BRIN_PAGETYPE_META 0xF091, _REVMAP 0xF092, _REGULAR 0xF093"),
  ] as const),
);
export type BrinSpecial = InferStruct<typeof BrinSpecialSpace>;

export const BRIN_PAGETYPE_META = 0xf091;
export const BRIN_PAGETYPE_REVMAP = 0xf092;
export const BRIN_PAGETYPE_REGULAR = 0xf093;
export const BRIN_EVACUATE_PAGE = 1 << 0;

export const BrinMetaPageData = register(
  defineStruct("BrinMetaPageData", "src/include/access/brin_page.h", [
    u32("brinMagic", "BRIN_META_MAGIC 0xA8109CFA"),
    u32("brinVersion", "BRIN_CURRENT_VERSION 1"),
    u32("pagesPerRange", "heap pages summarised by one range"),
    u32("lastRevmapPage", "block of the last revmap page"),
  ] as const),
);
export type BrinMetaPage = InferStruct<typeof BrinMetaPageData>;
export const BRIN_META_MAGIC = 0xa8109cfa;
export const BRIN_CURRENT_VERSION = 1;
export const BRIN_METAPAGE_BLKNO = 0;
export const BRIN_META_OFFSET = 24;

/** brin_page_type's text: meta, revmap, regular or "unknown (xx)". */
export function brinPageTypeName(type: number): string {
  switch (type) {
    case BRIN_PAGETYPE_META:
      return "meta";
    case BRIN_PAGETYPE_REVMAP:
      return "revmap";
    case BRIN_PAGETYPE_REGULAR:
      return "regular";
    default:
      return `unknown (${type.toString(16).padStart(2, "0")})`;
  }
}

/** RevmapContents: a revmap page's array of TIDs of range summaries at PageGetContents. */
export const BRIN_REVMAP_OFFSET = 24;
/** REVMAP_PAGE_MAXITEMS for 8 KiB pages: (BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BrinSpecialSpace))) / sizeof(ItemPointerData). */
export const brinRevmapMaxItems = (blockSize: number): number => Math.floor((blockSize - 24 - 8) / 6);

/** BrinTuple (src/include/access/brin_tuple.h): the header of a range summary on a regular page. */
export const BrinTupleData = register(
  defineStruct("BrinTuple", "src/include/access/brin_tuple.h", [
    u32("bt_blkno", "first heap block of the summarised range"),
    u8("bt_info", "data offset (BRIN_OFFSET_MASK 0x1F) | BRIN_EMPTY_RANGE_MASK 0x20 | BRIN_PLACEHOLDER_MASK 0x40 | BRIN_NULLS_MASK 0x80"),
    pad("pad", 3),
  ] as const),
);
export const BRIN_OFFSET_MASK = 0x1f;
export const BRIN_EMPTY_RANGE_MASK = 0x20;
export const BRIN_PLACEHOLDER_MASK = 0x40;
export const BRIN_NULLS_MASK = 0x80;
/** MAXALIGN(sizeof(BrinTuple)): the smallest data offset. */
export const SizeOfBrinTuple = 8;
