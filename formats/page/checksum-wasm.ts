// pg_checksum_page in WebAssembly with 128-bit SIMD: the 32 FNV-1a-like lanes of checksum_impl.h
// (see checksum.ts) held in 8 v128 accumulators of 4 × i32, one row of the page (32 words,
// 128 bytes) per 8 × (v128.load, v128.xor, i32x4.mul, i32x4.shr_u, v128.xor).
//
// There is no wasm toolchain in the build: the module's bytes are written below with the small
// emitter of formats/wasm/emit.ts (LEB128, the sections, the opcodes used). It is compiled once per
// thread at module load (synchronously; it is under 1 KiB), so each worker thread has its own
// instance and its own one-page memory. When the engine lacks SIMD the compile throws (and with
// node --jitless there is no WebAssembly at all):
// wasmChecksum() returns null, and checksum.ts keeps its plain JS loop.
//
// Cost (bench/checksum.ts, 20,000 real pages, Node 20 x64): about 530 ns a page against 2,050 ns
// for the JS loop. Some 180 ns of it is the SIMD loop, bound by the latency of the 64 dependent
// mul/xor steps of each accumulator; the rest is copying the page into wasm memory, mostly
// cache misses on the caller's buffer. A batch of pages per call would copy as much, so the
// memory holds one page. V8 tiers the function up to TurboFan even under --single-threaded.
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

/**
 * The module's bytes. Exports `memory` (one 64 KiB wasm page; the page to checksum is copied to
 * offset 0) and `checksum(blkno: i32) -> i32`, the final pg_checksum_page value 1..65535. The
 * function clears pd_checksum in the copy (it is counted as zero), so it must be called once per copy.
 */
export function checksumModuleBytes(baseOffsets: Int32Array): Uint8Array {
  // locals: 0 = blkno (param); 1..8 = the accumulators s0..s7; 9 = t; 10 = the prime in 4 lanes; 11 = row address
  const BLKNO = 0;
  const S = (k: number) => 1 + k;
  const T = 1 + N_VEC;
  const PRIME = T + 1;
  const ADDR = PRIME + 1;

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
  // pd_checksum counted as zero: clear it in the copy (the caller's page is not touched).
  body.push(...i32Const(0), ...i32Const(0), op.i32_store16, ...memarg(1, CHECKSUM_OFF));
  // prime in every lane; accumulators start at the base offsets
  body.push(...i32Const(FNV_PRIME), ...simdOp(simd.i32x4_splat), ...localSet(PRIME));
  for (let k = 0; k < N_VEC; k++) {
    const [a, b, c, d] = baseOffsets.subarray(4 * k, 4 * k + 4);
    body.push(...v128ConstI32x4(a, b, c, d), ...localSet(S(k)));
  }
  // addr = 0 (locals start at zero); loop { 8 mixes at addr; addr += 128; continue while addr < 8192 }.
  // (All 64 rows written out straight-line measured 1.6x slower: 22 KiB of machine code, not 1.1 KiB.)
  body.push(op.loop, BLOCKTYPE_EMPTY);
  for (let k = 0; k < N_VEC; k++) body.push(...mix(k, load(k)));
  body.push(...localGet(ADDR), ...i32Const(ROW_BYTES), op.i32_add, ...localTee(ADDR));
  body.push(...i32Const(PAGE_BYTES), op.i32_lt_u, op.br_if, 0, op.end);
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

  // locals after the parameter: 9 v128 (s0..s7, t), 1 v128 (prime), 1 i32 (addr); memory: 1 page
  return module("checksum", [I32], [I32], [[N_VEC + 2, V128], [1, I32]], body, 1);
}

/** The per-thread compiled checksum: copy a page in, run, read the 16-bit result. */
export type PageChecksumFn = (page: Uint8Array, blkno: number) => number;

/**
 * Compile and instantiate the module; null when this engine cannot (no WebAssembly, or no SIMD:
 * the compile throws on the v128 type). The returned function expects an 8192-byte page and a
 * uint32 block number, already validated by the caller.
 */
export function wasmChecksum(baseOffsets: Int32Array): PageChecksumFn | null {
  const m = instantiate<(blkno: number) => number>(checksumModuleBytes(baseOffsets), "checksum");
  if (!m) return null;
  const checksum = m.fn;
  // One 64 KiB memory that never grows, so this view stays attached.
  const mem = new Uint8Array(m.memory, 0, PAGE_BYTES);
  return (page, blkno) => {
    mem.set(page); // a memcpy; the module clears pd_checksum in this copy
    return checksum(blkno);
  };
}
