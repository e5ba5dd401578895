// BTPageOpaqueData: the 16-byte special space of every nbtree page (src/include/access/nbtree.h, PG15).
// In PG15 btpo_level is a plain uint32; deleted pages keep their safexid in BTDeletedPageData instead.
import { defineStruct, register, u16, u32, u64, type InferStruct } from "../schema/index.js";
import { pdSpecial } from "../page/page.js";

export const BTPageOpaqueData = register(
  defineStruct("BTPageOpaqueData", "src/include/access/nbtree.h", [
    u32("btpo_prev", "left sibling block, or P_NONE (0) if leftmost"),
    u32("btpo_next", "right sibling block, or P_NONE (0) if rightmost"),
    u32("btpo_level", "tree level, 0 for leaf pages (pre-v14 deleted pages: a 32-bit safexid)"),
    u16("btpo_flags", "BTP_* flag bits"),
    u16("btpo_cycleid", "vacuum cycle ID of the latest split, 0 if none; at most MAX_BT_CYCLE_ID"),
  ] as const),
);
export type BTPageOpaque = InferStruct<typeof BTPageOpaqueData>;
export const SizeOfBTPageOpaqueData = BTPageOpaqueData.size; // 16
export const BTO = BTPageOpaqueData.offsets;

/** BTDeletedPageData: what a deleted page (BTP_HAS_FULLXID) holds at offset 24. */
export const BTDeletedPageData = register(
  defineStruct("BTDeletedPageData", "src/include/access/nbtree.h", [
    u64("safexid", "FullTransactionId (epoch << 32 | xid) after which the page may be recycled"),
  ] as const),
);
export type BTDeletedPage = InferStruct<typeof BTDeletedPageData>;

export const BTP_LEAF = 1 << 0;
export const BTP_ROOT = 1 << 1;
export const BTP_DELETED = 1 << 2;
export const BTP_META = 1 << 3;
export const BTP_HALF_DEAD = 1 << 4;
export const BTP_SPLIT_END = 1 << 5;
export const BTP_HAS_GARBAGE = 1 << 6;
export const BTP_INCOMPLETE_SPLIT = 1 << 7;
export const BTP_HAS_FULLXID = 1 << 8;
/** The proposed BTP_PREFIX leaf format (new-formats.md §2.1); not a stock flag. */
export const BTP_PREFIX = 1 << 9;

export const BTP_FLAG_NAMES: [number, string][] = [
  [BTP_LEAF, "LEAF"],
  [BTP_ROOT, "ROOT"],
  [BTP_DELETED, "DELETED"],
  [BTP_META, "META"],
  [BTP_HALF_DEAD, "HALF_DEAD"],
  [BTP_SPLIT_END, "SPLIT_END"],
  [BTP_HAS_GARBAGE, "HAS_GARBAGE"],
  [BTP_INCOMPLETE_SPLIT, "INCOMPLETE_SPLIT"],
  [BTP_HAS_FULLXID, "HAS_FULLXID"],
  [BTP_PREFIX, "PREFIX"],
];
/** Names of the set flag bits; unknown bits as hex (0x...). */
export function btpoFlagNames(flags: number): string[] {
  const out: string[] = [];
  let rest = flags;
  for (const [bit, name] of BTP_FLAG_NAMES) {
    if (flags & bit) out.push(name);
    rest &= ~bit;
  }
  if (rest) out.push(`0x${rest.toString(16)}`);
  return out;
}

export const MAX_BT_CYCLE_ID = 0xff7f;
export const P_NONE = 0;
export const P_HIKEY = 1;
export const P_FIRSTKEY = 2;

export const pLeftmost = (o: Pick<BTPageOpaque, "btpo_prev">): boolean => o.btpo_prev === P_NONE;
export const pRightmost = (o: Pick<BTPageOpaque, "btpo_next">): boolean => o.btpo_next === P_NONE;
export const pIsLeaf = (flags: number): boolean => (flags & BTP_LEAF) !== 0;
export const pIsRoot = (flags: number): boolean => (flags & BTP_ROOT) !== 0;
export const pIsDeleted = (flags: number): boolean => (flags & BTP_DELETED) !== 0;
export const pIsMeta = (flags: number): boolean => (flags & BTP_META) !== 0;
export const pIsHalfDead = (flags: number): boolean => (flags & BTP_HALF_DEAD) !== 0;
/** P_IGNORE: deleted or half-dead. */
export const pIgnore = (flags: number): boolean => (flags & (BTP_DELETED | BTP_HALF_DEAD)) !== 0;
export const pHasFullXid = (flags: number): boolean => (flags & BTP_HAS_FULLXID) !== 0;

/** Stock P_FIRSTDATAKEY: 1 on the rightmost page (no high key), else 2. */
export const pFirstDataKey = (o: Pick<BTPageOpaque, "btpo_next">): number => (pRightmost(o) ? P_HIKEY : P_FIRSTKEY);

/** Offset of the special space; the opaque data sits there (pd_special). */
export function btOpaqueOffset(dv: DataView): number {
  return pdSpecial(dv);
}

/** Hot-path read of the opaque fields of a page (no binary-parser). */
export function readBTOpaque(dv: DataView): BTPageOpaque {
  const s = pdSpecial(dv);
  if (s + SizeOfBTPageOpaqueData > dv.byteLength) {
    return BTPageOpaqueData.decode(new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength), s); // throws STRUCT_TRUNCATED
  }
  return {
    btpo_prev: dv.getUint32(s + BTO.btpo_prev, true),
    btpo_next: dv.getUint32(s + BTO.btpo_next, true),
    btpo_level: dv.getUint32(s + BTO.btpo_level, true),
    btpo_flags: dv.getUint16(s + BTO.btpo_flags, true),
    btpo_cycleid: dv.getUint16(s + BTO.btpo_cycleid, true),
  };
}
