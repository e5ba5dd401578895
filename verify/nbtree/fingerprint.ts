// The heapallindexed set: one entry per (heap TID, normalised index tuple), kept as the TID
// itself and a 64-bit fingerprint of the tuple's bytes, in typed arrays bucketed by heap block
// (no objects, no strings, no Map of boxed numbers). A lookup compares the TID
// exactly and then the fingerprints of the entries with that TID (normally one). The bytes
// fingerprinted are t_info (given separately, as callers patch it) and bytes [8, size) of the
// MAXALIGNed tuple.
//
// Guarantee: a heap tuple is reported missing unless an index entry has its exact TID and a
// tuple whose fingerprint equals the expected tuple's. The hash (fingerprint-hash.ts) never
// maps two tuples that differ in one 8-byte word to the same value, and other differences
// collide about once in 1.8e19 (2^-64), so damage that is not crafted to collide is missed about
// once in 1.8e19 damaged entries. amcheck's Bloom filter accepts a few percent of false
// positives by design.

import { HOST_LE, wordViewCache } from "../../formats/page/word-view.js";
import { HASH_MEMORY_BYTES, HASH_RESULT_AT, fingerprintHashRef, fingerprintModule } from "./fingerprint-hash.js";
import { grown } from "../../formats/schema/bytes.js";

/** heap line pointer numbers probed (MaxHeapTuplesPerPage is far below for every page size) */
const MAX_OFF = 2048;

/** The two 32-bit halves of the last fingerprint() result: FP[0] high, FP[1] low. */
export const FP = new Int32Array(2);

// This thread's hash module. Its memory holds the result, a region callers may form tuples in
// (hashableFormBytes: hashed where they are) and a scratch region other tuples are copied to.
const wasm = HOST_LE ? fingerprintModule() : null;
const FORM_AT = 64;
const FORM_BYTES = 96 * 1024;
/** a page whose tuples are hashed one after another (fingerprintInPage), copied in once */
const PAGE_AT = FORM_AT + FORM_BYTES;
const PAGE_BYTES = 32 * 1024;
const SCRATCH_AT = PAGE_AT + PAGE_BYTES;
const SCRATCH_BYTES = HASH_MEMORY_BYTES - SCRATCH_AT;
const wasmBuffer: ArrayBufferLike | null = wasm ? wasm.memory : null;
const result = wasm ? new Int32Array(wasm.memory, HASH_RESULT_AT, 2) : new Int32Array(2);
const scratchWords = wasm ? new Int32Array(wasm.memory, SCRATCH_AT, SCRATCH_BYTES >>> 2) : new Int32Array(0);
const scratchBytes = wasm ? new Uint8Array(wasm.memory, SCRATCH_AT, SCRATCH_BYTES) : new Uint8Array(0);
const pageBytes = wasm ? new Uint8Array(wasm.memory, PAGE_AT, PAGE_BYTES) : new Uint8Array(0);

/**
 * A buffer to form tuples in that fingerprint() hashes in place (no copy), or null without
 * WebAssembly. It is one region per thread: form a tuple and fingerprint it before forming
 * another in it.
 */
export function hashableFormBytes(): Uint8Array | null {
  return wasm ? new Uint8Array(wasm.memory, FORM_AT, FORM_BYTES) : null;
}

const wordsOf = wordViewCache();
let lastBytes: Uint8Array | null = null;
let lastWords: Int32Array<ArrayBufferLike> = new Int32Array(0);
let lastBase = 0;
let lastInWasm = false;

/**
 * Fingerprint of a tuple at b[start, start + size): `info` (the t_info the tuple is compared
 * with) and the bytes from offset 8. Sets FP.
 */
