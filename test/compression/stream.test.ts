// Streaming decoders: for random chunkings (1-byte, 1-3 bytes, TOAST's 1996, random up to 5000)
// the output equals the one-shot decoders', slices stop as soon as their bytes exist, and corrupt
// input gives the same FormatError (code and offset) as the one-shot decoders.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FormatError } from "../../formats/schema/errors.js";
import {
  Lz4Stream,
  PGLZ_STRATEGY_ALWAYS,
  PayloadStream,
  PglzStream,
  compressDatum,
  decompressTcinfo,
  lz4CompressBlock,
  lz4Decompress,
  lz4DecompressSafePartial,
  pglzCompress,
  pglzDecompress,
  type DecompressStream,
} from "../../formats/compression/index.js";
import { corpus, int, rng, type Rng } from "./corpus.js";
import { synthBlock } from "./lz4-synth.js";

type Method = "pglz" | "lz4";

function chunkSizes(r: Rng, total: number): () => number {
  const mode = int(r, 0, 3);
  if (mode === 0 && total <= 20_000) return () => 1;
  if (mode === 1) return () => int(r, 1, 3);
  if (mode === 2) return () => 1996;
  return () => int(r, 1, 5000);
}

function makeStream(method: Method, rawSize: number, srcSize: number | undefined, stopAfter?: number, output?: Uint8Array): DecompressStream {
  return method === "pglz" ? new PglzStream({ rawSize, srcSize, stopAfter, output }) : new Lz4Stream({ rawSize, srcSize: srcSize as number, stopAfter, output });
}

/** Push src in chunks until done (or all pushed); returns the output and how much was pushed. */
function feed(s: DecompressStream, src: Uint8Array, next: () => number): { out: Uint8Array; pushed: number; concat: Uint8Array } {
  const parts: Uint8Array[] = [];
  let p = 0;
  while (p < src.length && !s.done) {
    const n = next();
    parts.push(s.push(src.subarray(p, p + n)).slice());
    p = Math.min(src.length, p + n);
  }
  const out = s.finish();
  return { out, pushed: p, concat: Buffer.concat(parts) };
}

function result(f: () => Uint8Array): string {
  try {
    const out = f();
    return `ok:${out.length}:${Buffer.from(out).toString("base64").slice(0, 64)}:${Buffer.from(out).toString("base64").slice(-64)}`;
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    return `${e.code}@${e.location.offset}`;
  }
}

const samples = corpus({ maxSize: 300_000, seed: 31 });
const encoded = samples.flatMap((s) => {
  const out: { name: string; method: Method; raw: Uint8Array; src: Uint8Array }[] = [];
  const pz = pglzCompress(s.data, PGLZ_STRATEGY_ALWAYS);
  if (pz) out.push({ name: s.name, method: "pglz", raw: s.data, src: pz });
  out.push({ name: s.name, method: "lz4", raw: s.data, src: lz4CompressBlock(s.data) });
  return out;
});

test("stream: whole values equal one-shot decoding for random chunkings", () => {
  const r = rng(1);
  for (const e of encoded) {
    const s = makeStream(e.method, e.raw.length, r() < 0.5 || e.method === "lz4" ? e.src.length : undefined);
    const { out, concat } = feed(s, e.src, chunkSizes(r, e.src.length));
    assert.equal(Buffer.compare(out, e.raw), 0, `${e.method} ${e.name}: output`);
    assert.equal(Buffer.compare(concat, e.raw), 0, `${e.method} ${e.name}: push() results concatenated`);
    assert.equal(s.consumed, e.src.length);
  }
});

test("stream: slices stop as soon as their bytes exist", () => {
  const r = rng(2);
  let stoppedEarly = 0;
  let couldStopEarly = 0;
  for (const e of encoded) {
    const n = r() < 0.3 ? int(r, 0, 64) : int(r, 0, e.raw.length);
    const one = e.method === "pglz" ? pglzDecompress(e.src, n, false) : lz4DecompressSafePartial(e.src, n);
    const chunk = 1996;
    const s = makeStream(e.method, e.raw.length, e.src.length, n);
    const parts: Uint8Array[] = [];
    let p = 0;
    while (p < e.src.length && !s.done) {
      parts.push(s.push(e.src.subarray(p, p + chunk)).slice());
      p += chunk;
      // done exactly when the slice's bytes exist (or the block ended)
      if (s.produced >= Math.min(n, e.raw.length)) assert.ok(s.done, `${e.method} ${e.name}: done once ${n} bytes exist`);
    }
    const out = s.finish();
    assert.equal(Buffer.compare(out, one), 0, `${e.method} ${e.name}: slice of ${n} equals the one-shot slice`);
    assert.equal(Buffer.compare(out, e.raw.subarray(0, n)), 0, `${e.method} ${e.name}: slice is the prefix`);
    assert.equal(Buffer.compare(Buffer.concat(parts), out), 0);
    // a short slice of a many-chunk value should not need the last chunks
    if (e.src.length > 4 * chunk && n < e.raw.length / 2) {
      couldStopEarly++;
      if (p < e.src.length) stoppedEarly++;
    }
  }
  assert.ok(couldStopEarly > 20 && stoppedEarly >= 0.9 * couldStopEarly, `${stoppedEarly} of ${couldStopEarly} short slices of long values stopped before the last chunk`);
});

