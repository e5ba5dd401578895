// BRIN page special space and metapage (src/include/access/brin_page.h). The special space is one
// MAXALIGN unit (8 bytes) of uint16: the page type is the LAST half-word, the flags the one before.
import { defineStruct, pad, register, u8, u16, u32, type InferStruct } from "../schema/index.js";
import { readVarlenaHeader } from "../varlena/varlena.js";

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
/** brin_tuple.h's SizeOfBrinTuple (offsetof(bt_info) + 1): where the null bitmap starts, inside the struct's padding. */
export const BRIN_NULL_BITMAP_OFFSET = BrinTupleData.offsets.bt_info + 1;

/** BRIN_PROCNUM_OPCINFO: the support function that says what an opclass stores */
export const BRIN_OPCINFO_PROC = 1;
/** The opcinfo support functions (support 1) of the built-in BRIN opclass families, and what each stores per column. */
export const BRIN_MINMAX_OPCINFO = 3383;
export const BRIN_INCLUSION_OPCINFO = 4105;
export const BRIN_BLOOM_OPCINFO = 4591;
export const BRIN_MINMAX_MULTI_OPCINFO = 4616;
const BOOLOID = 16;
/** pg_brin_bloom_summary and pg_brin_minmax_multi_summary */
const BRIN_BLOOM_SUMMARY = 4600;
const BRIN_MINMAX_MULTI_SUMMARY = 4601;

/**
 * The stored types (oi_typcache) of one index column whose opclass's opcinfo is `opcinfo` and
 * whose index attribute type is `typid`: minmax its minimum and maximum, inclusion the union
 * and its unmergeable and contains-empty flags, bloom and minmax-multi one summary; undefined
 * for an opcinfo pgdisk does not know.
 */
export function brinStoredTypes(opcinfo: number | undefined, typid: number): number[] | undefined {
  switch (opcinfo) {
    case BRIN_MINMAX_OPCINFO:
      return [typid, typid];
    case BRIN_INCLUSION_OPCINFO:
      return [typid, BOOLOID, BOOLOID];
    case BRIN_BLOOM_OPCINFO:
      return [BRIN_BLOOM_SUMMARY];
    case BRIN_MINMAX_MULTI_OPCINFO:
      return [BRIN_MINMAX_MULTI_SUMMARY];
    default:
      return undefined;
  }
}

/** One column of a deformed BrinTuple: its null bits and its stored datums' [offset, length) in the buffer. */
export interface BrinColumn {
  allnulls: boolean;
  hasnulls: boolean;
  datums: { off: number; len: number }[];
}

/** A stored type's attlen and alignment in bytes. */
export interface BrinStoredShape {
  len: number;
  align: number;
}

/** A stored type and its shape. */
export interface BrinStoredType extends BrinStoredShape {
  typid: number;
}

/**
 * brin_deconstruct_tuple: the BrinTuple at `tup` (its item length `itemLen`) as columns. With
 * BRIN_NULLS_MASK a bitmap follows bt_info: bit k set means column k is all nulls, bit
 * natts + k that it has nulls (read, as the server reads it, only when it is not all nulls). Each column that is not all nulls stores its datums in turn,
 * aligned as their types are; `stored` gives each column's stored types' shapes. Null when
 * a column's datums do not fit in the item or a column's stored types are unknown (the
 * columns before it are returned in `columns` all the same). A broken varlena header throws
 * FormatError.
 */
export function brinDeform(b: Uint8Array, tup: number, itemLen: number, stored: readonly (readonly BrinStoredShape[] | undefined)[], columns: BrinColumn[]): boolean {
  const info = BrinTupleData.get.bt_info(b, tup);
  const natts = stored.length;
  const nulls = (info & BRIN_NULLS_MASK) !== 0;
  const bitmap = tup + BRIN_NULL_BITMAP_OFFSET;
  const bit = (k: number): boolean => nulls && (b[bitmap + (k >> 3)]! & (1 << (k & 7))) !== 0;
  const end = tup + itemLen;
  const data = tup + (info & BRIN_OFFSET_MASK);
  let off = 0;
  for (let k = 0; k < natts; k++) {
    // brin_deform_tuple reads the has-nulls bit only of a column that is not all nulls
    const allnulls = bit(k);
    const col: BrinColumn = { allnulls, hasnulls: !allnulls && bit(natts + k), datums: [] };
    columns.push(col);
    if (col.allnulls) continue;
    const shapes = stored[k];
    if (!shapes) return false;
    for (const s of shapes) {
      // a varlena with a short header is stored unaligned (att_align_pointer)
      if (!(s.len === -1 && b[data + off] !== 0)) off = (off + s.align - 1) & ~(s.align - 1);
      const at = data + off;
      if (at >= end) return false;
      let len = s.len;
      if (len === -1) len = readVarlenaHeader(b, at, end).total;
      else if (len === -2) {
        const nul = b.indexOf(0, at);
        len = nul < 0 || nul >= end ? 0 : nul - at + 1;
      }
      if (len <= 0 || at + len > end) return false;
      col.datums.push({ off: at, len });
      off += len;
    }
  }
  return true;
}
