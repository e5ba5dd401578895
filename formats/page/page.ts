// A page as bytes: header fields, line pointers and item bytes, read through the declarations'
// offsets with one DataView per page (no per-item allocation on the hot path).
import { FormatError } from "../schema/errors.js";
import { PageHeaderData, SizeOfPageHeaderData, type PageHeader } from "./page-header.js";
import { lpFlags, lpLen, lpOff, SizeOfItemIdData } from "./item-id.js";

export const BLCKSZ_DEFAULT = 8192;
export const MAXIMUM_ALIGNOF = 8;
export const maxAlign = (n: number): number => (n + 7) & ~7;
export const maxAlignDown = (n: number): number => n & ~7;
export const typeAlign = (n: number, align: number): number => (n + align - 1) & ~(align - 1);

const PH = PageHeaderData.offsets;

/** A DataView over the page's own bytes. */
export function pageView(page: Uint8Array): DataView {
  return new DataView(page.buffer, page.byteOffset, page.byteLength);
}

export function readPageHeader(page: Uint8Array): PageHeader {
  return PageHeaderData.decode(page, 0);
}

export const pdLower = (dv: DataView): number => dv.getUint16(PH.pd_lower, true);
export const pdUpper = (dv: DataView): number => dv.getUint16(PH.pd_upper, true);
export const pdSpecial = (dv: DataView): number => dv.getUint16(PH.pd_special, true);
export const pdFlags = (dv: DataView): number => dv.getUint16(PH.pd_flags, true);
export const pdChecksum = (dv: DataView): number => dv.getUint16(PH.pd_checksum, true);
export const pdPagesizeVersion = (dv: DataView): number => dv.getUint16(PH.pd_pagesize_version, true);

/** PageIsNew: pd_upper == 0 (an all-zero page is valid and empty). */
export const pageIsNew = (dv: DataView): boolean => pdUpper(dv) === 0;

export function pageIsAllZero(page: Uint8Array): boolean {
  if ((page.byteOffset & 3) === 0 && (page.byteLength & 3) === 0) {
    const w = new Uint32Array(page.buffer, page.byteOffset, page.byteLength >>> 2);
    for (let i = 0; i < w.length; i++) if (w[i] !== 0) return false;
    return true;
  }
  for (let i = 0; i < page.length; i++) if (page[i] !== 0) return false;
  return true;
}

/** PageGetMaxOffsetNumber: number of line pointers (0 when pd_lower <= 24). */
export function maxOffsetNumber(dv: DataView): number {
  const lower = pdLower(dv);
  return lower <= SizeOfPageHeaderData ? 0 : Math.floor((lower - SizeOfPageHeaderData) / SizeOfItemIdData);
}

/** The raw line pointer word of item `n` (1-based). */
export const itemIdWord = (dv: DataView, n: number): number => dv.getUint32(SizeOfPageHeaderData + (n - 1) * SizeOfItemIdData, true);
export const itemIdOffset = (n: number): number => SizeOfPageHeaderData + (n - 1) * SizeOfItemIdData;

export interface LinePointer {
  /** item number, 1-based */
  lp: number;
  lp_off: number;
  lp_flags: number;
  lp_len: number;
}

export function linePointer(dv: DataView, n: number): LinePointer {
  const w = itemIdWord(dv, n);
  return { lp: n, lp_off: lpOff(w), lp_flags: lpFlags(w), lp_len: lpLen(w) };
}

/** The item's bytes, bounds-checked against the page. */
export function itemBytes(page: Uint8Array, off: number, len: number, n?: number): Uint8Array {
  if (off + len > page.length || off < SizeOfPageHeaderData) {
    throw new FormatError("LP_OUT_OF_PAGE", `item ${n ?? "?"} at offset ${off} with length ${len} extends beyond the page (${page.length} bytes)`, { offset: off, item: n });
  }
  return page.subarray(off, off + len);
}

/** PageGetFreeSpace: pd_upper - pd_lower - sizeof(ItemIdData), floored at 0. */
export function pageFreeSpace(dv: DataView): number {
  const space = pdUpper(dv) - pdLower(dv);
  return space < SizeOfItemIdData ? 0 : space - SizeOfItemIdData;
}

/** PageGetExactFreeSpace: pd_upper - pd_lower. */
export const pageExactFreeSpace = (dv: DataView): number => Math.max(0, pdUpper(dv) - pdLower(dv));

/** Page size from pd_pagesize_version (high bits); version in the low byte. */
export const pageSizeOf = (dv: DataView): number => pdPagesizeVersion(dv) & 0xff00;
export const pageLayoutVersionOf = (dv: DataView): number => pdPagesizeVersion(dv) & 0x00ff;
