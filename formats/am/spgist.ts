// SP-GiST page special space, metapage and tuples (src/include/access/spgist_private.h).
import { bits32, bytes, defineStruct, nest, register, u16, u32, type InferStruct } from "../schema/index.js";
import { ItemPointerData } from "../page/item-pointer.js";
import { maxAlign } from "../page/page.js";
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

// SP-GiST tuples (src/include/access/spgist_private.h). Every kind starts with the same 32-bit
// word whose two low bits are tupstate (GCC allocates C bit fields from the least significant
// bit): a live tuple is an inner tuple on an inner page and a leaf tuple on a leaf page; any
// other state is a SpGistDeadTupleData, on either kind of page.
export const SPGIST_LIVE = 0;
export const SPGIST_REDIRECT = 1;
export const SPGIST_DEAD = 2;
export const SPGIST_PLACEHOLDER = 3;
export const SPGIST_TUPSTATE_NAMES = ["live", "redirect", "dead", "placeholder"] as const;

export const SpGistInnerTupleData = register(
  defineStruct("SpGistInnerTupleData", "src/include/access/spgist_private.h", [
    bits32("header", { tupstate: 2, allTheSame: 1, nNodes: 13, prefixSize: 16 }, "the inner tuple's bit fields", {
      tupstate: "SPGIST_LIVE 0, SPGIST_REDIRECT 1, SPGIST_DEAD 2, SPGIST_PLACEHOLDER 3",
      allTheSame: "1 when all nodes of the tuple are equivalent",
      nNodes: "number of node tuples (SGITMAXNNODES 0x1FFF)",
      prefixSize: "size of the prefix datum (MAXALIGNed), 0 when there is none",
    }),
    u16("size", "total size of the inner tuple: header, prefix and nodes"),
  ] as const),
);
export type SpGistInnerTuple = InferStruct<typeof SpGistInnerTupleData>;
/** SGITHDRSZ: the prefix (then the nodes) starts at the MAXALIGNed header size. */
export const SGITHDRSZ = maxAlign(SpGistInnerTupleData.size);

/**
 * A leaf tuple's header. The 16-bit word after the size is nextOffset (the next tuple of the
 * parent node's chain, on the same page; 0 ends it). PostgreSQL 13 calls it nextOffset and uses
 * all 16 bits; from 14 it is t_info: SGLT_GET_NEXTOFFSET is t_info & 0x3FFF and 0x8000 says a
 * null bitmap follows (VersionProfile.spgistLeafNextOffsetMask chooses).
 */
export const SpGistLeafTupleData = register(
  defineStruct("SpGistLeafTupleData", "src/include/access/spgist_private.h", [
    bits32("header", { tupstate: 2, size: 30 }, "the leaf tuple's bit fields", {
      tupstate: "SPGIST_LIVE 0 (other states use SpGistDeadTupleData)",
      size: "total size of the leaf tuple (MAXALIGNed, at least SGDTSIZE)",
    }),
    u16("t_info", "nextOffset (PG13: the whole word; PG14+: t_info & 0x3FFF, 0x8000 = a null bitmap follows)"),
    nest("heapPtr", ItemPointerData, "TID of the heap tuple the leaf tuple stands for"),
  ] as const),
);
export type SpGistLeafTuple = InferStruct<typeof SpGistLeafTupleData>;
/** SGLT_GET_HASNULLMASK (PostgreSQL 14+). */
export const SGLT_HASNULLMASK = 0x8000;

export const SpGistDeadTupleData = register(
  defineStruct("SpGistDeadTupleData", "src/include/access/spgist_private.h", [
    bits32("header", { tupstate: 2, size: 30 }, "the dead tuple's bit fields", {
      tupstate: "SPGIST_REDIRECT 1, SPGIST_DEAD 2 or SPGIST_PLACEHOLDER 3",
      size: "SGDTSIZE",
    }),
    u16("t_info", "not used in dead tuples (nextOffset / t_info of a leaf tuple)"),
    nest("pointer", ItemPointerData, "REDIRECT: where the tuple moved to (inside the index); invalid otherwise"),
    u32("xid", "REDIRECT: ID of the transaction that made the redirect"),
  ] as const),
);
export type SpGistDeadTuple = InferStruct<typeof SpGistDeadTupleData>;
/** SGDTSIZE: MAXALIGN(sizeof(SpGistDeadTupleData)), the size of every redirect, dead and placeholder tuple. */
export const SGDTSIZE = maxAlign(SpGistDeadTupleData.size);

// Hot-path accessors of the common first word (the declarations' bit layout).
/** tupstate of the tuple at `at`. */
export const sgTupstateAt = (b: Uint8Array, at: number): number => b[at]! & 3;
/** the 30-bit size of a leaf or dead tuple at `at`. */
export const sgLeafSizeAt = (b: Uint8Array, at: number): number => SpGistLeafTupleData.get.header(b, at) >>> 2;
/** allTheSame, nNodes and prefixSize of an inner tuple's first word. */
export const sgitAllTheSame = (w: number): number => (w >>> 2) & 1;
export const sgitNNodes = (w: number): number => (w >>> 3) & 0x1fff;
export const sgitPrefixSize = (w: number): number => w >>> 16;
