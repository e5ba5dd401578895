// Data page checksums: pg_checksum_page (src/include/storage/checksum_impl.h), identical 15–18.
// FNV-1a-like mixing over the page seen as 64 rows × 32 little-endian uint32 columns, with
// pd_checksum counted as zero, then folded with the absolute block number of the fork
// (segno * RELSEG_SIZE + block in segment) and reduced to 1..65535.
// pgChecksumPage runs a WebAssembly SIMD version (checksum-wasm.ts, about 4x faster) when the
// engine has it, else the JS loop below (pgChecksumPageJs); both give the same results.
import { FormatError } from "../schema/errors.js";
import { PageHeaderData } from "./page-header.js";
import { BLCKSZ_DEFAULT } from "./page.js";
import { wasmChecksum, type WasmChecksum } from "./checksum-wasm.js";
import { HOST_LE, wordViewCache } from "./word-view.js";

const N_SUMS = 32;
const FNV_PRIME = 16777619;
const BASE_OFFSETS = Int32Array.of(
  0x5b1f36e9, 0xb8525960, 0x02ab50aa, 0x1de66d2a, 0x79ff467a, 0x9bb9f8a3, 0x217e7cd2, 0x83e13d2c,
  0xf8d4474f, 0xe39eb970, 0x42c6ae16, 0x993216fa, 0x7b093b5d, 0x98daff3c, 0xf718902a, 0x0b1c9cdb,
  0xe58f764b, 0x187636bc, 0x5d7b3bb1, 0xe73de7de, 0x92bec979, 0xcca6c0b2, 0x304a0979, 0x85aa43d4,
  0x783125bb, 0x6ca8eaa2, 0xe407eac6, 0x4b5cfc3e, 0x9fbf8c76, 0x15ca20be, 0xf2ca9fd3, 0x959bd756,
);

const CHECKSUM_OFF = PageHeaderData.offsets.pd_checksum; // 8
// pd_checksum is the low half of word 2 (little-endian), so that word is masked instead of copied.
const CHECKSUM_WORD = CHECKSUM_OFF >>> 2;
const CHECKSUM_MASK = CHECKSUM_OFF & 2 ? 0x0000ffff : 0xffff0000;

// Reused by every call (no allocation per page): the page copied into a word view.
// Typed-array reads are host-endian; every platform Node runs PostgreSQL files on is little-endian,
// and the guard below keeps a big-endian host correct through a byte-wise path.
const WORDS = BLCKSZ_DEFAULT / 4;
const scratch = new Int32Array(WORDS);
const scratchBytes = new Uint8Array(scratch.buffer);
const wordsOver = wordViewCache();

// Compiled once per thread, on first use: not at module load, where the startup snapshot
// (cli/snapshot.ts) would keep the module's null (a snapshot cannot hold a WebAssembly
// instance). Null without WebAssembly SIMD; big-endian hosts keep the JS path too (wasm memory
// is little-endian everywhere, so the module would be right there as well, but it is only ever
// tested on little-endian hosts).
let wasmState: WasmChecksum | null | undefined;
const wasmPage = (): WasmChecksum | null => (wasmState === undefined ? (wasmState = HOST_LE ? wasmChecksum(BASE_OFFSETS) : null) : wasmState);
/** pages pgChecksumPage checksums in JS before it compiles the module: a short run (one block) does not pay the compile */
const JS_PAGES_FIRST = 64;
let jsPages = 0;

/**
 * This thread's area (4 MiB) of the checksum module's memory: pgChecksumPage checksums a page
 * that lies in it where it is, without copying it. Null without WebAssembly SIMD. Callers share
 * it out as read buffers (verify/scan.ts).
 */
export function checksumReadArea(): Uint8Array | null {
  return wasmPage()?.readArea ?? null;
}

/** Which implementation pgChecksumPage runs in this thread. */
export const pgChecksumImplementation = (): "wasm-simd" | "js" => (wasmPage() ? "wasm-simd" : "js");

function checkArgs(page: Uint8Array, blkno: number): void {
  if (page.length !== BLCKSZ_DEFAULT) {
    throw new FormatError("CHECKSUM_PAGE_SIZE", `pg_checksum_page needs a ${BLCKSZ_DEFAULT}-byte page, got ${page.length} bytes`, { block: blkno });
  }
  if (!(blkno >= 0 && blkno <= 0xffffffff) || blkno % 1 !== 0) throw new RangeError(`block number ${blkno} is not a uint32`);
}

