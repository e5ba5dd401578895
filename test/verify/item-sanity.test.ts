// unsafeHeapItems (the heapallindexed scans' screen of heap line pointers) against a plain
// reference on random pages: bounds, alignment, lengths, redirects, and overlapping items found
// by sorting the items by offset, whatever order the line pointers are in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { unsafeHeapItems } from "../../verify/heap/item-sanity.js";
import { LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { Rng } from "../../samples/prng.js";

/** The screen as a reader would write it without care for speed. */
function reference(words: number[], upper: number, special: number): number[] {
  const out = new Set<number>();
  const spans: number[] = [];
  words.forEach((w, k) => {
    const i = k + 1;
    const f = lpFlags(w);
    const len = lpLen(w);
    const off = lpOff(w);
    if (f === LP_REDIRECT) {
      if (off < 1 || off > words.length || len !== 0) out.add(i);
      return;
    }
    if (len === 0) {
      if (f === LP_NORMAL) out.add(i);
      return;
    }
    if (off % 8 !== 0 || off < upper || off + len > special || (f === LP_NORMAL && len < 24)) {
      out.add(i);
      return;
    }
    spans.push(i);
  });
  spans.sort((a, b) => lpOff(words[a - 1]) - lpOff(words[b - 1]) || a - b);
  for (let k = 1; k < spans.length; k++) {
    const a = words[spans[k - 1] - 1];
    if (lpOff(words[spans[k] - 1]) < lpOff(a) + lpLen(a)) out.add(spans[k]).add(spans[k - 1]);
  }
  return [...out].sort((a, b) => a - b);
}

test("unsafeHeapItems agrees with a plain reference on 3,000 random pages", () => {
  const rng = new Rng(20261201, "item-sanity");
  const pick = (n: number): number => Math.floor(rng.float() * n);
  const special = 8192;
  const out = new Set<number>();
  let overlapping = 0;
  for (let round = 0; round < 3000; round++) {
    const n = 1 + pick(300);
    const upper = 24 + 4 * n + pick(64) * 8;
    const words: number[] = [];
    // mostly well-formed tuples laid out downwards, shuffled now and then, with some damage
    let top = special;
    for (let i = 1; i <= n; i++) {
      const kind = pick(20);
      if (kind === 0) words.push(makeLp(0, LP_UNUSED, 0));
      else if (kind === 1) words.push(makeLp(1 + pick(n + 3), LP_REDIRECT, pick(8) === 0 ? 4 : 0));
      else if (kind === 2) words.push(makeLp(pick(2) ? top : 0, LP_DEAD, pick(3) ? 0 : 40));
      else {
        const len = pick(30) === 0 ? pick(24) : 24 + pick(200);
        const off = (top - len) & ~7;
        const damaged = pick(40) === 0 ? off + 1 + pick(300) : off;
        words.push(makeLp(Math.max(0, Math.min(32767, damaged)), LP_NORMAL, len));
        if (off > upper + 300) top = off;
      }
    }
    if (pick(2) === 0) {
      // HOT pruning and reuse leave the items out of offset order
      for (let k = words.length - 1; k > 0; k--) {
        const j = pick(k + 1);
        [words[k], words[j]] = [words[j], words[k]];
      }
    }
    const page = new Uint8Array(special);
    const dv = new DataView(page.buffer);
    words.forEach((w, k) => dv.setUint32(24 + 4 * k, w, true));
    unsafeHeapItems(dv, n, upper, special, out);
    const want = reference(words, upper, special);
    assert.deepEqual([...out].sort((a, b) => a - b), want, `round ${round}`);
    if (want.some((i) => lpFlags(words[i - 1]) === LP_NORMAL && lpLen(words[i - 1]) >= 24 && lpOff(words[i - 1]) % 8 === 0)) overlapping++;
  }
  assert.ok(overlapping > 100, `pages with overlapping items: ${overlapping}`);
});
