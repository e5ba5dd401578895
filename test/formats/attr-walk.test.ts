// The one attribute walk (formats/heap/attr-spans.ts) and its checked layer walkAttributes
// (formats/heap/deform.ts): the same spans, and for an attribute that does not fit, the error
// that names it, its offset and why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AttrSpans } from "../../formats/heap/attr-spans.js";
import { walkAttributes } from "../../formats/heap/deform.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { Align, AttrDesc, TupleDesc } from "../../formats/heap/descriptor.js";

const att = (attnum: number, len: number, align: Align): AttrDesc => ({ attnum, name: `a${attnum}`, typid: 0, typmod: -1, len, byval: len > 0 && len <= 8, align, storage: len === -1 ? "x" : "p", dropped: false });
// int2, int4 (aligned), text (varlena), a cstring, int8 (aligned)
const desc: TupleDesc = { attrs: [att(1, 2, "s"), att(2, 4, "i"), att(3, -1, "i"), att(4, -2, "c"), att(5, 8, "d")] };

/** A tuple body: int2 7 at 0, pad, int4 at 4, 1-byte-header "abc" at 8, "xy\0" at 12, pad, int8 at 16. */
function body(): Uint8Array {
  const b = new Uint8Array(24);
  b[0] = 7;
  b[4] = 9;
  b.set([(4 << 1) | 1, 0x61, 0x62, 0x63], 8);
  b.set([0x78, 0x79, 0], 12);
  b[16] = 1;
  return b;
}

const codeOf = (f: () => unknown): { code: string; attnum?: number; offset?: number } => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof FormatError);
    return { code: e.code, attnum: e.location.attnum, offset: e.location.offset };
  }
  assert.fail("no error");
};

test("walkAttributes gives AttrSpans' spans, with the varlena and cstring facts", () => {
  const t = body();
  const { attrs, end } = walkAttributes(t, 0, undefined, 5, desc);
  assert.deepEqual(attrs.map((a) => [a.off, a.len]), [[0, 2], [4, 4], [8, 4], [12, 3], [16, 8]]);
  assert.equal(attrs[2]!.varlena?.kind, "1b");
  assert.equal(attrs[3]!.cstring, true);
  assert.equal(end, 24);
  const s = new AttrSpans(5);
  assert.equal(s.walk(t, 0, t.length, 0, t, -1, 5, 5, desc.attrs), -1);
  assert.deepEqual([...s.off], [0, 4, 8, 12, 16]);
  assert.deepEqual([...s.len], [2, 4, 4, 3, 8]);
});

test("NULLs by the bitmap, missing attributes beyond natts", () => {
  const t = body();
  const bits = new Uint8Array([0b01101]); // attributes 1, 3, 4 present, 2 NULL
  const b = new Uint8Array(16);
  b[0] = 7;
  b.set(t.subarray(8, 15), 4); // no int4: text at 4 (already aligned), cstring at 8
  const { attrs } = walkAttributes(b, 0, bits, 4, desc);
  assert.deepEqual(attrs.map((a) => [a.isnull, a.missing, a.off]), [[false, false, 0], [true, false, -1], [false, false, 4], [false, false, 8], [true, true, -1]]);
});

test("an attribute that does not fit is named with its offset and reason", () => {
  const t = body();
  assert.deepEqual(codeOf(() => walkAttributes(t.subarray(0, 20), 0, undefined, 5, desc)), { code: "HEAP_ATTR_OVERRUN", attnum: 5, offset: 16 });
  const long = body();
  long[8] = (40 << 1) | 1; // a 1-byte header of 40 bytes in a 24-byte tuple
  assert.deepEqual(codeOf(() => walkAttributes(long, 0, undefined, 5, desc)), { code: "VARLENA_TRUNCATED", attnum: 3, offset: 8 });
  const tag = body();
  tag.set([1, 99], 8); // an external varlena of an unknown vartag
  assert.deepEqual(codeOf(() => walkAttributes(tag, 0, undefined, 5, desc)), { code: "VARLENA_BAD_TAG", attnum: 3, offset: 8 });
  const cs = body().subarray(0, 14); // the cstring runs off the end
  assert.deepEqual(codeOf(() => walkAttributes(cs, 0, undefined, 4, desc)), { code: "HEAP_ATTR_OVERRUN", attnum: 4, offset: 12 });
  const odd: TupleDesc = { attrs: [att(1, 2, "s"), att(2, -3, "c")] };
  assert.deepEqual(codeOf(() => walkAttributes(body(), 0, undefined, 2, odd)), { code: "HEAP_BAD_ATTLEN", attnum: 2, offset: undefined });
  const s = new AttrSpans(2);
  assert.equal(s.walk(t, 0, t.length, 0, t, -1, 2, 2, odd.attrs), 1);
  assert.equal(s.end, 2);
});
