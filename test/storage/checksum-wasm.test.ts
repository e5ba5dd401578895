// The WebAssembly SIMD pg_checksum_page against the JS one: random pages and block numbers from a
// seeded PRNG, the edge cases, and the module's own behaviour (worker threads, the fallback).
// checksum.test.ts checks pgChecksumPage (whichever runs) against pages PostgreSQL wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Worker } from "node:worker_threads";
import { checksumReadArea, pgChecksumImplementation, pgChecksumPage, pgChecksumPageJs } from "../../formats/page/checksum.js";
import { giveReadBuffer, takeReadBuffer } from "../../verify/scan.js";
import { checksumModuleBytes } from "../../formats/page/checksum-wasm.js";

/** xorshift32: a seeded stream of uint32. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

function fill(page: Uint8Array, next: () => number): void {
  const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
  for (let i = 0; i < page.length; i += 4) dv.setUint32(i, next(), true);
}

test("this Node runs the WebAssembly SIMD implementation (so the comparisons below are not JS against JS)", () => {
  assert.equal(pgChecksumImplementation(), "wasm-simd");
  // the emitted bytes are a valid module (with SIMD) for this engine
  const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;
  assert.equal(wasm.validate(checksumModuleBytes(new Int32Array(32))), true);
});

test("wasm and JS agree on 5000 seeded random pages and block numbers", () => {
  const next = prng(0x5eed1234);
  const page = new Uint8Array(8192);
  const distinct = new Set<number>();
  for (let i = 0; i < 5000; i++) {
    fill(page, next);
    const blkno = i % 4 === 0 ? i : next(); // small and full-range uint32 block numbers
    const w = pgChecksumPage(page, blkno);
    assert.equal(w, pgChecksumPageJs(page, blkno), `page ${i}, block ${blkno}`);
    assert.ok(w >= 1 && w <= 65535);
    distinct.add(w);
  }
  assert.ok(distinct.size > 4500, `${distinct.size} distinct checksums`);
  // sparse pages (mostly zero, like real heap pages), with pd_checksum set to random values
  for (let i = 0; i < 2000; i++) {
    page.fill(0);
    for (let k = next() % 64; k > 0; k--) page[next() % 8192] = next() & 0xff;
    page[8] = next() & 0xff;
    page[9] = next() & 0xff;
    const blkno = next() % 262144;
    assert.equal(pgChecksumPage(page, blkno), pgChecksumPageJs(page, blkno), `sparse page ${i}, block ${blkno}`);
  }
});

test("edge cases: all-zero and all-0xff pages at block numbers 0, 1, 131072, 0xffffffff; pd_checksum ignored", () => {
  for (const byte of [0x00, 0xff, 0x80, 0x01]) {
    const page = new Uint8Array(8192).fill(byte);
    for (const blkno of [0, 1, 131072, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]) {
      const w = pgChecksumPage(page, blkno);
      assert.equal(w, pgChecksumPageJs(page, blkno), `fill 0x${byte.toString(16)} block ${blkno}`);
      page[8] ^= 0x5a; // the stored checksum does not enter the result, in either implementation
      assert.equal(pgChecksumPage(page, blkno), w);
      assert.equal(pgChecksumPageJs(page, blkno), w);
    }
  }
  // a single bit anywhere (every word of the first and last rows, a few in between) changes both alike
  const page = new Uint8Array(8192);
  for (const off of [0, 4, 10, 11, 12, 124, 4096, 8064, 8188, 8191]) {
    page.fill(0);
    page[off] = 0x80;
    assert.equal(pgChecksumPage(page, 7), pgChecksumPageJs(page, 7), `bit at byte ${off}`);
  }
});

test("unaligned and offset pages, the page not modified, same errors as the JS version", () => {
  const next = prng(99);
  const buf = new Uint8Array(8192 * 3 + 3);
  fill(buf.subarray(0, 8192 * 3), next);
  for (const off of [0, 1, 2, 3, 8192, 8195]) {
    const page = buf.subarray(off, off + 8192);
    const copy = Uint8Array.from(page);
    assert.equal(pgChecksumPage(page, off), pgChecksumPageJs(page, off));
    assert.deepEqual(page, copy);
  }
  for (const f of [pgChecksumPage, pgChecksumPageJs]) {
    assert.throws(() => f(new Uint8Array(4096), 0), /8192-byte page/);
    assert.throws(() => f(new Uint8Array(8193), 0), /8192-byte page/);
    for (const bad of [-1, 0x100000000, 1.5, NaN]) assert.throws(() => f(new Uint8Array(8192), bad), RangeError);
  }
});

test("pages read into the module's read area (scans' read buffers) are checksummed in place, unmodified; the buffers are pooled", () => {
  const area = checksumReadArea();
  assert.ok(area && area.length >= 4 * 2 ** 20, "a read area in the module's memory");
  const next = prng(4242);
  const taken: Uint8Array[] = [];
  for (let round = 0; round < 40; round++) {
    const pages = 1 + (next() % 32);
    const buf = takeReadBuffer(pages * 8192);
    taken.push(buf);
    fill(buf, next);
    for (let i = 0; i < pages; i++) {
      const page = buf.subarray(i * 8192, (i + 1) * 8192);
      const copy = Uint8Array.from(page);
      const blkno = next();
      assert.equal(pgChecksumPage(page, blkno), pgChecksumPageJs(page, blkno), `round ${round}, page ${i}`);
      assert.deepEqual(page, copy, "pd_checksum is masked, not cleared");
    }
    // a buffer stays the caller's until given back: none is handed out twice
    if (round % 3 === 2) giveReadBuffer(taken.shift()!);
  }
  assert.ok(taken.filter((b) => b.buffer === area.buffer).length > 1, "the buffers lie in the module's memory");
  for (let i = 0; i < taken.length; i++) for (let j = i + 1; j < taken.length; j++) {
    const [a, b] = [taken[i], taken[j]];
    if (a.buffer === b.buffer) assert.ok(a.byteOffset + a.byteLength <= b.byteOffset || b.byteOffset + b.byteLength <= a.byteOffset, "buffers in use do not overlap");
  }
  taken.forEach(giveReadBuffer);
  // over 256 KiB: a plain array (checksummed through the copy area)
  const big = takeReadBuffer(64 * 8192);
  fill(big, next);
  assert.equal(pgChecksumPage(big.subarray(8192, 16384), 5), pgChecksumPageJs(big.subarray(8192, 16384), 5));
  giveReadBuffer(big);
});

test("worker threads each compile the module and compute the same checksums", async () => {
  const next = prng(7);
  const page = new Uint8Array(8192);
  fill(page, next);
  const want = [0, 1, 131072, 0xffffffff].map((b) => pgChecksumPageJs(page, b));
  // Workers load the TypeScript sources through tsx's loader, as verify's workers do when run from source.
  const src = `
    import { parentPort, workerData } from "node:worker_threads";
    const { register } = await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))});
    register();
    const m = await import(${JSON.stringify(new URL("../../formats/page/checksum.ts", import.meta.url).href)});
    parentPort.postMessage({ impl: m.pgChecksumImplementation(), sums: [0, 1, 131072, 0xffffffff].map((b) => m.pgChecksumPage(workerData, b)) });
  `;
  const results = await Promise.all(
    [0, 1, 2].map(
      () =>
        new Promise<{ impl: string; sums: number[] }>((resolve, reject) => {
          const w = new Worker(src, { eval: true, workerData: page });
          w.once("message", (m) => {
            resolve(m);
            void w.terminate();
          });
          w.once("error", reject);
        }),
    ),
  );
  for (const r of results) assert.deepEqual(r, { impl: "wasm-simd", sums: want });
});

test("without WebAssembly (node --jitless) pgChecksumPage falls back to JS with the same results", () => {
  const src = `
    const m = await import(${JSON.stringify(new URL("../../formats/page/checksum.ts", import.meta.url).href)});
    const page = new Uint8Array(8192).map((_, i) => (i * 31 + 7) & 0xff);
    console.log(JSON.stringify({ wasm: typeof WebAssembly, impl: m.pgChecksumImplementation(), sums: [0, 1, 0xffffffff].map((b) => m.pgChecksumPage(page, b)) }));
  `;
  const r = spawnSync(process.execPath, ["--jitless", "--import", "tsx", "--input-type=module", "-e", src], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout.trim().split("\n").pop()!);
  const page = new Uint8Array(8192).map((_, i) => (i * 31 + 7) & 0xff);
  assert.deepEqual(got, { wasm: "undefined", impl: "js", sums: [0, 1, 0xffffffff].map((b) => pgChecksumPage(page, b)) });
});
