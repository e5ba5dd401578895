// New heap pages for the loaded rows, filled as COPY FROM fills them (heap_multi_insert): a
// tuple goes on the current page while PageGetHeapFreeSpace covers its MAXALIGNed length plus
// the space the table's fillfactor keeps free, else a new page starts (the first tuple of a page
// always goes on). Tuples are frozen as COPY FREEZE leaves them: xmin FrozenTransactionId with
// HEAP_XMIN_FROZEN (committed and invalid bits both set: no pg_xact lookup), xmax invalid with
// HEAP_XMAX_INVALID, cmin 0, t_ctid pointing at itself; pages carry PD_ALL_VISIBLE. Pages are
// numbered after the table's last block and written, checksummed, to a staging file (the load
// plan appends it to the relation in its switch).
import { close as closeFd, closeSync, fchmodSync, fchownSync, fsync, openSync, write } from "node:fs";
import { HeapPageBuilder, maxHeapTuplesPerPage, maxHeapTupleSize } from "../../formats/heap/page-builder.js";
import { HEAP_XMAX_INVALID, HEAP_XMIN_FROZEN } from "../../formats/heap/tuple-header.js";
import { HeapFormLayout, heapTupleSizeOfSpans, writeHeapTupleSpans, type HeapTupleFields } from "../../formats/heap/form.js";
import type { RowValues } from "./row-values.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { Tid } from "../../formats/page/item-pointer.js";
import { maxAlign } from "../../formats/page/page.js";
import { PD_ALL_VISIBLE } from "../../formats/page/page-header.js";
import { SizeOfItemIdData } from "../../formats/page/item-id.js";
import { setPageChecksum } from "../../formats/page/checksum.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { ClusterOwner } from "../file-owner.js";

export const FROZEN_TRANSACTION_ID = 2;
const FROZEN_XACT_BITS = HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID;

/** PageGetHeapFreeSpace of a page being filled: free bytes less one line pointer, 0 when no line pointer is left. */
export function heapFreeSpace(b: HeapPageBuilder): number {
  if (b.nitems >= maxHeapTuplesPerPage(b.blockSize)) return 0;
  return Math.max(0, b.freeBytes - SizeOfItemIdData);
}

export interface HeapAppendOptions {
  blockSize: number;
  /** the table's fillfactor (10..100) */
  fillfactor: number;
  /** block number of the first new page (the table's block count) */
  firstBlock: number;
  checksums: boolean;
  /** staging file of the new pages (created; written as batches fill, fsynced after finish()) */
  stagePath: string;
  owner?: ClusterOwner;
  /** batch size of the staging writes */
  batchBytes?: number;
  /** only count pages (a dry run) */
  dryRun?: boolean;
}

export class HeapAppender {
  private readonly page: HeapPageBuilder;
  private readonly saveFree: number;
  private readonly maxTuple: number;
  /** attlen and alignment of each attribute, for forming tuples */
  private readonly form: HeapFormLayout;
  private batch: Uint8Array;
  private fill = 0;
  private fd = -1;
  /** batches whose write finished, for reuse */
  private readonly spare: Uint8Array[] = [];
  /** writes under way (the libuv thread pool copies them while this thread forms pages) */
  private writing = 0;
  /** bytes of the staging file written or being written */
  private issued = 0;
  private writeError: Error | null = null;
  private readonly waiters: (() => void)[] = [];
  /** the fsync finish() started (the file is closed when it is done) */
  private syncing: Promise<void> | null = null;
  /** close() came while writes were under way: the last one closes the file */
  private closeWhenIdle = false;
  /** pages finished (written or batched) */
  pages = 0;
  tuples = 0;
  /** PageGetHeapFreeSpace of each finished page, for the FSM */
  readonly freeSpace: number[] = [];
  /** the TID add() returns and the header fields of every tuple (ctid: that TID), reused */
  private readonly tid: Tid = { block: 0, offset: 0 };
  private readonly fields: HeapTupleFields = { xmin: FROZEN_TRANSACTION_ID, xmax: 0, field3: 0, ctid: this.tid, xactBits: FROZEN_XACT_BITS };

