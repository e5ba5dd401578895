// LZ4 raw blocks as TOAST stores them (TOAST compression method 1): LZ4_compress_default output,
// no frame, no size prefix (the raw size is in va_tcinfo). PostgreSQL decodes them with
// LZ4_decompress_safe (whole values) and LZ4_decompress_safe_partial (slices).
//
// Block: sequences of token (literal length << 4 | match length - 4), 255-run length
// extensions, literals, 16-bit LE offset, match-length extensions; the last sequence is
// literals only.
//
// The decoder below accepts and rejects exactly what liblz4 1.9.4's LZ4_decompress_safe(_partial)
// does. liblz4's end-of-block checks differ between its three decoding paths (a "fast" loop used
// while more than 64 output bytes remain, a short-sequence shortcut, and the careful path), and
// they depend only on positions and lengths, never on data bytes, so we track which path liblz4
// would be on and apply that path's checks. Error offsets are the input position liblz4 reports
// (its return value is -(offset) - 1). One deliberate difference: liblz4 accepts a match offset
// of 0 and writes zeros (or leftover buffer bytes); we reject it (LZ4_OFFSET_ZERO).
import { createRequire } from "node:module";

// lz4-napi (a native addon) is loaded on first use: most runs never need it (verify validates
// in TypeScript), and loading it cost every thread ~14 ms at start-up; import.meta.url is read
// then too (in the startup snapshot, cli/snapshot.ts, it is set at each start)
let native: typeof import("lz4-napi") | undefined;
const lz4napi = (): typeof import("lz4-napi") => (native ??= createRequire(import.meta.url)("lz4-napi") as typeof import("lz4-napi"));
import { fail, lastLiteralsError, matchInLastLiterals, offsetBeyond, offsetZero, sizeMismatch, truncatedLength } from "./lz4-errors.js";

const MINMATCH = 4;
const LASTLITERALS = 5;
const MFLIMIT = 12;
const MATCH_SAFEGUARD_DISTANCE = 12;
const FASTLOOP_SAFE_DISTANCE = 64;

function copyLiterals(src: Uint8Array, ip: number, out: Uint8Array, op: number, n: number): void {
  if (n > 64) out.set(src.subarray(ip, ip + n), op);
  else for (let i = 0; i < n; i++) out[op + i] = src[ip + i];
}

/** Copy n bytes from offset back; an overlapping copy repeats the pattern (LZ77 semantics). */
function copyMatch(out: Uint8Array, op: number, offset: number, n: number): void {
  let from = op - offset;
  if (n > 24 && offset >= 16) {
    // native copies in offset-sized steps (each step's source is already written)
    const end = op + n;
    while (op < end) {
      const k = Math.min(offset, end - op);
      out.copyWithin(op, from, from + k);
      op += k;
      from += k;
    }
    return;
  }
  const end = op + n;
  while (op < end) out[op++] = out[from++];
}

/**
 * LZ4_decompress_generic for a block without dictionary. Writes into out[0, oend) and returns the
 * number of bytes produced; `partial` selects LZ4_decompress_safe_partial's lenient block end.
 * With out = null nothing is written: the block is only checked and measured.
 */
