// Small shared helpers for the datum decoders.
import { FormatError } from "../schema/errors.js";
import type { TypeInfo } from "./types.js";

export const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Throw unless `data` has exactly `n` bytes (fixed-length types). */
export function expectLength(data: Uint8Array, n: number, type: string): void {
  if (data.length !== n) throw new FormatError("DATUM_BAD_LENGTH", `${type} datum must be ${n} bytes, got ${data.length}`);
}

/** Throw unless `data` has at least `n` bytes. */
export function expectAtLeast(data: Uint8Array, n: number, type: string): void {
  if (data.length < n) throw new FormatError("DATUM_TRUNCATED", `${type} datum needs at least ${n} bytes, got ${data.length}`);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** Lowercase hex of b; long inputs go through Buffer's native encoder (a flat string, fast). */
export function hex(b: Uint8Array): string {
  if (b.length > 16) return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX[b[i]!];
  return s;
}

// Server-encoding text is assumed to be UTF-8; invalid sequences become U+FFFD rather than
// throwing; a leading U+FEFF is text like any other (the server prints it).
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
export const utf8Text = (b: Uint8Array): string => utf8.decode(b);

/** Zero-padded decimal (non-negative n). */
export const pad = (n: number | bigint, width: number): string => n.toString().padStart(width, "0");

/**
 * The total size of a varlena embedded inside another datum (jsonb numerics, range bounds) whose
 * header starts at `off`; its payload starts 1 byte (a short header: odd first byte) or 4 bytes
 * after `off`. Only uncompressed inline forms can occur there.
 */
export function embeddedVarlenaSize(b: Uint8Array, off: number, what: string): number {
  const b0 = b[off];
  if (b0 === undefined) throw new FormatError("DATUM_TRUNCATED", `${what}: varlena header past end of datum`, { offset: off });
  if ((b0 & 1) === 1) {
    if (b0 === 1) throw new FormatError("DATUM_EXTERNAL_EMBEDDED", `${what}: TOAST pointer inside a datum`, { offset: off });
    const total = b0 >>> 1;
    if (off + total > b.length) throw new FormatError("DATUM_TRUNCATED", `${what}: varlena runs past end of datum`, { offset: off });
    return total;
  }
  if ((b0 & 3) !== 0) throw new FormatError("DATUM_COMPRESSED_EMBEDDED", `${what}: compressed varlena inside a datum`, { offset: off });
  if (off + 4 > b.length) throw new FormatError("DATUM_TRUNCATED", `${what}: varlena header past end of datum`, { offset: off });
  const total = ((b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24)) >>> 0) >>> 2;
  if (total < 4 || off + total > b.length) throw new FormatError("DATUM_TRUNCATED", `${what}: varlena runs past end of datum`, { offset: off });
  return total;
}

/** embeddedVarlenaSize as [payload start, total size]. */
export function embeddedVarlena(b: Uint8Array, off: number, what: string): [number, number] {
  const total = embeddedVarlenaSize(b, off, what);
  return [off + ((b[off]! & 1) === 1 ? 1 : 4), total];
}

/** The text of a value pgdisk cannot decode: its type's name (or #oid) and its bytes in hex. */
export function undecodedText(data: Uint8Array, typeOid: number, info: TypeInfo | undefined): string {
  return `${info?.name ?? `#${typeOid}`}:\\x${hex(data)}`;
}

/** isspace() in the C locale, as the input functions skip white space. */
export const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\v" || c === "\f" || c === "\r";
/** isdigit() in the C locale */
export const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
/** rint() under the default rounding mode: to the nearest integer, a tie to the even one. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