export function fingerprint(b: Uint8Array, start: number, size: number, info: number): void {
  // the buffer's word view and whether it is the module's memory, looked up once per byte array
  // (reading .buffer costs more than hashing a short tuple)
  if (b !== lastBytes) {
    lastBytes = b;
    lastWords = wordsOf(b.buffer);
    lastBase = b.byteOffset;
    lastInWasm = b.buffer === wasmBuffer;
  }
  const n = size - 8;
  if (wasm === null || n > SCRATCH_BYTES - 8 || n < 0) {
    const [hi, lo] = fingerprintHashRef(b, start + 8, Math.max(0, n), info, size);
    FP[0] = hi;
    FP[1] = lo;
    return;
  }
  const abs = lastBase + start + 8;
  let at: number;
  if (lastInWasm && (n & 7) === 0) at = abs; // formed in the module's memory
  else {
    at = SCRATCH_AT;
    if ((abs & 3) === 0 && (abs + n + 3) >>> 2 <= lastWords.length) {
      const from = abs >>> 2;
      const nw = (n + 3) >>> 2;
      const sw = scratchWords;
      const ww = lastWords;
      for (let i = 0; i < nw; i++) sw[i] = ww[from + i];
    } else {
      const sb = scratchBytes;
      for (let i = 0; i < n; i++) sb[i] = b[start + 8 + i];
    }
    // zeros up to the next 8-byte word
    for (let i = n; i & 7; i++) scratchBytes[i] = 0;
  }
  hashInModule(at, (n + 7) >>> 3, info, size);
}

/** The module's hash of `words` 8-byte words at `at` of its memory, into FP. */
function hashInModule(at: number, words: number, info: number, size: number): void {
  wasm!.hash(at, words >>> 1, words & 1, info, size);
  FP[0] = result[1];
  FP[1] = result[0];
}

// the page in the page region: its buffer, its key (the caller's block number) and where it starts
let stagedBuf: Uint8Array | null = null;
let stagedKey = -1;
let stagedFrom = -1;

/** Forget the staged page (its buffer may be reused for other contents). */
export function unstagePage(): void {
  stagedBuf = null;
}

/**
 * fingerprint() of a tuple of the page b[pageFrom, pageFrom + pageLen), whose contents `key` (its
 * block number) names while the caller hashes its tuples: the page is copied into the module's
 * memory once, and each of its tuples is hashed there (a copy per tuple cost more than the hash).
 */
export function fingerprintInPage(b: Uint8Array, key: number, pageFrom: number, pageLen: number, start: number, size: number, info: number): void {
  const n = size - 8;
  if (wasm === null || pageLen > PAGE_BYTES || start < pageFrom || start + size > pageFrom + pageLen || n < 0 || n & 7) return fingerprint(b, start, size, info);
  if (b !== stagedBuf || key !== stagedKey || pageFrom !== stagedFrom) {
    pageBytes.set(pageFrom === 0 && pageLen === b.length ? b : b.subarray(pageFrom, pageFrom + pageLen));
    stagedBuf = b;
    stagedKey = key;
    stagedFrom = pageFrom;
  }
  hashInModule(PAGE_AT + start - pageFrom + 8, n >>> 3, info, size);
}

/**
 * Entry arrays handed back by finished indexes, reused by the next ones of the thread: a fresh
 * array of megabytes is faulted in and zeroed page by page, and growing one by doubling copies
 * it each time (together a third of collecting the entries). Contents are not cleared: every
 * slot is written before it is read.
 */
const spare: Int32Array<ArrayBuffer>[] = [];
const SPARE_MAX = 16;
/** at most this many bytes kept for reuse per thread (the largest arrays first) */
const SPARE_BYTES = 256 * 2 ** 20;

function takeInts(min: number): Int32Array<ArrayBuffer> {
  let best = -1;
  for (let i = 0; i < spare.length; i++) if (spare[i].length >= min && (best < 0 || spare[i].length < spare[best].length)) best = i;
  if (best >= 0) return spare.splice(best, 1)[0];
  return new Int32Array(min);
}

function giveInts(a: Int32Array<ArrayBuffer>): void {
  if (a.length < 4096 || a.byteLength > SPARE_BYTES) return;
  spare.push(a);
  spare.sort((x, y) => y.length - x.length);
  let bytes = 0;
  let keep = 0;
  while (keep < spare.length && keep < SPARE_MAX && bytes + spare[keep].byteLength <= SPARE_BYTES) bytes += spare[keep++].byteLength;
  spare.length = keep; // the smallest beyond the limits go to the GC
}

/**
 * A finished entry table in shared memory, for a table's check on another thread (the table is
 * then read once for the probes of all its indexes; see EntryExchange).
 */
export interface SharedFingerprints {
  sorted: Int32Array<SharedArrayBuffer>;
  bucket: Int32Array<SharedArrayBuffer>;
  nblocks: number;
  widest: number;
}

