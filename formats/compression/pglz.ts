// pglz, PostgreSQL's LZ77 variant (src/common/pg_lzcompress.c), TOAST compression method 0.
//
// Stream: a control byte governs the next (up to) 8 items, LSB first; bit 0 = one literal byte,
// bit 1 = a 2-3 byte tag [OOOOLLLL OOOOOOOO (+ LLLLLLLL)] copying len 3..273 bytes from
// 1..4095 bytes back in the output (overlap allowed, byte-by-byte semantics).
// There is no header: the raw size comes from va_tcinfo.
//
// The compressor reproduces pglz_compress byte for byte: same hash (C `char` is signed on
// x86-64, so bytes >= 0x80 hash as negative numbers), same 4096-entry history with round-robin
// recycling, same good_match/drop search cut-off and the same give-up rules.
import { FormatError } from "../schema/errors.js";
import type { Code } from "../codes/index.js";

/** PGLZ_Strategy (src/include/common/pg_lzcompress.h); field names are PostgreSQL's. */
export interface PglzStrategy {
  /** inputs shorter than this are not compressed */
  readonly min_input_size: number;
  /** inputs longer than this are not compressed */
  readonly max_input_size: number;
  /** required saving in percent (result must be < slen * (100 - rate) / 100) */
  readonly min_comp_rate: number;
  /** give up if this many output bytes are written before the first match */
  readonly first_success_by: number;
  /** stop the history search at a match this long (clamped to 17..273) */
  readonly match_size_good: number;
  /** lower good_match by this percentage after every history entry examined */
  readonly match_size_drop: number;
}

const INT_MAX = 0x7fffffff;

/** PGLZ_strategy_default: the only strategy TOAST uses. */
export const PGLZ_STRATEGY_DEFAULT: PglzStrategy = Object.freeze({
  min_input_size: 32,
  max_input_size: INT_MAX,
  min_comp_rate: 25,
  first_success_by: 1024,
  match_size_good: 128,
  match_size_drop: 10,
});

/** PGLZ_strategy_always: compress anything, accept a saving of one byte. */
export const PGLZ_STRATEGY_ALWAYS: PglzStrategy = Object.freeze({
  min_input_size: 0,
  max_input_size: INT_MAX,
  min_comp_rate: 0,
  first_success_by: INT_MAX,
  match_size_good: 128,
  match_size_drop: 6,
});

export const PGLZ_MAX_MATCH = 273;
/** Largest offset a tag can express (the encoder itself only emits offsets < 0x0FFF). */
export const PGLZ_MAX_OFFSET = 4095;
const PGLZ_HISTORY_SIZE = 4096;
/** PGLZ_MAX_OUTPUT: the compressor's worst-case output size. */
export const pglzMaxOutput = (slen: number): number => slen + 4;

/** Upper bound of the output a stream of n bytes can describe: a 3-byte tag yields at most 273 bytes. */
export const pglzMaxDecompressed = (n: number): number => n * 91;

const fail = (code: Code, message: string, offset: number, detail?: string): FormatError =>
  new FormatError(code, message, { offset, path: "pglz" }, detail);

/**
 * pglz_decompress. `rawSize` is the expected output size (va_tcinfo's raw size, or the slice
 * length when `checkComplete` is false). Corrupt input throws FormatError with the input offset
 * of the offending control byte / tag; it never returns bytes PostgreSQL would not.
 *
 * Stricter than PostgreSQL in one case: with checkComplete, a tag that runs past rawSize is
 * PGLZ_OUTPUT_OVERRUN (PostgreSQL silently truncates it and accepts the stream if it ends there).
 * With checkComplete = false the result may be shorter than rawSize (input ran out), exactly as
 * PostgreSQL's slice decoding.
 */
