// A btree page as CREATE INDEX (nbtsort.c) writes it, operation by operation (pg-format-facts.md
// §7.9): PageInit with the 16-byte special space and slot 1 reserved for the high key, items
// appended at decreasing addresses (PageAddItem), the last item moved into the high key slot and,
// on leaves, overwritten in place by its truncated form (PageIndexTupleOverwrite, which leaves the
// truncated bytes behind in the free space), and the rightmost page's slots slid left by one
// (_bt_slideleft, which leaves a stale copy of the last slot behind pd_lower). Replaying these
// operations is what makes the result byte-identical to REINDEX, free-space leftovers included.
import { lpFlags, lpLen, lpOff, LP_NORMAL, makeLp, SizeOfItemIdData } from "../page/item-id.js";
import { maxAlign } from "../page/page.js";
import { PageHeaderData, PG_PAGE_LAYOUT_VERSION, SizeOfPageHeaderData } from "../page/page-header.js";
import { FormatError } from "../schema/errors.js";
import { BTO, BTP_LEAF, SizeOfBTPageOpaqueData } from "./opaque.js";
import { BTMetaPageData, BT_META_OFFSET, BTREE_MAGIC, BTREE_VERSION } from "./meta.js";
import { BTP_META } from "./opaque.js";

const PH = PageHeaderData.offsets;

/** PageInit(page, blcksz, 16) plus the btree opaque fields; returns the zeroed page. */
export function initBtreePage(blcksz: number, level: number, flags: number): Uint8Array {
  const page = new Uint8Array(blcksz);
  const dv = new DataView(page.buffer);
  const special = blcksz - maxAlign(SizeOfBTPageOpaqueData);
  dv.setUint16(PH.pd_lower, SizeOfPageHeaderData, true);
  dv.setUint16(PH.pd_upper, special, true);
  dv.setUint16(PH.pd_special, special, true);
  dv.setUint16(PH.pd_pagesize_version, blcksz | PG_PAGE_LAYOUT_VERSION, true);
  dv.setUint32(special + BTO.btpo_level, level, true);
  dv.setUint16(special + BTO.btpo_flags, flags, true);
  return page;
}

/** _bt_initmetapage: the metapage CREATE INDEX writes last. */
export function buildMetaPage(blcksz: number, root: number, level: number, allequalimage: boolean): Uint8Array {
  const page = initBtreePage(blcksz, 0, BTP_META);
  BTMetaPageData.encodeInto(
    {
      btm_magic: BTREE_MAGIC,
      btm_version: BTREE_VERSION,
      btm_root: root,
      btm_level: level,
      btm_fastroot: root,
      btm_fastlevel: level,
      btm_last_cleanup_num_delpages: 0,
      btm_pad_before_float8: new Uint8Array(4),
      btm_last_cleanup_num_heap_tuples: -1,
      btm_allequalimage: allequalimage,
      btm_pad_tail: new Uint8Array(7),
    },
    page,
    BT_META_OFFSET,
  );
  new DataView(page.buffer).setUint16(PH.pd_lower, BT_META_OFFSET + BTMetaPageData.size, true);
  return page;
}

export class StockPage {
  readonly page: Uint8Array;
  private readonly dv: DataView;
  private lower: number;
  private upper: number;
  readonly special: number;

  /** _bt_blnewpage(level): a fresh page with slot 1 reserved for the high key. */
  constructor(
    readonly blcksz: number,
    readonly level: number,
  ) {
    this.page = initBtreePage(blcksz, level, level > 0 ? 0 : BTP_LEAF);
    this.dv = new DataView(this.page.buffer);
    this.special = blcksz - maxAlign(SizeOfBTPageOpaqueData);
    this.lower = SizeOfPageHeaderData + SizeOfItemIdData;
    this.upper = this.special;
    this.sync();
  }

  private sync(): void {
    this.dv.setUint16(PH.pd_lower, this.lower, true);
    this.dv.setUint16(PH.pd_upper, this.upper, true);
  }

  /** PageGetMaxOffsetNumber */
  get maxOffset(): number {
    return (this.lower - SizeOfPageHeaderData) / SizeOfItemIdData;
  }
  /** PageGetFreeSpace: pd_upper - pd_lower - one line pointer, at least 0. */
  get freeSpace(): number {
    const s = this.upper - this.lower;
    return s < SizeOfItemIdData ? 0 : s - SizeOfItemIdData;
  }

