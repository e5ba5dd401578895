// Posting-list tuples (pg-format-facts.md §7.6; nbtdedup.c _bt_form_posting) and their expansion
// back into the plain tuples CREATE INDEX sorts (one per heap TID).
import { maxAlign, maxAlignDown } from "../page/page.js";
import { readTid, setTidAt, writeTid, type Tid } from "../page/item-pointer.js";
import { SizeOfItemIdData } from "../page/item-id.js";
import { FormatError } from "../schema/errors.js";
import { BT_IS_POSTING, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK, posidRaw, SizeOfItemPointerData, tInfoRaw } from "./index-tuple.js";

const dvOf = (t: Uint8Array): DataView => new DataView(t.buffer, t.byteOffset, t.byteLength);

/** maxpostingsize of a CREATE INDEX deduplication pass: MAXALIGN_DOWN(BLCKSZ / 10) - 4 (812 for 8 KiB). */
export const buildMaxPostingSize = (blcksz = 8192): number => maxAlignDown(Math.floor((blcksz * 10) / 100)) - SizeOfItemIdData;

/** Is this a posting-list tuple (INDEX_ALT_TID_MASK with BT_IS_POSTING)? */
export const isPostingTuple = (t: Uint8Array): boolean => (tInfoRaw(t) & INDEX_ALT_TID_MASK) !== 0 && (posidRaw(t) & BT_IS_POSTING) !== 0;

/**
 * _bt_form_posting: base's key part (its MAXALIGNed size, a plain tuple) followed by the TIDs;
 * with one TID, a plain tuple with that t_tid. A TID is given as a Tid or as a plain tuple whose
 * t_tid is copied (the build passes the tuples it merges).
 */
export function formPosting(base: Uint8Array, tids: readonly (Tid | Uint8Array)[]): Uint8Array {
  const keysize = tInfoRaw(base) & INDEX_SIZE_MASK;
  if (keysize !== maxAlign(keysize)) throw new FormatError("BT_POSTING_BASE_UNALIGNED", `posting base of ${keysize} bytes is not MAXALIGNed`);
  const size = tids.length > 1 ? maxAlign(keysize + tids.length * SizeOfItemPointerData) : keysize;
  if (size > INDEX_SIZE_MASK) throw new FormatError("BT_POSTING_TOO_LARGE", `posting tuple of ${size} bytes does not fit t_info`);
  const out = new Uint8Array(size);
  out.set(base.subarray(0, keysize));
  const dv = dvOf(out);
  const info = (tInfoRaw(base) & ~INDEX_SIZE_MASK) | size;
  if (tids.length > 1) {
    dv.setUint16(6, info | INDEX_ALT_TID_MASK, true);
    writeTid(dv, 0, { block: keysize, offset: tids.length | BT_IS_POSTING });
    for (let i = 0; i < tids.length; i++) putTid(out, dv, keysize + i * SizeOfItemPointerData, tids[i]!);
  } else {
    dv.setUint16(6, info & ~INDEX_ALT_TID_MASK, true);
    putTid(out, dv, 0, tids[0]!);
  }
  return out;
}

/**
 * formPosting for the build: the base tuple at base[at] (its t_info's size, MAXALIGNed) and
 * `count` >= 2 heap TIDs packed six bytes each in tids[0, 6 count), without an object per TID.
 */
export function formPostingPacked(base: Uint8Array, at: number, tids: Uint8Array, count: number): Uint8Array {
  const info0 = base[at + 6]! | (base[at + 7]! << 8);
  const keysize = info0 & INDEX_SIZE_MASK;
  if (keysize !== maxAlign(keysize)) throw new FormatError("BT_POSTING_BASE_UNALIGNED", `posting base of ${keysize} bytes is not MAXALIGNed`);
  const size = maxAlign(keysize + count * SizeOfItemPointerData);
  if (size > INDEX_SIZE_MASK) throw new FormatError("BT_POSTING_TOO_LARGE", `posting tuple of ${size} bytes does not fit t_info`);
  const out = new Uint8Array(size);
  for (let i = 0; i < keysize; i++) out[i] = base[at + i]!;
  setTidAt(out, 0, keysize, count | BT_IS_POSTING);
  const info = (info0 & ~INDEX_SIZE_MASK) | size | INDEX_ALT_TID_MASK;
  out[6] = info & 0xff;
  out[7] = info >>> 8;
  for (let i = 0, n = count * SizeOfItemPointerData; i < n; i++) out[keysize + i] = tids[i]!;
  return out;
}

/** A TID at `at`: written from a Tid, or copied from a plain tuple's t_tid (its first 6 bytes). */
function putTid(out: Uint8Array, dv: DataView, at: number, t: Tid | Uint8Array): void {
  if (t instanceof Uint8Array) for (let k = 0; k < SizeOfItemPointerData; k++) out[at + k] = t[k]!;
  else writeTid(dv, at, t);
}

/** A plain tuple's bytes with another heap TID. */
export function withHeapTid(t: Uint8Array, tid: Tid): Uint8Array {
  const out = t.slice();
  writeTid(dvOf(out), 0, tid);
  return out;
}

/**
 * The plain tuples a posting tuple stands for (its key part with each TID in turn, as CREATE
 * INDEX formed them before deduplicating); a plain tuple comes back alone.
 */
export function expandPosting(t: Uint8Array): Uint8Array[] {
  if (!isPostingTuple(t)) return [t];
  const dv = dvOf(t);
  const off = dv.getUint16(0, true) * 65536 + dv.getUint16(2, true);
  const n = posidRaw(t) & 0x0fff;
  if (off + n * SizeOfItemPointerData > t.length || off < 8) {
    throw new FormatError("BT_POSTING_OUT_OF_TUPLE", `posting list at ${off} with ${n} TIDs does not lie within the ${t.length}-byte tuple`, { offset: off });
  }
  const info = (tInfoRaw(t) & ~(INDEX_SIZE_MASK | INDEX_ALT_TID_MASK)) | off;
  const out: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const p = new Uint8Array(off);
    p.set(t.subarray(0, off));
    const pv = dvOf(p);
    writeTid(pv, 0, readTid(dv, off + i * SizeOfItemPointerData));
    pv.setUint16(6, info, true);
    out[i] = p;
  }
  return out;
}
