// Page-level checks common to every relation: all-zero pages are accepted (PageIsVerified),
// the checksum with the relation-wide block number, the header (formats/page/sanity.ts) and the
// line pointers (sanity.ts, worded as amcheck words the same check for heap and btree pages)
// of every page that has them: heap, btree, and the item pages of hash, GiST, GIN, SP-GiST and
// BRIN indexes (formats/am/line-pointers.ts says which pages and which states each AM uses).
// Returns which items the access-method checks may trust.
import type { Location, Severity } from "../formats/schema/errors.js";
import { checkLinePointers, checkPageHeader } from "../formats/page/sanity.js";
import { pgChecksumPage, storedPageChecksum } from "../formats/page/checksum.js";
import { LP_DEAD, LP_FLAG_NAMES, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff } from "../formats/page/item-id.js";
import { itemIdOffset, itemIdWord, maxOffsetNumber, pageIsAllZero, pageIsNew, pdFlags, pdLower, pdPagesizeVersion, pdSpecial, pdUpper } from "../formats/page/page.js";
import { PD_VALID_FLAG_BITS, PG_PAGE_LAYOUT_VERSION, SizeOfPageHeaderData } from "../formats/page/page-header.js";
import type { FindingSink } from "./findings.js";
import { BTO, BTP_DELETED, BTP_META } from "../formats/nbtree/opaque.js";
import { detectPageKind } from "../formats/am/detect.js";
import { amUsesLinePointer, ITEM_PAGE_KINDS, type IndexAmWithItems } from "../formats/am/line-pointers.js";

/** heap, btree, another index AM whose item pages get the line pointer checks, or "other" (header and checksum only). */
export type PageAm = "heap" | IndexAmWithItems | "other";


export interface PageCheckOptions {
  am: PageAm;
  blockSize: number;
  /** verify pd_checksum (the cluster has data checksums) */
  checksums: boolean;
  /** severity of a checksum mismatch (a warning when the cluster was not shut down cleanly) */
  checksumSeverity?: Severity;
  /** relation name for amcheck-worded index messages */
  relName: string;
  /** the page holds no line pointers (a metapage, or an access method that uses pd_lower otherwise) */
  noItems?: boolean;
}

export interface PageVerdict {
  /** an all-zero (or pd_upper = 0) page: nothing more to check */
  isNew: boolean;
  /** header sane and special space of the expected size: items may be read */
  usable: boolean;
  /** item numbers whose line pointer is broken (do not read them) */
  badItems: Set<number>;
  maxoff: number;
}

const HEAP_MIN_TUPLE = 24; // MAXALIGN(SizeofHeapTupleHeader)
const BT_SPECIAL = 16;
const NO_ITEMS: Set<number> = new Set();

