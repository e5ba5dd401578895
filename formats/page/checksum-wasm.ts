// pg_checksum_page in WebAssembly with 128-bit SIMD: the 32 FNV-1a-like lanes of checksum_impl.h
// (see checksum.ts) held in 8 v128 accumulators of 4 × i32, one row of the page (32 words,
// 128 bytes) per 8 × (v128.load, v128.xor, i32x4.mul, i32x4.shr_u, v128.xor).
//
// There is no wasm toolchain in the build: the module's bytes are written below with the small
// emitter of formats/wasm/emit.ts (LEB128, the sections, the opcodes used). It is compiled once per
// thread at module load (synchronously; it is under 1 KiB), so each worker thread has its own
// instance and its own memory. When the engine lacks SIMD the compile throws (and with
// node --jitless there is no WebAssembly at all):
// wasmChecksum() returns null, and checksum.ts keeps its plain JS loop.
//
// Cost (bench/checksum.ts, 20,000 real pages, Node 20 x64): about 530 ns a page against 2,050 ns
// for the JS loop. Some 180 ns of it is the SIMD loop, bound by the latency of the 64 dependent
// mul/xor steps of each accumulator; the rest is copying the page into wasm memory, mostly
// cache misses on the caller's buffer. So the memory also holds an area that relation scans read
// their pages into (checksumReadArea): those pages are checksummed where they are, with no copy
// (pd_checksum is masked as the first row is loaded, not cleared). V8 tiers the function up to
// TurboFan even under --single-threaded.
//
// Wasm memory is little-endian on every host, as PostgreSQL's pages are on the platforms Node
// reads them on, so the module reads the page's words exactly as checksum_impl.h does.

import { PageHeaderData } from "./page-header.js";
import { BLCKSZ_DEFAULT } from "./page.js";
import { BLOCKTYPE_EMPTY, I32, V128, i32Const, instantiate, localGet, localSet, localTee, memarg, module, op, uleb } from "../wasm/emit.js";

// SIMD sub-opcodes (after the 0xfd prefix)
const simd = {
  v128_load: 0x00, // v128.load <memarg>: 16 bytes, little-endian lanes
  v128_const: 0x0c, // v128.const <16 bytes>
  i32x4_splat: 0x11, // i32x4.splat: one i32 into all four lanes
  i32x4_extract_lane: 0x1b, // i32x4.extract_lane <lane>
  v128_and: 0x4e,
  v128_xor: 0x51,
  i32x4_shr_u: 0xad, // i32x4.shr_u: each lane shifted right by an i32 count, zero-filled
  i32x4_mul: 0xb5, // i32x4.mul: each lane multiplied, low 32 bits kept
} as const;

const simdOp = (sub: number, ...imm: number[]): number[] => [op.simd, ...uleb(sub), ...imm];

function v128ConstI32x4(a: number, b: number, c: number, d: number): number[] {
  const bytes = new Uint8Array(16);
  const dv = new DataView(bytes.buffer);
  [a, b, c, d].forEach((v, i) => dv.setInt32(i * 4, v, true));
  return simdOp(simd.v128_const, ...bytes);
}

// ---- the checksum function -----------------------------------------------------------------

const PAGE_BYTES = BLCKSZ_DEFAULT;
const N_SUMS = 32;
const ROW_BYTES = N_SUMS * 4; // 128: one row of 32 words
const N_VEC = N_SUMS / 4; // 8 accumulators of 4 lanes
const FNV_PRIME = 16777619;
const CHECKSUM_OFF = PageHeaderData.offsets.pd_checksum; // a uint16 at byte 8

/** The module's memory: a one-page copy area at 0, then an area pages can be read into and checksummed where they are. */
const READ_AREA_AT = 65536;
const READ_AREA_BYTES = 4 * 1024 * 1024;
const MEMORY_PAGES = (READ_AREA_AT + READ_AREA_BYTES) / 65536;

/**
 * The module's bytes. Exports `memory` (MEMORY_PAGES pages, never grown) and
 * `checksum(ptr: i32, blkno: i32) -> i32`, the final pg_checksum_page value 1..65535 of the page
 * at ptr. pd_checksum is masked out of the first row as it is loaded (counted as zero), so the
 * page is not modified: a page read into the memory is checksummed where it is.
 */
