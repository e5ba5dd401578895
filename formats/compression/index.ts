// TOAST compression (src/backend/access/common/toast_compression.c, toast_internals.c):
// method ids, the va_tcinfo word, and compress/decompress of a compressed datum's payload.
//
// "Payload" = what follows a compressed datum's 4-byte varlena header, which is also exactly
// what an external compressed value stores in its TOAST chunks: va_tcinfo (uint32 LE: low 30
// bits raw size without header, top 2 bits method) followed by the pglz stream or LZ4 block.
import { FormatError } from "../schema/errors.js";
import { VarattCompressedHeader, tcinfoMethod, tcinfoRawSize } from "../varlena/compressed.js";
import { PGLZ_STRATEGY_DEFAULT, pglzCompress, pglzDecompress, pglzValidate } from "./pglz.js";
import { lz4Compress, lz4Decompress, lz4DecompressSafePartial, lz4Validate } from "./lz4.js";
import { Lz4Stream, PglzStream, type DecompressStream, type StreamOptions } from "./stream.js";

export * from "./pglz.js";
export * from "./lz4.js";
export * from "./stream.js";

/** ToastCompressionId (src/include/access/toast_compression.h). */
export const TOAST_PGLZ_COMPRESSION_ID = 0;
export const TOAST_LZ4_COMPRESSION_ID = 1;
export const TOAST_INVALID_COMPRESSION_ID = 2;
export type CompressionMethod = typeof TOAST_PGLZ_COMPRESSION_ID | typeof TOAST_LZ4_COMPRESSION_ID;

export const VARLENA_EXTSIZE_BITS = 30;
export const VARLENA_EXTSIZE_MASK = 0x3fffffff;
/** Where va_tcinfo sits in the payload (the datum minus its 4-byte header). */
const TCINFO_AT = VarattCompressedHeader.offsets.va_tcinfo - VarattCompressedHeader.offsets.va_header - 4;
/** Bytes before the compressed stream in the payload. */
export const TCINFO_SIZE = 4;

export const methodName = (m: number): string => (m === 0 ? "pglz" : m === 1 ? "lz4" : `invalid(${m})`);

export interface Tcinfo {
  rawSize: number;
  method: number;
}

export function readTcinfo(payload: Uint8Array): Tcinfo {
  if (payload.length < TCINFO_AT + TCINFO_SIZE) {
    throw new FormatError("TOAST_COMPRESSED_TRUNCATED", `compressed datum of ${payload.length} bytes has no room for va_tcinfo`, { offset: 0, path: "va_tcinfo" });
  }
  const w = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(TCINFO_AT, true);
  return { rawSize: tcinfoRawSize(w), method: tcinfoMethod(w) };
}

/** The va_tcinfo word for a raw size and method. */
export function makeTcinfo(rawSize: number, method: CompressionMethod): number {
  if (!Number.isInteger(rawSize) || rawSize < 0 || rawSize > VARLENA_EXTSIZE_MASK) {
    throw new FormatError("TOAST_RAWSIZE_TOO_LARGE", `raw size ${rawSize} does not fit va_tcinfo's 30 bits`);
  }
  return ((method << VARLENA_EXTSIZE_BITS) | rawSize) >>> 0;
}

function badMethod(method: number): FormatError {
  return new FormatError("TOAST_BAD_COMPRESSION_METHOD", `va_tcinfo names compression method ${method} (only 0 pglz and 1 lz4 exist)`, { offset: TCINFO_AT, path: "va_tcinfo" });
}

/** Re-base a stream error's offset on the payload (the stream starts after va_tcinfo). */
function inPayload(e: unknown): unknown {
  if (!(e instanceof FormatError)) return e;
  const off = e.location.offset;
  const moved = new FormatError(e.code, e.message, { ...e.location, offset: off === undefined ? undefined : off + TCINFO_SIZE }, e.detail);
  moved.stack = e.stack;
  return moved;
}

