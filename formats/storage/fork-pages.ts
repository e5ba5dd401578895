// The pages of one relation fork as the map readers (VM, FSM) take them: either the whole fork as
// one byte array (segments concatenated, block n at n * 8192), or one page per block number.
// A page past the end, or absent, reads as missing: PostgreSQL treats those map bits as 0.
import { BLCKSZ_DEFAULT } from "../page/page.js";

export type ForkPages = Uint8Array | readonly (Uint8Array | null | undefined)[];

/** Number of blocks the fork holds (whole blocks only). */
export function forkBlockCount(fork: ForkPages): number {
  return fork instanceof Uint8Array ? Math.floor(fork.length / BLCKSZ_DEFAULT) : fork.length;
}

/** Block `blkno` of the fork, or null when the fork does not reach it. */
export function forkPage(fork: ForkPages, blkno: number): Uint8Array | null {
  if (fork instanceof Uint8Array) {
    const start = blkno * BLCKSZ_DEFAULT;
    return start + BLCKSZ_DEFAULT <= fork.length ? fork.subarray(start, start + BLCKSZ_DEFAULT) : null;
  }
  return fork[blkno] ?? null;
}