test("stream: PayloadStream over TOAST-sized and tiny chunks (va_tcinfo may straddle)", () => {
  const r = rng(3);
  for (const s of samples) {
    for (const method of [0, 1] as const) {
      const payload = compressDatum(s.data, method);
      if (!payload) continue;
      for (const size of [1996, int(r, 1, 3)]) {
        const ps: PayloadStream = new PayloadStream({ payloadSize: payload.length });
        for (let o = 0; o < payload.length; o += size) ps.push(payload.subarray(o, o + size));
        assert.equal(Buffer.compare(ps.finish(), s.data), 0, `${s.name} method ${method} chunk ${size}`);
        assert.deepEqual(ps.tcinfo, { rawSize: s.data.length, method });
      }
      const n = int(r, 0, s.data.length);
      const out = new Uint8Array(n + 10);
      const sliced: PayloadStream = new PayloadStream({ payloadSize: payload.length, stopAfter: n, output: out });
      for (let o = 0; o < payload.length && !sliced.done; o += 1996) sliced.push(payload.subarray(o, o + 1996));
      const got = sliced.finish();
      assert.equal(got.buffer, out.buffer, "wrote into the caller's buffer");
      assert.equal(Buffer.compare(got, decompressTcinfo(payload, n)), 0, `${s.name} method ${method}: slice ${n}`);
    }
  }
});

test("stream: corrupt input gives the one-shot decoders' errors", () => {
  const r = rng(4);
  const small = encoded.filter((e) => e.src.length <= 20_000);
  const tally = { same: 0, errors: 0, sliceEarly: 0 };
  for (let k = 0; k < 3000; k++) {
    let method: Method;
    let src: Uint8Array;
    let raw: number;
    if (k % 3 === 2) {
      const b = synthBlock(r);
      method = "lz4";
      src = b.src;
      raw = r() < 0.7 ? b.size : Math.max(0, b.size + int(r, -20, 20));
    } else {
      const e = small[int(r, 0, small.length - 1)];
      method = e.method;
      raw = e.raw.length;
      src = e.src.slice();
      switch (int(r, 0, 3)) {
        case 0:
          src[int(r, 0, src.length - 1)] ^= 1 << int(r, 0, 7);
          break;
        case 1:
          src = src.subarray(0, int(r, 0, src.length - 1));
          break;
        case 2:
          for (let j = int(r, 1, 4); j > 0; j--) src[int(r, 0, src.length - 1)] = int(r, 0, 255);
          break;
        default:
          raw = Math.max(0, raw + int(r, -30, 30));
      }
    }
    const where = `case ${k} ${method} (len ${src.length}, raw ${raw})`;
    // whole value
    let one = result(() => (method === "pglz" ? pglzDecompress(src, raw, true) : lz4Decompress(src, raw)));
    const declared = method === "lz4" || r() < 0.5 ? src.length : undefined;
    const streamed = result(() => feed(makeStream(method, raw, declared), src, chunkSizes(r, src.length)).out);
    // without srcSize a pglz stream cannot tell up front that rawSize is out of reach; it finds out at the end
    if (one === "PGLZ_RAWSIZE_TOO_LARGE@0" && declared === undefined) one = `PGLZ_OUTPUT_SHORT@${src.length}`;
    assert.equal(streamed, one, `${where}: whole value`);
    if (one.startsWith("ok")) tally.same++;
    else tally.errors++;
    // slice
    const n = int(r, 0, raw);
    // a slice reaching the raw size is a whole-value decode (as in PostgreSQL's detoast)
    const oneSlice = result(() =>
      n >= raw ? (method === "pglz" ? pglzDecompress(src, raw, true) : lz4Decompress(src, raw)) : method === "pglz" ? pglzDecompress(src, n, false) : lz4DecompressSafePartial(src, n),
    );
    const sliceStreamed = result(() => feed(makeStream(method, raw, src.length, n), src, chunkSizes(r, src.length)).out);
    if (sliceStreamed !== oneSlice) {
      // a slice stream stops once n bytes exist; liblz4's partial decode may still fail after that
      assert.ok(method === "lz4" && !oneSlice.startsWith("ok") && sliceStreamed.startsWith(`ok:${n}:`), `${where}: slice of ${n}: ${sliceStreamed} vs ${oneSlice}`);
      tally.sliceEarly++;
    }
  }
  assert.ok(tally.errors > 500 && tally.same > 500, JSON.stringify(tally));
});

test("stream: misuse is reported", () => {
  const raw = new TextEncoder().encode("abcabcabcabcabcabcabcabcabcabcabcabc".repeat(20));
  const block = lz4CompressBlock(raw);
  const code = (f: () => unknown): string => {
    try {
      f();
      return "ok";
    } catch (e) {
      assert.ok(e instanceof FormatError);
      return e.code;
    }
  };
  assert.equal(code(() => new Lz4Stream({ rawSize: raw.length })), "STREAM_BAD_SIZE");
  assert.equal(code(() => new Lz4Stream({ rawSize: raw.length, srcSize: block.length }).push(new Uint8Array(block.length + 1))), "STREAM_TOO_MUCH_INPUT");
  assert.equal(code(() => { const s = new Lz4Stream({ rawSize: raw.length, srcSize: block.length }); s.push(block.subarray(0, 5)); s.finish(); }), "LZ4_STREAM_INCOMPLETE");
  assert.equal(code(() => new PglzStream({ rawSize: 10, output: new Uint8Array(5) })), "STREAM_BAD_SIZE");
  assert.equal(code(() => new PayloadStream({ payloadSize: 3 })), "TOAST_COMPRESSED_TRUNCATED");
  assert.equal(code(() => { const s = new PayloadStream({ payloadSize: 10 }); s.push(Uint8Array.of(1, 2)); s.finish(); }), "TOAST_COMPRESSED_TRUNCATED");
});