/**
 * Decompress a compressed datum's payload (va_tcinfo + stream), as toast_decompress_datum.
 * With `sliceLength`, only the first sliceLength raw bytes are produced, as
 * toast_decompress_datum_slice (pglz without the completeness check, LZ4_decompress_safe_partial).
 * Error offsets count from the start of the payload.
 */
export function decompressTcinfo(payload: Uint8Array, sliceLength?: number): Uint8Array {
  const { rawSize, method } = readTcinfo(payload);
  const stream = payload.subarray(TCINFO_SIZE);
  const slice = sliceLength !== undefined && sliceLength < rawSize;
  try {
    switch (method) {
      case TOAST_PGLZ_COMPRESSION_ID:
        return slice ? pglzDecompress(stream, sliceLength, false) : pglzDecompress(stream, rawSize, true);
      case TOAST_LZ4_COMPRESSION_ID:
        return slice ? lz4DecompressSafePartial(stream, sliceLength) : lz4Decompress(stream, rawSize);
    }
  } catch (e) {
    throw inPayload(e);
  }
  throw badMethod(method);
}

/**
 * decompressTcinfo(payload)'s verdict without producing the bytes: the raw length it would
 * return (va_tcinfo's raw size), or the same FormatError.
 */
export function decompressedSizeTcinfo(payload: Uint8Array): number {
  const { rawSize, method } = readTcinfo(payload);
  const stream = payload.subarray(TCINFO_SIZE);
  try {
    switch (method) {
      case TOAST_PGLZ_COMPRESSION_ID:
        return pglzValidate(stream, rawSize, true);
      case TOAST_LZ4_COMPRESSION_ID:
        return lz4Validate(stream, rawSize);
    }
  } catch (e) {
    throw inPayload(e);
  }
  throw badMethod(method);
}

/**
 * toast_compress_datum's acceptance rule for a compressed stream of `streamSize` bytes:
 * VARSIZE(compressed) = VARHDRSZ_COMPRESSED (8) + streamSize must be < rawSize - 2, i.e. save more
 * than 2 bytes. (lz4_compress_datum's own "larger than the input" give-up is implied by it.)
 */
export function toastCompressionPays(rawSize: number, streamSize: number): boolean {
  return 4 + TCINFO_SIZE + streamSize < rawSize - 2;
}

/**
 * toast_compress_datum: compress raw datum data (header excluded) with `method` and return the
 * payload (va_tcinfo + stream), or null where PostgreSQL keeps the value uncompressed: the method
 * gave up (pglz: default strategy; lz4: larger than the input) or the result is not worth it,
 * VARSIZE(compressed) = payload + 4 must be < rawsize - 2.
 *
 * pglz output is byte-identical to PostgreSQL's. lz4 output comes from lz4-napi (lz4_flex): a
 * valid block, but not liblz4's choice of matches, so its size, and in borderline cases the
 * accept/reject decision (either way), can differ from what PostgreSQL stores.
 */
export function compressDatum(raw: Uint8Array, method: CompressionMethod): Uint8Array | null {
  const tcinfo = makeTcinfo(raw.length, method);
  let stream: Uint8Array | null;
  if (method === TOAST_PGLZ_COMPRESSION_ID) stream = pglzCompress(raw, PGLZ_STRATEGY_DEFAULT);
  else if (method === TOAST_LZ4_COMPRESSION_ID) {
    stream = lz4Compress(raw);
    // lz4_compress_datum only gives up when the block is larger; an equal size is then
    // rejected by the rule below anyway
  } else throw badMethod(method);
  if (stream === null || !toastCompressionPays(raw.length, stream.length)) return null;
  const payload = new Uint8Array(TCINFO_SIZE + stream.length);
  new DataView(payload.buffer).setUint32(TCINFO_AT, tcinfo, true);
  payload.set(stream, TCINFO_SIZE);
  return payload;
}

