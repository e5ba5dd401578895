// Page header and line pointer sanity, one check per code (PageIsVerifiedExtended's header
// test split into its parts, plus the line pointer bounds verify_heapam and bufpage.c rely on).
import type { Finding, Location } from "../schema/errors.js";
import { PageHeaderData, PD_VALID_FLAG_BITS, PG_PAGE_LAYOUT_VERSION, SizeOfPageHeaderData } from "./page-header.js";
import { LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff } from "./item-id.js";
import { itemIdOffset, itemIdWord, maxOffsetNumber, pdFlags, pdLower, pdPagesizeVersion, pdSpecial, pdUpper } from "./page.js";
import type { CheckCode } from "../codes/checks.js";

const PH = PageHeaderData.offsets;

/** Header checks. Returns findings; an empty list means the header is sane. */
export function checkPageHeader(dv: DataView, pageSize: number, loc: Location): Finding<CheckCode>[] {
  const out: Finding<CheckCode>[] = [];
  const f = (code: CheckCode, message: string, offset: number, path: string): void => {
    out.push({ code, severity: "error", message, location: { ...loc, offset, path } });
  };
  const flags = pdFlags(dv);
  const lower = pdLower(dv);
  const upper = pdUpper(dv);
  const special = pdSpecial(dv);
  const psv = pdPagesizeVersion(dv);
  if (flags & ~PD_VALID_FLAG_BITS) f("PAGE_BAD_FLAGS", `pd_flags 0x${flags.toString(16).padStart(4, "0")} has bits outside PD_VALID_FLAG_BITS (0x0007)`, PH.pd_flags, "pd_flags");
  if ((psv & 0xff) !== PG_PAGE_LAYOUT_VERSION) f("PAGE_BAD_LAYOUT_VERSION", `page layout version ${psv & 0xff}, expected ${PG_PAGE_LAYOUT_VERSION}`, PH.pd_pagesize_version, "pd_pagesize_version");
  if ((psv & 0xff00) !== pageSize && (psv & 0xff00) !== (pageSize & 0xff00)) f("PAGE_BAD_SIZE", `pd_pagesize_version says page size ${psv & 0xff00}, the file uses ${pageSize}`, PH.pd_pagesize_version, "pd_pagesize_version");
  if (lower < SizeOfPageHeaderData) f("PAGE_LOWER_TOO_SMALL", `pd_lower ${lower} is less than the page header size ${SizeOfPageHeaderData}`, PH.pd_lower, "pd_lower");
  if (lower > upper) f("PAGE_LOWER_GT_UPPER", `pd_lower ${lower} is greater than pd_upper ${upper}`, PH.pd_lower, "pd_lower");
  if (upper > special) f("PAGE_UPPER_GT_SPECIAL", `pd_upper ${upper} is greater than pd_special ${special}`, PH.pd_upper, "pd_upper");
  if (special > pageSize) f("PAGE_SPECIAL_BEYOND_PAGE", `pd_special ${special} is beyond the page size ${pageSize}`, PH.pd_special, "pd_special");
  if (special & 7) f("PAGE_SPECIAL_NOT_ALIGNED", `pd_special ${special} is not MAXALIGNed`, PH.pd_special, "pd_special");
  return out;
}

export interface LpCheckOptions {
  /** minimum lp_len of an LP_NORMAL item (heap: the tuple header size); when given, items are checked in verify_heapam's order */
  minItemLen?: number;
}

