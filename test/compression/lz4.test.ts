// LZ4 blocks: our decoder against liblz4 1.9.4 (the library PostgreSQL links), through the
// python3/ctypes oracle: PostgreSQL-style blocks (LZ4_compress_default) of the corpus, lz4-napi's
// blocks (must decode in liblz4 too), and thousands of corrupt and synthetic blocks, where accept /
// reject, the bytes, and the reported error offset must all match liblz4.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FormatError } from "../../formats/schema/errors.js";
import {
  LZ4_NATIVE_THRESHOLD,
  compressDatum,
  decompressTcinfo,
  lz4Compress,
  lz4CompressBlock,
  lz4Decompress,
  lz4DecompressNative,
  lz4DecompressPortable,
  lz4DecompressSafe,
  lz4DecompressSafePartial,
  lz4ValidateBlock,
} from "../../formats/compression/index.js";
import { corpus, int, rng } from "./corpus.js";
import { synthBlock } from "./lz4-synth.js";
import { liblz4, type OracleReq, type OracleRes } from "./oracle.js";

const probe = liblz4([{ op: "version" }]);
const oracleMissing = typeof probe === "string" ? `liblz4 oracle unavailable: ${probe}` : null;

test("lz4: the liblz4 oracle is available (PostgreSQL's own lz4 library)", () => {
  assert.equal(oracleMissing, null);
});

/** Our result in liblz4's terms: bytes produced, or -(error offset) - 1. */
function ours(f: () => Uint8Array): { ret: number; out?: Uint8Array; code?: string } {
  try {
    const out = f();
    return { ret: out.length, out };
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    return { ret: -(e.location.offset ?? 0) - 1, code: e.code };
  }
}

function run(reqs: OracleReq[]): OracleRes[] {
  const res = liblz4(reqs);
  if (typeof res === "string") throw new Error(res);
  return res;
}

test("lz4: liblz4 (PostgreSQL's) blocks of the corpus decode exactly; slices too", () => {
  const samples = corpus({ seed: 21 });
  const blocks = run(samples.map((s) => ({ op: "compress", src: s.data })));
  const r = rng(5);
  const partialReqs: OracleReq[] = [];
  const targets: number[] = [];
  samples.forEach((s, i) => {
    const block = blocks[i].out;
    assert.ok(blocks[i].ret > 0, `${s.name}: liblz4 compressed`);
    assert.equal(Buffer.compare(lz4Decompress(block, s.data.length), s.data), 0, `${s.name}: lz4Decompress`);
    assert.equal(Buffer.compare(lz4DecompressPortable(block, s.data.length), s.data), 0, `${s.name}: portable`);
    assert.equal(Buffer.compare(lz4DecompressNative(block, s.data.length), s.data), 0, `${s.name}: native`);
    assert.equal(lz4ValidateBlock(block, s.data.length), s.data.length);
    const t = int(r, 0, s.data.length);
    targets.push(t);
    partialReqs.push({ op: "partial", src: block, target: t, capacity: t });
  });
  const partial = run(partialReqs);
  samples.forEach((s, i) => {
    const mine = lz4DecompressSafePartial(blocks[i].out, targets[i]);
    assert.equal(partial[i].ret, mine.length, `${s.name}: slice of ${targets[i]}: length`);
    assert.equal(Buffer.compare(partial[i].out, mine), 0, `${s.name}: slice of ${targets[i]}: bytes`);
    assert.equal(Buffer.compare(mine, s.data.subarray(0, targets[i])), 0, `${s.name}: slice is a prefix`);
  });
});

const napiSamples = corpus({ seed: 22 });
const napiBlocks = napiSamples.map((s) => lz4CompressBlock(s.data));

test("lz4: lz4-napi blocks decode in our decoder", () => {
  const samples = napiSamples;
  const blocks = napiBlocks;
  samples.forEach((s, i) => {
    assert.equal(Buffer.compare(lz4Decompress(blocks[i], s.data.length), s.data), 0, `${s.name}: our decoder`);
    const c = lz4Compress(s.data);
    if (c === null) assert.ok(blocks[i].length >= s.data.length, `${s.name}: null only when not smaller`);
    const d = compressDatum(s.data, 1);
    if (d) assert.equal(Buffer.compare(decompressTcinfo(d), s.data), 0, `${s.name}: compressDatum round trip`);
  });
});

