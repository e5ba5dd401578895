// Varlena headers: src/include/varatt.h (postgres.h in 15). Little-endian: the flag bits live
// in the physically first byte. A 1-byte header is never 0x00, so a zero byte is alignment padding.
import { FormatError } from "../schema/errors.js";

export const VARHDRSZ = 4;
export const VARHDRSZ_SHORT = 1;
export const VARHDRSZ_EXTERNAL = 2;
export const VARHDRSZ_COMPRESSED = 8;
export const VARATT_SHORT_MAX = 0x7f;

export const VARTAG_INDIRECT = 1;
export const VARTAG_EXPANDED_RO = 2;
export const VARTAG_EXPANDED_RW = 3;
export const VARTAG_ONDISK = 18;
/** new-formats.md §1.1: Direct TOAST pointer */
export const VARTAG_DIRECT = 19;

export type VarlenaKind =
  | "4b" // 4-byte header, uncompressed
  | "4b_c" // 4-byte header, compressed inline
  | "1b" // 1-byte header, short
  | "1b_e"; // external (TOAST pointer), tag in the next byte

export interface VarlenaHeader {
  kind: VarlenaKind;
  /** total size including the header */
  total: number;
  /** header size: 4, 1 or 2 (external) */
  header: number;
  /** vartag of an external datum */
  tag?: number;
}

/** VARTAG_SIZE for the tags that may appear on disk (and in-memory ones, for a precise error). */
export function vartagSize(tag: number): number | undefined {
  switch (tag) {
    case VARTAG_INDIRECT:
    case VARTAG_EXPANDED_RO:
    case VARTAG_EXPANDED_RW:
      return 8;
    case VARTAG_ONDISK:
      return 16;
    case VARTAG_DIRECT:
      return 18;
    default:
      return undefined;
  }
}

/**
 * Classify the varlena starting at `off` of `buf` (which must not be padding) and check it
 * fits before `end`. Throws FormatError with the offset when it does not.
 */
export function readVarlenaHeader(buf: Uint8Array, off: number, end = buf.length): VarlenaHeader {
  if (off >= end) throw new FormatError("VARLENA_TRUNCATED", `varlena header at offset ${off} is past the end of the data (${end})`, { offset: off });
  const b0 = buf[off];
  if ((b0 & 1) === 0) {
    if (off + 4 > end) throw new FormatError("VARLENA_TRUNCATED", `4-byte varlena header at offset ${off} needs 4 bytes, ${end - off} remain`, { offset: off });
    const w = (buf[off] | (buf[off + 1] << 8) | (buf[off + 2] << 16) | (buf[off + 3] << 24)) >>> 0;
    const total = w >>> 2;
    const kind: VarlenaKind = (b0 & 3) === 2 ? "4b_c" : "4b";
    const min = kind === "4b_c" ? VARHDRSZ_COMPRESSED : VARHDRSZ;
    if (total < min) throw new FormatError("VARLENA_BAD_LENGTH", `varlena at offset ${off} has length ${total}, less than its ${min}-byte header`, { offset: off });
    if (off + total > end) throw new FormatError("VARLENA_TRUNCATED", `varlena at offset ${off} of length ${total} extends past the end of the data (${end})`, { offset: off });
    return { kind, total, header: 4 };
  }
  if (b0 === 1) {
    if (off + 2 > end) throw new FormatError("VARLENA_TRUNCATED", `external varlena at offset ${off} has no tag byte`, { offset: off });
    const tag = buf[off + 1];
    const size = vartagSize(tag);
    if (size === undefined) throw new FormatError("VARLENA_BAD_TAG", `external varlena at offset ${off} has unknown vartag ${tag}`, { offset: off });
    const total = VARHDRSZ_EXTERNAL + size;
    if (off + total > end) throw new FormatError("VARLENA_TRUNCATED", `external varlena at offset ${off} (tag ${tag}, ${total} bytes) extends past the end of the data (${end})`, { offset: off });
    return { kind: "1b_e", total, header: 2, tag };
  }
  const total = b0 >>> 1;
  if (off + total > end) throw new FormatError("VARLENA_TRUNCATED", `short varlena at offset ${off} of length ${total} extends past the end of the data (${end})`, { offset: off });
  return { kind: "1b", total, header: 1 };
}

/** Make a 4-byte header (uncompressed). */
export function set4bHeader(dv: DataView, off: number, total: number): void {
  dv.setUint32(off, (total << 2) >>> 0, true);
}
/** A payload as a whole datum with a 4-byte uncompressed header (what an input function returns). */
export function varlena4B(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(VARHDRSZ + payload.length);
  set4bHeader(new DataView(out.buffer), 0, out.length);
  out.set(payload, VARHDRSZ);
  return out;
}
/** Make a 4-byte compressed header. */
export function set4bCompressedHeader(dv: DataView, off: number, total: number): void {
  dv.setUint32(off, ((total << 2) | 2) >>> 0, true);
}
/**
 * VARSIZE_ANY of the varlena at `at`, without allocating (hot paths): 0 when its header does not
 * fit before `end` or an external datum's vartag is unknown; a 4-byte length below 4 is returned
 * as it is, for the caller to refuse. readVarlenaHeader is the checked form, with the error.
 */
export function varsizeAnyAt(b: Uint8Array, at: number, end: number): number {
  const b0 = b[at]!;
  if (b0 === 0x01) {
    const size = at + 1 < end ? vartagSize(b[at + 1]!) : undefined;
    return size === undefined ? 0 : VARHDRSZ_EXTERNAL + size;
  }
  if (b0 & 1) return b0 >>> 1;
  return at + 4 <= end ? varsize4BAt(b, at) : 0;
}

/** VARATT_CAN_MAKE_SHORT for a payload of `len` bytes. */
/** VARSIZE_4B: the total size (header included) of the 4-byte-header varlena at `at`. */
export const varsize4BAt = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 2;

export const canMakeShort = (len: number): boolean => len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX;
