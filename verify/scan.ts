// Sequential block scans sized to the relation: at most 32 blocks (256 KiB) per read (the batch
// stays in the CPU cache while its pages are checked; measured faster than 1 MiB reads), and no
// bigger buffer than the relation needs (most catalog relations have one or two blocks).
import { FormatError } from "../formats/schema/errors.js";
import type { RelationFork } from "../formats/storage/relfile.js";

/**
 * The whole fork (blocks firstBlock..nblocks) in one buffer, read 1 MiB at a time; null when it
 * is bigger than `limit` bytes or cannot be read whole (the block-by-block scan then reports
 * the problem where it happens).
 */
export function readWholeFork(fork: RelationFork, limit: number): Uint8Array | null {
  const bs = fork.geometry.blockSize;
  const first = fork.firstBlock;
  const n = fork.nblocks - first;
  if (n <= 0 || n * bs > limit) return null;
  const whole = new Uint8Array(n * bs);
  try {
    for (let b = 0; b < n; ) {
      const got = fork.readBlocks(first + b, Math.min(128, n - b), whole.subarray(b * bs));
      if (got <= 0) return null;
      b += got;
    }
  } catch (e) {
    if (e instanceof FormatError) return null;
    throw e;
  }
  return whole;
}

export function* scanPages(fork: RelationFork, from = fork.firstBlock, to = fork.nblocks): Generator<[number, Uint8Array]> {
  const bs = fork.geometry.blockSize;
  const buf = new Uint8Array(Math.max(1, Math.min(32, to - from)) * bs);
  let b = from;
  while (b < to) {
    const n = fork.readBlocks(b, Math.min(buf.length / bs, to - b), buf);
    for (let i = 0; i < n; i++) yield [b + i, buf.subarray(i * bs, (i + 1) * bs)];
    b += n;
  }
}