test("lz4: lz4-napi blocks decode in liblz4 (what PostgreSQL would run)", () => {
  const samples = napiSamples;
  const blocks = napiBlocks;
  const res = run(samples.map((s, i) => ({ op: "safe", src: blocks[i], capacity: s.data.length })));
  samples.forEach((s, i) => {
    assert.equal(res[i].ret, s.data.length, `${s.name}: liblz4 LZ4_decompress_safe accepts the lz4-napi block`);
    assert.equal(Buffer.compare(res[i].out, s.data), 0, `${s.name}: liblz4 decodes the lz4-napi block`);
  });
});

interface Case {
  src: Uint8Array;
  cap: number;
  target?: number;
}

/** Ours vs liblz4 over a batch; returns tallies. */
function compareWithLiblz4(cases: Case[], label: string): Record<string, number> {
  const res = run(cases.map((c) => (c.target === undefined ? { op: "safe", src: c.src, capacity: c.cap } : { op: "partial", src: c.src, target: c.target, capacity: c.cap })));
  const tally: Record<string, number> = { accepted: 0, rejected: 0, offsetZero: 0 };
  cases.forEach((c, k) => {
    const mine = ours(() => (c.target === undefined ? lz4DecompressSafe(c.src, c.cap) : lz4DecompressSafePartial(c.src, c.target, c.cap)));
    const lib = res[k];
    const where = `${label} case ${k} (len ${c.src.length}, cap ${c.cap}, target ${c.target})`;
    if (mine.code === "LZ4_OFFSET_ZERO") {
      // our one extra rule: liblz4 must not have failed before reaching that match
      const at = -mine.ret - 1;
      assert.ok(lib.ret >= 0 || -lib.ret - 1 >= at, `${where}: liblz4 failed at ${-lib.ret - 1}, before our offset-0 error at ${at}`);
      tally.offsetZero++;
      return;
    }
    assert.equal(mine.ret, lib.ret, `${where}: liblz4 returns ${lib.ret}, we ${mine.ret} (${mine.code ?? "ok"})`);
    if (lib.ret >= 0) {
      assert.equal(Buffer.compare(mine.out as Uint8Array, lib.out), 0, `${where}: bytes`);
      tally.accepted++;
    } else tally.rejected++;
    if (c.target === undefined) {
      // the validator and the strict whole-value decoders agree with the full decode
      const v = ours(() => new Uint8Array(lz4ValidateBlock(c.src, c.cap)));
      assert.equal(v.ret, mine.ret, `${where}: validator`);
      if (lib.ret === c.cap) {
        const viaNative = lz4DecompressNative(c.src, c.cap);
        assert.equal(Buffer.compare(viaNative, lib.out), 0, `${where}: native path bytes`);
      } else if (lib.ret >= 0) {
        assert.equal(ours(() => lz4Decompress(c.src, c.cap)).code, "LZ4_SIZE_MISMATCH", `${where}: strict size`);
      }
    }
  });
  return tally;
}

