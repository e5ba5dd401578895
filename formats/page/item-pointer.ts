// ItemPointerData (TID): src/include/storage/itemptr.h. The block number is stored as two
// uint16 halves, high half first: it is not a little-endian uint32.
import { defineStruct, register, u16, type InferStruct } from "../schema/index.js";

export const ItemPointerData = register(
  defineStruct("ItemPointerData", "src/include/storage/itemptr.h", [
    u16("bi_hi", "block number, high 16 bits"),
    u16("bi_lo", "block number, low 16 bits"),
    u16("ip_posid", "offset number (1-based item number)"),
  ] as const),
);
export type ItemPointer = InferStruct<typeof ItemPointerData>;

export interface Tid {
  block: number;
  offset: number;
}
export const InvalidBlockNumber = 0xffffffff;

const tidGet = ItemPointerData.get;
/** The block number of the TID at `at`. */
export const tidBlockAt = (b: Uint8Array, at: number): number => tidGet.bi_hi(b, at) * 65536 + tidGet.bi_lo(b, at);
/** The offset number of the TID at `at`. */
export const tidOffsetAt = (b: Uint8Array, at: number): number => tidGet.ip_posid(b, at);
/** A TID as one number, block * 65536 + offset: exact below 2^53, a Set or Map key without a string. */
export const tidKey = (block: number, offset: number): number => block * 65536 + offset;
/** tidKey of the TID at `at`. */
export const tidKeyAt = (b: Uint8Array, at: number): number => tidBlockAt(b, at) * 65536 + tidGet.ip_posid(b, at);

/** Write the TID (block, offset) at `at` straight into the bytes (no DataView: the hot paths write one per tuple). */
export function setTidAt(b: Uint8Array, at: number, block: number, offset: number): void {
  const hi = Math.floor(block / 65536);
  b[at] = hi & 0xff;
  b[at + 1] = hi >>> 8;
  b[at + 2] = block & 0xff;
  b[at + 3] = (block >>> 8) & 0xff;
  b[at + 4] = offset & 0xff;
  b[at + 5] = offset >>> 8;
}

export function readTid(dv: DataView, off: number): Tid {
  return { block: dv.getUint16(off, true) * 65536 + dv.getUint16(off + 2, true), offset: dv.getUint16(off + 4, true) };
}
export function writeTid(dv: DataView, off: number, t: Tid): void {
  dv.setUint16(off, Math.floor(t.block / 65536), true);
  dv.setUint16(off + 2, t.block & 0xffff, true);
  dv.setUint16(off + 4, t.offset, true);
}
export const tidText = (t: Tid): string => `(${t.block},${t.offset})`;
/** tidText of a tidKey. */
export const tidKeyText = (k: number): string => `(${Math.floor(k / 65536)},${k % 65536})`;
/** tidText of the TID at `at`. */
export const tidTextAt = (b: Uint8Array, at: number): string => `(${tidBlockAt(b, at)},${tidOffsetAt(b, at)})`;
export function parseTid(s: string): Tid | null {
  const m = /^\(?\s*(\d+)\s*,\s*(\d+)\s*\)?$/.exec(s);
  return m ? { block: Number(m[1]), offset: Number(m[2]) } : null;
}
