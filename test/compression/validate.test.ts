// Validate-only decoding (pglzValidate, lz4Validate, decompressedSizeTcinfo) against the decoders it
// stands in for: the same length for real streams, and for seeded damaged streams exactly the same
// outcome (length, or error code, message, offset and detail). Also checkDecompresses' findings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FormatError } from "../../formats/schema/errors.js";
import {
  PGLZ_STRATEGY_ALWAYS,
  PGLZ_STRATEGY_DEFAULT,
  compressDatum,
  decompressTcinfo,
  decompressedSizeTcinfo,
  lz4CompressBlock,
  lz4Decompress,
  lz4Validate,
  pglzCompress,
  pglzDecompress,
  pglzValidate,
} from "../../formats/compression/index.js";
import { FindingSink } from "../../verify/findings.js";
import { checkDecompresses } from "../../verify/toast/plain-check.js";
import { corpus, int, rng, type Rng } from "./corpus.js";

/** A call's outcome as one comparable string: the length, or the error's code, message, offset and detail. */
function outcome(f: () => number): string {
  try {
    return `ok ${f()}`;
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    return `${e.code} @${e.location.offset} ${e.message} | ${e.detail ?? ""}`;
  }
}

/** Real inputs: the corpus plus tiny, highly repetitive and incompressible extremes. */
function samples(): Uint8Array[] {
  const r = rng(31);
  const out = corpus({ maxSize: 100_000, seed: 17 }).map((s) => s.data);
  for (const n of [0, 1, 2, 3, 4, 5, 8, 13, 17, 18, 19, 24]) out.push(Uint8Array.from({ length: n }, (_, i) => 97 + (i % 3)));
  for (const n of [300, 4096, 70_000, 500_000]) out.push(new Uint8Array(n).fill(0x41));
  for (const n of [16, 100, 3000, 65_536]) out.push(Uint8Array.from({ length: n }, () => int(r, 0, 255)));
  return out;
}

function mutate(r: Rng, src: Uint8Array): Uint8Array {
  const out = src.slice();
  if (out.length === 0) return Uint8Array.from({ length: int(r, 1, 4) }, () => int(r, 0, 255));
  switch (int(r, 0, 6)) {
    case 0:
      out[int(r, 0, out.length - 1)] ^= 1 << int(r, 0, 7);
      return out;
    case 1:
      for (let k = int(r, 1, 4); k > 0; k--) out[int(r, 0, out.length - 1)] = int(r, 0, 255);
      return out;
    case 2:
      return out.subarray(0, int(r, 0, out.length - 1));
    case 3: {
      const longer = new Uint8Array(out.length + int(r, 1, 8));
      longer.set(out);
      for (let i = out.length; i < longer.length; i++) longer[i] = int(r, 0, 255);
      return longer;
    }
    case 4: {
      // a tag-like pair with a large offset / long length
      const p = int(r, 0, Math.max(0, out.length - 2));
      out[p] = int(r, 0, 255) | 0x0f;
      if (p + 1 < out.length) out[p + 1] = int(r, 0, 255);
      return out;
    }
    case 5:
      out[int(r, 0, out.length - 1)] = r() < 0.5 ? 0xff : 0x00;
      return out;
    default:
      return Uint8Array.from({ length: int(r, 0, 300) }, () => int(r, 0, 255));
  }
}

/** Raw sizes to try: the true one, near it, and far off (both sides of the lz4 native threshold). */
function rawSizes(r: Rng, raw: number): number[] {
  return [raw, Math.max(0, raw + int(r, -20, 20)), int(r, 0, raw * 2 + 100), int(r, 2040, 2060)];
}

test("pglzValidate gives the decoder's length for real streams", () => {
  let n = 0;
  for (const data of samples()) {
    for (const strategy of [PGLZ_STRATEGY_DEFAULT, PGLZ_STRATEGY_ALWAYS]) {
      const c = pglzCompress(data, strategy);
      if (c === null) continue;
      assert.equal(pglzValidate(c, data.length), pglzDecompress(c, data.length).length);
      assert.equal(pglzValidate(c, data.length), data.length);
      const k = Math.floor(data.length / 3);
      assert.equal(pglzValidate(c, k, false), pglzDecompress(c, k, false).length, "slice");
      n++;
    }
  }
  assert.ok(n > 300, `${n} streams`);
});

test("lz4Validate gives the decoder's length for real blocks", () => {
  let n = 0;
  for (const data of samples()) {
    if (data.length === 0) continue;
    const block = lz4CompressBlock(data);
    assert.equal(lz4Validate(block, data.length), lz4Decompress(block, data.length).length);
    assert.equal(lz4Validate(block, data.length), data.length);
    n++;
  }
  assert.ok(n > 300, `${n} blocks`);
});

test("pglzValidate and pglzDecompress agree on seeded damaged streams", () => {
  const r = rng(4711);
  const streams = samples()
    .map((d) => ({ raw: d.length, c: pglzCompress(d, PGLZ_STRATEGY_ALWAYS) }))
    .filter((x): x is { raw: number; c: Uint8Array } => x.c !== null && x.raw <= 20_000);
  const tally: Record<string, number> = {};
  for (let k = 0; k < 6000; k++) {
    const s = streams[int(r, 0, streams.length - 1)];
    const bad = mutate(r, s.c);
    for (const raw of rawSizes(r, s.raw)) {
      for (const complete of [true, false]) {
        const want = outcome(() => pglzDecompress(bad, raw, complete).length);
        assert.equal(outcome(() => pglzValidate(bad, raw, complete)), want, `case ${k}: raw ${raw}, complete ${complete}`);
        const key = want.split(" ")[0];
        tally[key] = (tally[key] ?? 0) + 1;
      }
    }
  }
  for (const code of ["ok", "PGLZ_OFFSET_ZERO", "PGLZ_OFFSET_BEYOND_OUTPUT", "PGLZ_TRUNCATED_TAG", "PGLZ_OUTPUT_SHORT", "PGLZ_INPUT_NOT_CONSUMED", "PGLZ_OUTPUT_OVERRUN", "PGLZ_RAWSIZE_TOO_LARGE"]) {
    assert.ok((tally[code] ?? 0) > 10, `${code} exercised: ${JSON.stringify(tally)}`);
  }
});

