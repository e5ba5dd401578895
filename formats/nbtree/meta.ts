// BTMetaPageData: block 0 of every nbtree index, at PageGetContents (offset 24), PG15 layout.
// sizeof is 48 in C: 4 bytes of alignment padding before the float8 and 7 after the bool.
// Both are declared so that a metapage round-trips byte for byte.
import { bool, defineStruct, f64, pad, register, u32, type InferStruct } from "../schema/index.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import { maxAlign } from "../page/page.js";

export const BTMetaPageData = register(
  defineStruct("BTMetaPageData", "src/include/access/nbtree.h", [
    u32("btm_magic", "BTREE_MAGIC 0x053162"),
    u32("btm_version", "nbtree version: 2, 3 or 4 (BTREE_VERSION)"),
    u32("btm_root", "current root block, P_NONE (0) for an empty index"),
    u32("btm_level", "tree level of the root page"),
    u32("btm_fastroot", "current fast root block"),
    u32("btm_fastlevel", "tree level of the fast root"),
    u32("btm_last_cleanup_num_delpages", "deleted, not yet recyclable pages at the last cleanup (version >= 3)"),
    pad("btm_pad_before_float8", 4),
    f64("btm_last_cleanup_num_heap_tuples", "deprecated; -1 since PostgreSQL 14 (version >= 3)"),
    bool("btm_allequalimage", "all key columns' opclasses are equalimage, so deduplication is safe"),
    pad("btm_pad_tail", 7),
  ] as const),
);
export type BTMetaPage = InferStruct<typeof BTMetaPageData>;

export const BTREE_METAPAGE = 0;
export const BTREE_MAGIC = 0x053162;
export const BTREE_VERSION = 4;
export const BTREE_MIN_VERSION = 2;
export const BTREE_NOVAC_VERSION = 3;
/** The metadata starts at PageGetContents: MAXALIGN(SizeOfPageHeaderData). */
export const BT_META_OFFSET = maxAlign(SizeOfPageHeaderData);

export function readBTMeta(page: Uint8Array): BTMetaPage {
  return BTMetaPageData.decode(page, BT_META_OFFSET);
}