/**
 * Entries (heap block, offset, fingerprint) appended in index order, then bucketed by heap block
 * with one counting sort (finish), so the heap scan's probes, which come in block order, read
 * the entries of one block after another instead of jumping around a hash table.
 */
export class TidFingerprints {
  private ent: Int32Array<ArrayBuffer>;
  private n = 0;
  // after finish(): entries (offset, hi, lo) grouped by block; bucket[b] .. bucket[b + 1]
  private sorted: Int32Array<ArrayBufferLike> | null = null;
  private bucket: Int32Array<ArrayBufferLike> = new Int32Array(1);
  private nblocks = 0;
  private widest = 0;
  /** the grouped entries are in shared memory: not the thread's pool's */
  private shared = false;
  // chains of the current block's entries by offset
  private curBlk = -1;
  private readonly head = new Int32Array(MAX_OFF + 1);
  private readonly stamp = new Int32Array(MAX_OFF + 1);
  private stampNow = 0;
  private next = new Int32Array(16);
  /** exact mode: a number the caller gave with each entry (where its bytes are), by entry, then grouped like the entries */
  private refs: Int32Array | null = null;
  private sortedRefs: Int32Array | null = null;

  /**
   * `expected`: about how many entries will be added (the table's reltuples), to size the array
   * once; `withRefs`: each entry also keeps a number of the caller's (refAt), for a comparison of
   * the bytes themselves.
   */
  constructor(expected = 0, from?: SharedFingerprints, withRefs = false) {
    if (from) {
      this.ent = new Int32Array(0);
      this.sorted = from.sorted;
      this.bucket = from.bucket;
      this.nblocks = from.nblocks;
      this.widest = from.widest;
      this.next = new Int32Array(Math.max(16, from.widest));
      this.shared = true;
    } else this.ent = takeInts(4 * Math.max(1024, Math.ceil(Math.min(expected, 4e6) * 1.05)));
    if (withRefs) this.refs = new Int32Array(this.ent.length >>> 2);
  }

  /** A finished table made elsewhere (toShared), for matching here. */
  static fromShared(from: SharedFingerprints): TidFingerprints {
    return new TidFingerprints(0, from);
  }

  /** Finish into shared memory and hand the result over (this table is not matched here). */
  toShared(nblocks: number): SharedFingerprints {
    if (this.refs) throw new Error("TidFingerprints with refs are not shared");
    this.finish(nblocks, true);
    const out: SharedFingerprints = { sorted: this.sorted as Int32Array<SharedArrayBuffer>, bucket: this.bucket as Int32Array<SharedArrayBuffer>, nblocks: this.nblocks, widest: this.widest };
    this.sorted = null;
    this.nblocks = 0;
    return out;
  }

  /** entries added */
  get size(): number {
    return this.n;
  }

  /** Add heap TID (block, off) with fingerprint (hi, lo) (and `ref` with refs); duplicates are kept. */
  add(block: number, off: number, hi: number, lo: number, ref = 0): void {
    // a pooled array's length need not be a multiple of 4 (it may have held (offset, hi, lo) triples)
    if (this.n * 4 + 4 > this.ent.length) {
      const e = takeInts(Math.max(4096, this.ent.length * 2));
      e.set(this.ent);
      giveInts(this.ent);
      this.ent = e;
    }
    if (this.refs) {
      this.refs = grown(this.refs, this.n + 1);
      this.refs[this.n] = ref;
    }
    const p = this.n++ * 4;
    const e = this.ent;
    e[p] = block | 0;
    e[p + 1] = off;
    e[p + 2] = hi;
    e[p + 3] = lo;
  }

  /** Group the entries by block; TIDs at or beyond `nblocks` (no heap tuple can have them) are dropped. */
  finish(nblocks: number, shared = false): void {
    if (this.shared) return; // made elsewhere, finished there
    // three loops in three functions: V8 optimised a long loop on the stack (OSR), reached the
    // next loop without type feedback for it and deoptimised the whole function, about 90 times a run
    const counts = countPerBlock(this.ent, this.n, nblocks);
    const widest = prefixSums(counts, nblocks);
    const bucket = shared ? new Int32Array(new SharedArrayBuffer(counts.byteLength)) : counts;
    if (shared) bucket.set(counts);
    const dest: Int32Array<ArrayBufferLike> = shared ? new Int32Array(new SharedArrayBuffer(Math.max(4, bucket[nblocks] * 12))) : takeInts(bucket[nblocks] * 3);
    this.sortedRefs = this.refs ? new Int32Array(Math.max(1, bucket[nblocks])) : null;
    this.sorted = scatterByBlock(this.ent, this.n, bucket, nblocks, dest, this.refs, this.sortedRefs);
    this.shared = shared;
    this.bucket = bucket;
    this.nblocks = nblocks;
    this.widest = widest;
    this.next = new Int32Array(Math.max(16, widest));
    giveInts(this.ent);
    this.ent = new Int32Array(0);
    this.curBlk = -1;
  }

