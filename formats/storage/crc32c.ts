// CRC-32C (Castagnoli), as PostgreSQL's pg_crc32c: reflected polynomial 0x82F63B78,
// INIT_CRC32C = 0xFFFFFFFF, FIN_CRC32C = xor 0xFFFFFFFF (src/include/port/pg_crc32c.h).
// Used by pg_control, pg_filenode.map and WAL records. Table-driven, slicing-by-8.

const POLY = 0x82f63b78;

// 8 tables of 256 entries: T[k][b] is the CRC of byte b followed by k zero bytes.
const T = new Uint32Array(8 * 256);
for (let b = 0; b < 256; b++) {
  let c = b;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[b] = c >>> 0;
}
for (let b = 0; b < 256; b++) {
  for (let k = 1; k < 8; k++) T[k * 256 + b] = (T[(k - 1) * 256 + b] >>> 8) ^ T[T[(k - 1) * 256 + b] & 0xff];
}

/** INIT_CRC32C: the running value before any data. */
export const CRC32C_INIT = 0xffffffff;

/** COMP_CRC32C: feed `buf[start, end)` into a running (not finalised) CRC. */
export function crc32cUpdate(state: number, buf: Uint8Array, start = 0, end = buf.length): number {
  let c = state >>> 0;
  let i = start;
  // Slicing-by-8: fold 8 bytes per step through the 8 tables.
  for (; i + 8 <= end; i += 8) {
    const lo = c ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24));
    c =
      T[7 * 256 + (lo & 0xff)] ^
      T[6 * 256 + ((lo >>> 8) & 0xff)] ^
      T[5 * 256 + ((lo >>> 16) & 0xff)] ^
      T[4 * 256 + (lo >>> 24)] ^
      T[3 * 256 + buf[i + 4]] ^
      T[2 * 256 + buf[i + 5]] ^
      T[1 * 256 + buf[i + 6]] ^
      T[buf[i + 7]];
  }
  for (; i < end; i++) c = (c >>> 8) ^ T[(c ^ buf[i]) & 0xff];
  return c >>> 0;
}

/** FIN_CRC32C: the value stored on disk. */
export const crc32cFinal = (state: number): number => (state ^ 0xffffffff) >>> 0;

/**
 * CRC-32C of `buf` (INIT, COMP, FIN). Pass a previous result as `crc` to continue it:
 * crc32c(b, crc32c(a)) === crc32c(a ++ b).
 */
export function crc32c(buf: Uint8Array, crc = 0): number {
  return crc32cFinal(crc32cUpdate((crc ^ 0xffffffff) >>> 0, buf));
}
