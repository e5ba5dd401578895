// ItemIdData (line pointer): src/include/storage/itemid.h. Three C bit fields in one
// little-endian 32-bit word, allocated from the least significant bit.
import { bits32, defineStruct, register, type InferStruct } from "../schema/index.js";

export const ItemIdData = register(
  defineStruct("ItemIdData", "src/include/storage/itemid.h", [
    bits32("lp_word", { lp_off: 15, lp_flags: 2, lp_len: 15 }, "line pointer word", {
      lp_off: "offset of the item from the page start (LP_REDIRECT: the target item number)",
      lp_flags: "0 LP_UNUSED, 1 LP_NORMAL, 2 LP_REDIRECT, 3 LP_DEAD",
      lp_len: "length of the item in bytes (unaligned)",
    }),
  ] as const),
);
export type ItemId = InferStruct<typeof ItemIdData>;

export const LP_UNUSED = 0;
export const LP_NORMAL = 1;
export const LP_REDIRECT = 2;
export const LP_DEAD = 3;
export const LP_FLAG_NAMES = ["UNUSED", "NORMAL", "REDIRECT", "DEAD"] as const;
export const SizeOfItemIdData = ItemIdData.size; // 4

// Hot-path accessors: the same bit layout as the declaration, read straight from a word.
export const lpOff = (w: number): number => w & 0x7fff;
export const lpFlags = (w: number): number => (w >>> 15) & 3;
export const lpLen = (w: number): number => w >>> 17;
export const makeLp = (off: number, flags: number, len: number): number => (off | (flags << 15) | (len << 17)) >>> 0;
