// Every struct declaration: registered once, listed in formats/all.ts (so the generated docs
// cover it), documented in the current docs/format-structs.md, consistent offsets and sizes,
// and byte-exact encode(decode(bytes)) round trips over seeded random bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { registry, type AnyStruct } from "../../formats/schema/struct.js";
import "../../formats/all.js";
import { mulberry32 } from "../../samples/prng.js";
import { renderStructDocs } from "../../scripts/gen-format-docs.js";

const ROOT = join(import.meta.dirname, "..", "..");

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

test("every file that registers a struct is imported by formats/all.ts", () => {
  const all = readFileSync(join(ROOT, "formats/all.ts"), "utf8");
  const missing = tsFiles(join(ROOT, "formats"))
    .filter((f) => !f.endsWith("schema/struct.ts") && /\bregister\(\s*$|\bregister\(\s*defineStruct/m.test(readFileSync(f, "utf8")))
    .map((f) => "./" + relative(join(ROOT, "formats"), f).replace(/\.ts$/, ".js"))
    .filter((m) => !all.includes(`"${m}"`));
  assert.deepEqual(missing, []);
  assert.ok(registry.size >= 30, `${registry.size} structs registered`);
});

test("docs/format-structs.md is generated from the current declarations", () => {
  assert.equal(readFileSync(join(ROOT, "docs/format-structs.md"), "utf8"), renderStructDocs(), "run: npx tsx scripts/gen-format-docs.ts");
});

test("layouts tile each struct exactly (offsets, sizes, bit ranges)", () => {
  for (const s of registry.values()) {
    const l = s.layout();
    let end = 0;
    for (const f of l) {
      if (f.bits) {
        assert.ok(f.bits.shift + f.bits.width <= f.size * 8, `${s.name}.${f.path} bits`);
        if (f.bits.shift > 0) continue; // later parts of the same word
      }
      assert.equal(f.offset, end, `${s.name}.${f.path} starts where the previous field ends`);
      end = f.offset + f.size;
    }
    assert.equal(end, s.size, `${s.name}: fields cover ${s.size} bytes`);
  }
});

const seeded = mulberry32;

/** Random bytes a decoder takes back exactly: bool bytes 0/1, floats not NaN (NaN payloads are not kept). */
function randomValidBytes(s: AnyStruct, rnd: () => number): Uint8Array {
  const b = new Uint8Array(s.size);
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(rnd() * 256);
  const dv = new DataView(b.buffer);
  for (const f of s.layout()) {
    if (f.type === "bool") b[f.offset] = rnd() < 0.5 ? 0 : 1;
    if (f.type === "f64") dv.setFloat64(f.offset, (rnd() - 0.5) * 1e6, true);
    if (f.type === "f32") dv.setFloat32(f.offset, Math.fround((rnd() - 0.5) * 1e3), true);
  }
  return b;
}

test("encode(decode(bytes)) is byte-exact for every struct", () => {
  const rnd = seeded(42);
  let n = 0;
  for (const s of registry.values()) {
    for (let k = 0; k < 200; k++) {
      const bytes = randomValidBytes(s, rnd);
      const back = s.encode(s.decode(bytes));
      assert.deepEqual(Buffer.from(back), Buffer.from(bytes), `${s.name} round trip`);
      n++;
    }
  }
  assert.ok(n > 5000);
});

test("decoding too few bytes is a FormatError naming the struct", () => {
  for (const s of registry.values()) {
    assert.throws(() => s.decode(new Uint8Array(s.size - 1)), (e: Error & { code?: string }) => e.code === "STRUCT_TRUNCATED" && e.message.includes(s.name));
  }
});