test("lz4Validate and lz4Decompress agree on seeded damaged blocks", () => {
  const r = rng(8088);
  const blocks = samples()
    .filter((d) => d.length > 0 && d.length <= 20_000)
    .map((d) => ({ raw: d.length, c: lz4CompressBlock(d) }));
  const tally: Record<string, number> = {};
  for (let k = 0; k < 6000; k++) {
    const b = blocks[int(r, 0, blocks.length - 1)];
    const bad = mutate(r, b.c);
    for (const raw of rawSizes(r, b.raw)) {
      const want = outcome(() => lz4Decompress(bad, raw).length);
      assert.equal(outcome(() => lz4Validate(bad, raw)), want, `case ${k}: raw ${raw}`);
      const key = want.split(" ")[0];
      tally[key] = (tally[key] ?? 0) + 1;
    }
  }
  for (const code of ["ok", "LZ4_OFFSET_BEYOND_OUTPUT", "LZ4_SIZE_MISMATCH", "LZ4_TRUNCATED_LITERALS", "LZ4_MATCH_IN_LAST_LITERALS"]) {
    assert.ok((tally[code] ?? 0) > 10, `${code} exercised: ${JSON.stringify(tally)}`);
  }
});

test("decompressedSizeTcinfo and decompressTcinfo agree on seeded damaged payloads (va_tcinfo too)", () => {
  const r = rng(2024);
  const payloads: Uint8Array[] = [];
  for (const d of samples()) {
    if (d.length > 20_000) continue;
    for (const m of [0, 1] as const) {
      const p = compressDatum(d, m);
      if (p) payloads.push(p);
    }
  }
  assert.ok(payloads.length > 200);
  const tally: Record<string, number> = {};
  for (const p of payloads) assert.equal(decompressedSizeTcinfo(p), decompressTcinfo(p).length);
  for (let k = 0; k < 4000; k++) {
    const bad = mutate(r, payloads[int(r, 0, payloads.length - 1)]);
    if (r() < 0.3 && bad.length >= 4) bad[int(r, 0, 3)] ^= 1 << int(r, 0, 7);
    const want = outcome(() => decompressTcinfo(bad).length);
    assert.equal(outcome(() => decompressedSizeTcinfo(bad)), want, `case ${k}`);
    const key = want.split(" ")[0];
    tally[key] = (tally[key] ?? 0) + 1;
  }
  for (const code of ["ok", "TOAST_BAD_COMPRESSION_METHOD", "TOAST_COMPRESSED_TRUNCATED", "LZ4_SIZE_MISMATCH", "PGLZ_OFFSET_BEYOND_OUTPUT"]) {
    assert.ok((tally[code] ?? 0) > 0, `${code} exercised: ${JSON.stringify(tally)}`);
  }
});

/** checkDecompresses as it was, on the decoded bytes: the reference for its findings. */
function findingsViaDecoder(payload: Uint8Array, rawSize: number, what: string, sink: FindingSink): void {
  let raw: Uint8Array;
  try {
    raw = decompressTcinfo(payload);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    sink.add("TOAST_DECOMPRESS_FAILED", `${what} does not decompress: ${e.message}`, {}, `${e.code} at payload offset ${e.location.offset ?? "?"}${e.detail ? `; ${e.detail}` : ""}`);
    return;
  }
  if (raw.length !== rawSize) sink.add("TOAST_RAWSIZE_MISMATCH", `${what} decompresses to ${raw.length} bytes, but its header says ${rawSize}`, {});
}

test("checkDecompresses: the same findings as decoding the value", () => {
  const r = rng(77);
  const payloads = samples()
    .filter((d) => d.length <= 10_000)
    .flatMap((d) => [compressDatum(d, 0), compressDatum(d, 1)])
    .filter((p): p is Uint8Array => p !== null);
  const ours = new FindingSink(1e9);
  const ref = new FindingSink(1e9);
  let clean = 0;
  for (let k = 0; k < 3000; k++) {
    const p = payloads[int(r, 0, payloads.length - 1)];
    const bad = r() < 0.2 ? p : mutate(r, p);
    const w = bad.length >= 4 ? new DataView(bad.buffer, bad.byteOffset).getUint32(0, true) & 0x3fffffff : 0;
    const rawSize = r() < 0.8 ? w : w + int(r, -3, 3);
    const ok = checkDecompresses(bad, rawSize, `value ${k}`, {}, ours);
    const before = ref.list.length;
    findingsViaDecoder(bad, rawSize, `value ${k}`, ref);
    assert.equal(ok, ref.list.length === before, `case ${k}: verdict`);
    if (ok) clean++;
  }
  assert.deepEqual(ours.list, ref.list);
  assert.ok(clean > 300 && ours.list.length > 1000, `${clean} clean, ${ours.list.length} findings`);
});
