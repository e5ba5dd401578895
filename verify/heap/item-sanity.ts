// A cheap per-page screen of heap line pointers for the scans that only need to know which items
// are safe to read (heapallindexed probes every page once per index): bounds, alignment and
// length in one pass; the overlap test sorts only when the items are not already laid out in
// descending offset order (the usual layout). The page checks report the problems; this only
// keeps the readers off them.
import { LP_NORMAL, LP_REDIRECT, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord } from "../../formats/page/page.js";

export function unsafeHeapItems(dv: DataView, maxoff: number, upper: number, special: number, out: Set<number>): void {
  if (out.size) out.clear(); // clear() allocates a new table even when empty
  let prev = special;
  let monotonic = true;
  for (let i = 1; i <= maxoff; i++) {
    const w = itemIdWord(dv, i);
    const f = lpFlags(w);
    const len = lpLen(w);
    if (f === LP_REDIRECT) {
      const t = lpOff(w);
      if (t < 1 || t > maxoff || len !== 0) out.add(i);
      continue;
    }
    if (len === 0) {
      if (f === LP_NORMAL) out.add(i);
      continue;
    }
    const off = lpOff(w);
    if (off & 7 || off < upper || off + len > special || (f === LP_NORMAL && len < 24)) {
      out.add(i);
      continue;
    }
    if (off + len > prev) monotonic = false;
    prev = off;
  }
  if (monotonic) return;
  // items by offset: offset * 4096 + item number in a reused typed array, sorted as numbers (no
  // array and comparator closure per page; pages after HOT pruning are rarely in order)
  if (maxoff >= ITEM_SPAN) return markAll(dv, maxoff, out);
  let n = 0;
  for (let i = 1; i <= maxoff; i++) {
    const w = itemIdWord(dv, i);
    if (out.has(i) || lpFlags(w) === LP_REDIRECT || lpLen(w) === 0) continue;
    byOffset[n++] = lpOff(w) * ITEM_SPAN + i;
  }
  const s = (byOffsetViews[n] ??= byOffset.subarray(0, n)).sort();
  for (let k = 1; k < n; k++) {
    const a = s[k - 1] % ITEM_SPAN;
    const b = s[k] % ITEM_SPAN;
    const wa = itemIdWord(dv, a);
    if (lpOff(itemIdWord(dv, b)) < lpOff(wa) + lpLen(wa)) {
      out.add(b);
      out.add(a);
    }
  }
}

/** item numbers below this fit beside an offset (< 2^15) in a 31-bit sort key (offset * 4096 + item) */
const ITEM_SPAN = 4096;
const byOffset = new Int32Array(ITEM_SPAN);
/** byOffset's first n entries, one view per n made once (no view allocated per page) */
const byOffsetViews: (Int32Array | null)[] = new Array<Int32Array | null>(ITEM_SPAN + 1).fill(null);

/** More items than any page of 32 kB can hold: nothing on it is read. */
function markAll(dv: DataView, maxoff: number, out: Set<number>): void {
  for (let i = 1; i <= maxoff; i++) if (lpLen(itemIdWord(dv, i)) !== 0) out.add(i);
}
