// What every access-method structure checker of verify/am/ looks like: it is handed each page as
// the page checks (verify/page-check.ts) read it, in block order, with their verdict, and
// checks what spans pages (chains, maps) once all pages were seen. Checkers keep per-block facts
// in typed arrays and never allocate per tuple.
import type { Location } from "../../formats/schema/errors.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import type { FindingSink } from "../findings.js";
import type { PageVerdict } from "../page-check.js";
import { itemIdWord } from "../../formats/page/page.js";
import { LP_DEAD, LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { indexTupleSizeAt, SizeOfIndexTupleData } from "../../formats/nbtree/index-tuple.js";
import { grown } from "../../formats/schema/bytes.js";

export interface AmChecker {
  /** the entry in RelationReport.checks */
  readonly name: string;
  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void;
  /** cross-page checks, after the last page */
  finish(): void;
}

export interface AmCheckInput {
  fork: RelationFork;
  sink: FindingSink;
  /** the index's name, as amcheck names it in messages */
  relName: string;
  /** the table's block count (for heap TIDs), when the table's file can be read */
  heapBlocks: number | undefined;
}

/**
 * Each line pointer of an index page that holds a tuple (LP_NORMAL or LP_DEAD) and that the page
 * checks did not flag: its offset number, lp_off, lp_len, and the tuple's IndexTupleSize (-1
 * when lp_len is shorter than an IndexTuple header).
 */
export function eachIndexItem(page: Uint8Array, dv: DataView, v: PageVerdict, fn: (i: number, off: number, len: number, size: number) => void): void {
  for (let i = 1; i <= v.maxoff; i++) {
    if (v.badItems.has(i)) continue;
    const w = itemIdWord(dv, i);
    const f = lpFlags(w);
    if (f !== LP_NORMAL && f !== LP_DEAD) continue;
    const off = lpOff(w);
    const len = lpLen(w);
    fn(i, off, len, len < SizeOfIndexTupleData ? -1 : indexTupleSizeAt(page, off));
  }
}

/** The location of block `blk` (and an item) of the fork. */
export function blockLoc(fork: RelationFork, blk: number, item?: number): Location {
  return item === undefined ? { file: fork.fileOf(blk).path, block: blk } : { file: fork.fileOf(blk).path, block: blk, item };
}

/** A growable array of doubles (block * 65536 + offset keys, counts), without per-push allocation. */
export class NumList {
  a = new Float64Array(64);
  n = 0;
  push(v: number): void {
    this.a = grown(this.a, this.n + 1);
    this.a[this.n++] = v;
  }
  /** index of `v` in an ascending list, or -1 */
  find(v: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const x = this.a[mid]!;
      if (x === v) return mid;
      if (x < v) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