export function checkPage(page: Uint8Array, dv: DataView, blkno: number, file: string, sink: FindingSink, o: PageCheckOptions): PageVerdict {
  const loc: Location = { file, block: blkno };
  if (pageIsNew(dv)) {
    if (pageIsAllZero(page)) return { isNew: true, usable: false, badItems: NO_ITEMS, maxoff: 0 };
    sink.add("PAGE_NEW_NOT_ZERO", `invalid page in block ${blkno}: pd_upper is 0 but the page is not all zeros`, { ...loc, offset: 14, path: "pd_upper" });
    return { isNew: true, usable: false, badItems: NO_ITEMS, maxoff: 0 };
  }
  if (o.checksums && page.length === 8192) {
    const want = pgChecksumPage(page, blkno);
    const have = storedPageChecksum(page);
    if (want !== have) {
      sink.add(
        "PAGE_CHECKSUM_MISMATCH",
        `checksum verification failed in file "${file}", block ${blkno}: calculated checksum ${want.toString(16).toUpperCase()} but block contains ${have.toString(16).toUpperCase()}`,
        { ...loc, offset: 8, path: "pd_checksum" },
        undefined,
        o.checksumSeverity,
      );
    }
  }
  // sanity.ts's header checks, called only when a field is off (the common page passes them all)
  if (!headerPlain(dv, o.blockSize)) {
    const header = checkPageHeader(dv, o.blockSize, loc);
    for (const f of header) sink.add(f.code, f.message, f.location, f.detail);
    if (header.some((f) => f.severity === "error")) return { isNew: false, usable: false, badItems: NO_ITEMS, maxoff: 0 };
  }
  // Pages without a line pointer array (GIN data pages, hash and BRIN metapages ...) use
  // pd_lower for other things: only the header and checksum apply to them.
  if (o.am === "other" || o.noItems) return { isNew: false, usable: true, badItems: NO_ITEMS, maxoff: 0 };
  if (o.am !== "heap" && o.am !== "btree") {
    const kind = detectPageKind(page, o.am);
    if (kind.kind === "invalid") {
      sink.add("PAGE_SPECIAL_SIZE", `${o.am} index "${o.relName}" has a page at block ${blkno} with ${kind.specialSize} bytes of special space`, { ...loc, offset: 16, path: "pd_special" }, kind.problem);
      return { isNew: false, usable: false, badItems: NO_ITEMS, maxoff: 0 };
    }
    if (!ITEM_PAGE_KINDS[o.am].includes(kind.kind)) return { isNew: false, usable: true, badItems: NO_ITEMS, maxoff: 0 };
  }
  const special = pdSpecial(dv);
  const specialSize = o.blockSize - special;
  const wantSpecial = o.am === "heap" ? 0 : BT_SPECIAL;
  if ((o.am === "heap" || o.am === "btree") && specialSize !== wantSpecial) {
    sink.add(
      "PAGE_SPECIAL_SIZE",
      o.am === "btree" ? `index "${o.relName}" contains corrupted page at block ${blkno}` : `heap page has a special space of ${specialSize} bytes (pd_special ${special}), expected none`,
      { ...loc, offset: 16, path: "pd_special" },
      `Expected special size ${wantSpecial}, got ${specialSize}.`,
    );
    return { isNew: false, usable: false, badItems: NO_ITEMS, maxoff: 0 };
  }
  // a deleted B-tree page holds BTDeletedPageData after its header, not line pointers
  if (o.am === "btree" && dv.getUint16(special + BTO.btpo_flags, true) & (BTP_DELETED | BTP_META)) return { isNew: false, usable: true, badItems: NO_ITEMS, maxoff: 0 };
  const maxoff = maxOffsetNumber(dv);
  // created only for a page with broken items (most pages have none: no Set per page)
  let bad: Set<number> | null = null;
  let skip: Set<number> | null = null;
  if (o.am === "btree") {
    // nbtree never uses LP_UNUSED or LP_REDIRECT, and even LP_DEAD items keep their storage
    for (let i = 1; i <= maxoff; i++) {
      const w = itemIdWord(dv, i);
      const fl = lpFlags(w);
      // the length is read and tested for every item: a first LP_DEAD item must not reach code
      // V8 has no feedback for (a deoptimisation of the page checks)
      const empty = lpLen(w) === 0;
      if (fl === LP_UNUSED || fl === LP_REDIRECT || (fl === LP_DEAD && empty)) {
        sink.add("BT_LP_INVALID_STORAGE", `invalid line pointer storage in index "${o.relName}"`, { ...loc, item: i, offset: itemIdOffset(i), path: `linp[${i}]` }, lpDetail(blkno, i, w));
        (bad ??= new Set()).add(i);
        (skip ??= new Set()).add(i);
      }
    }
  } else if (o.am !== "heap") {
    // a state the access method never leaves (LP_NORMAL without storage is the checker's)
    for (let i = 1; i <= maxoff; i++) {
      const w = itemIdWord(dv, i);
      const fl = lpFlags(w);
      if (fl === LP_NORMAL || amUsesLinePointer(o.am, fl, lpLen(w))) continue;
      sink.add("IDX_LP_INVALID_STATE", `line pointer ${i} of ${o.am} index "${o.relName}" is LP_${LP_FLAG_NAMES[fl]} with lp_len ${lpLen(w)}, a state ${o.am} never leaves`, { ...loc, item: i, offset: itemIdOffset(i), path: `linp[${i}]` }, lpDetail(blkno, i, w));
      (bad ??= new Set()).add(i);
    }
  }
  const lps = linePointersPlain(dv, maxoff, o.am === "heap" ? HEAP_MIN_TUPLE : 0) ? NO_FINDINGS : checkLinePointers(dv, loc, o.am === "heap" ? { minItemLen: HEAP_MIN_TUPLE } : {});
  for (const f of lps) {
    const item = f.location.item;
    if (item !== undefined && skip?.has(item)) continue;
    const w = item !== undefined ? itemIdWord(dv, item) : 0;
    sink.add(f.code, reword(f.code, f.message, w, o, maxoff, blkno), f.location, o.am === "btree" && item !== undefined ? lpDetail(blkno, item, w) : f.detail);
    if (f.severity === "error" && item !== undefined) (bad ??= new Set()).add(item);
    // an overlap leaves both items in doubt (sanity.ts names the other one in its message)
    if (f.code === "LP_OVERLAP") (bad ??= new Set()).add(Number(/overlaps item (\d+)/.exec(f.message)?.[1] ?? 0));
  }
  return { isNew: false, usable: true, badItems: bad ?? NO_ITEMS, maxoff };
}