export function pglzDecompress(src: Uint8Array, rawSize: number, checkComplete = true): Uint8Array {
  const send = src.length;
  const maxOut = checkRawSize(rawSize, send, checkComplete);
  const out = new Uint8Array(Math.min(rawSize, maxOut));
  const dend = rawSize;
  let sp = 0;
  let dp = 0;
  // Fast path: while a whole group (1 control byte + 8 three-byte tags) fits in the input and
  // 8 maximal matches fit in the output, no bounds checks are needed inside the group.
  const fastSend = send - 25;
  const fastDend = dend - 8 * PGLZ_MAX_MATCH;
  while (sp <= fastSend && dp <= fastDend) {
    let ctrl = src[sp++];
    for (let item = 0; item < 8; item++, ctrl >>= 1) {
      if ((ctrl & 1) === 0) {
        out[dp++] = src[sp++];
        continue;
      }
      const tagAt = sp;
      const t1 = src[sp];
      const off = ((t1 & 0xf0) << 4) | src[sp + 1];
      let len = (t1 & 0x0f) + 3;
      sp += 2;
      if (len === 18) len += src[sp++];
      if (off === 0 || off > dp) throw badOffset(tagAt, off, dp, len);
      let from = dp - off;
      if (off >= len && len > 24) {
        out.copyWithin(dp, from, from + len);
        dp += len;
      } else {
        const end = dp + len;
        while (dp < end) out[dp++] = out[from++];
      }
    }
  }
  while (sp < send && dp < dend) {
    let ctrl = src[sp++];
    for (let item = 0; item < 8 && sp < send && dp < dend; item++, ctrl >>= 1) {
      if ((ctrl & 1) === 0) {
        out[dp++] = src[sp++];
        continue;
      }
      const tagAt = sp;
      if (sp + 2 > send) throw truncatedTag(tagAt, send);
      const t1 = src[sp];
      const off = ((t1 & 0xf0) << 4) | src[sp + 1];
      let len = (t1 & 0x0f) + 3;
      sp += 2;
      if (len === 18) {
        if (sp >= send) throw truncatedTag(tagAt, send);
        len += src[sp++];
      }
      if (off === 0 || off > dp) throw badOffset(tagAt, off, dp, len);
      if (len > dend - dp) {
        if (checkComplete) throw overrun(tagAt, len, dp, rawSize);
        len = dend - dp;
      }
      copyBack(out, dp, off, len);
      dp += len;
    }
  }
  if (checkComplete) checkEnd(sp, send, dp, rawSize);
  return dp === out.length ? out : out.subarray(0, dp);
}

/**
 * pglzDecompress's verdict without its output: the length it would return, or the same
 * FormatError. Control flow depends only on input bytes and output positions, so counting the
 * output is enough; a match costs O(1) and a run of literals one step.
 */
export function pglzValidate(src: Uint8Array, rawSize: number, checkComplete = true): number {
  const send = src.length;
  checkRawSize(rawSize, send, checkComplete);
  const dend = rawSize;
  let sp = 0;
  let dp = 0;
  // Same fast-path bounds as the decoder: a whole group fits in the input and the output.
  const fastSend = send - 25;
  const fastDend = dend - 8 * PGLZ_MAX_MATCH;
  while (sp <= fastSend && dp <= fastDend) {
    let ctrl = src[sp++];
    let item = 0;
    while (ctrl !== 0) {
      const lits = 31 - Math.clz32(ctrl & -ctrl); // literals before the next tag
      sp += lits;
      dp += lits;
      const tagAt = sp;
      const t1 = src[sp];
      const off = ((t1 & 0xf0) << 4) | src[sp + 1];
      let len = (t1 & 0x0f) + 3;
      sp += 2;
      if (len === 18) len += src[sp++];
      if (off === 0 || off > dp) throw badOffset(tagAt, off, dp, len);
      dp += len;
      item += lits + 1;
      ctrl >>>= lits + 1;
    }
    sp += 8 - item; // the group's trailing literals
    dp += 8 - item;
  }
  while (sp < send && dp < dend) {
    let ctrl = src[sp++];
    let item = 0;
    while (item < 8 && sp < send && dp < dend) {
      if ((ctrl & 1) === 0) {
        // a run of literals, cut where the decoder's per-item checks would stop it
        const run = ctrl === 0 ? 8 - item : 31 - Math.clz32(ctrl & -ctrl);
        const n = Math.min(run, send - sp, dend - dp);
        sp += n;
        dp += n;
        item += n;
        ctrl >>>= n;
        continue;
      }
      const tagAt = sp;
      if (sp + 2 > send) throw truncatedTag(tagAt, send);
      const t1 = src[sp];
      const off = ((t1 & 0xf0) << 4) | src[sp + 1];
      let len = (t1 & 0x0f) + 3;
      sp += 2;
      if (len === 18) {
        if (sp >= send) throw truncatedTag(tagAt, send);
        len += src[sp++];
      }
      if (off === 0 || off > dp) throw badOffset(tagAt, off, dp, len);
      if (len > dend - dp) {
        if (checkComplete) throw overrun(tagAt, len, dp, rawSize);
        len = dend - dp;
      }
      dp += len;
      item++;
      ctrl >>>= 1;
    }
  }
  if (checkComplete) checkEnd(sp, send, dp, rawSize);
  return dp;
}