export function lz4DecodeInto(src: Uint8Array, out: Uint8Array | null, oend: number, partial: boolean): number {
  const iend = src.length;
  if (oend === 0) {
    if (partial) return 0;
    if (iend === 1 && src[0] === 0) return 0;
    throw fail("LZ4_ZERO_OUTPUT", "lz4: zero output size needs the one-byte block 00", 0);
  }
  if (iend === 0) throw fail("LZ4_EMPTY_INPUT", "lz4: empty block", 0);
  const litLimit = iend - 15; // read_variable_length limits (literal, match)
  const mlLimit = iend - LASTLITERALS + 1;
  let ip = 0;
  let op = 0;
  let fast = oend >= FASTLOOP_SAFE_DISTANCE; // liblz4's fast loop runs while this much output room remains
  for (;;) {
    const token = src[ip++];
    let lit = token >>> 4;
    let careful = false; // literals go through the end-of-block checks
    let shortcut = false;
    if (lit === 15) {
      if (!fast) careful = true;
      if (ip >= litLimit) throw truncatedLength("literal", ip, true);
      let b: number;
      do {
        b = src[ip++];
        lit += b;
        if (ip > litLimit) throw truncatedLength("literal", ip, false);
      } while (b === 255);
      if (fast && (op + lit > oend - 32 || ip + lit > iend - 32)) careful = true;
    } else if (fast) {
      if (ip > iend - 17) careful = true;
    } else if (ip < iend - 16 && op <= oend - 32) shortcut = true;
    else careful = true;
    if (careful) fast = false;

    if (careful && (op + lit > oend - MFLIMIT || ip + lit > iend - (2 + 1 + LASTLITERALS))) {
      // only the last sequence may get here
      let cpy = op + lit;
      if (partial) {
        if (ip + lit > iend) {
          lit = iend - ip;
          cpy = op + lit;
        }
        if (cpy > oend) {
          cpy = oend;
          lit = oend - op;
        }
      } else if (ip + lit !== iend || cpy > oend) {
        throw lastLiteralsError(ip, lit, iend, op, oend);
      }
      if (out) copyLiterals(src, ip, out, op, lit);
      ip += lit;
      op += lit;
      if (!partial || cpy === oend || ip >= iend - 2) break;
    } else if (lit > 0) {
      if (out) {
        if (lit > 64) out.set(src.subarray(ip, ip + lit), op);
        else for (let i = 0; i < lit; i++) out[op + i] = src[ip + i];
      }
      ip += lit;
      op += lit;
    }

    const offAt = ip;
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    let ml = token & 15;

    if (ml === 15) {
      if (shortcut) shortcut = false; // the shortcut only copies short matches
      let b: number;
      do {
        b = src[ip++];
        ml += b;
        if (ip > mlLimit) throw truncatedLength("match", ip, false);
      } while (b === 255);
      if (fast && offset > op) throw offsetBeyond(ip, offset, op);
    } else if (shortcut && offset >= 8 && offset <= op) {
      ml += MINMATCH;
      if (out) copyMatch(out, op, offset, ml);
      op += ml;
      continue;
    }
    ml += MINMATCH;
    if (fast) {
      if (op + ml < oend - FASTLOOP_SAFE_DISTANCE) {
        if (offset > op) throw offsetBeyond(ip, offset, op);
        if (offset === 0) throw offsetZero(offAt, op);
        if (out) copyMatch(out, op, offset, ml);
        op += ml;
        continue;
      }
      fast = false;
    }

    // careful match copy
    if (offset > op) throw offsetBeyond(ip, offset, op);
    const cpy = op + ml;
    if (partial && cpy > oend - MATCH_SAFEGUARD_DISTANCE) {
      const n = Math.min(ml, oend - op);
      if (offset === 0 && n > 0) throw offsetZero(offAt, op);
      if (out) copyMatch(out, op, offset, n);
      op += n;
      if (op === oend) break;
      continue;
    }
    if (cpy > oend - LASTLITERALS) throw matchInLastLiterals(ip, cpy, oend);
    if (offset === 0) throw offsetZero(offAt, op);
    if (out) copyMatch(out, op, offset, ml);
    op = cpy;
  }
  return op;
}

function checkSize(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > 0x7fffffff) throw fail("LZ4_BAD_SIZE", `lz4: ${what} ${n} is not a valid int32 size`, 0);
}

/** LZ4_decompress_safe(src, dst, src.length, dstCapacity): the decoded bytes (at most dstCapacity). */
export function lz4DecompressSafe(src: Uint8Array, dstCapacity: number): Uint8Array {
  checkSize(dstCapacity, "output capacity");
  const out = new Uint8Array(dstCapacity);
  const n = lz4DecodeInto(src, out, dstCapacity, false);
  return n === dstCapacity ? out : out.subarray(0, n);
}

/**
 * LZ4_decompress_safe_partial(src, dst, src.length, targetOutputSize, dstCapacity): decode until
 * min(target, capacity) bytes exist (PostgreSQL's slice decoding passes the slice length for both).
 */
