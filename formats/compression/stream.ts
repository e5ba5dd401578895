// Incremental decoders for TOAST values read chunk by chunk (1996-byte TOAST chunks): push()
// compressed bytes as they arrive, get the newly produced output back, and stop as soon as a
// slice's bytes exist. Tags, sequences and length runs may straddle chunk boundaries. Output goes
// into one buffer (preallocated, or the caller's) because matches reach back into it.
//
// Semantics equal the one-shot decoders given the same bytes:
//   pglz full:  pglzDecompress(src, rawSize, true)    pglz slice: pglzDecompress(src, n, false)
//   lz4 full:   lz4Decompress(src, rawSize)           lz4 slice:  lz4DecompressSafePartial(src, n)
// except that a slice stream stops the moment n bytes exist, so a corruption liblz4 would only
// notice after that point is not reported.
import { FormatError } from "../schema/errors.js";
import { copyBack, pglzMaxDecompressed } from "./pglz.js";
import { lastLiteralsError, matchInLastLiterals, offsetBeyond, offsetZero, sizeMismatch, truncatedLength } from "./lz4-errors.js";
import type { Code } from "../codes/index.js";

export interface DecompressStream {
  /** The output buffer; output.subarray(0, produced) is final. */
  readonly output: Uint8Array;
  /** Output bytes produced so far. */
  readonly produced: number;
  /** Compressed bytes pushed so far. */
  readonly consumed: number;
  /**
   * Nothing more to push: a slice's bytes exist, or a whole value was decoded and its declared
   * input used up exactly. (A whole pglz value without srcSize is never done before finish().)
   */
  readonly done: boolean;
  /** Feed the next compressed bytes; returns the output bytes they produced (a view into output). */
  push(chunk: Uint8Array): Uint8Array;
  /** No more input: checks the stream is complete (for a whole value) and returns the output. */
  finish(): Uint8Array;
}

export interface StreamOptions {
  /** Raw (decompressed) size of the whole value, from va_tcinfo. */
  rawSize: number;
  /** Compressed stream length (extsize - 4 for an external value). Required for lz4. */
  srcSize?: number;
  /** Slice mode: stop once this many output bytes exist (PostgreSQL's slice decoding). */
  stopAfter?: number;
  /** Preallocated output buffer of at least min(rawSize, stopAfter) bytes. */
  output?: Uint8Array;
}

const EMPTY = new Uint8Array(0);

function fail(method: string, code: Code, message: string, offset: number, detail?: string): FormatError {
  return new FormatError(code, message, { offset, path: method }, detail);
}

interface Setup {
  full: boolean;
  capacity: number;
  output: Uint8Array;
}

function setup(method: string, o: StreamOptions): Setup {
  const sizes: [string, number | undefined][] = [["rawSize", o.rawSize], ["srcSize", o.srcSize], ["stopAfter", o.stopAfter]];
  for (const [name, v] of sizes) {
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0 || v > 0x7fffffff)) {
      throw fail(method, "STREAM_BAD_SIZE", `${method} stream: ${name} ${v} is not a valid int32 size`, 0);
    }
  }
  const full = o.stopAfter === undefined || o.stopAfter >= o.rawSize;
  const capacity = full ? o.rawSize : (o.stopAfter as number);
  let output = o.output;
  if (output) {
    if (output.length < capacity) throw fail(method, "STREAM_BAD_SIZE", `${method} stream: output buffer of ${output.length} bytes is smaller than ${capacity}`, 0);
  } else {
    // a stream of srcSize bytes cannot describe more than this (avoids trusting a corrupt raw size)
    const bound = o.srcSize === undefined ? Infinity : method === "pglz" ? pglzMaxDecompressed(o.srcSize) : o.srcSize * 255 + 16;
    output = new Uint8Array(Math.min(capacity, bound));
  }
  return { full, capacity, output };
}

function checkOverflow(method: string, srcSize: number | undefined, consumed: number, n: number): void {
  if (srcSize !== undefined && consumed + n > srcSize) {
    throw fail(method, "STREAM_TOO_MUCH_INPUT", `${method} stream: input exceeds the declared ${srcSize} bytes`, srcSize);
  }
}

/** pglz, incremental. A tag may straddle pushes; its bytes wait in `tag`. */
export class PglzStream implements DecompressStream {
  readonly output: Uint8Array;
  private readonly full: boolean;
  private readonly dend: number;
  private readonly srcSize: number | undefined;
  private dp = 0;
  private sp = 0;
  private ctrl = 0;
  private ctrlLeft = 0;
  private readonly tag = new Uint8Array(3);
  private tagLen = 0;
  private tagAt = 0;

