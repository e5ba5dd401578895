import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { crc32c, crc32cFinal, crc32cUpdate, CRC32C_INIT } from "../../formats/storage/crc32c.js";

// Bit-at-a-time reference straight from the definition (reflected 0x82F63B78), to check the tables.
function crc32cBitwise(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

test("CRC-32C check value of '123456789' is 0xE3069283 (the catalogued CRC-32C check)", () => {
  assert.equal(crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
});

test("slicing-by-8 equals the bitwise definition for every length 0..300 and odd offsets", () => {
  const data = randomBytes(4096);
  for (let len = 0; len <= 300; len++) {
    for (const off of [0, 1, 3, 7]) {
      const b = data.subarray(off, off + len);
      assert.equal(crc32c(b), crc32cBitwise(b), `len ${len} off ${off}`);
    }
  }
  const big = randomBytes(100_003);
  assert.equal(crc32c(big), crc32cBitwise(big));
});

test("INIT/COMP/FIN pieces and continuation compose", () => {
  const a = randomBytes(1000);
  const b = randomBytes(777);
  const ab = new Uint8Array([...a, ...b]);
  assert.equal(crc32c(b, crc32c(a)), crc32c(ab));
  let s = CRC32C_INIT;
  s = crc32cUpdate(s, ab, 0, 500);
  s = crc32cUpdate(s, ab, 500);
  assert.equal(crc32cFinal(s), crc32c(ab));
});
