// Heap pages built from tuples (PageInit + PageAddItem semantics, src/backend/storage/page/bufpage.c):
// line pointers grow from the header, items are placed MAXALIGNed from the end of the page
// downwards, and an item fits only if its aligned size and one more line pointer fit between
// pd_lower and pd_upper. Also the in-place re-layout of an existing page that keeps every line
// pointer number (what a converter needs when some tuples change size).
import { FormatError } from "../schema/errors.js";
import { LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff, makeLp, SizeOfItemIdData } from "../page/item-id.js";
import { maxAlign, maxAlignDown, maxOffsetNumber, pageView, pdLower, pdSpecial } from "../page/page.js";
import { PageHeaderData, PG_PAGE_LAYOUT_VERSION, SizeOfPageHeaderData } from "../page/page-header.js";
import { SizeofHeapTupleHeader } from "./tuple-header.js";

const PH = PageHeaderData.offsets;

/** MaxHeapTuplesPerPage: (BLCKSZ - header) / (MAXALIGN(23) + sizeof(ItemIdData)); 291 for 8 KiB. */
export const maxHeapTuplesPerPage = (blockSize: number): number => Math.floor((blockSize - SizeOfPageHeaderData) / (maxAlign(SizeofHeapTupleHeader) + SizeOfItemIdData));
/** MaxHeapTupleSize: BLCKSZ - MAXALIGN(header + one line pointer); 8160 for 8 KiB. */
export const maxHeapTupleSize = (blockSize: number): number => blockSize - maxAlign(SizeOfPageHeaderData + SizeOfItemIdData);

/** TOAST_TUPLE_THRESHOLD: a new tuple longer than this goes through the toaster (4 tuples a page); 2032 for 8 KiB. */
export const toastTupleThreshold = (blockSize: number): number => maxAlignDown(Math.floor((blockSize - maxAlign(SizeOfPageHeaderData + 4 * SizeOfItemIdData)) / 4));

/** PageInit(page, blockSize, specialSize) into `page` (zeroed first). */
export function pageInit(page: Uint8Array, specialSize = 0): void {
  page.fill(0);
  const dv = pageView(page);
  const special = page.length - maxAlign(specialSize);
  dv.setUint16(PH.pd_lower, SizeOfPageHeaderData, true);
  dv.setUint16(PH.pd_upper, special, true);
  dv.setUint16(PH.pd_special, special, true);
  dv.setUint16(PH.pd_pagesize_version, page.length | PG_PAGE_LAYOUT_VERSION, true);
}

/** A heap page being filled with new tuples (PageAddItem at the next offset number, never a hole). */
export class HeapPageBuilder {
  readonly page: Uint8Array;
  readonly dv: DataView;
  private lower = SizeOfPageHeaderData;
  private upper: number;
  private readonly maxItems: number;

  constructor(readonly blockSize: number) {
    this.page = new Uint8Array(blockSize);
    this.dv = pageView(this.page);
    this.upper = blockSize;
    this.maxItems = maxHeapTuplesPerPage(blockSize);
    this.reset();
  }

  /** Start over with an empty page. */
  reset(): void {
    pageInit(this.page);
    this.lower = SizeOfPageHeaderData;
    this.upper = this.blockSize;
  }

  get nitems(): number {
    return (this.lower - SizeOfPageHeaderData) / SizeOfItemIdData;
  }
  get isEmpty(): boolean {
    return this.lower === SizeOfPageHeaderData;
  }
  /** pd_upper - pd_lower */
  get freeBytes(): number {
    return this.upper - this.lower;
  }

  /** Would PageAddItem accept an item of `len` bytes now? */
  fits(len: number): boolean {
    return this.nitems < this.maxItems && this.lower + SizeOfItemIdData <= this.upper - maxAlign(len);
  }

  /**
   * Reserve room for an item of `len` bytes and add its line pointer (LP_NORMAL); returns the
   * offset number and where its bytes go. The caller writes exactly `len` bytes there; the
   * alignment padding stays zero.
   */
  reserve(len: number): { offnum: number; off: number } {
    if (len <= 0 || !this.fits(len)) throw new FormatError("PAGE_ITEM_DOES_NOT_FIT", `item of ${len} bytes does not fit (pd_lower ${this.lower}, pd_upper ${this.upper})`);
    const off = this.upper - maxAlign(len);
    const offnum = this.nitems + 1;
    this.dv.setUint32(this.lower, makeLp(off, LP_NORMAL, len), true);
    this.lower += SizeOfItemIdData;
    this.upper = off;
    this.dv.setUint16(PH.pd_lower, this.lower, true);
    this.dv.setUint16(PH.pd_upper, this.upper, true);
    return { offnum, off };
  }

  /** PageAddItem of a whole tuple; returns its offset number. */
  add(tuple: Uint8Array): number {
    const r = this.reserve(tuple.length);
    this.page.set(tuple, r.off);
    return r.offnum;
  }

  setPruneXid(xid: number): void {
    this.dv.setUint32(PH.pd_prune_xid, xid >>> 0, true);
  }
  setFlags(flags: number): void {
    this.dv.setUint16(PH.pd_flags, flags, true);
  }
}

/**
 * Re-lay out an existing page with new bytes for some items, keeping every line pointer number,
 * flag, pd_lower, the header fields and the special space. Items keep their physical order (as
 * PageRepairFragmentation's compactify_tuples does): the item that was highest stays highest.
 * `replace` maps an offset number to the item's new bytes. Returns null when the items no longer
 * fit between pd_lower and pd_special (sum of MAXALIGN(lp_len)).
 */
export function relayoutPage(page: Uint8Array, replace: ReadonlyMap<number, Uint8Array>): Uint8Array | null {
  const dv = pageView(page);
  const lower = pdLower(dv);
  const special = pdSpecial(dv);
  const n = maxOffsetNumber(dv);
  const items: { offnum: number; oldOff: number; bytes: Uint8Array; flags: number }[] = [];
  let total = 0;
  for (let i = 1; i <= n; i++) {
    const w = dv.getUint32(SizeOfPageHeaderData + (i - 1) * SizeOfItemIdData, true);
    const flags = lpFlags(w);
    const len = lpLen(w);
    // LP_REDIRECT keeps its target in lp_off; LP_UNUSED and storage-less LP_DEAD have nothing to move.
    if (flags === LP_REDIRECT || flags === LP_UNUSED || len === 0) continue;
    const off = lpOff(w);
    if (off + len > special || off < lower) throw new FormatError("LP_OUT_OF_PAGE", `item ${i} at offset ${off} with length ${len} lies outside the page's item space (${lower}..${special})`, { item: i, offset: off });
    const bytes = replace.get(i) ?? page.subarray(off, off + len);
    items.push({ offnum: i, oldOff: off, bytes, flags });
    total += maxAlign(bytes.length);
  }
  for (const k of replace.keys()) if (!items.some((it) => it.offnum === k)) throw new RangeError(`item ${k} is not a stored item of the page`);
  if (lower + total > special) return null;
  const out = new Uint8Array(page.length);
  out.set(page.subarray(0, lower));
  out.set(page.subarray(special), special);
  const odv = pageView(out);
  items.sort((a, b) => b.oldOff - a.oldOff);
  let upper = special;
  for (const it of items) {
    upper -= maxAlign(it.bytes.length);
    out.set(it.bytes, upper);
    odv.setUint32(SizeOfPageHeaderData + (it.offnum - 1) * SizeOfItemIdData, makeLp(upper, it.flags, it.bytes.length), true);
  }
  odv.setUint16(PH.pd_upper, upper, true);
  return out;
}
