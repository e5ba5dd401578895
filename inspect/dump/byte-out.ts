// Text output assembled as bytes: numbers and ASCII written digit by digit into a large buffer
// that is handed to the sink whole (the sink owns it; a fresh one comes from `alloc`), so a dump
// of millions of items builds no intermediate strings. Non-ASCII text (values, names) goes
// through Buffer's UTF-8 encoder.
import { putText, putUint } from "../../formats/datum/text-out.js";

const HEX = new TextEncoder().encode("0123456789abcdef");

export class ByteOut {
  /** hot renderers write into buf (or through dv) at pos directly, after reserve() */
  buf: Buffer;
  dv: DataView;
  pos = 0;
  /** bytes handed to the sink so far */
  written = 0;
  /**
   * When >= 0, a flush for room (reserve) hands on only buf[0, keep) and carries buf[keep, pos)
   * (a COPY row being written) to the start of the fresh buffer, keep becoming 0.
   */
  keep = -1;

  constructor(
    /** receives each full chunk; owns it afterwards */
    private readonly sink: (chunk: Uint8Array) => void,
    private readonly chunkSize = 1 << 20,
    /** where fresh chunk buffers come from (a pool of returned ones, say) */
    private readonly alloc: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
  ) {
    this.buf = alloc(chunkSize);
    this.dv = viewOf(this.buf);
  }

  /** Make room for n more bytes (buf may change). */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.keep >= 0) return this.carry(n);
    this.flush();
    if (n > this.buf.length) {
      this.buf = this.alloc(n);
      this.dv = viewOf(this.buf);
    }
  }

  /** reserve() with bytes kept: buf[0, keep) to the sink, buf[keep, pos) into a fresh buffer with room for n more. */
  private carry(n: number): void {
    const old = this.buf;
    const k = this.keep;
    const kept = this.pos - k;
    this.buf = this.alloc(Math.max(this.chunkSize, kept + n));
    this.dv = viewOf(this.buf);
    this.buf.set(old.subarray(k, this.pos), 0);
    this.pos = kept;
    this.keep = 0;
    if (k > 0) {
      this.written += k;
      this.sink(old.subarray(0, k));
    }
  }

  flush(): void {
    if (!this.pos) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.written += this.pos;
    this.buf = this.alloc(this.chunkSize);
    this.dv = viewOf(this.buf);
    this.pos = 0;
    this.sink(chunk);
  }

  /** Any string, UTF-8 encoded. */
  text(s: string): void {
    putText(this, s);
  }

  /** Pre-encoded bytes (constants). */
  bytes(src: Uint8Array): void {
    this.reserve(src.length);
    this.pos = putBytes(this.buf, this.pos, src);
  }

  byte(c: number): void {
    this.reserve(1);
    this.buf[this.pos++] = c;
  }
}

const viewOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

// Position-passing writers for hot loops: each returns the new position (callers reserve first).

/** A constant text prepared for putConst: 4-byte words (one store each) and the tail bytes. */
export interface ConstText {
  words: Uint32Array;
  tail: Uint8Array;
}

export function constText(s: string): ConstText {
  const bytes = new TextEncoder().encode(s);
  const n = bytes.length >> 2;
  const words = new Uint32Array(n);
  const v = viewOf(bytes);
  for (let i = 0; i < n; i++) words[i] = v.getUint32(4 * i, true);
  return { words, tail: bytes.slice(4 * n) };
}

/** Write a constant: a store per 4 bytes rather than per byte. */
export function putConst(dv: DataView, b: Uint8Array, p: number, c: ConstText): number {
  const w = c.words;
  for (let i = 0; i < w.length; i++) {
    dv.setUint32(p, w[i]!, true);
    p += 4;
  }
  const t = c.tail;
  for (let i = 0; i < t.length; i++) b[p++] = t[i]!;
  return p;
}

/** Copy constant bytes. */
export function putBytes(b: Uint8Array, p: number, src: Uint8Array): number {
  for (let i = 0; i < src.length; i++) b[p++] = src[i]!;
  return p;
}

/** A label and a number after it ("  xmin " 796). */
export function putField(dv: DataView, b: Uint8Array, p: number, label: ConstText, n: number, width = 0): number {
  return putUint(b, putConst(dv, b, p, label), n, width);
}

/** A TID's two numbers, "block,offset" (the caller writes the parentheses). */
export function putTidNumbers(b: Uint8Array, p: number, block: number, offset: number): number {
  p = putUint(b, p, block, 0);
  b[p++] = 44;
  return putUint(b, p, offset, 0);
}

/** At least 4 lowercase hex digits of a 16-bit value. */
export function putHex4(b: Uint8Array, p: number, n: number): number {
  b[p] = HEX[(n >> 12) & 15]!;
  b[p + 1] = HEX[(n >> 8) & 15]!;
  b[p + 2] = HEX[(n >> 4) & 15]!;
  b[p + 3] = HEX[n & 15]!;
  return p + 4;
}

/** "xx xx xx" for bytes [start, start + len) of src. */
export function putHexSpaced(b: Uint8Array, p: number, src: Uint8Array, start: number, len: number): number {
  for (let i = 0; i < len; i++) {
    const v = src[start + i]!;
    b[p] = 32;
    b[p + 1] = HEX[v >> 4]!;
    b[p + 2] = HEX[v & 15]!;
    p += 3;
  }
  return p;
}

const encoder = new TextEncoder();
export const ascii = (s: string): Uint8Array => encoder.encode(s);
