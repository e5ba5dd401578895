// A small LRU of whole blocks of one relation fork, for the random reads of TOAST fetches and
// tree walks (sequential scans use scanBlocks' batches instead).
import type { RelationFork } from "../formats/storage/relfile.js";

export class BlockCache {
  private readonly map = new Map<number, Uint8Array>();
  reads = 0;

  constructor(
    readonly fork: RelationFork,
    readonly capacity = 256,
  ) {}

  get nblocks(): number {
    return this.fork.nblocks;
  }

  /** The block's bytes (shared; do not modify). Throws FormatError when out of range. */
  get(blkno: number): Uint8Array {
    const hit = this.map.get(blkno);
    if (hit) {
      this.map.delete(blkno);
      this.map.set(blkno, hit);
      return hit;
    }
    let buf: Uint8Array;
    if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next().value as number;
      buf = this.map.get(oldest)!;
      this.map.delete(oldest);
    } else buf = new Uint8Array(this.fork.geometry.blockSize);
    this.fork.readBlock(blkno, buf);
    this.reads++;
    this.map.set(blkno, buf);
    return buf;
  }
}
