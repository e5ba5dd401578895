// The heapallindexed fingerprint's hash: 64 bits of a tuple's bytes, computed in WebAssembly
// (64-bit multiplies; JavaScript has only 32-bit ones, and its lane design needed each word in
// two lanes and two multiplies per 4 bytes: 3-4x slower). A BigInt version computes the same
// value where WebAssembly is missing or the bytes do not fit the module's memory, and lets the
// tests check the module against it.
//
// The hash of bytes p[0, n) (n a multiple of 8; callers pad with zeros) with seed
// s = info | size << 16:
//   a = (s ^ S1) * K1, d = (s + S2) * K2                        (mod 2^64)
//   for each 8-byte little-endian word w_i:
//     i even: a = rotl(a ^ w_i, 23) * K1;  i odd: d = rotl(d ^ w_i, 29) * K2
//   result = fmix64(a + d * K3)                                   (MurmurHash3's finaliser)
// Each lane step is a bijection of the lane for a fixed word (xor, rotation, multiplication by an
// odd constant), and so is fmix64. Bytes that differ in one word therefore never collide: that
// word's lane differs at the end, the other lane is equal, so a + d * K3 differs. Differences in
// two or more words collide as a random 64-bit function would, about once in 1.8e19.
import { I32, I64, BLOCKTYPE_EMPTY, i32Const, i64Const, instantiate, localGet, localSet, localTee, memarg, module, op } from "../../formats/wasm/emit.js";

const K1 = 0x9e3779b97f4a7c15n;
const K2 = 0xc2b2ae3d27d4eb4fn;
const K3 = 0x165667b19e3779f9n;
const S1 = 0x27d4eb2f165667c5n;
const S2 = 0x85ebca77c2b2ae63n;
const F1 = 0xff51afd7ed558ccdn;
const F2 = 0xc4ceb9fe1a85ec53n;
const R_EVEN = 23n;
const R_ODD = 29n;

/** The module's memory: 4 pages of 64 KiB, never grown (views on it stay attached). */
export const HASH_MEMORY_BYTES = 4 * 65536;
/** where hash() stores its result (8 bytes, little-endian) */
export const HASH_RESULT_AT = 0;

/**
 * The module: `memory`, and `hash(ptr, pairs, odd, info, size)` over the 16 * pairs + 8 * odd
 * bytes at ptr, storing the 64-bit result at HASH_RESULT_AT.
 */
export function fingerprintModuleBytes(): Uint8Array {
  // params 0 ptr, 1 pairs, 2 odd, 3 info, 4 size; locals 5 a, 6 d (i64), 7 end (i32)
  const [PTR, PAIRS, ODD, INFO, SIZE, A, D, END] = [0, 1, 2, 3, 4, 5, 6, 7];
  const step = (lane: number, at: number, rot: bigint, k: bigint): number[] => [
    ...localGet(lane),
    ...localGet(PTR),
    op.i64_load, ...memarg(3, at),
    op.i64_xor,
    ...i64Const(rot),
    op.i64_rotl,
    ...i64Const(k),
    op.i64_mul,
    ...localSet(lane),
  ];
  const xorShift33 = (): number[] => [...localGet(A), ...localGet(A), ...i64Const(33n), op.i64_shr_u, op.i64_xor];
  const body = [
    // seed = info | size << 16 (as u64); a = (seed ^ S1) * K1; d = (seed + S2) * K2
    ...localGet(INFO), op.i64_extend_i32_u, ...localGet(SIZE), op.i64_extend_i32_u, ...i64Const(16n), op.i64_shl, op.i64_or,
    ...localTee(A), ...i64Const(S2), op.i64_add, ...i64Const(K2), op.i64_mul, ...localSet(D),
    ...localGet(A), ...i64Const(S1), op.i64_xor, ...i64Const(K1), op.i64_mul, ...localSet(A),
    // end = ptr + 16 * pairs; the pairs of words
    ...localGet(PTR), ...localGet(PAIRS), ...i32Const(16), op.i32_mul, op.i32_add, ...localSet(END),
    op.block, BLOCKTYPE_EMPTY,
    ...localGet(PAIRS), op.i32_eqz, op.br_if, 0,
    op.loop, BLOCKTYPE_EMPTY,
    ...step(A, 0, R_EVEN, K1),
    ...step(D, 8, R_ODD, K2),
    ...localGet(PTR), ...i32Const(16), op.i32_add, ...localTee(PTR), ...localGet(END), op.i32_lt_u, op.br_if, 0,
    op.end,
    op.end,
    // a last, even word
    op.block, BLOCKTYPE_EMPTY,
    ...localGet(ODD), op.i32_eqz, op.br_if, 0,
    ...step(A, 0, R_EVEN, K1),
    op.end,
    // fmix64(a + d * K3), into a
    ...localGet(A), ...localGet(D), ...i64Const(K3), op.i64_mul, op.i64_add, ...localSet(A),
    ...xorShift33(), ...i64Const(F1), op.i64_mul, ...localSet(A),
    ...xorShift33(), ...i64Const(F2), op.i64_mul, ...localSet(A),
    ...xorShift33(), ...localSet(A),
    ...i32Const(HASH_RESULT_AT), ...localGet(A), op.i64_store, ...memarg(3, 0),
    op.end,
  ];
  return module("hash", [I32, I32, I32, I32, I32], [], [[2, I64], [1, I32]], body, HASH_MEMORY_BYTES / 65536);
}

/** The compiled module of this thread, or null without WebAssembly. */
export function fingerprintModule(): { hash: (ptr: number, pairs: number, odd: number, info: number, size: number) => void; memory: ArrayBuffer } | null {
  const m = instantiate<(ptr: number, pairs: number, odd: number, info: number, size: number) => void>(fingerprintModuleBytes(), "hash");
  return m ? { hash: m.fn, memory: m.memory } : null;
}

const M64 = (1n << 64n) - 1n;
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M64;

/**
 * The same hash in BigInt arithmetic over b[from, from + n) (zero-padded to a multiple of 8):
 * [high 32 bits, low 32 bits] as signed int32s.
 */
export function fingerprintHashRef(b: Uint8Array, from: number, n: number, info: number, size: number): [number, number] {
  const seed = (BigInt(info >>> 0) | (BigInt(size >>> 0) << 16n)) & M64;
  let a = ((seed ^ S1) * K1) & M64;
  let d = ((seed + S2) * K2) & M64;
  const words = Math.ceil(n / 8);
  for (let i = 0; i < words; i++) {
    let w = 0n;
    for (let k = 7; k >= 0; k--) w = (w << 8n) | BigInt(8 * i + k < n ? b[from + 8 * i + k] : 0);
    if ((i & 1) === 0) a = (rotl(a ^ w, R_EVEN) * K1) & M64;
    else d = (rotl(d ^ w, R_ODD) * K2) & M64;
  }
  let h = (a + d * K3) & M64;
  h = ((h ^ (h >> 33n)) * F1) & M64;
  h = ((h ^ (h >> 33n)) * F2) & M64;
  h ^= h >> 33n;
  return [Number(BigInt.asIntN(32, h >> 32n)), Number(BigInt.asIntN(32, h))];
}
