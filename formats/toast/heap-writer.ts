// A TOAST heap written from scratch, tuple by tuple: pages filled in order with PageAddItem
// semantics (formats/heap/page-builder.ts) and handed whole to a sink (RelationWriter batches
// them into large sequential writes). A tuple's TID is known when it is placed, which is what
// lets a Direct TOAST parent list its children: children are always placed first.
// New pages get pd_flags 0 (or the flags given: a loader's frozen chunks are PD_ALL_VISIBLE) and
// pd_prune_xid = the oldest normal t_xmax on the page, or 0.
import { HeapPageBuilder } from "../heap/page-builder.js";
import { HEAP_XMAX_IS_MULTI } from "../heap/tuple-header.js";
import type { Tid } from "../page/item-pointer.js";

/** TransactionIdPrecedes for normal XIDs (modulo-2^32 comparison). */
const xidPrecedes = (a: number, b: number): boolean => ((a - b) | 0) < 0;

export class ToastHeapWriter {
  private readonly b: HeapPageBuilder;
  private block: number;
  private pruneXid = 0;
  /** tuples placed */
  tuples = 0;

  constructor(
    blockSize: number,
    /** receives every finished page (copy it if kept) */
    private readonly sink: (page: Uint8Array) => void,
    firstBlock = 0,
    /** pd_flags of every page */
    private readonly pageFlags = 0,
  ) {
    this.b = new HeapPageBuilder(blockSize);
    this.b.setFlags(pageFlags);
    this.block = firstBlock;
  }

  /** Pages finished so far (the page being filled not included). */
  get pagesWritten(): number {
    return this.block;
  }

  /** Room for a tuple of `len` bytes: its TID, and the zeroed bytes to write it into. */
  place(len: number, xmax: number, infomask: number): { tid: Tid; page: Uint8Array; off: number } {
    if (!this.b.fits(len)) {
      if (this.b.isEmpty) throw new RangeError(`a tuple of ${len} bytes does not fit on an empty page`);
      this.flushPage();
    }
    const r = this.b.reserve(len);
    if (xmax >= 3 && !(infomask & HEAP_XMAX_IS_MULTI) && (this.pruneXid === 0 || xidPrecedes(xmax, this.pruneXid))) this.pruneXid = xmax;
    this.tuples++;
    return { tid: { block: this.block, offset: r.offnum }, page: this.b.page, off: r.off };
  }

  private flushPage(): void {
    this.b.setPruneXid(this.pruneXid);
    this.sink(this.b.page);
    this.block++;
    this.b.reset();
    this.b.setFlags(this.pageFlags);
    this.pruneXid = 0;
  }

  /** Finish the last page; returns the number of pages written. */
  finish(): number {
    if (!this.b.isEmpty) this.flushPage();
    return this.block;
  }
}