const NO_FINDINGS: ReturnType<typeof checkLinePointers> = [];
// (off << 16 | end) of each item with storage, for the overlap test (reused; a page has < 2048 items)
const spans = new Int32Array(2048);
/** spans' first n entries, one view per n made once (sorting a fresh view per page was an allocation per page) */
const spanViews: (Int32Array | null)[] = new Array<Int32Array | null>(2049).fill(null);

/**
 * Every condition checkLinePointers tests, without building findings: true means it would find
 * nothing (the common page), so only pages with a problem pay for its messages.
 */
function linePointersPlain(dv: DataView, n: number, minItemLen: number): boolean {
  const lower = pdLower(dv);
  if (lower > SizeOfPageHeaderData && (lower - SizeOfPageHeaderData) % 4 !== 0) return false;
  if (n > spans.length) return false;
  const upper = pdUpper(dv);
  const special = pdSpecial(dv);
  let ns = 0;
  let prevOff = 1 << 30;
  let descending = true;
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const off = lpOff(w);
    const flags = lpFlags(w);
    const len = lpLen(w);
    if (flags === LP_UNUSED) {
      if (off !== 0 || len !== 0) return false;
      continue;
    }
    if (flags === LP_REDIRECT) {
      if (len !== 0 || off < 1 || off > n) return false;
      continue;
    }
    if (len === 0) {
      if (flags === LP_DEAD) continue;
      return false;
    }
    if (off & 7 || off < upper || off + len > special) return false;
    if (flags === LP_NORMAL && len < minItemLen) return false;
    if (off > prevOff) descending = false;
    prevOff = off;
    spans[ns++] = (off << 16) | (off + len);
  }
  if (ns < 2) return true;
  const s = (spanViews[ns] ??= spans.subarray(0, ns));
  if (descending) {
    // each item ends at or before the start of the one above it
    for (let k = 1; k < ns; k++) if ((s[k] & 0xffff) > s[k - 1] >>> 16) return false;
    return true;
  }
  s.sort();
  for (let k = 1; k < ns; k++) if ((s[k - 1] & 0xffff) > s[k] >>> 16) return false;
  return true;
}

/** Every condition checkPageHeader tests, at once: true means it would find nothing. */
function headerPlain(dv: DataView, pageSize: number): boolean {
  const lower = pdLower(dv);
  const upper = pdUpper(dv);
  const special = pdSpecial(dv);
  const psv = pdPagesizeVersion(dv);
  return (
    (pdFlags(dv) & ~PD_VALID_FLAG_BITS) === 0 &&
    (psv & 0xff) === PG_PAGE_LAYOUT_VERSION &&
    (psv & 0xff00) === (pageSize & 0xff00) &&
    lower >= SizeOfPageHeaderData &&
    lower <= upper &&
    upper <= special &&
    special <= pageSize &&
    (special & 7) === 0 &&
    (lower - SizeOfPageHeaderData) % 4 === 0
  );
}

function lpDetail(blkno: number, item: number, w: number): string {
  return `Index tid=(${blkno},${item}) lp_off=${lpOff(w)}, lp_len=${lpLen(w)} lp_flags=${lpFlags(w)}.`;
}

/** amcheck's wording for the line pointer checks it shares with sanity.ts. */
function reword(code: string, message: string, w: number, o: PageCheckOptions, maxoff: number, blkno: number): string {
  const off = lpOff(w);
  const len = lpLen(w);
  if (o.am === "heap") {
    switch (code) {
      case "LP_NOT_ALIGNED":
        return `line pointer to page offset ${off} is not maximally aligned`;
      case "LP_TOO_SHORT":
        return `line pointer length ${len} is less than the minimum tuple header size ${HEAP_MIN_TUPLE}`;
      case "LP_OUTSIDE_ITEM_AREA":
        return off + len > o.blockSize ? `line pointer to page offset ${off} with length ${len} ends beyond maximum page offset ${o.blockSize}` : message;
      case "LP_REDIRECT_OUT_OF_RANGE":
        return off < 1 ? `line pointer redirection to item at offset ${off} precedes minimum offset 1` : `line pointer redirection to item at offset ${off} exceeds maximum offset ${maxoff}`;
    }
  } else if (o.am === "btree") {
    if (code === "LP_OUTSIDE_ITEM_AREA" && off + len > o.blockSize - BT_SPECIAL) return `line pointer points past end of tuple space in index "${o.relName}"`;
    if (code === "LP_NORMAL_ZERO_LENGTH") return `invalid line pointer storage in index "${o.relName}"`;
  }
  void blkno;
  return message;
}

/** Is item `n` an LP_NORMAL item whose bytes may be read? */
export function normalItem(dv: DataView, v: PageVerdict, n: number): boolean {
  return !v.badItems.has(n) && lpFlags(itemIdWord(dv, n)) === LP_NORMAL && lpOff(itemIdWord(dv, n)) >= SizeOfPageHeaderData;
}
