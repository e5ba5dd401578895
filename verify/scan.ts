// Sequential block scans sized to the relation: at most 32 blocks (256 KiB) per read (the batch
// stays in the CPU cache while its pages are checked; measured faster than 1 MiB reads), and no
// bigger buffer than the relation needs (most catalog relations have one or two blocks).
import { FormatError } from "../formats/schema/errors.js";
import type { RelationFork } from "../formats/storage/relfile.js";
import { checksumReadArea } from "../formats/page/checksum.js";

/**
 * A buffer reused for whole-fork reads, one per thread. Reading into fresh memory runs at a
 * quarter of the speed of reading into memory already mapped (the kernel faults in and zeroes
 * every page first: 1.4 against 6 GB/s measured here), and each fresh buffer of hundreds of MiB
 * is external memory the GC has to account for. A caller takes it for one relation and gives it
 * back; nothing read from it may outlive that.
 */
export class WholeForkBuffer {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  private taken = false;

  /** bytes [0, n) of the buffer, or of a fresh one when it is already taken */
  take(n: number): Uint8Array<ArrayBuffer> {
    if (this.taken) return new Uint8Array(n);
    this.taken = true;
    if (this.buf.length < n) this.buf = new Uint8Array(Math.max(n, 8 * 2 ** 20, Math.min(2 * this.buf.length, 256 * 2 ** 20)));
    return this.buf.subarray(0, n);
  }

  give(b: Uint8Array): void {
    if (b.buffer === this.buf.buffer) this.taken = false;
  }
}

/**
 * The whole fork (blocks firstBlock..nblocks) in one buffer, read 1 MiB at a time; null when it
 * is bigger than `limit` bytes or cannot be read whole (the block-by-block scan then reports
 * the problem where it happens). With `into`, the buffer comes from it (give it back when done).
 */
export function readWholeFork(fork: RelationFork, limit: number, into?: WholeForkBuffer): Uint8Array | null {
  const bs = fork.geometry.blockSize;
  const first = fork.firstBlock;
  const n = fork.nblocks - first;
  if (n <= 0 || n * bs > limit) return null;
  const whole = into ? into.take(n * bs) : new Uint8Array(n * bs);
  try {
    for (let b = 0; b < n; ) {
      const got = fork.readBlocks(first + b, Math.min(128, n - b), whole.subarray(b * bs));
      if (got <= 0) {
        into?.give(whole);
        return null;
      }
      b += got;
    }
  } catch (e) {
    into?.give(whole);
    if (e instanceof FormatError) return null;
    throw e;
  }
  return whole;
}

/**
 * Read buffers of up to 256 KiB cut from the checksum module's read area, 16 per thread: pages
 * read into them are checksummed where they are (formats/page/checksum.ts). When all are taken,
 * or without WebAssembly, a plain array.
 */
const READ_SLOT = 256 * 1024;
// on first use, as the checksum module is compiled (not at module load: the startup snapshot)
let readArea: Uint8Array | null | undefined;
let slotFree: boolean[] = [];

export function takeReadBuffer(bytes: number): Uint8Array {
  if (readArea === undefined) {
    readArea = checksumReadArea();
    slotFree = new Array<boolean>(readArea ? Math.floor(readArea.length / READ_SLOT) : 0).fill(true);
  }
  const i = readArea && bytes <= READ_SLOT ? slotFree.indexOf(true) : -1;
  if (i < 0) return new Uint8Array(bytes);
  slotFree[i] = false;
  return readArea!.subarray(i * READ_SLOT, i * READ_SLOT + bytes);
}

/** Return a buffer from takeReadBuffer (its pages must not be used after this; a plain array is left to the GC). */
export function giveReadBuffer(b: Uint8Array): void {
  if (!readArea || b.buffer !== readArea.buffer) return;
  slotFree[(b.byteOffset - readArea.byteOffset) / READ_SLOT] = true;
}

export function* scanPages(fork: RelationFork, from = fork.firstBlock, to = fork.nblocks): Generator<[number, Uint8Array]> {
  const bs = fork.geometry.blockSize;
  // read into the checksum module's memory, where the page checks checksum the pages in place
  const buf = takeReadBuffer(Math.max(1, Math.min(32, to - from)) * bs);
  try {
    let b = from;
    while (b < to) {
      const n = fork.readBlocks(b, Math.min(buf.length / bs, to - b), buf);
      for (let i = 0; i < n; i++) yield [b + i, buf.subarray(i * bs, (i + 1) * bs)];
      b += n;
    }
  } finally {
    giveReadBuffer(buf);
  }
}