/** The whole inline datum for a payload: 4-byte compressed varlena header, (size << 2) | 2. */
export function compressedVarlena(payload: Uint8Array): Uint8Array {
  const total = payload.length + 4;
  if (total > VARLENA_EXTSIZE_MASK) throw new FormatError("TOAST_RAWSIZE_TOO_LARGE", `compressed datum of ${total} bytes is too large for a varlena`);
  const d = new Uint8Array(total);
  new DataView(d.buffer).setUint32(0, ((total << 2) | 2) >>> 0, true);
  d.set(payload, 4);
  return d;
}

/** An incremental decoder for one method's stream (the bytes after va_tcinfo). */
export function decompressStream(method: number, opts: StreamOptions): DecompressStream {
  if (method === TOAST_PGLZ_COMPRESSION_ID) return new PglzStream(opts);
  if (method === TOAST_LZ4_COMPRESSION_ID) return new Lz4Stream(opts);
  throw badMethod(method);
}

export interface PayloadStreamOptions {
  /** Bytes of the whole payload, va_tcinfo included (va_extinfo's extsize for an external value). */
  payloadSize: number;
  /** Slice mode: stop once this many raw bytes exist. */
  stopAfter?: number;
  /** Preallocated output buffer (at least min(raw size, stopAfter) bytes). */
  output?: Uint8Array;
}

/**
 * An incremental decoder for a payload arriving in TOAST chunks: the first 4 bytes are va_tcinfo,
 * which picks the method and raw size; the rest go to that method's stream. Error offsets count
 * from the start of the payload.
 */
export class PayloadStream implements DecompressStream {
  private head = new Uint8Array(TCINFO_SIZE);
  private headLen = 0;
  private inner: DecompressStream | null = null;
  private tc: Tcinfo | null = null;

  constructor(private readonly opts: PayloadStreamOptions) {
    if (!Number.isSafeInteger(opts.payloadSize) || opts.payloadSize < TCINFO_SIZE) {
      throw new FormatError("TOAST_COMPRESSED_TRUNCATED", `compressed payload of ${opts.payloadSize} bytes has no room for va_tcinfo`, { offset: 0, path: "va_tcinfo" });
    }
  }

  /** va_tcinfo, once its 4 bytes have arrived. */
  get tcinfo(): Tcinfo | null {
    return this.tc;
  }
  get output(): Uint8Array {
    return this.inner ? this.inner.output : new Uint8Array(0);
  }
  get produced(): number {
    return this.inner ? this.inner.produced : 0;
  }
  get consumed(): number {
    return this.headLen + (this.inner ? this.inner.consumed : 0);
  }
  get done(): boolean {
    return this.inner ? this.inner.done : false;
  }

  push(chunk: Uint8Array): Uint8Array {
    let rest = chunk;
    if (this.headLen < TCINFO_SIZE) {
      const k = Math.min(TCINFO_SIZE - this.headLen, rest.length);
      this.head.set(rest.subarray(0, k), this.headLen);
      this.headLen += k;
      rest = rest.subarray(k);
      if (this.headLen < TCINFO_SIZE) return new Uint8Array(0);
      this.tc = readTcinfo(this.head);
      if (this.tc.method !== TOAST_PGLZ_COMPRESSION_ID && this.tc.method !== TOAST_LZ4_COMPRESSION_ID) throw badMethod(this.tc.method);
      try {
        this.inner = decompressStream(this.tc.method, {
          rawSize: this.tc.rawSize,
          srcSize: this.opts.payloadSize - TCINFO_SIZE,
          stopAfter: this.opts.stopAfter,
          output: this.opts.output,
        });
      } catch (e) {
        throw inPayload(e);
      }
    }
    try {
      return (this.inner as DecompressStream).push(rest);
    } catch (e) {
      throw inPayload(e);
    }
  }

  finish(): Uint8Array {
    if (!this.inner) {
      throw new FormatError("TOAST_COMPRESSED_TRUNCATED", `compressed payload ended after ${this.headLen} bytes, inside va_tcinfo`, { offset: this.headLen, path: "va_tcinfo" });
    }
    try {
      return this.inner.finish();
    } catch (e) {
      throw inPayload(e);
    }
  }
}
