// The btree builder finishes pages out of block order (upper levels stay open until the end, the
// metapage comes last), while RelationWriter appends in order. Pages wait here (in memory up to a
// limit, then in a scratch file beside the index) and are streamed through RelationWriter at the
// end, which checksums them and renames the finished file into place.
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { RelationWriter } from "../../formats/storage/relwriter.js";
import type { Geometry } from "../../formats/storage/relfile.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { ClusterOwner } from "../file-owner.js";

export class OrderedPageSink {
  private readonly mem = new Map<number, Uint8Array>();
  private memBytes = 0;
  private scratchFd = -1;
  private readonly inScratch = new Set<number>();
  private maxBlock = -1;
  readonly scratchPath: string;

  constructor(
    /** final path of segment 0 of the fork */
    readonly basePath: string,
    readonly geometry: Geometry,
    readonly checksums: boolean,
    /** owner and mode of the index file written */
    readonly owner: ClusterOwner,
    readonly memoryLimit = 256 << 20,
    /** fsync the index file before it is renamed (false: --no-sync) */
    readonly fsync = true,
  ) {
    this.scratchPath = `${basePath}.pgdisk-build`;
  }

  /** Take a finished page (copied). */
  put = (blkno: number, page: Uint8Array): void => {
    if (blkno > this.maxBlock) this.maxBlock = blkno;
    if (this.scratchFd >= 0) {
      this.writeScratch(blkno, page);
      return;
    }
    if (!this.mem.has(blkno)) this.memBytes += page.length;
    this.mem.set(blkno, page.slice());
    if (this.memBytes > this.memoryLimit) {
      this.scratchFd = openSync(this.scratchPath, "w+", 0o600);
      for (const [b, p] of this.mem) this.writeScratch(b, p);
      this.mem.clear();
      this.memBytes = 0;
    }
  };

  private writeScratch(blkno: number, page: Uint8Array): void {
    const bs = this.geometry.blockSize;
    let done = 0;
    while (done < bs) done += writeSync(this.scratchFd, page, done, bs - done, blkno * bs + done);
    this.inScratch.add(blkno);
  }

  /** Write blocks 0..n-1 in order through RelationWriter; every block must have arrived. Returns n. */
  commit(onProgress?: (done: number, total: number) => void): number {
    return this.writeAll((w) => w.commit(), onProgress).n;
  }

  /** As commit(), but the files stay under their temporary names (RelationWriter.stage(), with `tempSuffix`). */
  stage(tempSuffix?: string, onProgress?: (done: number, total: number) => void): { n: number } & ReturnType<RelationWriter["stage"]> {
    const r = this.writeAll((w) => w.stage(), onProgress, tempSuffix);
    return { n: r.n, ...r.result };
  }

  private writeAll<T>(finish: (w: RelationWriter) => T, onProgress?: (done: number, total: number) => void, tempSuffix?: string): { n: number; result: T } {
    const n = this.maxBlock + 1;
    const w = new RelationWriter(this.basePath, { geometry: this.geometry, checksums: this.checksums, owner: this.owner, fsync: this.fsync, tempSuffix });
    const buf = new Uint8Array(this.geometry.blockSize);
    let result: T;
    try {
      for (let b = 0; b < n; b++) {
        let p = this.mem.get(b);
        if (!p) {
          if (!this.inScratch.has(b)) throw new FormatError("BT_BUILD_MISSING_BLOCK", `the build produced no block ${b}`, { block: b });
          const got = readSync(this.scratchFd, buf, 0, buf.length, b * buf.length);
          if (got !== buf.length) throw new FormatError("REL_SHORT_READ", `scratch file: read ${got} bytes of block ${b}`, { file: this.scratchPath, block: b });
          p = buf;
        }
        w.append(p);
        if (onProgress && (b & 1023) === 1023) onProgress(b + 1, n);
      }
      result = finish(w);
    } catch (e) {
      w.abort();
      throw e;
    } finally {
      this.dispose();
    }
    return { n, result };
  }

  /** Drop everything (scratch file included). */
  dispose(): void {
    if (this.scratchFd >= 0) closeSync(this.scratchFd);
    this.scratchFd = -1;
    rmSync(this.scratchPath, { force: true });
    this.mem.clear();
  }
}
