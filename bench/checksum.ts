// pg_checksum_page: the WebAssembly SIMD implementation against the JS one over the same 20,000
// pages: real relation pages from the large bench sample when it exists, else seeded random ones.
//   npx tsx bench/checksum.ts [--pages 20000] [--rounds 5]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pgChecksumImplementation, pgChecksumPage, pgChecksumPageJs } from "../formats/page/checksum.js";
import { argValue } from "./common.js";

const DIR = "/tmp/pgdisk-bench-large/data/base/16384";
const N = Number(argValue("--pages", "20000"));
const ROUNDS = Number(argValue("--rounds", "5"));

/** N pages in one buffer (as block reads hand them out), and where they came from. */
function loadPages(): { buf: Uint8Array; source: string } {
  const buf = new Uint8Array(N * 8192);
  let n = 0;
  if (existsSync(DIR)) {
    // main forks and their segments, in name order, until N pages
    for (const f of readdirSync(DIR).filter((f) => /^\d+(\.\d+)?$/.test(f)).sort()) {
      const b = readFileSync(join(DIR, f));
      for (let o = 0; o + 8192 <= b.length && n < N; o += 8192, n++) buf.set(b.subarray(o, o + 8192), n * 8192);
      if (n === N) return { buf, source: `${N} pages of ${DIR}` };
    }
  }
  let x = 0x9e3779b9; // xorshift32
  const words = new Uint32Array(buf.buffer);
  for (let i = n * 2048; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return { buf, source: n > 0 ? `${n} real pages + ${N - n} random` : `${N} random pages` };
}

const { buf, source } = loadPages();
const pages = Array.from({ length: N }, (_, i) => buf.subarray(i * 8192, (i + 1) * 8192));

// Same results first (and warm-up for both).
for (let i = 0; i < N; i++) {
  if (pgChecksumPage(pages[i], i) !== pgChecksumPageJs(pages[i], i)) throw new Error(`page ${i}: implementations differ`);
}

function run(f: (p: Uint8Array, b: number) => number): number {
  let x = 0;
  const t = process.hrtime.bigint();
  for (let r = 0; r < ROUNDS; r++) for (let i = 0; i < N; i++) x ^= f(pages[i], i);
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  if (x === -1) console.log(x); // keep the results live
  return (ROUNDS * N) / s;
}

console.log(`${source}; ${ROUNDS} rounds; pgChecksumPage runs ${pgChecksumImplementation()}`);
// Alternate, best of three each: the machine is shared.
let js = 0;
let wasm = 0;
for (let rep = 0; rep < 3; rep++) {
  js = Math.max(js, run(pgChecksumPageJs));
  wasm = Math.max(wasm, run(pgChecksumPage));
}
const fmt = (r: number) => `${(r / 1e3).toFixed(0).padStart(6)} k pages/s  ${(1e9 / r).toFixed(0).padStart(5)} ns/page`;
console.log(`js        ${fmt(js)}`);
console.log(`${pgChecksumImplementation().padEnd(9)} ${fmt(wasm)}`);
console.log(`ratio     ${(wasm / js).toFixed(2)}x`);
