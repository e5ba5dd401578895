// Speed note (not a test; figures go in formats/compression/README.md): our LZ4 block decoder vs
// lz4-napi's uncompressSync, the validated native path lz4Decompress uses, the streaming decoders,
// and pglz. Best of 7 runs of >= 0.2 s each (best-of, because the machine is shared).
// Run: npx tsx test/compression/bench-lz4.ts   (needs python3 + liblz4.so.1 for liblz4's blocks)
import { uncompressSync } from "lz4-napi";
import { Lz4Stream, PglzStream, lz4DecompressNative, lz4DecompressPortable, pglzCompress, pglzDecompress } from "../../formats/compression/index.js";
import { corpus } from "./corpus.js";
import { liblz4 } from "./oracle.js";

/** MB/s of raw output. */
function rate(rawBytes: number, f: () => void): number {
  let best = 0;
  for (let k = 0; k < 7; k++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < 200) {
      f();
      n++;
      t = performance.now();
    }
    best = Math.max(best, (rawBytes * n) / ((t - t0) / 1000) / 1e6);
  }
  return best;
}

function streamAll(s: { push(c: Uint8Array): Uint8Array; finish(): Uint8Array }, src: Uint8Array): void {
  for (let o = 0; o < src.length; o += 1996) s.push(src.subarray(o, o + 1996));
  s.finish();
}

const samples = corpus({ maxSize: 1_000_000 });
const names = ["log/1000000", "json/300000", "log/65536", "utf8/20000", "json/8192", "words/2000", "json/512"];
const inputs = names.map((n) => samples.find((s) => s.name === n)!.data);
const blocks = liblz4(inputs.map((d) => ({ op: "compress" as const, src: d })));
if (typeof blocks === "string") throw new Error(blocks);

const cols = ["raw B", "lz4 B", "TS", "napi raw", "validated napi", "TS stream", "pglz B", "pglz dec", "pglz stream", "pglz comp"];
console.log(["input".padEnd(12), ...cols.map((c) => c.padStart(14))].join(" |"));
names.forEach((name, i) => {
  const raw = inputs[i];
  const block = blocks[i].out;
  const framed = Buffer.alloc(block.length + 4);
  framed.writeUInt32LE(raw.length, 0);
  framed.set(block, 4);
  const pz = pglzCompress(raw);
  const row = [
    raw.length,
    block.length,
    rate(raw.length, () => lz4DecompressPortable(block, raw.length)),
    rate(raw.length, () => uncompressSync(framed)),
    rate(raw.length, () => lz4DecompressNative(block, raw.length)),
    rate(raw.length, () => streamAll(new Lz4Stream({ rawSize: raw.length, srcSize: block.length }), block)),
    pz ? pz.length : NaN,
    pz ? rate(raw.length, () => pglzDecompress(pz, raw.length)) : NaN,
    pz ? rate(raw.length, () => streamAll(new PglzStream({ rawSize: raw.length, srcSize: pz.length }), pz)) : NaN,
    rate(raw.length, () => pglzCompress(raw)),
  ];
  console.log([name.padEnd(12), ...row.map((v) => v.toFixed(0).padStart(14))].join(" |"));
});