  constructor(opts: StreamOptions) {
    const s = setup("pglz", opts);
    this.output = s.output;
    this.full = s.full;
    this.dend = s.capacity;
    this.srcSize = opts.srcSize;
    if (this.full && opts.srcSize !== undefined && opts.rawSize > pglzMaxDecompressed(opts.srcSize)) {
      throw fail("pglz", "PGLZ_RAWSIZE_TOO_LARGE", `pglz: raw size ${opts.rawSize} cannot come from ${opts.srcSize} compressed bytes`, 0);
    }
  }

  get produced(): number {
    return this.dp;
  }
  get consumed(): number {
    return this.sp;
  }
  get done(): boolean {
    // a whole value is done once its input is known to be used up exactly (srcSize given);
    // without srcSize push everything and let finish() check
    if (this.dp < this.dend) return false;
    return !this.full || (this.srcSize !== undefined && this.sp === this.srcSize);
  }

  push(chunk: Uint8Array): Uint8Array {
    const n = chunk.length;
    checkOverflow("pglz", this.srcSize, this.sp, n);
    const out = this.output;
    const dend = this.dend;
    const start = this.dp;
    const base = this.sp;
    let dp = this.dp;
    let ctrl = this.ctrl;
    let ctrlLeft = this.ctrlLeft;
    let i = 0;
    try {
      while (i < n) {
        if (dp >= dend) {
          if (!this.full) break; // slice complete: the rest is not needed
          throw fail("pglz", "PGLZ_INPUT_NOT_CONSUMED", `pglz: output complete (${dend} bytes) but more input follows`, base + i);
        }
        if (this.tagLen === 0) {
          if (ctrlLeft === 0) {
            ctrl = chunk[i++];
            ctrlLeft = 8;
            continue;
          }
          if ((ctrl & 1) === 0) {
            out[dp++] = chunk[i++];
            ctrl >>= 1;
            ctrlLeft--;
            continue;
          }
          this.tagAt = base + i;
        }
        // a tag: gather its 2 or 3 bytes, possibly across pushes
        while (i < n && (this.tagLen < 2 || (this.tagLen === 2 && (this.tag[0] & 0x0f) === 0x0f))) {
          this.tag[this.tagLen++] = chunk[i++];
        }
        const t1 = this.tag[0];
        const need = (t1 & 0x0f) === 0x0f ? 3 : 2;
        if (this.tagLen < need) break; // wait for more input
        this.tagLen = 0;
        const off = ((t1 & 0xf0) << 4) | this.tag[1];
        let len = need === 3 ? 18 + this.tag[2] : (t1 & 0x0f) + 3;
        const at = this.tagAt;
        if (off === 0) throw fail("pglz", "PGLZ_OFFSET_ZERO", `pglz: tag at input offset ${at} has offset 0`, at, `output position ${dp}`);
        if (off > dp) {
          throw fail("pglz", "PGLZ_OFFSET_BEYOND_OUTPUT", `pglz: tag at input offset ${at} reaches ${off} bytes back but only ${dp} bytes were produced`, at, `output position ${dp}, offset ${off}, length ${len}`);
        }
        if (len > dend - dp) {
          if (this.full) throw fail("pglz", "PGLZ_OUTPUT_OVERRUN", `pglz: tag at input offset ${at} copies ${len} bytes at output position ${dp}, past the raw size ${dend}`, at);
          len = dend - dp;
        }
        copyBack(out, dp, off, len);
        dp += len;
        ctrl >>= 1;
        ctrlLeft--;
      }
    } finally {
      this.dp = dp;
      this.ctrl = ctrl;
      this.ctrlLeft = ctrlLeft;
      this.sp = base + i;
    }
    // a slice ignores input after its last byte, but counts it as pushed
    if (i < n) this.sp = base + n;
    return dp > start ? out.subarray(start, dp) : EMPTY;
  }

  finish(): Uint8Array {
    if (this.tagLen > 0 && this.dp < this.dend) {
      throw fail("pglz", "PGLZ_TRUNCATED_TAG", `pglz: tag at input offset ${this.tagAt} is cut off by the end of input (${this.sp} bytes)`, this.tagAt);
    }
    if (this.full) {
      if (this.dp !== this.dend) {
        throw fail("pglz", "PGLZ_OUTPUT_SHORT", `pglz: input ended after ${this.dp} of ${this.dend} output bytes`, this.sp, `input length ${this.sp}`);
      }
      if (this.srcSize !== undefined && this.sp !== this.srcSize) {
        throw fail("pglz", "PGLZ_INPUT_NOT_CONSUMED", `pglz: output complete (${this.dend} bytes) but ${this.srcSize - this.sp} input bytes remain`, this.sp);
      }
    }
    return this.output.subarray(0, this.dp);
  }
}

