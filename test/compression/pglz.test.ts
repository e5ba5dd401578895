// pglz: round trips, precise errors on hand-made corrupt streams, and a seeded fuzz loop against a
// model of PostgreSQL 15's pglz_decompress return value (-1 or the bytes). Byte identity of the
// compressor with PostgreSQL is checked in pg-identity.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FormatError } from "../../formats/schema/errors.js";
import { PGLZ_STRATEGY_ALWAYS, PGLZ_STRATEGY_DEFAULT, compressDatum, decompressTcinfo, pglzCompress, pglzDecompress } from "../../formats/compression/index.js";
import { corpus, int, rng, type Rng } from "./corpus.js";

/**
 * What PostgreSQL 15's pglz_decompress returns (src/common/pg_lzcompress.c): -1 on corruption
 * (tag past the input end, offset 0, offset beyond the output start, or with check_complete
 * anything but exactly rawsize out and all input consumed), else the bytes. Out-of-range reads
 * in C give garbage that the sp > srcend test then rejects; here they read 0.
 */
function pgPglzDecompress(src: Uint8Array, rawsize: number, checkComplete: boolean): Uint8Array | -1 {
  const dst = new Uint8Array(rawsize);
  const srcend = src.length;
  let sp = 0;
  let dp = 0;
  while (sp < srcend && dp < rawsize) {
    let ctrl = src[sp++];
    for (let c = 0; c < 8 && sp < srcend && dp < rawsize; c++, ctrl >>= 1) {
      if (ctrl & 1) {
        const t1 = src[sp] ?? 0;
        const t2 = src[sp + 1] ?? 0;
        let len = (t1 & 0x0f) + 3;
        const off = ((t1 & 0xf0) << 4) | t2;
        sp += 2;
        if (len === 18) len += src[sp++] ?? 0;
        if (sp > srcend || off === 0 || off > dp) return -1;
        len = Math.min(len, rawsize - dp);
        for (let k = 0; k < len; k++, dp++) dst[dp] = dst[dp - off];
      } else dst[dp++] = src[sp++];
    }
  }
  if (checkComplete && (dp !== rawsize || sp !== srcend)) return -1;
  return dst.subarray(0, dp);
}

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof FormatError, `expected FormatError, got ${e}`);
    return `${e.code}@${e.location.offset}`;
  }
  return "ok";
}

const enc = new TextEncoder();
const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

test("pglz: round trip over the corpus, default and always strategies", () => {
  const samples = corpus({ maxSize: 100_000, seed: 7 });
  let compressed = 0;
  for (const s of samples) {
    for (const strategy of [PGLZ_STRATEGY_DEFAULT, PGLZ_STRATEGY_ALWAYS]) {
      const c = pglzCompress(s.data, strategy);
      if (c === null) continue;
      compressed++;
      assert.ok(c.length < s.data.length, `${s.name}: output smaller than input`);
      assert.equal(Buffer.compare(pglzDecompress(c, s.data.length), s.data), 0, `${s.name}: round trip`);
      const ref = pgPglzDecompress(c, s.data.length, true);
      assert.ok(ref !== -1 && Buffer.compare(ref, s.data) === 0, `${s.name}: the PostgreSQL model agrees`);
    }
  }
  assert.ok(compressed > 300, `compressed ${compressed} samples`);
});

test("pglz: strategy limits", () => {
  const a31 = enc.encode("a".repeat(31));
  assert.equal(pglzCompress(a31), null, "default strategy: inputs under 32 bytes are not compressed");
  const c = pglzCompress(a31, PGLZ_STRATEGY_ALWAYS);
  assert.ok(c && Buffer.compare(pglzDecompress(c, 31), a31) === 0, "always strategy compresses them");
  assert.equal(pglzCompress(new Uint8Array(0), PGLZ_STRATEGY_ALWAYS), null, "empty input never compresses");
  // first_success_by: 20 distinct bytes, then a run; giving up after 10 output bytes without a match
  const x = enc.encode("0123456789abcdefghij" + "a".repeat(200));
  assert.equal(pglzCompress(x, { ...PGLZ_STRATEGY_ALWAYS, first_success_by: 10 }), null);
  assert.ok(pglzCompress(x, { ...PGLZ_STRATEGY_ALWAYS, first_success_by: 30 }));
  // min_comp_rate: the result must be below slen * (100 - rate) / 100
  const y = pglzCompress(x, PGLZ_STRATEGY_ALWAYS)!;
  const rate = Math.floor(((x.length - y.length) * 100) / x.length);
  assert.ok(pglzCompress(x, { ...PGLZ_STRATEGY_ALWAYS, min_comp_rate: rate - 1 }));
  assert.equal(pglzCompress(x, { ...PGLZ_STRATEGY_ALWAYS, min_comp_rate: rate + 1 }), null);
  assert.equal(pglzCompress(x, { ...PGLZ_STRATEGY_ALWAYS, match_size_good: 0 }), null, "match_size_good <= 0 disables compression");
  assert.equal(compressDatum(enc.encode("x"), 0), null);
});

