// A tiny WebAssembly binary emitter for the project's hand-written modules (the page checksum,
// the heapallindexed fingerprint). There is no wasm toolchain in the build: each module writes
// its function bodies with these helpers, and module() lays out the sections a one-function
// module with an exported memory needs.

/** Unsigned LEB128 (section sizes, counts, indices, memarg offsets, SIMD sub-opcodes). */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a 32-bit value (the immediate of i32.const). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  n |= 0;
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** Signed LEB128 of a 64-bit value (the immediate of i64.const). */
export function sleb64(v: bigint): number[] {
  const out: number[] = [];
  let n = BigInt.asIntN(64, v);
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** A UTF-8 name: its byte length, then the bytes (ASCII here). */
export function name(s: string): number[] {
  return [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
}

/** A vector: element count, then the elements' bytes. */
export function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** A section: id, byte size, contents. */
export function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

export const I32 = 0x7f; // value type i32
export const I64 = 0x7e; // value type i64
export const V128 = 0x7b; // value type v128
export const BLOCKTYPE_EMPTY = 0x40;

export const op = {
  block: 0x02, // block <blocktype>: a branch to it leaves the block
  loop: 0x03, // loop <blocktype>: a branch to it continues the loop
  end: 0x0b,
  br_if: 0x0d, // br_if <label>: branch when the i32 on the stack is not 0
  local_get: 0x20,
  local_set: 0x21,
  local_tee: 0x22, // local.set that leaves the value on the stack
  i64_load: 0x29,
  i32_store: 0x36,
  i64_store: 0x37,
  i32_store16: 0x3b, // i32.store16 <memarg>: store the low 16 bits
  i32_const: 0x41,
  i64_const: 0x42,
  i32_eqz: 0x45,
  i32_lt_u: 0x49,
  i32_add: 0x6a,
  i32_mul: 0x6c,
  i32_rem_u: 0x70,
  i32_xor: 0x73,
  i64_add: 0x7c,
  i64_mul: 0x7e,
  i64_or: 0x84,
  i64_xor: 0x85,
  i64_shl: 0x86,
  i64_shr_u: 0x88,
  i64_rotl: 0x89,
  i64_extend_i32_u: 0xad,
  simd: 0xfd, // prefix of every SIMD instruction; the sub-opcode follows as unsigned LEB128
} as const;

/** memarg: log2 of the alignment hint, then the constant offset added to the address operand. */
export const memarg = (alignLog2: number, offset: number): number[] => [...uleb(alignLog2), ...uleb(offset)];
export const localGet = (i: number): number[] => [op.local_get, ...uleb(i)];
export const localSet = (i: number): number[] => [op.local_set, ...uleb(i)];
export const localTee = (i: number): number[] => [op.local_tee, ...uleb(i)];
export const i32Const = (n: number): number[] => [op.i32_const, ...sleb(n)];
export const i64Const = (v: bigint): number[] => [op.i64_const, ...sleb64(v)];

/**
 * A module of one function, exported as `fn`, and one memory of `memoryPages` 64 KiB pages (no
 * maximum), exported as "memory". `params` and `results` are value types; `locals` the (count,
 * type) runs after the parameters; `body` the instructions, ending with op.end.
 */
export function module(fn: string, params: number[], results: number[], locals: [number, number][], body: number[], memoryPages: number): Uint8Array {
  const funcBody = [...vec(locals.map(([n, t]) => [...uleb(n), t])), ...body];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, // magic "\0asm"
    0x01, 0x00, 0x00, 0x00, // version 1
    ...section(1, vec([[0x60, ...vec(params.map((t) => [t])), ...vec(results.map((t) => [t]))]])), // type 0
    ...section(3, vec([[0]])), // function 0 has type 0
    ...section(5, vec([[0x00, ...uleb(memoryPages)]])), // memory 0: min pages, no max
    ...section(7, vec([[...name("memory"), 0x02, 0], [...name(fn), 0x00, 0]])), // exports
    ...section(10, vec([[...uleb(funcBody.length), ...funcBody]])), // code
  ];
  return Uint8Array.from(bytes);
}

// The few members of the WebAssembly JS API used here (the project's lib has no DOM typings,
// where they are declared). The global is absent when Node runs with --jitless.
interface WasmJsApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** Compile and instantiate `bytes`: its exported function and memory; null when this engine cannot (no WebAssembly, or a feature it lacks). */
export function instantiate<F>(bytes: Uint8Array, fn: string): { fn: F; memory: ArrayBuffer } | null {
  const wasm = (globalThis as { WebAssembly?: WasmJsApi }).WebAssembly;
  if (wasm === undefined) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(bytes), {});
    return { fn: instance.exports[fn] as F, memory: (instance.exports.memory as { buffer: ArrayBuffer }).buffer };
  } catch {
    return null;
  }
}
