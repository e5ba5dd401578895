// The heapallindexed fingerprint is one function of the tuple's bytes whichever way it is
// computed: the WebAssembly module on bytes formed in its memory, on a copy of 4-aligned or
// unaligned bytes, and the BigInt reference (used for tuples too large for the module's memory).
// And bytes that differ in one word never share a fingerprint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fingerprint, fingerprintInPage, FP, hashableFormBytes, unstagePage } from "../../verify/nbtree/fingerprint.js";
import { fingerprintHashRef, fingerprintModule } from "../../verify/nbtree/fingerprint-hash.js";

let seed = 99;
const rnd = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

const fp = (b: Uint8Array, start: number, size: number, info: number): [number, number] => {
  fingerprint(b, start, size, info);
  return [FP[0], FP[1]];
};

test("the fingerprint is the same from wasm memory, a copy, unaligned bytes and the BigInt reference", () => {
  assert.ok(fingerprintModule(), "WebAssembly is available (Node 20)");
  const form = hashableFormBytes()!;
  const plain = new Uint8Array(1 << 16);
  let checked = 0;
  for (let round = 0; round < 3000; round++) {
    // MAXALIGNed tuple sizes, and some that are not (the bytes are then hashed zero-padded)
    const size = round % 4 === 0 ? 4 * (2 + rnd(40)) : 8 * (1 + rnd(round % 10 === 0 ? 400 : 20));
    const info = (rnd(8) << 13) | (size & 0x1fff);
    const tuple = Uint8Array.from({ length: size }, () => rnd(256));
    const want = fingerprintHashRef(tuple, 8, size - 8, info, size);
    form.set(tuple, 0);
    assert.deepEqual(fp(form, 0, size, info), want, `in place, size ${size}`);
    const at = 8 * rnd(64);
    plain.set(tuple, at);
    assert.deepEqual(fp(plain, at, size, info), want, `aligned copy, size ${size}`);
    const odd = 1 + 8 * rnd(64) + rnd(3);
    plain.set(tuple, odd);
    assert.deepEqual(fp(plain.subarray(0), odd, size, info), want, `unaligned copy, size ${size}`);
    checked++;
  }
  // beyond the module's scratch memory: the reference computes it
  const big = Uint8Array.from({ length: 300_000 }, () => rnd(256));
  assert.deepEqual(fp(big, 0, big.length, 0x4000), fingerprintHashRef(big, 8, big.length - 8, 0x4000, big.length));
  assert.ok(checked === 3000);
});

test("tuples that differ in one word, in t_info or in size have different fingerprints", () => {
  const b = new Uint8Array(256);
  for (let round = 0; round < 2000; round++) {
    const size = 8 * (2 + rnd(30));
    for (let i = 0; i < size; i++) b[i] = rnd(256);
    const info = 0x4000 | size;
    const base = fp(b, 0, size, info);
    // one 8-byte word changed (one to eight of its bytes)
    const w = 8 + 8 * rnd((size - 8) / 8);
    const saved = b.slice(w, w + 8);
    for (let k = 0, n = 1 + rnd(8); k < n; k++) b[w + rnd(8)] ^= 1 + rnd(255);
    if (!saved.every((x, k) => x === b[w + k])) assert.notDeepEqual(fp(b, 0, size, info), base, `word at ${w} of ${size}`);
    b.set(saved, w);
    assert.deepEqual(fp(b, 0, size, info), base);
    assert.notDeepEqual(fp(b, 0, size, info ^ 0x2000), base, "t_info");
    b.fill(0, size, size + 8);
    assert.notDeepEqual(fp(b, 0, size + 8, (info & ~0x1fff) | (size + 8)), base, "size");
  }
});

test("tuples hashed within their page (copied into the module once per page) get the same fingerprints", () => {
  const bs = 8192;
  const whole = Uint8Array.from({ length: 6 * bs }, () => rnd(256));
  const inPage = (b: Uint8Array, key: number, from: number, start: number, size: number, info: number): [number, number] => {
    fingerprintInPage(b, key, from, Math.min(bs, b.length - from), start, size, info);
    return [FP[0], FP[1]];
  };
  unstagePage();
  let checked = 0;
  for (let round = 0; round < 3000; round++) {
    const blk = rnd(6);
    const size = round % 7 === 0 ? 4 * (2 + rnd(30)) : 8 * (1 + rnd(60));
    const start = blk * bs + 8 * rnd((bs - size) / 8);
    const info = 0x4000 | size;
    const want = fingerprintHashRef(whole, start + 8, size - 8, info, size);
    assert.deepEqual(inPage(whole, blk, blk * bs, start, size, info), want, `whole buffer, block ${blk}`);
    // a page of its own (a cache page), and one straddling tuple (hashed directly)
    const page = whole.subarray(blk * bs, (blk + 1) * bs);
    assert.deepEqual(inPage(page, blk, 0, start - blk * bs, size, info), want, `page view, block ${blk}`);
    checked++;
  }
  const straddling = 2 * bs - 16;
  assert.deepEqual(inPage(whole, 1, bs, straddling, 48, 0x4030), fingerprintHashRef(whole, straddling + 8, 40, 0x4030, 48));
  // a new key restages the page (the buffer now holds other bytes); the same key is the caller's promise that it does not
  const page = Uint8Array.from({ length: bs }, () => rnd(256));
  const before = inPage(page, 100, 0, 64, 32, 0x4020);
  page[80] ^= 0xff;
  assert.deepEqual(inPage(page, 100, 0, 64, 32, 0x4020), before, "same key: the staged copy");
  assert.deepEqual(inPage(page, 101, 0, 64, 32, 0x4020), fingerprintHashRef(page, 72, 24, 0x4020, 32), "new key: the new bytes");
  assert.ok(checked === 3000);
});