test("lz4: seeded fuzz of corrupt PostgreSQL-style blocks against liblz4", (t) => {
  const samples = corpus({ maxSize: 20_000, seed: 23 }).filter((s) => s.data.length <= 20_000);
  const blocks = run(samples.map((s) => ({ op: "compress", src: s.data })));
  const r = rng(424242);
  const cases: Case[] = [];
  for (let k = 0; k < 4000; k++) {
    const i = int(r, 0, samples.length - 1);
    const blk = blocks[i].out;
    const raw = samples[i].data.length;
    let src = blk.slice();
    switch (int(r, 0, 5)) {
      case 0:
        src[int(r, 0, src.length - 1)] ^= 1 << int(r, 0, 7);
        break;
      case 1:
        for (let j = int(r, 1, 4); j > 0; j--) src[int(r, 0, src.length - 1)] = int(r, 0, 255);
        break;
      case 2:
        src = blk.slice(0, int(r, 0, blk.length - 1)); // truncated
        break;
      case 3: {
        src = new Uint8Array(blk.length + int(r, 1, 20)); // trailing garbage
        src.set(blk);
        for (let j = blk.length; j < src.length; j++) src[j] = int(r, 0, 255);
        break;
      }
      case 4: {
        const p = int(r, 0, src.length - 2); // a large offset / length run
        src[p] = 0xff;
        src[p + 1] = int(r, 0, 255);
        break;
      }
      default:
        src[int(r, 0, src.length - 1)] = [0x00, 0x0f, 0xf0, 0xff, 0x10, 0x1f][int(r, 0, 5)];
    }
    const cap = r() < 0.3 ? Math.max(0, raw + int(r, -70, 70)) : raw;
    cases.push({ src, cap, target: r() < 0.4 ? int(r, 0, raw + 10) : undefined });
  }
  const tally = compareWithLiblz4(cases, "mutation");
  t.diagnostic(JSON.stringify(tally));
  assert.ok(tally.rejected > 500 && tally.accepted > 500, JSON.stringify(tally));
});

test("lz4: synthetic blocks (every block-end rule) against liblz4", (t) => {
  const r = rng(777);
  const cases: Case[] = [];
  for (let k = 0; k < 6000; k++) {
    const { src, size } = synthBlock(r);
    const cap = r() < 0.6 ? size : Math.max(0, size + int(r, -40, 40));
    cases.push({ src, cap, target: r() < 0.3 ? int(r, 0, size + 5) : undefined });
  }
  const tally = compareWithLiblz4(cases, "synthetic");
  t.diagnostic(JSON.stringify(tally));
  assert.ok(tally.rejected > 1000 && tally.accepted > 1000 && tally.offsetZero > 100, JSON.stringify(tally));
});

test("lz4: errors are FormatErrors with codes (no oracle needed)", () => {
  const text = new TextEncoder().encode("hello hello hello hello hello hello hello hello hello world".repeat(40));
  const block = lz4CompressBlock(text);
  assert.equal(ours(() => lz4Decompress(block, text.length + 1)).code, "LZ4_SIZE_MISMATCH");
  assert.equal(ours(() => lz4Decompress(block.subarray(0, block.length - 1), text.length)).code, "LZ4_TRUNCATED_LITERALS");
  assert.equal(ours(() => lz4DecompressSafe(new Uint8Array(0), 10)).code, "LZ4_EMPTY_INPUT");
  assert.equal(ours(() => lz4DecompressSafe(Uint8Array.of(0x00), 0)).ret, 0);
  assert.equal(ours(() => lz4DecompressSafe(Uint8Array.of(0x10, 0x41), 0)).code, "LZ4_ZERO_OUTPUT");
  // token 0x04: no literals, match of 8 at offset 1 with nothing produced yet
  assert.equal(ours(() => lz4DecompressSafe(Uint8Array.of(0x04, 0x01, 0x00, 0x50, 1, 2, 3, 4, 5), 13)).code, "LZ4_OFFSET_BEYOND_OUTPUT");
  // one literal, then a match with offset 0
  assert.equal(ours(() => lz4DecompressSafe(Uint8Array.of(0x14, 0x41, 0x00, 0x00, 0x50, 1, 2, 3, 4, 5), 14)).code, "LZ4_OFFSET_ZERO");
  assert.equal(ours(() => lz4DecompressSafe(Uint8Array.of(0xf0, 0xff, 0xff), 1000)).code, "LZ4_TRUNCATED_LENGTH");
  // payload offsets count from the start of the payload (4 bytes of va_tcinfo first)
  const payload = compressDatum(text, 1)!;
  const cut = payload.subarray(0, payload.length - 3);
  const e = ours(() => decompressTcinfo(cut));
  assert.equal(e.code, "LZ4_TRUNCATED_LITERALS");
  assert.ok(-e.ret - 1 >= 4 && -e.ret - 1 <= cut.length);
  assert.ok(LZ4_NATIVE_THRESHOLD > 0);
});