/** Line pointer checks on a page whose header is sane. */
export function checkLinePointers(dv: DataView, loc: Location, opts: LpCheckOptions = {}): Finding<CheckCode>[] {
  const out: Finding<CheckCode>[] = [];
  const n = maxOffsetNumber(dv);
  const upper = pdUpper(dv);
  const lower = pdLower(dv);
  // Only pages with a line pointer array (not metapages, GIN data pages, bitmaps) have this rule.
  if (lower > SizeOfPageHeaderData && (lower - SizeOfPageHeaderData) % 4 !== 0) {
    out.push({ code: "PAGE_LOWER_NOT_ITEM_BOUNDARY", severity: "error", message: `pd_lower ${lower} does not end on a line pointer boundary`, location: { ...loc, offset: PH.pd_lower, path: "pd_lower" } });
  }
  const special = pdSpecial(dv);
  // Item extents for the overlap check, packed (start, end, item) in one typed array.
  const spans = new Int32Array(3 * n);
  let ns = 0;
  let sorted = true;
  const at = (i: number): Location => ({ ...loc, item: i, offset: itemIdOffset(i), path: `linp[${i}]` });
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const off = lpOff(w);
    const flags = lpFlags(w);
    const len = lpLen(w);
    if (flags === LP_UNUSED) {
      if (off !== 0 || len !== 0) out.push({ code: "LP_UNUSED_NONZERO", severity: "warning", message: `unused line pointer ${i} has lp_off ${off} and lp_len ${len} (expected 0)`, location: at(i) });
      continue;
    }
    if (flags === LP_REDIRECT) {
      if (len !== 0) out.push({ code: "LP_REDIRECT_HAS_LENGTH", severity: "error", message: `redirect line pointer ${i} has lp_len ${len}, expected 0`, location: at(i) });
      if (off < 1 || off > n) out.push({ code: "LP_REDIRECT_OUT_OF_RANGE", severity: "error", message: `line pointer redirection to item at offset ${off} exceeds maximum offset ${n}`, location: at(i) });
      continue;
    }
    if (flags === LP_DEAD && len === 0) continue;
    // A heap item (minItemLen given) is checked in verify_heapam's order, each failure ending its
    // checks: alignment, then the minimum tuple length (a zero length too), then the bounds.
    if (opts.minItemLen !== undefined && flags === LP_NORMAL) {
      if (off & 7) {
        out.push({ code: "LP_NOT_ALIGNED", severity: "error", message: `line pointer ${i} to item at offset ${off} is not maximally aligned`, location: at(i) });
        continue;
      }
      if (len < opts.minItemLen) {
        out.push({ code: "LP_TOO_SHORT", severity: "error", message: `line pointer ${i} length ${len} is less than the minimum item size ${opts.minItemLen}`, location: at(i) });
        continue;
      }
    }
    if (flags === LP_NORMAL && len === 0) {
      out.push({ code: "LP_NORMAL_ZERO_LENGTH", severity: "error", message: `line pointer ${i} is LP_NORMAL with lp_len 0`, location: at(i) });
      continue;
    }
    if (off & 7) out.push({ code: "LP_NOT_ALIGNED", severity: "error", message: `line pointer ${i} to item at offset ${off} is not maximally aligned`, location: at(i) });
    if (off < upper || off + len > special) {
      out.push({ code: "LP_OUTSIDE_ITEM_AREA", severity: "error", message: `line pointer ${i} to item at offset ${off} with length ${len} lies outside the item area [pd_upper ${upper}, pd_special ${special})`, location: at(i) });
      continue;
    }
    // Items are usually placed downwards from pd_special, so descending offsets need no sort.
    if (ns > 0 && off > spans[3 * (ns - 1)]) sorted = false;
    spans[3 * ns] = off;
    spans[3 * ns + 1] = off + len;
    spans[3 * ns + 2] = i;
    ns++;
  }
  // Out of order (a btree high key sits below the items it bounds): sort by offset, descending,
  // ties in item order, through packed keys and a numeric typed-array sort.
  let order: Uint32Array | undefined;
  if (!sorted) {
    order = new Uint32Array(ns);
    for (let k = 0; k < ns; k++) order[k] = spans[3 * k]! * 16384 + (16383 - k);
    order.sort();
    order.reverse();
    for (let k = 0; k < ns; k++) order[k] = 16383 - (order[k]! % 16384);
  }
  // Walk from the highest offset down: each item must end at or before the start of the one above it.
  for (let k = 1; k < ns; k++) {
    const hi = order ? order[k - 1]! : k - 1;
    const lo = order ? order[k]! : k;
    if (spans[3 * lo + 1]! > spans[3 * hi]!) {
      const a = spans[3 * hi + 2];
      const b = spans[3 * lo + 2];
      out.push({ code: "LP_OVERLAP", severity: "error", message: `item ${b} at offset ${spans[3 * lo]} (length ${spans[3 * lo + 1]! - spans[3 * lo]!}) overlaps item ${a} at offset ${spans[3 * hi]}`, location: { ...loc, item: b, offset: spans[3 * lo] } });
    }
  }
  return out;
}