test("pglz: precise errors on hand-made corrupt streams", () => {
  // 02 61 0f 01 0d: literal 'a', then a 3-byte tag (len 18 + 13 = 31, offset 1): 32 x 'a'
  const a32 = bytes(0x02, 0x61, 0x0f, 0x01, 0x0d);
  assert.equal(Buffer.from(pglzDecompress(a32, 32)).toString(), "a".repeat(32));
  assert.equal(codeOf(() => pglzDecompress(bytes(0x02, 0x61, 0x00, 0x00), 4)), "PGLZ_OFFSET_ZERO@2");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x02, 0x61, 0x00, 0x02), 4)), "PGLZ_OFFSET_BEYOND_OUTPUT@2");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x02, 0x61, 0x0f, 0x01), 40)), "PGLZ_TRUNCATED_TAG@2", "third tag byte missing");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x02, 0x61, 0x01), 40)), "PGLZ_TRUNCATED_TAG@2", "second tag byte missing");
  assert.equal(codeOf(() => pglzDecompress(a32, 20)), "PGLZ_OUTPUT_OVERRUN@2");
  assert.equal(Buffer.from(pglzDecompress(a32, 20, false)).toString(), "a".repeat(20), "a slice cuts the tag short");
  assert.equal(codeOf(() => pglzDecompress(a32, 40)), "PGLZ_OUTPUT_SHORT@5");
  assert.equal(pglzDecompress(a32, 40, false).length, 32, "a slice past the end returns what exists");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x02, 0x61, 0x0f, 0x01, 0x0d, 0x00), 32)), "PGLZ_INPUT_NOT_CONSUMED@5");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x00, 0x61), 1000)), "PGLZ_RAWSIZE_TOO_LARGE@0");
  assert.equal(codeOf(() => pglzDecompress(bytes(0x00, 0x61), -1)), "PGLZ_BAD_RAWSIZE@0");
  // the same errors from the decoder's unchecked fast path (a whole group fits in input and output)
  const groups: number[] = [];
  for (let g = 0; g < 5; g++) groups.push(0x00, ...enc.encode("abcdefgh"));
  const fastBad = Uint8Array.from([...groups, 0x01, 0xff, 0xff, 0x00, ...new Array(72).fill(0x61)]);
  assert.equal(codeOf(() => pglzDecompress(fastBad, 2400)), "PGLZ_OFFSET_BEYOND_OUTPUT@46");
  fastBad.set([0x0f, 0x00], 46);
  assert.equal(codeOf(() => pglzDecompress(fastBad, 2400)), "PGLZ_OFFSET_ZERO@46");
  // payload level: offsets count from the start of the payload (va_tcinfo is 4 bytes)
  const payload = new Uint8Array(4 + 4);
  new DataView(payload.buffer).setUint32(0, 4, true);
  payload.set(bytes(0x02, 0x61, 0x00, 0x00), 4);
  assert.equal(codeOf(() => decompressTcinfo(payload)), "PGLZ_OFFSET_ZERO@6");
  new DataView(payload.buffer).setUint32(0, (2 << 30) | 4, true);
  assert.equal(codeOf(() => decompressTcinfo(payload)), "TOAST_BAD_COMPRESSION_METHOD@0");
  assert.equal(codeOf(() => decompressTcinfo(bytes(1, 2))), "TOAST_COMPRESSED_TRUNCATED@0");
});

function mutate(r: Rng, src: Uint8Array): Uint8Array {
  const m = int(r, 0, 5);
  const out = src.slice();
  if (out.length === 0) return Uint8Array.from([int(r, 0, 255)]);
  switch (m) {
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
      // a tag-like pair with a large offset (high nibble) somewhere
      const p = int(r, 0, Math.max(0, out.length - 2));
      out[p] = 0xf0 | int(r, 0, 15);
      out[p + 1] = int(r, 0, 255);
      return out;
    }
    default:
      out[int(r, 0, out.length - 1)] = 0xff; // a control byte of all tags
      return out;
  }
}

