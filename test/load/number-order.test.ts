// The loader's sorts by numeric key (migrate/load/number-order.ts) against a stable comparator
// sort: orderByNumber's order, and sortRecordsByNumber's records moved to their places.
import { test } from "node:test";
import assert from "node:assert/strict";
import { orderByNumber, sortRecordsByNumber } from "../../migrate/load/number-order.js";
import { Rng } from "../../samples/prng.js";

/** The stable order of keys ascending, by a comparator. */
const reference = (keys: number[]): number[] => keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);

/** n records of `len` bytes: record i holds i (its first four bytes) and its key's low byte after it. */
function records(keys: number[], len: number): Uint8Array {
  const b = new Uint8Array(keys.length * len);
  const v = new DataView(b.buffer);
  keys.forEach((k, i) => {
    v.setUint32(i * len, i, true);
    b[i * len + 4] = k & 0xff;
  });
  return b;
}

test("orderByNumber and sortRecordsByNumber: stable key order, ties in index order", () => {
  const r = new Rng(18, "number-order");
  for (const [n, lo, hi] of [[1000, 0, 50], [5000, -2000, 2000], [20000, 0, 80000], [3, 5, 7]] as const) {
    const keys = Array.from({ length: n }, () => r.int(lo, hi));
    const want = reference(keys);
    assert.deepEqual([...orderByNumber(keys)], want, `orderByNumber ${n} in ${lo}..${hi}`);
    for (const len of [16, 24]) {
      const got = sortRecordsByNumber(Float64Array.from(keys), records(keys, len), len);
      assert.ok(got, `counting range ${lo}..${hi}`);
      const v = new DataView(got.buffer);
      assert.deepEqual(Array.from({ length: n }, (_, p) => v.getUint32(p * len, true)), want, `records ${n} x ${len}`);
      assert.deepEqual(Buffer.from(got), Buffer.from(want.flatMap((i) => [...records(keys, len).subarray(i * len, (i + 1) * len)])));
    }
  }
});

test("sortRecordsByNumber leaves sorted, fractional, infinite and wide-ranged keys to orderByNumber", () => {
  const b = new Uint8Array(16 * 4);
  assert.equal(sortRecordsByNumber([1, 2, 2, 3], b, 16), null, "already in order");
  assert.equal(sortRecordsByNumber([2, 1.5, 3, 0], b, 16), null, "not integers");
  assert.equal(sortRecordsByNumber([2, Infinity, 3, 0], b, 16), null, "a NULL key's infinity");
  assert.equal(sortRecordsByNumber([2, 1e9, 3, 0], b, 16), null, "range over four times the count");
  assert.deepEqual([...orderByNumber([2, 1e9, -0, 0])], [2, 3, 0, 1], "the radix path, -0 equal to 0");
});
