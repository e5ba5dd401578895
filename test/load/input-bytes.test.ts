// The loader's byte inputs (formats/datum/input-bytes.ts) give exactly the stored datum of the
// text input functions (formats/datum/input.ts, checked against the server in types.test.ts), or
// defer to them (null) where the text is not in the common form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bytesInputFor } from "../../formats/datum/input-bytes.js";
import { INPUT_FUNCTIONS } from "../../formats/datum/input-catalog.js";
import { varlenaStored } from "../../formats/heap/form.js";
import type { AttrDesc } from "../../formats/heap/descriptor.js";
import { Rng } from "../../samples/prng.js";

const attr = (typid: number, len: number, typmod = -1, storage = "x"): AttrDesc => ({ attnum: 1, name: "c", typid, typmod, len, byval: len > 0, align: "i", storage, dropped: false });

/** The text input's stored datum, or the error code it throws. */
function viaText(a: AttrDesc, text: string): string {
  try {
    const v = INPUT_FUNCTIONS.get(a.typid)!(text, { typmod: a.typmod, timeZoneOffsetSeconds: 0 });
    return Buffer.from(a.len === -1 ? varlenaStored(a, v) : v).toString("hex");
  } catch (e) {
    return `error ${(e as { code?: string }).code}`;
  }
}

function agree(a: AttrDesc, texts: string[]): number {
  const input = bytesInputFor(a)!;
  let fast = 0;
  for (const t of texts) {
    // the value sits inside a larger buffer, as fields sit in a row
    const src = Buffer.from(`x\t${t}\ty`, "latin1");
    const got = input(src, 2, 2 + t.length);
    if (got === null) continue; // deferred to the text input
    fast++;
    assert.equal(Buffer.from(got).toString("hex"), viaText(a, t), `${a.typid} ${JSON.stringify(t)}`);
  }
  return fast;
}

test("integers: every common form equals int2in/int4in/int8in, the rest defers", () => {
  const r = new Rng(7, "input-bytes");
  const edge = ["0", "-0", "+0", "7", "-7", "+7", "007", "-007", "32767", "-32768", "32768", "-32769", "2147483647", "-2147483648", "2147483648", "-2147483649", "999999999999999", "-999999999999999", "9007199254740991", "9223372036854775807", "-9223372036854775808", "", "-", "+", " 1", "1 ", "1e3", "0x10", "1.5", "--1", "٣"];
  for (const [typid, len, bits] of [[21, 2, 16], [23, 4, 32], [20, 8, 64]] as const) {
    const texts = [...edge];
    for (let i = 0; i < 2000; i++) {
      const mag = r.int(0, bits === 64 ? 15 : bits === 32 ? 10 : 5);
      texts.push(`${r.int(0, 2) ? "-" : ""}${String(r.int(0, 10 ** mag)).slice(0, Math.max(1, mag))}`);
    }
    const fast = agree(attr(typid, len), texts);
    assert.ok(fast > 1000, `${typid}: ${fast} values took the byte path`);
  }
  // what the byte path never takes: out of range, spaces, signs alone, over 15 digits
  const i4 = bytesInputFor(attr(23, 4))!;
  for (const t of ["2147483648", " 1", "-", "", "1234567890123456"]) assert.equal(i4(Buffer.from(t), 0, t.length), null, t);
});

test("text and varchar: the bytes behind the header varlenaAlloc makes, length limits deferred", () => {
  const texts = ["", "a", "label-1", "x".repeat(31), "x".repeat(32), "x".repeat(126), "x".repeat(127), "x".repeat(300), "with space ", "  ", "abc  "];
  for (const a of [attr(25, -1), attr(25, -1, -1, "p"), attr(1043, -1), attr(1043, -1, 4 + 5), attr(1043, -1, 4 + 200, "m")]) assert.equal(agree(a, texts) > 0, true);
  const v5 = bytesInputFor(attr(1043, -1, 4 + 5))!;
  assert.equal(v5(Buffer.from("abcdef"), 0, 6), null, "over the length: the text input decides (error, or trailing spaces cut)");
  assert.equal(bytesInputFor(attr(1700, -1)), null, "numeric has no byte input");
});
