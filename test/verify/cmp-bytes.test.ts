// cmpBytes (word-at-a-time memcmp) agrees in sign with Buffer.compare on ranges at any offset,
// with shared prefixes of every length and bytes above 0x7f (unsigned order).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cmpBytes } from "../../formats/order/bytes.js";

test("cmpBytes has memcmp's sign, then the shorter first", () => {
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const a = new Uint8Array(4096);
  const b = new Uint8Array(4096);
  for (let k = 0; k < 20000; k++) {
    const prefix = rnd(80);
    const la = prefix + rnd(12);
    const lb = prefix + rnd(12);
    const ao = 4 + rnd(64);
    const bo = 1 + rnd(64);
    for (let i = 0; i < la; i++) a[ao + i] = rnd(3) === 0 ? 0x80 + rnd(128) : 0x61 + rnd(4);
    for (let i = 0; i < lb; i++) b[bo + i] = i < prefix && i < la ? a[ao + i] : rnd(2) ? 0x61 + rnd(4) : 0xff - rnd(3);
    const want = Math.sign(Buffer.compare(a.subarray(ao, ao + la), b.subarray(bo, bo + lb)));
    assert.equal(Math.sign(cmpBytes(a, ao, la, b, bo, lb)), want, `case ${k}`);
    // the same bytes inside a larger buffer at another byte offset
    const sub = a.subarray(3);
    assert.equal(Math.sign(cmpBytes(sub, ao - 3, la, b, bo, lb)), want, `case ${k} (subarray)`);
  }
});