/** The raw size checks before decoding; returns the largest output the input can describe. */
function checkRawSize(rawSize: number, send: number, checkComplete: boolean): number {
  if (!Number.isSafeInteger(rawSize) || rawSize < 0 || rawSize > INT_MAX) {
    throw fail("PGLZ_BAD_RAWSIZE", `pglz: raw size ${rawSize} is not a valid int32 size`, 0);
  }
  const maxOut = pglzMaxDecompressed(send);
  if (checkComplete && rawSize > maxOut) {
    throw fail(
      "PGLZ_RAWSIZE_TOO_LARGE",
      `pglz: raw size ${rawSize} cannot come from ${send} compressed bytes (at most ${maxOut})`,
      0,
    );
  }
  return maxOut;
}

/** With checkComplete: exactly rawSize bytes out and all input consumed. */
function checkEnd(sp: number, send: number, dp: number, rawSize: number): void {
  if (dp !== rawSize) {
    throw fail("PGLZ_OUTPUT_SHORT", `pglz: input ended after ${dp} of ${rawSize} output bytes`, sp, `input length ${send}`);
  }
  if (sp !== send) {
    throw fail("PGLZ_INPUT_NOT_CONSUMED", `pglz: output complete (${rawSize} bytes) but ${send - sp} input bytes remain`, sp);
  }
}

function overrun(at: number, len: number, dp: number, rawSize: number): FormatError {
  return fail(
    "PGLZ_OUTPUT_OVERRUN",
    `pglz: tag at input offset ${at} copies ${len} bytes at output position ${dp}, past the raw size ${rawSize}`,
    at,
  );
}

function badOffset(at: number, off: number, dp: number, len: number): FormatError {
  if (off === 0) return fail("PGLZ_OFFSET_ZERO", `pglz: tag at input offset ${at} has offset 0`, at, `output position ${dp}`);
  return fail(
    "PGLZ_OFFSET_BEYOND_OUTPUT",
    `pglz: tag at input offset ${at} reaches ${off} bytes back but only ${dp} bytes were produced`,
    at,
    `output position ${dp}, offset ${off}, length ${len}`,
  );
}

function truncatedTag(at: number, send: number): FormatError {
  return fail("PGLZ_TRUNCATED_TAG", `pglz: tag at input offset ${at} is cut off by the end of input (${send} bytes)`, at);
}

/** Copy len bytes from off bytes back; overlapping copies repeat the pattern (byte-by-byte semantics). */
export function copyBack(out: Uint8Array, dp: number, off: number, len: number): void {
  let from = dp - off;
  if (off >= len && len > 24) {
    out.copyWithin(dp, from, from + len);
    return;
  }
  const end = dp + len;
  while (dp < end) out[dp++] = out[from++];
}

/**
 * pglz_compress: the same bytes as PostgreSQL 15 produces for `src` under `strategy`, or null
 * where PostgreSQL returns -1 (input size out of range, no match within first_success_by, or
 * the result not below the min_comp_rate limit).
 */
