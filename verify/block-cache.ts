// A small LRU of blocks of one relation fork, for the random reads of TOAST fetches and tree
// walks (sequential scans use scanPages' batches instead). A miss reads the aligned run of
// SLAB blocks around the block with one read (TOAST chunks and B-tree levels mostly sit in
// neighbouring blocks), so a walk costs one system call per 128 KiB instead of one per block.
import { FormatError } from "../formats/schema/errors.js";
import type { RelationFork } from "../formats/storage/relfile.js";

const SLAB = 16;

interface Slab {
  buf: Uint8Array;
  /** blocks read into buf */
  n: number;
  views: (Uint8Array | undefined)[];
}

export class BlockCache {
  private readonly slabs = new Map<number, Slab>();
  private readonly maxSlabs: number;
  /** read system calls made */
  reads = 0;
  private whole?: Uint8Array;
  private wholeFirst = 0;
  private wholeEnd = 0;

  constructor(
    readonly fork: RelationFork,
    /** blocks kept (rounded up to whole slabs) */
    readonly capacity = 256,
  ) {
    this.maxSlabs = Math.max(2, Math.ceil(capacity / SLAB));
  }

  /** Serve blocks [first, first + whole.length / blockSize) from `whole` (the fork already in memory). */
  useWhole(whole: Uint8Array, first: number): this {
    this.whole = whole;
    this.wholeFirst = first;
    this.wholeEnd = first + Math.floor(whole.length / this.fork.geometry.blockSize);
    return this;
  }

  get nblocks(): number {
    return this.fork.nblocks;
  }

  /**
   * The block's bytes (shared; do not modify; never overwritten: an evicted run is dropped,
   * not reused). Throws FormatError when out of range or unreadable, as RelationFork.readBlock does.
   */
  get(blkno: number): Uint8Array {
    if (this.whole && blkno >= this.wholeFirst && blkno < this.wholeEnd) {
      const bs = this.fork.geometry.blockSize;
      const at = (blkno - this.wholeFirst) * bs;
      return this.whole.subarray(at, at + bs);
    }
    const key = Math.floor(blkno / SLAB);
    const i = blkno - key * SLAB;
    let slab = this.slabs.get(key);
    if (slab) {
      this.slabs.delete(key);
      this.slabs.set(key, slab);
    } else {
      slab = this.load(key);
      if (!slab) {
        // the run is not readable as a whole (missing segment, short file, out of range):
        // the single-block read returns this block or throws the error that names it
        this.reads++;
        return this.fork.readBlock(blkno);
      }
      if (this.slabs.size >= this.maxSlabs) this.slabs.delete(this.slabs.keys().next().value as number);
      this.slabs.set(key, slab);
    }
    if (i >= slab.n) {
      this.reads++;
      return this.fork.readBlock(blkno);
    }
    const bs = this.fork.geometry.blockSize;
    return slab.views[i] ?? (slab.views[i] = slab.buf.subarray(i * bs, (i + 1) * bs));
  }

  /** Read the run of blocks `key` (a fresh buffer: pages handed out earlier stay valid). */
  private load(key: number): Slab | undefined {
    const bs = this.fork.geometry.blockSize;
    const first = key * SLAB;
    const count = Math.min(SLAB, this.fork.nblocks - first);
    if (count <= 0 || first < this.fork.firstBlock) return undefined;
    const buf = new Uint8Array(count * bs);
    try {
      this.reads++;
      return { buf, n: this.fork.readBlocks(first, count, buf), views: new Array(SLAB) };
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      return undefined;
    }
  }
}
