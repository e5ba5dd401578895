// A cheap per-page screen of heap line pointers for the scans that only need to know which items
// are safe to read (heapallindexed probes every page once per index): bounds, alignment and
// length in one pass; the overlap test sorts only when the items are not already laid out in
// descending offset order (the usual layout). The page checks report the problems; this only
// keeps the readers off them.
import { LP_NORMAL, LP_REDIRECT, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord } from "../../formats/page/page.js";

export function unsafeHeapItems(dv: DataView, maxoff: number, upper: number, special: number, out: Set<number>): void {
  out.clear();
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
  const spans: number[] = [];
  for (let i = 1; i <= maxoff; i++) {
    const w = itemIdWord(dv, i);
    if (out.has(i) || lpFlags(w) === LP_REDIRECT || lpLen(w) === 0) continue;
    spans.push(i);
  }
  spans.sort((a, b) => lpOff(itemIdWord(dv, a)) - lpOff(itemIdWord(dv, b)));
  for (let k = 1; k < spans.length; k++) {
    const a = itemIdWord(dv, spans[k - 1]);
    if (lpOff(itemIdWord(dv, spans[k])) < lpOff(a) + lpLen(a)) {
      out.add(spans[k]);
      out.add(spans[k - 1]);
    }
  }
}
