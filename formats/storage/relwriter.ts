// Writes a relation fork from a stream of pages: sequential, in large batches (8 MiB by default,
// as pg_directpaths does), split into 1 GiB segments, checksums set when the cluster has them.
// Files are written under a temporary name and renamed into place by commit(), so a crash never
// leaves a half-written file under the real name.
import { closeSync, fchmodSync, fchownSync, fsyncSync, openSync, renameSync, rmSync, writeSync, existsSync } from "node:fs";
import { setPageChecksum } from "../page/checksum.js";
import { segmentPath, type Geometry } from "./relfile.js";

export interface RelationWriterOptions {
  geometry: Geometry;
  /** set pd_checksum on every non-new page */
  checksums: boolean;
  /** batch size in bytes (a multiple of the block size) */
  batchBytes?: number;
  /** fsync each file before commit() renames it (default true) */
  fsync?: boolean;
  /** owner and mode of the files written (default: the writing process's, mode 0600) */
  owner?: { uid: number; gid: number; fileMode: number };
  /** suffix of the temporary names (default .pgdisk-tmp; the bulk loader stages as .pgdisk-load) */
  tempSuffix?: string;
}

export class RelationWriter {
  private readonly bs: number;
  /** the batch grows (doubling) up to batchBytes: most forks written are small */
  private batch: Uint8Array;
  private readonly batchBytes: number;
  private fill = 0;
  private blkno = 0;
  private fd = -1;
  private segno = -1;
  private readonly tempPaths: string[] = [];
  private readonly tempSuffix: string;

  constructor(
    /** final path of segment 0, fork suffix included */
    readonly basePath: string,
    readonly opts: RelationWriterOptions,
  ) {
    this.bs = opts.geometry.blockSize;
    this.tempSuffix = opts.tempSuffix ?? ".pgdisk-tmp";
    this.batchBytes = Math.max(this.bs, Math.floor((opts.batchBytes ?? 8 << 20) / this.bs) * this.bs);
    this.batch = new Uint8Array(Math.min(this.batchBytes, 8 * this.bs));
  }

  /** Blocks written so far (relation-wide). */
  get nblocks(): number {
    return this.blkno;
  }

  private segPath(segno: number): string {
    return segmentPath(this.basePath, segno);
  }

  /** Append one page (copied; checksummed here). Returns its block number. */
  append(page: Uint8Array): number {
    return this.put(page, true);
  }

  /**
   * Append a page exactly as read (its checksum kept, not recomputed): for pages a conversion
   * leaves unchanged at the same block number, so that damage is never laundered into a fresh
   * checksum and clones keep sharing the bytes.
   */
  appendVerbatim(page: Uint8Array): number {
    return this.put(page, false);
  }

  private put(page: Uint8Array, checksum: boolean): number {
    if (page.length !== this.bs) throw new RangeError(`page of ${page.length} bytes, block size is ${this.bs}`);
    const b = this.blkno++;
    if (this.fill === this.batch.length) {
      const grown = new Uint8Array(Math.min(this.batchBytes, this.batch.length * 2));
      grown.set(this.batch);
      this.batch = grown;
    }
    const slot = this.batch.subarray(this.fill, this.fill + this.bs);
    slot.set(page);
    // PageIsNew pages (pd_upper = 0) carry no checksum.
    if (checksum && this.opts.checksums && (slot[14] | (slot[15] << 8)) !== 0) setPageChecksum(slot, b);
    this.fill += this.bs;
    const segEnd = (Math.floor(b / this.opts.geometry.segmentBlocks) + 1) * this.opts.geometry.segmentBlocks;
    if (this.fill === this.batchBytes || this.blkno === segEnd) this.flushBatch();
    return b;
  }

  private flushBatch(): void {
    if (this.fill === 0) return;
    const firstBlock = this.blkno - this.fill / this.bs;
    const segno = Math.floor(firstBlock / this.opts.geometry.segmentBlocks);
    if (segno !== this.segno) this.openSegment(segno);
    let done = 0;
    while (done < this.fill) done += writeSync(this.fd, this.batch, done, this.fill - done);
    this.fill = 0;
  }

  private openSegment(segno: number): void {
    this.closeSegment();
    const tmp = `${this.segPath(segno)}${this.tempSuffix}`;
    const owner = this.opts.owner;
    this.fd = openSync(tmp, "w", owner?.fileMode ?? 0o600);
    if (owner) {
      fchownSync(this.fd, owner.uid, owner.gid);
      fchmodSync(this.fd, owner.fileMode);
    }
    this.tempPaths.push(tmp);
    this.segno = segno;
  }

  private closeSegment(): void {
    if (this.fd < 0) return;
    if (this.opts.fsync !== false) fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = -1;
  }

  /** Flush, fsync and rename every segment into place; removes stale higher segments. */
  commit(): number {
    this.flushBatch();
    if (this.segno < 0) this.openSegment(0); // an empty fork is an empty file
    this.closeSegment();
    for (const tmp of this.tempPaths) renameSync(tmp, tmp.slice(0, -this.tempSuffix.length));
    for (let s = this.segno + 1; existsSync(this.segPath(s)); s++) rmSync(this.segPath(s));
    return this.blkno;
  }

  /**
   * Flush and fsync every segment under its temporary name without renaming it: for a writer
   * whose own switch renames the files later. Returns each temporary file with its final name,
   * and the final segment files past the last one written, which the switch must remove.
   */
  stage(): { files: { temp: string; final: string }[]; stale: string[] } {
    this.flushBatch();
    if (this.segno < 0) this.openSegment(0);
    this.closeSegment();
    const files = this.tempPaths.map((temp) => ({ temp, final: temp.slice(0, -this.tempSuffix.length) }));
    const stale: string[] = [];
    for (let s = this.segno + 1; existsSync(this.segPath(s)); s++) stale.push(this.segPath(s));
    return { files, stale };
  }

  /** Drop everything written (temporary files only; the real files are untouched). */
  abort(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    for (const tmp of this.tempPaths) rmSync(tmp, { force: true });
  }
}