export function checksumModuleBytes(baseOffsets: Int32Array): Uint8Array {
  // locals: 0 = ptr, 1 = blkno (params); 2..9 = the accumulators s0..s7; 10 = t; 11 = the prime
  // in 4 lanes; 12 = row address; 13 = end of the page; 14 = the pd_checksum mask
  const PTR = 0;
  const BLKNO = 1;
  const S = (k: number) => 2 + k;
  const T = 2 + N_VEC;
  const PRIME = T + 1;
  const ADDR = PRIME + 1;
  const END = ADDR + 1;
  const MASK = END + 1;

  // s = (s ^ row word) then mixed:  t = s ^ v;  s = (t * prime) ^ (t >> 17)
  // With no word (the two closing rounds with value 0) t is s itself.
  const mix = (k: number, word: number[] | null): number[] => [
    ...localGet(S(k)),
    ...(word ? [...word, ...simdOp(simd.v128_xor)] : []),
    ...localTee(T),
    ...localGet(PRIME),
    ...simdOp(simd.i32x4_mul),
    ...localGet(T),
    ...i32Const(17),
    ...simdOp(simd.i32x4_shr_u),
    ...simdOp(simd.v128_xor),
    ...localSet(S(k)),
  ];
  // Columns 4k..4k+3 of the row at ADDR: v128.load with constant offset 16k.
  const load = (k: number): number[] => [...localGet(ADDR), ...simdOp(simd.v128_load, ...memarg(4, 16 * k))];

  const body: number[] = [];
  // prime in every lane; accumulators start at the base offsets
  body.push(...i32Const(FNV_PRIME), ...simdOp(simd.i32x4_splat), ...localSet(PRIME));
  for (let k = 0; k < N_VEC; k++) {
    const [a, b, c, d] = baseOffsets.subarray(4 * k, 4 * k + 4);
    body.push(...v128ConstI32x4(a, b, c, d), ...localSet(S(k)));
  }
  // pd_checksum (bytes 8-9: the low half of word 2, lane 2 of the first vector) counted as zero
  const maskLanes = [-1, -1, -1, -1];
  maskLanes[CHECKSUM_OFF >>> 2] = CHECKSUM_OFF & 2 ? 0x0000ffff : 0xffff0000 | 0;
  body.push(...v128ConstI32x4(maskLanes[0], maskLanes[1], maskLanes[2], maskLanes[3]), ...localSet(MASK));
  body.push(...localGet(PTR), ...localTee(ADDR), ...i32Const(PAGE_BYTES), op.i32_add, ...localSet(END));
  // the first row, its first vector masked
  body.push(...mix(0, [...load(0), ...localGet(MASK), ...simdOp(simd.v128_and)]));
  for (let k = 1; k < N_VEC; k++) body.push(...mix(k, load(k)));
  // loop { addr += 128; 8 mixes at addr; continue while addr + 128 < end }.
  // (All 64 rows written out straight-line measured 1.6x slower: 22 KiB of machine code, not 1.1 KiB.)
  body.push(op.loop, BLOCKTYPE_EMPTY);
  body.push(...localGet(ADDR), ...i32Const(ROW_BYTES), op.i32_add, ...localSet(ADDR));
  for (let k = 0; k < N_VEC; k++) body.push(...mix(k, load(k)));
  body.push(...localGet(ADDR), ...i32Const(ROW_BYTES), op.i32_add, ...localGet(END), op.i32_lt_u, op.br_if, 0, op.end);
  // two closing rounds with value 0
  for (let r = 0; r < 2; r++) for (let k = 0; k < N_VEC; k++) body.push(...mix(k, null));
  // XOR of the 32 lanes: the 8 vectors, then the 4 lanes of the result
  body.push(...localGet(S(0)));
  for (let k = 1; k < N_VEC; k++) body.push(...localGet(S(k)), ...simdOp(simd.v128_xor));
  body.push(...localTee(T), ...simdOp(simd.i32x4_extract_lane, 0));
  for (let lane = 1; lane < 4; lane++) body.push(...localGet(T), ...simdOp(simd.i32x4_extract_lane, lane), op.i32_xor);
  // (x ^ blkno) % 65535 + 1, unsigned
  body.push(...localGet(BLKNO), op.i32_xor, ...i32Const(65535), op.i32_rem_u, ...i32Const(1), op.i32_add);
  body.push(op.end);

  // locals after the parameters: 9 v128 (s0..s7, t), 1 v128 (prime), 2 i32 (addr, end), 1 v128 (mask)
  return module("checksum", [I32, I32], [I32], [[N_VEC + 2, V128], [2, I32], [1, V128]], body, MEMORY_PAGES);
}

/** The per-thread compiled checksum, and the area of its memory pages can be read into to be checksummed in place. */
export interface WasmChecksum {
  /** pg_checksum_page of an 8192-byte page (copied in first unless it lies in the module's memory) */
  checksum(page: Uint8Array, blkno: number): number;
  /** 4 MiB of the module's memory for pages to be read into (the caller shares it out) */
  readArea: Uint8Array;
}

/**
 * Compile and instantiate the module; null when this engine cannot (no WebAssembly, or no SIMD:
 * the compile throws on the v128 type). checksum() expects an 8192-byte page and a uint32 block
 * number, already validated by the caller.
 */
export function wasmChecksum(baseOffsets: Int32Array): WasmChecksum | null {
  const m = instantiate<(ptr: number, blkno: number) => number>(checksumModuleBytes(baseOffsets), "checksum");
  if (!m) return null;
  const checksum = m.fn;
  // The memory never grows, so these views stay attached.
  const memory = m.memory;
  const copyArea = new Uint8Array(memory, 0, PAGE_BYTES);
  return {
    checksum(page, blkno) {
      if (page.buffer === memory) return checksum(page.byteOffset, blkno);
      copyArea.set(page); // a memcpy
      return checksum(0, blkno);
    },
    readArea: new Uint8Array(memory, READ_AREA_AT, READ_AREA_BYTES),
  };
}