export function lz4DecompressSafePartial(src: Uint8Array, targetOutputSize: number, dstCapacity = targetOutputSize): Uint8Array {
  checkSize(targetOutputSize, "target output size");
  checkSize(dstCapacity, "output capacity");
  const oend = Math.min(targetOutputSize, dstCapacity);
  const out = new Uint8Array(oend);
  const n = lz4DecodeInto(src, out, oend, true);
  return n === oend ? out : out.subarray(0, n);
}

/**
 * The size LZ4_decompress_safe would produce for a block, with the same errors as decoding, but
 * without writing anything (liblz4's decisions never depend on data bytes). Vets blocks before
 * they go to lz4-napi, whose decoder accepts things liblz4 rejects.
 */
export function lz4ValidateBlock(src: Uint8Array, oend: number): number {
  return lz4DecodeInto(src, null, oend, false);
}

/**
 * From this raw size up, lz4Decompress validates with our rules and lets lz4-napi do the copying,
 * which measured faster (README.md, "Speed"); below it the TS decoder avoids the native call.
 */
export const LZ4_NATIVE_THRESHOLD = 2048;

/**
 * Decode a TOAST lz4 block that must expand to exactly `rawSize` bytes. (PostgreSQL trusts
 * LZ4_decompress_safe's return value and would keep a shorter result; we call that corrupt.)
 */
export function lz4Decompress(src: Uint8Array, rawSize: number): Uint8Array {
  checkSize(rawSize, "raw size");
  return rawSize >= LZ4_NATIVE_THRESHOLD ? lz4DecompressNative(src, rawSize) : lz4DecompressPortable(src, rawSize);
}

/**
 * lz4Decompress's verdict without its output: rawSize, or the error lz4Decompress throws (both of
 * its paths decide with lz4DecodeInto's rules and the exact-size check).
 */
export function lz4Validate(src: Uint8Array, rawSize: number): number {
  checkSize(rawSize, "raw size");
  const n = lz4ValidateBlock(src, rawSize);
  if (n !== rawSize) throw sizeMismatch(n, rawSize, src.length);
  return n;
}

/** lz4Decompress in TypeScript only. */
export function lz4DecompressPortable(src: Uint8Array, rawSize: number): Uint8Array {
  const out = new Uint8Array(rawSize);
  const n = lz4DecodeInto(src, out, rawSize, false);
  if (n !== rawSize) throw sizeMismatch(n, rawSize, src.length);
  return out;
}

/**
 * lz4Decompress with lz4-napi doing the copying. lz4-napi (lz4_flex) alone accepts blocks liblz4
 * rejects and can return wrong bytes for corrupt ones, so the block is validated first with the
 * liblz4 rules; should lz4_flex still refuse it, the TS decoder decides.
 */
export function lz4DecompressNative(src: Uint8Array, rawSize: number): Uint8Array {
  const n = lz4ValidateBlock(src, rawSize);
  if (n !== rawSize) throw sizeMismatch(n, rawSize, src.length);
  const framed = Buffer.allocUnsafe(src.length + 4);
  framed.writeUInt32LE(rawSize, 0); // lz4-napi's size prefix
  framed.set(src, 4);
  let out: Buffer | null = null;
  try {
    out = lz4napi().uncompressSync(framed);
  } catch {
    out = null;
  }
  if (out === null || out.length !== rawSize) return lz4DecompressPortable(src, rawSize);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A raw LZ4 block for `src` (lz4-napi / lz4_flex; PostgreSQL's liblz4 may choose other matches). */
export function lz4CompressBlock(src: Uint8Array): Uint8Array {
  const framed = lz4napi().compressSync(Buffer.from(src.buffer, src.byteOffset, src.byteLength));
  // lz4-napi prepends the raw size as uint32 LE; TOAST keeps it in va_tcinfo instead.
  return new Uint8Array(framed.buffer, framed.byteOffset + 4, framed.byteLength - 4);
}

/** The raw block, or null when it is not smaller than the input. */
export function lz4Compress(src: Uint8Array): Uint8Array | null {
  const block = lz4CompressBlock(src);
  return block.length < src.length ? block : null;
}
