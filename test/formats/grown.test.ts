// grown(): the one growth rule of the reused typed arrays of the hot paths.
import { test } from "node:test";
import assert from "node:assert/strict";
import { grown } from "../../formats/schema/bytes.js";

test("grown keeps an array that is long enough", () => {
  const a = new Int32Array(8);
  assert.equal(grown(a, 8), a);
  assert.equal(grown(a, 0), a);
});

test("grown doubles, keeps the kind and the used elements, zeroes the rest", () => {
  const a = Int32Array.from([1, -2, 3, 4]);
  const b = grown(a, 5);
  assert.ok(b instanceof Int32Array);
  assert.equal(b.length, 8);
  assert.deepEqual(Array.from(b), [1, -2, 3, 4, 0, 0, 0, 0]);
  const f = grown(Float64Array.from([0.5, 1.5]), 3);
  assert.ok(f instanceof Float64Array);
  assert.deepEqual(Array.from(f), [0.5, 1.5, 0, 0]);
});

test("grown reaches a minimum beyond double and copies only the used prefix", () => {
  const a = Uint8Array.from([9, 8, 7, 6]);
  const b = grown(a, 100, 2);
  assert.equal(b.length, 100);
  assert.deepEqual(Array.from(b.subarray(0, 4)), [9, 8, 0, 0]);
});
