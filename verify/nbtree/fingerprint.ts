// The heapallindexed set: one entry per (heap TID, normalised index tuple), kept as the TID
// itself and a 64-bit fingerprint of the tuple's bytes, in an open-addressing hash table over
// one Int32Array (no objects, no strings, no Map of boxed numbers). A lookup compares the TID
// exactly and then the fingerprints of the entries with that TID (normally one). The bytes
// fingerprinted are t_info (given separately, as callers patch it) and bytes [8, size) of the
// MAXALIGNed tuple, read four at a time through an Int32Array over the page's buffer.
//
// Guarantee: a heap tuple is reported missing unless an index entry has its exact TID and a
// tuple whose fingerprint equals the expected tuple's. Two different byte strings share a
// fingerprint with probability about 2^-64 (two independent 32-bit lanes, murmur3- and
// xxhash-style rounds, each finished with an avalanche mix), so damage that is not crafted to
// collide is missed about once in 1.8e19 damaged entries. amcheck's Bloom filter accepts a few
// percent of false positives by design.

const HOST_LE = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

let lastBuffer: ArrayBufferLike | null = null;
let lastWords: Int32Array<ArrayBufferLike> = new Int32Array(0);

function wordsOf(b: Uint8Array): Int32Array {
  if (b.buffer !== lastBuffer) {
    lastBuffer = b.buffer;
    lastWords = new Int32Array(b.buffer, 0, b.buffer.byteLength >>> 2);
  }
  return lastWords;
}

/** The two 32-bit halves of the last fingerprint() result: FP[0] high, FP[1] low. */
export const FP = new Int32Array(2);

const C1 = 0xcc9e2d51 | 0;
const C2 = 0x1b873593 | 0;
const P1 = 0x9e3779b1 | 0;
const P2 = 0x85ebca77 | 0;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Fingerprint of a tuple at b[start, start + size) (size a multiple of 4): `info` (the t_info
 * the tuple is compared with) and the bytes from offset 8. Sets FP.
 */
export function fingerprint(b: Uint8Array, start: number, size: number, info: number): void {
  let h1 = 0x2f5a1e3b ^ size;
  let h2 = 0x6c8e9cf5 ^ Math.imul(size, P1);
  let k = Math.imul(info, C1);
  k = (k << 15) | (k >>> 17);
  h1 ^= Math.imul(k, C2);
  h2 = (h2 + Math.imul(info, P2)) | 0;
  h2 = Math.imul((h2 << 13) | (h2 >>> 19), P1);
  const abs = b.byteOffset + start;
  const nw = (size - 8) >>> 2;
  if ((abs & 3) === 0 && abs + size <= b.buffer.byteLength) {
    const w = wordsOf(b);
    for (let i = (abs >>> 2) + 2, e = i + nw; i < e; i++) {
      const x = w[i];
      k = Math.imul(x, C1);
      k = (k << 15) | (k >>> 17);
      h1 ^= Math.imul(k, C2);
      h1 = (h1 << 13) | (h1 >>> 19);
      h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
      h2 = (h2 + Math.imul(x, P2)) | 0;
      h2 = Math.imul((h2 << 13) | (h2 >>> 19), P1);
    }
  } else {
    for (let i = 0, p = start + 8; i < nw; i++, p += 4) {
      const x = HOST_LE ? b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24) : (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
      k = Math.imul(x, C1);
      k = (k << 15) | (k >>> 17);
      h1 ^= Math.imul(k, C2);
      h1 = (h1 << 13) | (h1 >>> 19);
      h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
      h2 = (h2 + Math.imul(x, P2)) | 0;
      h2 = Math.imul((h2 << 13) | (h2 >>> 19), P1);
    }
  }
  FP[0] = fmix(h1);
  FP[1] = fmix(h2 ^ h1);
}

const EMPTY = 0;

/** Entries (block, offset + 1, fpHi, fpLo) in linear-probing slots of four int32. */
export class FingerprintSet {
  private slots: Int32Array;
  private mask: number;
  size = 0;

  constructor(expected = 1024) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.slots = new Int32Array(cap * 4);
    this.mask = cap - 1;
  }

  private static slotOf(block: number, off: number, mask: number): number {
    let h = (Math.imul(block | 0, P1) + off) | 0;
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return h & mask;
  }

  /** Add heap TID (block, off) with fingerprint (hi, lo); duplicates are kept. */
  add(block: number, off: number, hi: number, lo: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    this.put(this.slots, this.mask, block | 0, off + 1, hi, lo);
    this.size++;
  }

  private put(s: Int32Array, mask: number, block: number, off1: number, hi: number, lo: number): void {
    let i = FingerprintSet.slotOf(block, off1 - 1, mask);
    while (s[i * 4 + 1] !== EMPTY) i = (i + 1) & mask;
    const p = i * 4;
    s[p] = block;
    s[p + 1] = off1;
    s[p + 2] = hi;
    s[p + 3] = lo;
  }

  private grow(): void {
    const old = this.slots;
    const cap = (this.mask + 1) * 2;
    const s = new Int32Array(cap * 4);
    const mask = cap - 1;
    for (let p = 0; p < old.length; p += 4) if (old[p + 1] !== EMPTY) this.put(s, mask, old[p], old[p + 1], old[p + 2], old[p + 3]);
    this.slots = s;
    this.mask = mask;
  }

  /** 0: no entry has this TID; 1: one with this TID has the fingerprint; 2: the TID is there with other fingerprints. */
  match(block: number, off: number, hi: number, lo: number): 0 | 1 | 2 {
    const s = this.slots;
    const mask = this.mask;
    const b = block | 0;
    const o1 = off + 1;
    let found: 0 | 2 = 0;
    for (let i = FingerprintSet.slotOf(b, off, mask); ; i = (i + 1) & mask) {
      const p = i * 4;
      const so = s[p + 1];
      if (so === EMPTY) return found;
      if (so === o1 && s[p] === b) {
        if (s[p + 2] === hi && s[p + 3] === lo) return 1;
        found = 2;
      }
    }
  }
}
