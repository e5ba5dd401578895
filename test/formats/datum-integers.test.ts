// The integer output functions read bytes directly (int8 as a double below 2^53): checked
// against DataView/BigInt on the edges and on seeded random bit patterns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinTypeLookup, datumToText } from "../../formats/datum/index.js";

const edges = [0n, 1n, -1n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, -(2n ** 32n), 2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 53n, -(2n ** 53n), -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)];

test("int2, int4, int8 and oid text equals the reference reads", () => {
  const patterns: Uint8Array[] = edges.map((v) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigInt64(0, v, true);
    return b;
  });
  let seed = 12345;
  for (let i = 0; i < 20000; i++) {
    const b = new Uint8Array(8);
    for (let k = 0; k < 8; k++) b[k] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    // also small magnitudes, the common case
    if (i % 2) b.fill(b[7]! & 0x80 ? 0xff : 0, 3 + (i % 5));
    patterns.push(b);
  }
  for (const b of patterns) {
    const dv = new DataView(b.buffer);
    assert.equal(datumToText(b, 20, -1, builtinTypeLookup), dv.getBigInt64(0, true).toString());
    assert.equal(datumToText(b.subarray(0, 4), 23, -1, builtinTypeLookup), String(dv.getInt32(0, true)));
    assert.equal(datumToText(b.subarray(0, 2), 21, -1, builtinTypeLookup), String(dv.getInt16(0, true)));
    assert.equal(datumToText(b.subarray(0, 4), 26, -1, builtinTypeLookup), String(dv.getUint32(0, true)));
  }
});
