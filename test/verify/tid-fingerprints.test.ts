// TidFingerprints (the heapallindexed entry table) answers every lookup as a plain map of
// (heap TID -> fingerprints) would, also when its arrays come from the thread's pool: instances
// made one after another with too small, right and too large size hints, arrays of earlier
// instances (entry arrays and the triples of finished ones) reused by later ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TidFingerprints } from "../../verify/nbtree/fingerprint.js";

let seed = 777;
const rnd = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

test("TidFingerprints matches a reference map, with pooled arrays reused across instances", () => {
  let checked = 0;
  for (let round = 0; round < 40; round++) {
    const nblocks = 1 + rnd(300);
    const n = rnd(4) === 0 ? rnd(50) : 500 + rnd(20000);
    const hints = [0, -1, Math.floor(n / 3), n, n * 4];
    const set = new TidFingerprints(hints[rnd(hints.length)]);
    const ref = new Map<number, [number, number][]>();
    for (let i = 0; i < n; i++) {
      const block = rnd(nblocks + 3); // some beyond the heap: dropped
      const off = 1 + rnd(300);
      const hi = rnd(1 << 30) - (1 << 29);
      const lo = rnd(1 << 30);
      set.add(block, off, hi, lo);
      if (block < nblocks) {
        const k = block * 65536 + off;
        ref.set(k, [...(ref.get(k) ?? []), [hi, lo]]);
      }
    }
    assert.equal(set.size, n);
    set.finish(nblocks);
    // probes in heap order, as the scan makes them: present, other fingerprint, absent
    for (let b = 0; b < nblocks; b++) {
      for (let off = 1; off <= 300; off += 1 + rnd(3)) {
        const have = ref.get(b * 65536 + off);
        if (!have) {
          assert.equal(set.match(b, off, 1, 2), 0);
          continue;
        }
        const [hi, lo] = have[rnd(have.length)];
        assert.equal(set.match(b, off, hi, lo), 1, `round ${round}: (${b},${off}) present`);
        assert.equal(set.match(b, off, hi ^ 1, lo), 2, `round ${round}: (${b},${off}) other bytes`);
        checked++;
      }
    }
    set.release();
  }
  assert.ok(checked > 10000, `${checked} entries checked`);
});
