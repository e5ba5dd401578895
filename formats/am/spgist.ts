// SP-GiST page special space and metapage (src/include/access/spgist_private.h).
import { bytes, defineStruct, register, u16, u32, type InferStruct } from "../schema/index.js";
import { flagNames } from "./util.js";

export const SpGistPageOpaqueData = register(
  defineStruct("SpGistPageOpaqueData", "src/include/access/spgist_private.h", [
    u16("flags", "SPGIST_META | SPGIST_DELETED | SPGIST_LEAF | SPGIST_NULLS"),
    u16("nRedirection", "number of redirection tuples on the page"),
    u16("nPlaceholder", "number of placeholder tuples on the page"),
    u16("spgist_page_id", "SPGIST_PAGE_ID 0xFF82"),
  ] as const),
);
export type SpGistPageOpaque = InferStruct<typeof SpGistPageOpaqueData>;

export const SPGIST_PAGE_ID = 0xff82;
export const SPGIST_META = 1 << 0;
export const SPGIST_DELETED = 1 << 1;
export const SPGIST_LEAF = 1 << 2;
export const SPGIST_NULLS = 1 << 3;
export const SPGIST_FLAG_NAMES = [
  [SPGIST_META, "meta"],
  [SPGIST_DELETED, "deleted"],
  [SPGIST_LEAF, "leaf"],
  [SPGIST_NULLS, "nulls"],
] as const;
export const spgistFlagNames = (flags: number): string[] => flagNames(flags, SPGIST_FLAG_NAMES);

export const SPGIST_METAPAGE_BLKNO = 0;
export const SPGIST_ROOT_BLKNO = 1;
export const SPGIST_NULL_BLKNO = 2;
export const SPGIST_MAGIC_NUMBER = 0xba0babee;
export const SPGIST_CACHED_PAGES = 8;

export const SpGistMetaPageData = register(
  defineStruct("SpGistMetaPageData", "src/include/access/spgist_private.h", [
    u32("magicNumber", "SPGIST_MAGIC_NUMBER 0xBA0BABEE"),
    bytes("lastUsedPages", SPGIST_CACHED_PAGES * 8, "SpGistLUPCache: 8 x {BlockNumber blkno; int freeSpace}"),
  ] as const),
);
export type SpGistMetaPage = InferStruct<typeof SpGistMetaPageData>;
export const SPGIST_META_OFFSET = 24;