export function pglzCompress(src: Uint8Array, strategy: PglzStrategy = PGLZ_STRATEGY_DEFAULT): Uint8Array | null {
  const slen = src.length;
  if (strategy.match_size_good <= 0 || slen < strategy.min_input_size || slen > strategy.max_input_size) return null;

  const goodMatchStart = clamp(strategy.match_size_good, 17, PGLZ_MAX_MATCH);
  const goodDrop = clamp(strategy.match_size_drop, 0, 100);
  const needRate = clamp(strategy.min_comp_rate, 0, 99);
  const firstSuccessBy = strategy.first_success_by;
  // Integer arithmetic as in C; the approximation above INT_MAX/100 avoids int32 overflow there.
  const resultMax = slen > Math.trunc(INT_MAX / 100) ? Math.trunc(slen / 100) * (100 - needRate) : Math.trunc((slen * (100 - needRate)) / 100);

  const hashSize = slen < 128 ? 512 : slen < 256 ? 1024 : slen < 512 ? 2048 : slen < 1024 ? 4096 : 8192;
  const mask = hashSize - 1;

  // The C code hashes `char`, which is signed on x86-64.
  const s = new Int8Array(src.buffer, src.byteOffset, slen);
  const hash = (p: number): number =>
    (slen - p < 4 ? s[p] : (s[p] << 6) ^ (s[p + 1] << 4) ^ (s[p + 2] << 2) ^ s[p + 3]) & mask;

  // History: entry 0 means "none"; entries 1..4096 are reused round-robin once all are taken.
  const histStart = new Int16Array(hashSize);
  const histNext = new Int16Array(PGLZ_HISTORY_SIZE + 1);
  const histPrev = new Int16Array(PGLZ_HISTORY_SIZE + 1); // -1: list head
  const histHash = new Int16Array(PGLZ_HISTORY_SIZE + 1);
  const histPos = new Int32Array(PGLZ_HISTORY_SIZE + 1);
  let histNextFree = 1;
  let recycling = false;

  const histAdd = (p: number, h: number): void => {
    const e = histNextFree;
    if (recycling) {
      // unlink the entry from the list it was on (writes to entry 0 are harmless, as in C)
      const prev = histPrev[e];
      const next = histNext[e];
      if (prev < 0) histStart[histHash[e]] = next;
      else histNext[prev] = next;
      histPrev[next] = prev;
    }
    const head = histStart[h];
    histNext[e] = head;
    histPrev[e] = -1;
    histHash[e] = h;
    histPos[e] = p;
    histPrev[head] = e;
    histStart[h] = e;
    if (++histNextFree > PGLZ_HISTORY_SIZE) {
      histNextFree = 1;
      recycling = true;
    }
  };

  let matchLen = 0;
  let matchOff = 0;
  // pglz_find_match: walk the hash list newest first; stop at an offset that no longer fits a
  // tag (>= 0x0FFF), or once the best match reaches good_match, which shrinks by good_drop% per entry.
  const findMatch = (p: number, h: number): boolean => {
    let len = 0;
    let off = 0;
    let goodMatch = goodMatchStart;
    const maxLen = Math.min(PGLZ_MAX_MATCH, slen - p);
    let e = histStart[h];
    while (e !== 0) {
      const hp = histPos[e];
      const thisOff = p - hp;
      if (thisOff >= 0x0fff) break;
      // Only a longer match can win, so a mismatch at position `len` rules this entry out.
      // (PostgreSQL's memcmp shortcut for len >= 16 selects the same matches.)
      if (len < maxLen && src[p + len] === src[hp + len]) {
        let n = 0;
        while (n < maxLen && src[p + n] === src[hp + n]) n++;
        if (n > len) {
          len = n;
          off = thisOff;
        }
      }
      e = histNext[e];
      if (e !== 0) {
        if (len >= goodMatch) break;
        goodMatch -= Math.trunc((goodMatch * goodDrop) / 100);
      }
    }
    if (len > 2) {
      matchLen = len;
      matchOff = off;
      return true;
    }
    return false;
  };

  const out = new Uint8Array(pglzMaxOutput(slen));
  let bp = 0;
  let ctrlPos = -1; // -1: PostgreSQL's ctrl_dummy
  let ctrlBits = 0;
  let ctrlMask = 0;
  let foundMatch = false;
  let dp = 0;
  while (dp < slen) {
    if (bp >= resultMax) return null;
    if (!foundMatch && bp >= firstSuccessBy) return null;
    if (ctrlMask === 0) {
      if (ctrlPos >= 0) out[ctrlPos] = ctrlBits;
      ctrlPos = bp++;
      ctrlBits = 0;
      ctrlMask = 1;
    }
    const h = hash(dp); // the same slot serves the lookup and the history entry for dp
    if (findMatch(dp, h)) {
      ctrlBits |= ctrlMask;
      const hi = (matchOff & 0xf00) >> 4;
      if (matchLen > 17) {
        out[bp] = hi | 0x0f;
        out[bp + 1] = matchOff & 0xff;
        out[bp + 2] = matchLen - 18;
        bp += 3;
      } else {
        out[bp] = hi | (matchLen - 3);
        out[bp + 1] = matchOff & 0xff;
        bp += 2;
      }
      histAdd(dp++, h);
      for (let i = 1; i < matchLen; i++, dp++) histAdd(dp, hash(dp));
      foundMatch = true;
    } else {
      out[bp++] = src[dp];
      histAdd(dp++, h);
    }
    ctrlMask = (ctrlMask << 1) & 0xff;
  }
  if (ctrlPos >= 0) out[ctrlPos] = ctrlBits;
  if (bp >= resultMax) return null;
  return out.slice(0, bp);
}

const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);
