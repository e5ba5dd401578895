// The two CRC-32s of src/include/utils/pg_crc.h on the reflected polynomial 0xEDB88320, both
// with INIT 0xFFFFFFFF and FIN xor 0xFFFFFFFF. COMP_LEGACY_CRC32 feeds the table MSB-first (a
// historical mistake the server keeps: tsquery operands store it); COMP_TRADITIONAL_CRC32 is
// the standard CRC-32 (ltree's labels, contrib/ltree/crc32.c).

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** COMP_LEGACY_CRC32 over `b`, finished. */
export function legacyCrc32(b: Uint8Array): number {
  let crc = 0xffffffff;
  for (const x of b) crc = (TABLE[((crc >>> 24) ^ x) & 0xff]! ^ (crc << 8)) >>> 0;
  return (crc ^ 0xffffffff) >>> 0;
}

/** COMP_TRADITIONAL_CRC32 over `b`, each byte through `map` first (ltree lowercases), finished. */
export function traditionalCrc32(b: Uint8Array, map: (x: number) => number = (x) => x): number {
  let crc = 0xffffffff;
  for (const x of b) crc = (TABLE[(crc ^ map(x)) & 0xff]! ^ (crc >>> 8)) >>> 0;
  return (crc ^ 0xffffffff) >>> 0;
}
