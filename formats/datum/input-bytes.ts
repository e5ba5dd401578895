// Input functions over bytes, for the loader's fast path: the stored datum of a value whose text
// is an ASCII span of the input (no escape decoded), without making a string. Each one covers
// the common form of its type only and returns null for anything else; the caller then uses the
// type's text input function (formats/datum/input.ts), which gives the same bytes or the error.
// Same results as int2in/int4in/int8in (plain decimal digits) and textin/varcharin (the bytes).
import { canMakeShort, VARHDRSZ, VARHDRSZ_SHORT } from "../varlena/varlena.js";
import type { AttrDesc } from "../heap/descriptor.js";

/** Stored datum bytes of the ASCII text in src[start, end), or null: use the text input function. */
export type BytesInput = (src: Uint8Array, start: number, end: number) => Uint8Array | null;

/**
 * The same written into dst at `at` (room for bytesIntoBound(end - start) bytes there): returns
 * the datum's length, or -1: use the text input function (nothing allocated either way).
 */
export type BytesInto = (src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number) => number;

/** The most bytes a BytesInto writes for an n-byte text (an 8-byte integer, a 4-byte varlena header). */
export const bytesIntoBound = (n: number): number => (n + 4 > 8 ? n + 4 : 8);

/**
 * int2in/int4in/int8in of optional sign and 1-15 decimal digits (exact in a double), written
 * little-endian into dst; -1 for any other text (out of range, 16 digits and more: the text way,
 * for its error or its BigInt).
 */
function integerInto(size: 2 | 4 | 8): BytesInto {
  const max = size === 8 ? Number.MAX_SAFE_INTEGER : 2 ** (size * 8 - 1) - 1;
  return (src, start, end, dst, at) => {
    let i = start;
    const neg = src[i] === 0x2d;
    if (neg || src[i] === 0x2b) i++;
    const digits = end - i;
    if (digits < 1 || digits > 15) return -1;
    let n = 0;
    for (; i < end; i++) {
      const d = src[i] - 0x30;
      if (d < 0 || d > 9) return -1;
      n = n * 10 + d;
    }
    if (neg) n = -n;
    if (!(n <= max && n >= -max - 1)) return -1;
    const lo = n | 0;
    dst[at] = lo;
    dst[at + 1] = lo >>> 8;
    if (size === 2) return 2;
    dst[at + 2] = lo >>> 16;
    dst[at + 3] = lo >>> 24;
    if (size === 4) return 4;
    const hi = Math.floor(n / 4294967296) | 0;
    dst[at + 4] = hi;
    dst[at + 5] = hi >>> 8;
    dst[at + 6] = hi >>> 16;
    dst[at + 7] = hi >>> 24;
    return 8;
  };
}

/**
 * The stored varlena of the bytes src[start, end) (ASCII: characters = bytes) written into dst,
 * its header as varlenaAlloc makes it for attribute `a`; -1 when more than `maxChars` (the text
 * function raises the error).
 */
export function varlenaInto(a: AttrDesc, maxChars = Infinity): BytesInto {
  const packable = a.storage !== "p";
  return (src, start, end, dst, at) => {
    const n = end - start;
    if (n > maxChars) return -1;
    let p = at;
    if (packable && canMakeShort(n)) dst[p++] = ((VARHDRSZ_SHORT + n) << 1) | 1;
    else {
      // the 4-byte header set4bHeader writes: length << 2, little-endian
      const total = (VARHDRSZ + n) << 2;
      dst[p] = total;
      dst[p + 1] = total >>> 8;
      dst[p + 2] = total >>> 16;
      dst[p + 3] = total >>> 24;
      p += VARHDRSZ;
    }
    if (n < 32) for (let i = 0; i < n; i++) dst[p + i] = src[start + i];
    else dst.set(src.subarray(start, end), p);
    return p - at + n;
  };
}

/** A BytesInto as a BytesInput: the datum in a new array. */
function allocating(into: BytesInto): BytesInput {
  let scratch = new Uint8Array(64);
  return (src, start, end) => {
    const bound = bytesIntoBound(end - start);
    if (scratch.length < bound) scratch = new Uint8Array(bound);
    const n = into(src, start, end, scratch, 0);
    return n < 0 ? null : scratch.slice(0, n);
  };
}

const INT2OID = 21;
const INT4OID = 23;
const INT8OID = 20;
const TEXTOID = 25;
const VARCHAROID = 1043;

/** The bytes input of attribute `a` by its own type, writing into a buffer (a domain has none: its checks need the text way); null when none. */
export function bytesIntoFor(a: AttrDesc): BytesInto | null {
  switch (a.typid) {
    case INT2OID:
      return integerInto(2);
    case INT4OID:
      return integerInto(4);
    case INT8OID:
      return integerInto(8);
    case TEXTOID:
      return varlenaInto(a);
    case VARCHAROID:
      return varlenaInto(a, a.typmod >= VARHDRSZ ? a.typmod - VARHDRSZ : Infinity);
  }
  return null;
}

/** The same, each datum in a new array. */
export function bytesInputFor(a: AttrDesc): BytesInput | null {
  const into = bytesIntoFor(a);
  return into ? allocating(into) : null;
}
