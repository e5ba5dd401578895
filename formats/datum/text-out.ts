// Output text written as bytes: a value writer puts PostgreSQL's text of a datum straight into
// an output buffer from the datum's bytes, so a dump of millions of values makes no string and
// no object per value. The string output functions (`Decoder`) of the same types are derived
// from the writers (textOf), so each type's output rule has one home.
import { FormatError } from "../schema/errors.js";

/** Where writers write: `buf[pos..]`, after `reserve(n)` made room for n bytes (buf may change). */
export interface TextOut {
  buf: Uint8Array;
  pos: number;
  reserve(n: number): void;
}

/** A type's output function as a writer: the datum is bytes [start, end) of `b`. */
export type ValueWriter = (b: Uint8Array, start: number, end: number, out: TextOut) => void;

/** Throw unless the datum [start, end) has exactly `n` bytes (fixed-length types). */
export function expectWidth(start: number, end: number, n: number, type: string): void {
  if (end - start !== n) throw new FormatError("DATUM_BAD_LENGTH", `${type} datum must be ${n} bytes, got ${end - start}`);
}

/** A growing buffer for textOf (and tests): the text of one value at a time. */
export class ScratchOut implements TextOut {
  buf = new Uint8Array(256);
  pos = 0;
  /** (COPY's RowOut: a ScratchOut keeps every byte anyway) */
  keep = -1;
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(2 * this.buf.length, this.pos + n));
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
  }
}

const shared = new ScratchOut();
let sharedBusy = false;
// the server's text is printed as it is stored: a leading U+FEFF stays
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The string a writer writes (the Decoder of a type whose writer is the rule). */
export function textOf(write: ValueWriter, b: Uint8Array, start = 0, end = b.length): string {
  // a writer may call textOf itself (a value inside a value): then it gets a buffer of its own
  const scratch = sharedBusy ? new ScratchOut() : shared;
  scratch.pos = 0;
  if (scratch === shared) sharedBusy = true;
  try {
    write(b, start, end, scratch);
  } finally {
    if (scratch === shared) sharedBusy = false;
  }
  const n = scratch.pos;
  const buf = scratch.buf;
  if (n < 32) {
    // short ASCII (numbers, dates, uuids): cheaper by hand than through the decoder
    let ascii = true;
    for (let i = 0; i < n; i++) if (buf[i]! >= 0x80) ascii = false;
    if (ascii) return String.fromCharCode.apply(null, buf.subarray(0, n) as unknown as number[]);
  }
  return utf8.decode(buf.subarray(0, n));
}

const encoder = new TextEncoder();

/** Any string, UTF-8 encoded (the writer of types whose rule builds a string). */
export function putText(out: TextOut, s: string): void {
  out.reserve(s.length * 3);
  const b = out.buf;
  let p = out.pos;
  if (s.length < 64) {
    let i = 0;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[p++] = c;
    }
    if (i === s.length) {
      out.pos = p;
      return;
    }
    p = out.pos;
  }
  out.pos = p + encoder.encodeInto(s, b.subarray(p)).written;
}

/** "00" .. "99" as ASCII pairs. */
const DIGIT_PAIRS = encoder.encode(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0")).join(""));

/** Decimal digits of a non-negative integer below 2^53. */
export function decimalWidth(n: number): number {
  if (n < 100000000) return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : n < 10000000 ? 7 : 8;
  let d = 9;
  for (let t = 1e9; n >= t && d < 16; t *= 10) d++;
  return d;
}

/** A non-negative integer (below 2^53) in decimal, right-aligned in `width` columns padded with `fill`. */
export function putUint(b: Uint8Array, p: number, n: number, width: number, fill = 32): number {
  if (n < 10 && width <= 1) {
    b[p] = 48 + n;
    return p + 1;
  }
  if (n >= 100000000) {
    // the digits above the last eight, then those eight from int32 arithmetic (hi * 1e8 is
    // exact: 1e8 = 2^8 * 5^8; the rounded quotient may be one too many)
    let hi = Math.floor(n / 100000000);
    let lo = n - hi * 100000000;
    if (lo < 0) {
      hi -= 1;
      lo += 100000000;
    }
    p = putUint(b, p, hi, width - 8, fill);
    const q = (lo / 10000) | 0;
    putDigits4(b, p, q);
    return putDigits4(b, p + 4, lo - q * 10000);
  }
  const digits = decimalWidth(n);
  for (let i = digits; i < width; i++) b[p++] = fill;
  const end = p + digits;
  let q = end;
  let t = n | 0;
  while (t >= 100) {
    const next = (t / 100) | 0;
    const r = (t - next * 100) * 2;
    b[--q] = DIGIT_PAIRS[r + 1]!;
    b[--q] = DIGIT_PAIRS[r]!;
    t = next;
  }
  if (t >= 10) {
    b[--q] = DIGIT_PAIRS[t * 2 + 1]!;
    b[--q] = DIGIT_PAIRS[t * 2]!;
  } else b[--q] = 48 + t;
  return end;
}

/** A signed integer of magnitude below 2^53 in decimal. */
export function putInt(b: Uint8Array, p: number, n: number): number {
  if (n < 0) {
    b[p++] = 45;
    n = -n;
  }
  return putUint(b, p, n, 0);
}

/** Four digits, zero-padded, of 0 <= n < 10000 (a numeric's base-10000 digit). */
export function putDigits4(b: Uint8Array, p: number, n: number): number {
  const q = (n / 100) | 0;
  const hi = q * 2;
  const lo = (n - q * 100) * 2;
  b[p] = DIGIT_PAIRS[hi]!;
  b[p + 1] = DIGIT_PAIRS[hi + 1]!;
  b[p + 2] = DIGIT_PAIRS[lo]!;
  b[p + 3] = DIGIT_PAIRS[lo + 1]!;
  return p + 4;
}

/** 0 <= n < 10000 in decimal without leading zeros (a numeric's first base-10000 digit). */
export function putUpTo4(b: Uint8Array, p: number, n: number): number {
  if (n < 10) {
    b[p] = 48 + n;
    return p + 1;
  }
  if (n < 100) {
    b[p] = DIGIT_PAIRS[2 * n]!;
    b[p + 1] = DIGIT_PAIRS[2 * n + 1]!;
    return p + 2;
  }
  const hi = (n / 100) | 0;
  const lo = 2 * (n - hi * 100);
  if (hi < 10) b[p++] = 48 + hi;
  else {
    b[p] = DIGIT_PAIRS[2 * hi]!;
    b[p + 1] = DIGIT_PAIRS[2 * hi + 1]!;
    p += 2;
  }
  b[p] = DIGIT_PAIRS[lo]!;
  b[p + 1] = DIGIT_PAIRS[lo + 1]!;
  return p + 2;
}

/** Two digits, zero-padded, of 0 <= n < 100. */
export function putDigits2(b: Uint8Array, p: number, n: number): number {
  b[p] = DIGIT_PAIRS[2 * n]!;
  b[p + 1] = DIGIT_PAIRS[2 * n + 1]!;
  return p + 2;
}

/** Zero-padded non-negative integer of exactly `width` digits (n < 10^width). */
export function putZeroPadded(b: Uint8Array, p: number, n: number, width: number): number {
  return putUint(b, p, n, width, 48);
}

const HEX = encoder.encode("0123456789abcdef");

/** Two lowercase hex digits per byte of src[start, end). */
export function putHexBytes(b: Uint8Array, p: number, src: Uint8Array, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const v = src[i]!;
    b[p] = HEX[v >> 4]!;
    b[p + 1] = HEX[v & 15]!;
    p += 2;
  }
  return p;
}