// LZ4 decoder states
const TOKEN = 0;
const LIT_LENGTH = 1;
const LITERALS = 2;
const OFFSET = 3;
const MATCH_LENGTH = 4;
const END = 5;

// which of liblz4's paths a sequence is on (see lz4.ts)
const PATH_FAST = 0;
const PATH_SHORTCUT = 1;
const PATH_CAREFUL = 2;

/**
 * LZ4 block, incremental, with liblz4 1.9.4's exact accept/reject decisions (lz4.ts explains
 * them). Those decisions use the block's total length, hence srcSize is required.
 */
export class Lz4Stream implements DecompressStream {
  readonly output: Uint8Array;
  private readonly partial: boolean;
  private readonly oend: number;
  private readonly iend: number;
  private readonly rawSize: number;
  private ip = 0;
  private op = 0;
  private state = TOKEN;
  private fast: boolean;
  private path = PATH_CAREFUL;
  private token = 0;
  private lit = 0; // literal length, then literals still to copy
  private endAfterLiterals = false;
  private acc = 0; // length-extension accumulator
  private limit = 0; // length-extension limit
  private offLow = -1;
  private offAt = 0;
  private offset = 0;
  private ml = 0;
  private stopped = false;

  constructor(opts: StreamOptions) {
    if (opts.srcSize === undefined) throw fail("lz4", "STREAM_BAD_SIZE", "lz4 stream: srcSize (the block length) is required", 0);
    const s = setup("lz4", opts);
    this.output = s.output;
    this.partial = !s.full;
    this.oend = s.capacity;
    this.iend = opts.srcSize;
    this.rawSize = opts.rawSize;
    this.fast = this.oend >= 64;
    if (this.oend === 0) {
      if (this.partial) this.stopped = true;
      else if (this.iend !== 1) throw fail("lz4", "LZ4_ZERO_OUTPUT", "lz4: zero output size needs the one-byte block 00", 0);
    } else if (this.iend === 0) throw fail("lz4", "LZ4_EMPTY_INPUT", "lz4: empty block", 0);
  }

  get produced(): number {
    return this.op;
  }
  get consumed(): number {
    return this.ip;
  }
  get done(): boolean {
    return this.stopped;
  }

  push(chunk: Uint8Array): Uint8Array {
    const n = chunk.length;
    checkOverflow("lz4", this.iend, this.ip, n);
    const start = this.op;
    if (this.stopped) {
      this.ip += n;
      return EMPTY;
    }
    if (this.oend === 0) {
      // full decode of an empty value: the block must be the single byte 00
      if (n > 0) {
        if (chunk[0] !== 0) throw fail("lz4", "LZ4_ZERO_OUTPUT", "lz4: zero output size needs the one-byte block 00", 0);
        this.ip += n;
        this.state = END;
        this.stopped = true;
      }
      return EMPTY;
    }
    let i = 0;
    while (i < n && !this.stopped) {
      switch (this.state) {
        case TOKEN:
          this.token = chunk[i++];
          this.ip++;
          this.startSequence();
          break;
        case LIT_LENGTH:
        case MATCH_LENGTH: {
          const b = chunk[i++];
          this.ip++;
          this.acc += b;
          if (this.ip > this.limit) {
            throw truncatedLength(this.state === LIT_LENGTH ? "literal" : "match", this.ip, false);
          }
          if (b !== 255) {
            if (this.state === LIT_LENGTH) {
              this.lit += this.acc;
              this.literalsKnown();
            } else {
              this.ml += this.acc + 4;
              this.matchKnown();
            }
          }
          break;
        }
        case LITERALS: {
          const k = Math.min(this.lit, n - i);
          if (k > 32) this.output.set(chunk.subarray(i, i + k), this.op);
          else for (let j = 0; j < k; j++) this.output[this.op + j] = chunk[i + j];
          i += k;
          this.ip += k;
          this.op += k;
          this.lit -= k;
          if (this.lit === 0) this.literalsDone();
          break;
        }
        case OFFSET:
          if (this.offLow < 0) {
            this.offAt = this.ip;
            this.offLow = chunk[i++];
            this.ip++;
          } else {
            this.offset = this.offLow | (chunk[i++] << 8);
            this.ip++;
            this.offLow = -1;
            this.offsetKnown();
          }
          break;
        default:
          throw fail("lz4", "STREAM_TOO_MUCH_INPUT", "lz4 stream: input after the end of the block", this.ip);
      }
      if (this.partial && this.op >= this.oend) this.stopped = true;
    }
    if (i < n) this.ip += n - i; // stopped: the rest is not needed
    return this.op > start ? this.output.subarray(start, this.op) : EMPTY;
  }

