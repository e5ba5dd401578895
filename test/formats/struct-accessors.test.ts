// The accessors generated from each struct declaration: every getter reads what decode() reads,
// at any base offset, and a struct cut at any byte is refused by name. Model: pg-protocol's test
// that parses a stream split at every offset.
import { test } from "node:test";
import assert from "node:assert/strict";
import { registry, type AnyStruct, type FieldGetter } from "../../formats/schema/struct.js";
import "../../formats/all.js";
import { mulberry32 } from "../../samples/prng.js";

type Getters = Record<string, FieldGetter<unknown> | Record<string, unknown>>;

/** Every scalar and bit-word getter of `s` with the decoded value it must return. */
function pairs(s: AnyStruct, g: Getters, v: Record<string, unknown>, path: string, out: [string, FieldGetter<unknown>, unknown][]): void {
  for (const f of s.fields) {
    const got = g[f.name];
    if (f.kind === "nest") pairs(f.struct, got as Getters, v[f.name] as Record<string, unknown>, `${path}${f.name}.`, out);
    else if (f.kind === "bits") {
      // the word is its parts put back together, least significant first
      let w = 0;
      let shift = 0;
      for (const [part, width] of Object.entries(f.parts as Record<string, number>)) {
        w += (v[part] as number) * 2 ** shift;
        shift += width;
      }
      out.push([path + f.name, got as FieldGetter<unknown>, w]);
    } else out.push([path + f.name, got as FieldGetter<unknown>, v[f.name]]);
  }
}

test("every generated getter equals decode() at any base offset", () => {
  const rnd = mulberry32(16);
  let checked = 0;
  for (const s of registry.values()) {
    for (const base of [0, 1, 3, 8]) {
      const buf = new Uint8Array(base + s.size + 5);
      for (let i = 0; i < buf.length; i++) buf[i] = Math.floor(rnd() * 256);
      const v = s.decode(buf, base) as Record<string, unknown>;
      const list: [string, FieldGetter<unknown>, unknown][] = [];
      pairs(s, s.get as Getters, v, "", list);
      for (const [path, get, want] of list) {
        assert.deepEqual(get(buf, base), want, `${s.name}.${path} at base ${base}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 500, `${checked} getters checked`);
});

test("a struct cut at every byte is refused, naming the struct, the field cut off and the bytes needed", () => {
  let cuts = 0;
  for (const s of registry.values()) {
    const layout = s.layout();
    for (let avail = 0; avail < s.size; avail++) {
      const buf = new Uint8Array(2 + avail);
      const cut = layout.find((l) => l.offset + l.size > avail)!;
      assert.throws(
        () => s.decode(buf, 2),
        (e: Error & { code?: string; location?: { offset?: number; path?: string } }) =>
          e.code === "STRUCT_TRUNCATED" &&
          e.message.includes(`${s.name} needs ${s.size} bytes at offset 2, only ${avail} available`) &&
          e.message.includes(`${s.name}.${cut.path}, ${cut.size} bytes at offset ${2 + cut.offset}`) &&
          e.location?.path === `${s.name}.${cut.path}` &&
          e.location?.offset === 2,
        `${s.name} with ${avail} of ${s.size} bytes`,
      );
      cuts++;
    }
    assert.doesNotThrow(() => s.check(new Uint8Array(2 + s.size), 2));
  }
  assert.ok(cuts > 500, `${cuts} cuts`);
});
