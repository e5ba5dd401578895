// GIN page special space and metapage (src/include/access/ginblock.h). GIN has no page-id word:
// its 8-byte special space is told from SP-GiST's and BRIN's by their page ids (GIN flags use
// only the low byte).
import { defineStruct, i32, i64, pad, register, u16, u32, type InferStruct } from "../schema/index.js";
import { flagNames } from "./util.js";

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