  finish(): Uint8Array {
    // END (or a complete slice) is reached on the block's own terms; anything else means missing input
    if (!this.stopped) {
      throw fail("lz4", "LZ4_STREAM_INCOMPLETE", `lz4 stream: input ended at ${this.ip} of ${this.iend} bytes, inside the block`, this.ip);
    }
    return this.output.subarray(0, this.op);
  }

  private startSequence(): void {
    const lit = this.token >>> 4;
    this.lit = lit;
    if (this.fast) {
      this.path = PATH_FAST;
      if (lit === 15) return this.beginLength(LIT_LENGTH, this.iend - 15, true);
    } else if (lit !== 15 && this.ip < this.iend - 16 && this.op <= this.oend - 32) {
      this.path = PATH_SHORTCUT;
    } else {
      this.path = PATH_CAREFUL;
      if (lit === 15) return this.beginLength(LIT_LENGTH, this.iend - 15, true);
    }
    this.literalsKnown();
  }

  private beginLength(state: number, limit: number, initialCheck: boolean): void {
    if (initialCheck && this.ip >= limit) throw truncatedLength("literal", this.ip, true);
    this.state = state;
    this.limit = limit;
    this.acc = 0;
  }

  /** The literal length is known: apply the path's end-of-block rules. */
  private literalsKnown(): void {
    const { iend, oend, ip, op } = this;
    let lit = this.lit;
    if (this.path === PATH_FAST) {
      const careful = (this.token >>> 4) === 15 ? op + lit > oend - 32 || ip + lit > iend - 32 : ip > iend - 17;
      if (careful) {
        this.fast = false;
        this.path = PATH_CAREFUL;
      }
    }
    this.endAfterLiterals = false;
    if (this.path === PATH_CAREFUL && (op + lit > oend - 12 || ip + lit > iend - 8)) {
      let cpy = op + lit;
      if (this.partial) {
        if (ip + lit > iend) {
          lit = iend - ip;
          cpy = op + lit;
        }
        if (cpy > oend) {
          cpy = oend;
          lit = oend - op;
        }
        this.endAfterLiterals = cpy === oend || ip + lit >= iend - 2;
      } else {
        if (ip + lit !== iend || cpy > oend) throw lastLiteralsError(ip, lit, iend, op, oend);
        this.endAfterLiterals = true;
      }
    }
    this.lit = lit;
    this.state = LITERALS;
    if (lit === 0) this.literalsDone();
  }

  private literalsDone(): void {
    if (this.endAfterLiterals) return this.end();
    this.state = OFFSET;
  }

  private offsetKnown(): void {
    const ml = this.token & 15;
    this.ml = ml;
    const { offset, op } = this;
    if (this.path === PATH_SHORTCUT && ml !== 15 && offset >= 8 && offset <= op) {
      this.copy(ml + 4);
      this.state = TOKEN;
      return;
    }
    if (ml === 15) return this.beginLength(MATCH_LENGTH, this.iend - 4, false);
    this.ml = ml + 4;
    if (this.path === PATH_FAST) this.fastMatch();
    else this.carefulMatch();
  }

  /** Match length with its extension is known. */
  private matchKnown(): void {
    if (this.path === PATH_FAST) {
      if (this.offset > this.op) throw offsetBeyond(this.ip, this.offset, this.op);
      this.fastMatch();
    } else this.carefulMatch();
  }

  private fastMatch(): void {
    if (this.op + this.ml >= this.oend - 64) {
      this.fast = false;
      return this.carefulMatch();
    }
    if (this.offset > this.op) throw offsetBeyond(this.ip, this.offset, this.op);
    if (this.offset === 0) throw offsetZero(this.offAt, this.op);
    this.copy(this.ml);
    this.state = TOKEN;
  }

  private carefulMatch(): void {
    const { offset, op, oend, ml } = this;
    if (offset > op) throw offsetBeyond(this.ip, offset, op);
    const cpy = op + ml;
    if (this.partial && cpy > oend - 12) {
      const k = Math.min(ml, oend - op);
      if (offset === 0 && k > 0) throw offsetZero(this.offAt, op);
      this.copy(k);
      if (this.op === oend) return this.end();
      this.state = TOKEN;
      return;
    }
    if (cpy > oend - 5) throw matchInLastLiterals(this.ip, cpy, oend);
    if (offset === 0) throw offsetZero(this.offAt, op);
    this.copy(ml);
    this.state = TOKEN;
  }

  private copy(n: number): void {
    copyBack(this.output, this.op, this.offset, n);
    this.op += n;
  }

  private end(): void {
    this.state = END;
    this.stopped = true;
    if (!this.partial && this.op !== this.rawSize) throw sizeMismatch(this.op, this.rawSize, this.ip);
  }
}

export const pglzStream = (opts: StreamOptions): PglzStream => new PglzStream(opts);
export const lz4Stream = (opts: StreamOptions): Lz4Stream => new Lz4Stream(opts);