  private slotAt(off: number): number {
    return SizeOfPageHeaderData + (off - 1) * SizeOfItemIdData;
  }
  itemId(off: number): number {
    return this.dv.getUint32(this.slotAt(off), true);
  }
  item(off: number): Uint8Array {
    const w = this.itemId(off);
    return this.page.subarray(lpOff(w), lpOff(w) + lpLen(w));
  }

  /** PageAddItem at the next offset: `size` bytes of `item` (zero-padded) at MAXALIGNed space. */
  add(item: Uint8Array, size: number): number {
    const aligned = maxAlign(size);
    if (this.upper - aligned < this.lower + SizeOfItemIdData) throw new FormatError("BT_BUILD_PAGE_FULL", `item of ${size} bytes does not fit (${this.upper - this.lower} bytes free)`);
    this.upper -= aligned;
    this.page.set(size <= item.length ? item.subarray(0, size) : item, this.upper);
    const off = this.maxOffset + 1;
    this.lower += SizeOfItemIdData;
    this.dv.setUint32(this.slotAt(off), makeLp(this.upper, LP_NORMAL, size), true);
    this.sync();
    return off;
  }

  /** add() of the `size` bytes at buf[off] (at most `len` of them there, the rest zero), without a view of them. */
  addFrom(buf: Uint8Array, off: number, len: number, size: number): number {
    const aligned = maxAlign(size);
    if (this.upper - aligned < this.lower + SizeOfItemIdData) throw new FormatError("BT_BUILD_PAGE_FULL", `item of ${size} bytes does not fit (${this.upper - this.lower} bytes free)`);
    this.upper -= aligned;
    const page = this.page;
    const at = this.upper;
    const n = Math.min(len, size);
    if (n <= 64) for (let i = 0; i < n; i++) page[at + i] = buf[off + i]!;
    else page.set(buf.subarray(off, off + n), at);
    const slot = this.maxOffset + 1;
    this.lower += SizeOfItemIdData;
    this.dv.setUint32(this.slotAt(slot), makeLp(this.upper, LP_NORMAL, size), true);
    this.sync();
    return slot;
  }

  /** The last item's line pointer becomes the high key's (slot 1); its own slot is cleared. */
  moveLastToHighKey(): void {
    const last = this.maxOffset;
    this.dv.setUint32(this.slotAt(1), this.itemId(last), true);
    this.dv.setUint32(this.slotAt(last), 0, true);
    this.lower -= SizeOfItemIdData;
    this.sync();
  }

  /** PageIndexTupleOverwrite(offnum, tuple): resize in place, moving the tuples stored below it. */
  overwrite(offnum: number, tuple: Uint8Array): void {
    const w = this.itemId(offnum);
    const offset = lpOff(w);
    const oldSize = maxAlign(lpLen(w));
    const newSize = maxAlign(tuple.length);
    if (newSize > oldSize + (this.upper - this.lower)) throw new FormatError("BT_BUILD_PAGE_FULL", `high key of ${tuple.length} bytes does not fit`);
    const diff = oldSize - newSize;
    if (diff !== 0) {
      this.page.copyWithin(this.upper + diff, this.upper, offset);
      const n = this.maxOffset;
      for (let i = 1; i <= n; i++) {
        const iw = this.itemId(i);
        if (lpLen(iw) > 0 && lpOff(iw) <= offset) this.dv.setUint32(this.slotAt(i), makeLp(lpOff(iw) + diff, lpFlags(iw), lpLen(iw)), true);
      }
      this.upper += diff;
    }
    this.dv.setUint32(this.slotAt(offnum), makeLp(offset + diff, lpFlags(w), tuple.length), true);
    this.page.set(tuple, offset + diff);
    this.sync();
  }

  /** _bt_slideleft: slots 2..n move to 1..n-1; the old last slot stays behind pd_lower. */
  slideLeft(): void {
    const n = this.maxOffset;
    for (let off = 2; off <= n; off++) this.dv.setUint32(this.slotAt(off - 1), this.itemId(off), true);
    this.lower -= SizeOfItemIdData;
    this.sync();
  }

  setLinks(prev: number, next: number): void {
    this.dv.setUint32(this.special + BTO.btpo_prev, prev, true);
    this.dv.setUint32(this.special + BTO.btpo_next, next, true);
  }
  setNext(next: number): void {
    this.dv.setUint32(this.special + BTO.btpo_next, next, true);
  }
  setPrev(prev: number): void {
    this.dv.setUint32(this.special + BTO.btpo_prev, prev, true);
  }
  orFlags(flags: number): void {
    const at = this.special + BTO.btpo_flags;
    this.dv.setUint16(at, this.dv.getUint16(at, true) | flags, true);
  }
}