/**
 * pg_checksum_page: the 16-bit checksum (1..65535) of an 8192-byte page at absolute block
 * number `blkno` of its fork. The stored pd_checksum is ignored; the page is not modified.
 */
export function pgChecksumPage(page: Uint8Array, blkno: number): number {
  checkArgs(page, blkno);
  if (wasmState === undefined && jsPages < JS_PAGES_FIRST) {
    jsPages++;
    return checksumJs(page, blkno);
  }
  const wasm = wasmState === undefined ? wasmPage() : wasmState;
  return wasm !== null ? wasm.checksum(page, blkno) : checksumJs(page, blkno);
}

/** pgChecksumPage in plain JS, whatever the engine supports (the fallback; tests compare the two). */
export function pgChecksumPageJs(page: Uint8Array, blkno: number): number {
  checkArgs(page, blkno);
  return checksumJs(page, blkno);
}

function checksumJs(page: Uint8Array, blkno: number): number {
  // Read the page in place through a word view of its buffer when it is 4-byte aligned (pages
  // come from block reads: always), else through a copy; pd_checksum's word is masked on read.
  let words: Int32Array<ArrayBufferLike>;
  let base: number;
  if (HOST_LE && (page.byteOffset & 3) === 0) {
    words = wordsOver(page.buffer);
    base = page.byteOffset >>> 2;
  } else {
    if (HOST_LE) scratchBytes.set(page);
    else for (let w = 0, b = 0; w < WORDS; w++, b += 4) scratch[w] = page[b] | (page[b + 1] << 8) | (page[b + 2] << 16) | (page[b + 3] << 24);
    words = scratch;
    base = 0;
  }

  // The 32 columns are independent chains: run eight at a time in registers (the same result as
  // PostgreSQL's row-by-row loop, with room for the CPU to overlap the multiplies).
  let result = 0;
  for (let j = 0; j < N_SUMS; j += 8) {
    let s0 = BASE_OFFSETS[j], s1 = BASE_OFFSETS[j + 1], s2 = BASE_OFFSETS[j + 2], s3 = BASE_OFFSETS[j + 3];
    let s4 = BASE_OFFSETS[j + 4], s5 = BASE_OFFSETS[j + 5], s6 = BASE_OFFSETS[j + 6], s7 = BASE_OFFSETS[j + 7];
    let t: number;
    for (let i = base + j, end = base + WORDS; i < end; i += N_SUMS) {
      // row 0 of the first eight columns holds pd_checksum (word 2), counted as zero
      const w2 = i === base + CHECKSUM_WORD - 2 ? words[i + 2] & CHECKSUM_MASK : words[i + 2];
      t = s0 ^ words[i]; s0 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s1 ^ words[i + 1]; s1 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s2 ^ w2; s2 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s3 ^ words[i + 3]; s3 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s4 ^ words[i + 4]; s4 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s5 ^ words[i + 5]; s5 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s6 ^ words[i + 6]; s6 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
      t = s7 ^ words[i + 7]; s7 = Math.imul(t, FNV_PRIME) ^ (t >>> 17);
    }
    // Two extra rounds with value 0, so that the last row is mixed as well as the others.
    for (let r = 0; r < 2; r++) {
      s0 = Math.imul(s0, FNV_PRIME) ^ (s0 >>> 17);
      s1 = Math.imul(s1, FNV_PRIME) ^ (s1 >>> 17);
      s2 = Math.imul(s2, FNV_PRIME) ^ (s2 >>> 17);
      s3 = Math.imul(s3, FNV_PRIME) ^ (s3 >>> 17);
      s4 = Math.imul(s4, FNV_PRIME) ^ (s4 >>> 17);
      s5 = Math.imul(s5, FNV_PRIME) ^ (s5 >>> 17);
      s6 = Math.imul(s6, FNV_PRIME) ^ (s6 >>> 17);
      s7 = Math.imul(s7, FNV_PRIME) ^ (s7 >>> 17);
    }
    result ^= s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7;
  }
  result = (result ^ blkno) >>> 0;
  return (result % 65535) + 1;
}

/** The pd_checksum stored in the page header. */
export function storedPageChecksum(page: Uint8Array): number {
  return page[CHECKSUM_OFF] | (page[CHECKSUM_OFF + 1] << 8);
}

/** For writers: compute the page's checksum for `blkno` and store it in pd_checksum. Returns it. */
export function setPageChecksum(page: Uint8Array, blkno: number): number {
  const c = pgChecksumPage(page, blkno);
  page[CHECKSUM_OFF] = c & 0xff;
  page[CHECKSUM_OFF + 1] = c >>> 8;
  return c;
}
