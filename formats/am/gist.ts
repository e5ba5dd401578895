// GiST page special space (src/include/access/gist.h). There is no metapage: block 0 is the root.
import { defineStruct, register, u16, u32, type InferStruct } from "../schema/index.js";
import { flagNames } from "./util.js";

export const GISTPageOpaqueData = register(
  defineStruct("GISTPageOpaqueData", "src/include/access/gist.h", [
    u32("nsn_xlogid", "NSN (PageGistNSN, stored like an LSN): high 32 bits; changes on page split"),
    u32("nsn_xrecoff", "NSN: low 32 bits"),
    u32("rightlink", "next page at this level, or InvalidBlockNumber"),
    u16("flags", "F_LEAF | F_DELETED | F_TUPLES_DELETED | F_FOLLOW_RIGHT | F_HAS_GARBAGE"),
    u16("gist_page_id", "GIST_PAGE_ID 0xFF81"),
  ] as const),
);
export type GISTPageOpaque = InferStruct<typeof GISTPageOpaqueData>;

export const GIST_PAGE_ID = 0xff81;
export const F_LEAF = 1 << 0;
export const F_DELETED = 1 << 1;
export const F_TUPLES_DELETED = 1 << 2;
export const F_FOLLOW_RIGHT = 1 << 3;
export const F_HAS_GARBAGE = 1 << 4;
/** gist_page_opaque_info's flag names, in its order. */
export const GIST_FLAG_NAMES = [
  [F_LEAF, "leaf"],
  [F_DELETED, "deleted"],
  [F_TUPLES_DELETED, "tuples_deleted"],
  [F_FOLLOW_RIGHT, "follow_right"],
  [F_HAS_GARBAGE, "has_garbage"],
] as const;
export const gistFlagNames = (flags: number): string[] => flagNames(flags, GIST_FLAG_NAMES);

/** GISTDeletedPageContents: a deleted page's FullTransactionId at PageGetContents. */
export const GIST_DELETED_XID_OFFSET = 24;