  /** Done matching: the arrays go back for the thread's next indexes (no use after this). */
  release(): void {
    if (this.sorted && !this.shared) giveInts(this.sorted as Int32Array<ArrayBuffer>);
    this.sorted = null;
    this.sortedRefs = null;
    this.nblocks = 0;
  }

  /** 0: no entry has this TID; 1: one with this TID has the fingerprint; 2: the TID is there with other fingerprints. */
  match(block: number, off: number, hi: number, lo: number): 0 | 1 | 2 {
    const k = this.find(block, off, hi, lo, -1);
    return k >= 0 ? 1 : k === -1 ? 0 : 2;
  }

  /**
   * The position of the next entry with TID (block, off) and fingerprint (hi, lo), after position
   * `after` (-1: from the first); -1 when no entry has the TID, -2 when no further one has the
   * fingerprint. Positions are for refAt.
   */
  find(block: number, off: number, hi: number, lo: number, after: number): number {
    if (!this.sorted) throw new Error("TidFingerprints.match before finish");
    if (block >= this.nblocks || off > MAX_OFF) return -1;
    const s = this.sorted;
    const from = this.bucket[block];
    if (block !== this.curBlk) {
      // chain this block's entries by offset (stamped heads: nothing to clear between blocks)
      this.curBlk = block;
      const st = ++this.stampNow;
      const to = this.bucket[block + 1];
      for (let k = from; k < to; k++) {
        const o = s[k * 3];
        if (o > MAX_OFF || o < 0) continue;
        if (this.stamp[o] !== st) {
          this.stamp[o] = st;
          this.head[o] = -1;
        }
        this.next[k - from] = this.head[o];
        this.head[o] = k;
      }
    }
    if (this.stamp[off] !== this.stampNow) return -1;
    for (let k = after < 0 ? this.head[off] : this.next[after - from]; k !== -1; k = this.next[k - from]) {
      if (s[k * 3 + 1] === hi && s[k * 3 + 2] === lo) return k;
    }
    return -2;
  }

  /** The `ref` added with the entry at position k (find), with refs. */
  refAt(k: number): number {
    return this.sortedRefs![k];
  }
}

/** bucket[b + 1] = entries of block b (TIDs beyond nblocks not counted). */
function countPerBlock(e: Int32Array, n: number, nblocks: number): Int32Array<ArrayBuffer> {
  const bucket = new Int32Array(nblocks + 1);
  for (let p = 0; p < n * 4; p += 4) {
    const b = e[p] >>> 0;
    if (b < nblocks) bucket[b + 1]++;
  }
  return bucket;
}

/** Turn the counts into start offsets in place; the largest count. */
function prefixSums(bucket: Int32Array, nblocks: number): number {
  let widest = 0;
  for (let b = 0; b < nblocks; b++) {
    if (bucket[b + 1] > widest) widest = bucket[b + 1];
    bucket[b + 1] += bucket[b];
  }
  return widest;
}

/** Entries (offset, hi, lo) grouped by block in bucket order; with refs, each entry's ref into sortedRefs at its entry's place. */
function scatterByBlock<T extends ArrayBufferLike>(e: Int32Array, n: number, bucket: Int32Array<ArrayBufferLike>, nblocks: number, sorted: Int32Array<T>, refs: Int32Array | null, sortedRefs: Int32Array | null): Int32Array<T> {
  const fill = bucket.slice(0, nblocks);
  for (let p = 0; p < n * 4; p += 4) {
    const b = e[p] >>> 0;
    if (b >= nblocks) continue;
    const k = fill[b]++;
    const q = k * 3;
    sorted[q] = e[p + 1];
    sorted[q + 1] = e[p + 2];
    sorted[q + 2] = e[p + 3];
    if (refs) sortedRefs![k] = refs[p >>> 2];
  }
  return sorted;
}
