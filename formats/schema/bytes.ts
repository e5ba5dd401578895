// Little-endian integers at a byte offset, for the few layouts that are arrays rather than
// declared structs (SLRU pages of xids, datum payloads, sort keys). A declared struct reads its
// fields with its generated getters (`Struct.get`) instead.
export const u16At = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
export const i16At = (b: Uint8Array, at: number): number => ((b[at]! | (b[at + 1]! << 8)) << 16) >> 16;
export const i32At = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
export const u32At = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
export function setU16At(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
}
export function setU32At(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}

type GrowableArray = Uint8Array | Int32Array | Float64Array;

/**
 * `a` when it holds `minLength` elements, else a copy of its first `used` elements (all of them
 * by default) in an array of the same kind at least twice as long: the one growth rule of the
 * reused buffers of the hot paths (amortised O(1) appends, no per-item allocation).
 */
export function grown<T extends GrowableArray>(a: T, minLength: number, used: number = a.length): T {
  if (minLength <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(a.length * 2, minLength));
  b.set(used === a.length ? a : (a.subarray(0, used) as T));
  return b;
}