test("pglz: seeded fuzz of corrupt streams against PostgreSQL's decision", () => {
  const r = rng(20240601);
  const samples = corpus({ maxSize: 20_000, seed: 11 }).filter((s) => s.data.length <= 20_000);
  const streams = samples.map((s) => ({ s, c: pglzCompress(s.data, PGLZ_STRATEGY_ALWAYS) })).filter((x) => x.c !== null) as { s: (typeof samples)[0]; c: Uint8Array }[];
  const tally = { errors: 0, same: 0, overrunStricter: 0, sliceSame: 0 };
  for (let k = 0; k < 4000; k++) {
    const { s, c } = streams[int(r, 0, streams.length - 1)];
    const bad = mutate(r, c);
    let raw = s.data.length;
    if (r() < 0.2) raw = Math.max(0, raw + int(r, -20, 20));
    const ref = pgPglzDecompress(bad, raw, true);
    let ours: Uint8Array | FormatError;
    try {
      ours = pglzDecompress(bad, raw, true);
    } catch (e) {
      if (!(e instanceof FormatError)) throw new Error(`case ${k}: ${e}`);
      ours = e;
      const off = e.location.offset ?? -1;
      assert.ok(off >= 0 && off <= bad.length, `case ${k}: error offset ${off} within the input`);
    }
    if (ref === -1) {
      assert.ok(ours instanceof FormatError, `case ${k}: PostgreSQL rejects, we must too`);
      tally.errors++;
    } else if (ours instanceof FormatError) {
      // the one stricter rule: a final tag running past rawsize, which PostgreSQL truncates
      assert.equal(ours.code, "PGLZ_OUTPUT_OVERRUN", `case ${k}: we reject (${ours.code}) what PostgreSQL accepts`);
      assert.equal(Buffer.compare(pglzDecompress(bad, raw, false), ref), 0, `case ${k}: overrun`);
      tally.overrunStricter++;
    } else {
      assert.equal(Buffer.compare(ours, ref), 0, `case ${k}: same bytes as PostgreSQL`);
      tally.same++;
    }
    // slices (check_complete = false) must agree exactly
    const n = int(r, 0, raw + 10);
    const refSlice = pgPglzDecompress(bad, n, false);
    let slice: Uint8Array | null = null;
    try {
      slice = pglzDecompress(bad, n, false);
    } catch (e) {
      if (!(e instanceof FormatError)) throw new Error(`case ${k}: ${e}`);
    }
    if (refSlice === -1) assert.equal(slice, null, `case ${k}: slice of ${n}: PostgreSQL rejects`);
    else assert.ok(slice && Buffer.compare(slice, refSlice) === 0, `case ${k}: slice of ${n}: same bytes`);
    tally.sliceSame++;
  }
  assert.ok(tally.errors > 1000 && tally.same > 100, JSON.stringify(tally));
});

test("pglz: seeded fuzz through decompressTcinfo (va_tcinfo damaged too)", () => {
  const r = rng(99);
  const samples = corpus({ maxSize: 8192, seed: 5 }).filter((s) => s.data.length <= 8192);
  const payloads = samples.map((s) => compressDatum(s.data, 0)).filter((p): p is Uint8Array => p !== null);
  let errors = 0;
  for (let k = 0; k < 2000; k++) {
    const bad = mutate(r, payloads[int(r, 0, payloads.length - 1)]);
    if (r() < 0.3 && bad.length >= 4) bad[int(r, 0, 3)] ^= 1 << int(r, 0, 7);
    try {
      const out = decompressTcinfo(bad);
      const w = new DataView(bad.buffer, bad.byteOffset).getUint32(0, true);
      assert.equal(out.length, w & 0x3fffffff, `case ${k}: output has the raw size`);
      if (w >>> 30 === 0) {
        const ref = pgPglzDecompress(bad.subarray(4), w & 0x3fffffff, true);
        assert.ok(ref !== -1 && Buffer.compare(ref, out) === 0, `case ${k}: PostgreSQL gives the same`);
      }
    } catch (e) {
      if (!(e instanceof FormatError)) throw new Error(`case ${k}: ${e}`);
      errors++;
    }
  }
  assert.ok(errors > 1000, `${errors} errors`);
});