  constructor(
    readonly desc: TupleDesc,
    readonly o: HeapAppendOptions,
  ) {
    this.page = new HeapPageBuilder(o.blockSize);
    this.page.setFlags(PD_ALL_VISIBLE);
    // RelationGetTargetPageFreeSpace
    this.saveFree = Math.floor((o.blockSize * (100 - o.fillfactor)) / 100);
    this.maxTuple = maxHeapTupleSize(o.blockSize);
    this.form = new HeapFormLayout(desc);
    this.batch = new Uint8Array(Math.max(o.blockSize, Math.floor((o.batchBytes ?? 8 << 20) / o.blockSize) * o.blockSize));
    if (!o.dryRun) {
      this.fd = openSync(o.stagePath, "w", o.owner?.fileMode ?? 0o600);
      if (o.owner) {
        fchownSync(this.fd, o.owner.uid, o.owner.gid);
        fchmodSync(this.fd, o.owner.fileMode);
      }
    }
  }

  /** Block number of the page being filled. */
  get currentBlock(): number {
    return this.o.firstBlock + this.pages;
  }

  /** The length the tuple of these datums will have (heapTupleSize over a RowValues). */
  size(v: RowValues): number {
    return heapTupleSizeOfSpans(this.form, v);
  }

  /**
   * Form the tuple of these datums (`size` bytes) straight into its place, as writeHeapTuple
   * does; returns its TID (one object, reused by the next add: read it before then).
   */
  add(v: RowValues, size: number): Readonly<Tid> {
    if (size > this.maxTuple) throw new FormatError("LOAD_ROW_TOO_BIG", `row is too big: size ${size}, maximum size ${this.maxTuple}`);
    if (!this.page.isEmpty && (heapFreeSpace(this.page) < maxAlign(size) + this.saveFree || !this.page.fits(size))) this.finishPage();
    const r = this.page.reserve(size);
    const tid = this.tid;
    tid.block = this.currentBlock;
    tid.offset = r.offnum;
    writeHeapTupleSpans(this.form, v, this.fields, this.page.page, r.off);
    this.tuples++;
    return tid;
  }

  private finishPage(): void {
    const blkno = this.currentBlock;
    this.freeSpace.push(heapFreeSpace(this.page));
    if (!this.o.dryRun) {
      const slot = this.batch.subarray(this.fill, this.fill + this.o.blockSize);
      slot.set(this.page.page);
      if (this.o.checksums) setPageChecksum(slot, blkno);
      this.fill += this.o.blockSize;
      if (this.fill === this.batch.length) this.flush();
    }
    this.pages++;
    this.page.reset();
    this.page.setFlags(PD_ALL_VISIBLE);
  }

  /** Start writing the filled part of the batch (at its place in the file) and go on in another batch. */
  private flush(): void {
    if (this.fill === 0) return;
    const buf = this.batch;
    const len = this.fill;
    const at = this.issued;
    this.issued += len;
    this.fill = 0;
    this.writing++;
    const fd = this.fd;
    const done = (err: Error | null): void => {
      this.writing--;
      if (err) this.writeError ??= err;
      else this.spare.push(buf);
      if (this.writing === 0 && this.closeWhenIdle) this.closeNow();
      for (const w of this.waiters.splice(0)) w();
    };
    const more = (off: number): void =>
      write(fd, buf, off, len - off, at + off, (err, n) => {
        if (err) return done(err);
        if (off + n < len) more(off + n);
        else done(null);
      });
    more(0);
    this.batch = this.spare.pop() ?? new Uint8Array(buf.length);
  }

  /** Writes under way. */
  get pendingWrites(): number {
    return this.writing;
  }

  /** Wait until at most `max` writes are under way (a write error is thrown here). */
  async drain(max: number): Promise<void> {
    while (this.writing > max) await new Promise<void>((r) => this.waiters.push(r));
    if (this.writeError) throw this.writeError;
  }

  /** Finish the last page and write everything; the fsync is started (synced() waits for it). Returns the number of new pages. */
  async finish(): Promise<number> {
    if (!this.page.isEmpty) this.finishPage();
    if (this.fd >= 0) {
      this.flush();
      await this.drain(0);
      const fd = this.fd;
      this.fd = -1;
      const p = new Promise<void>((resolve, reject) =>
        fsync(fd, (err) => {
          closeFd(fd, () => (err ? reject(err) : resolve()));
        }),
      );
      // an error is kept for synced() (not an unhandled rejection meanwhile)
      p.catch(() => {});
      this.syncing = p;
    }
    return this.pages;
  }

  /** The staging file is durable (finish() done and its fsync finished). */
  async synced(): Promise<void> {
    await this.syncing;
  }

  private closeNow(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** Close the staging file without finishing (the caller removes it); writes under way finish first. */
  close(): void {
    if (this.writing > 0) this.closeWhenIdle = true;
    else this.closeNow();
  }
}
