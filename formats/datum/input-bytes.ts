// Input functions over bytes, for the loader's fast path: the stored datum of a value whose text
// is an ASCII span of the input (no escape decoded), without making a string. Each one covers
// the common form of its type only and returns null for anything else; the caller then uses the
// type's text input function (formats/datum/input.ts), which gives the same bytes or the error.
// Same results as int2in/int4in/int8in (plain decimal digits) and textin/varcharin (the bytes).
import { VARHDRSZ } from "../varlena/varlena.js";
import { varlenaAlloc } from "../heap/form.js";
import type { AttrDesc } from "../heap/descriptor.js";

/** Stored datum bytes of the ASCII text in src[start, end), or null: use the text input function. */
export type BytesInput = (src: Uint8Array, start: number, end: number) => Uint8Array | null;

/** Optional sign and 1-15 decimal digits (exact in a double), else NaN. */
function shortInteger(src: Uint8Array, start: number, end: number): number {
  let i = start;
  const neg = src[i] === 0x2d;
  if (neg || src[i] === 0x2b) i++;
  const digits = end - i;
  if (digits < 1 || digits > 15) return NaN;
  let n = 0;
  for (; i < end; i++) {
    const d = src[i] - 0x30;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return neg ? -n : n;
}

function integerBytes(size: 2 | 4 | 8): BytesInput {
  const max = size === 8 ? Number.MAX_SAFE_INTEGER : 2 ** (size * 8 - 1) - 1;
  return (src, start, end) => {
    const n = shortInteger(src, start, end);
    // out of range (and 16-digit int8 values) go the text way, for its error or its BigInt
    if (!(n <= max && n >= -max - 1)) return null;
    const out = new Uint8Array(size);
    const lo = n | 0;
    out[0] = lo;
    out[1] = lo >>> 8;
    if (size === 2) return out;
    out[2] = lo >>> 16;
    out[3] = lo >>> 24;
    if (size === 4) return out;
    const hi = Math.floor(n / 4294967296) | 0;
    out[4] = hi;
    out[5] = hi >>> 8;
    out[6] = hi >>> 16;
    out[7] = hi >>> 24;
    return out;
  };
}

/**
 * The stored varlena of the bytes src[start, end) (ASCII: characters = bytes), its header as
 * varlenaAlloc makes it for attribute `a`; null when more than `maxChars` (the text function
 * raises the error).
 */
export function varlenaBytes(a: AttrDesc, maxChars = Infinity): BytesInput {
  return (src, start, end) => {
    const n = end - start;
    if (n > maxChars) return null;
    const { out, at } = varlenaAlloc(a, n);
    if (n < 32) for (let i = 0; i < n; i++) out[at + i] = src[start + i];
    else out.set(src.subarray(start, end), at);
    return out;
  };
}

const INT2OID = 21;
const INT4OID = 23;
const INT8OID = 20;
const TEXTOID = 25;
const VARCHAROID = 1043;

/** The bytes input of attribute `a` by its own type (a domain has none: its checks need the text way); null when none. */
export function bytesInputFor(a: AttrDesc): BytesInput | null {
  switch (a.typid) {
    case INT2OID:
      return integerBytes(2);
    case INT4OID:
      return integerBytes(4);
    case INT8OID:
      return integerBytes(8);
    case TEXTOID:
      return varlenaBytes(a);
    case VARCHAROID:
      return varlenaBytes(a, a.typmod >= VARHDRSZ ? a.typmod - VARHDRSZ : Infinity);
  }
  return null;
}
