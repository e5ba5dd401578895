// range_in (src/backend/utils/adt/rangetypes.c): '[1,5)', '(,3]', 'empty', quoted and
// backslash-escaped bounds; the inverse of ranges.ts. The bounds go through the subtype's input
// function; lower above upper is an error; equal bounds not both inclusive make the range empty;
// a discrete range (int4range, int8range, daterange) is canonicalised to '[)' form as its
// canonical function does (and may become empty). The payload is the range type OID, the
// present bounds (fixed-size ones aligned as the subtype asks, counted from the 4-byte header;
// varlena ones with a 1-byte header, unaligned, when short enough), and the flags byte last.
import { FormatError } from "../schema/errors.js";
import type { InputContext, InputFunction } from "./input.js";
import { alignBytes, alignUp, type TypeInfo } from "./types.js";
import { canMakeShort, VARHDRSZ, VARHDRSZ_SHORT } from "../varlena/varlena.js";
import { MULTIRANGE_ITEM_OFF_BIT, MULTIRANGE_ITEM_OFFSET_STRIDE, RANGE_EMPTY, RANGE_LB_INC, RANGE_LB_INF, RANGE_UB_INC, RANGE_UB_INF } from "./ranges.js";
import { isSpace } from "./util.js";


/** How a range's subtype is read, compared and (for a discrete range) stepped. */
export interface RangeSubtype {
  oid: number;
  len: number;
  align: TypeInfo["align"];
  input: InputFunction;
  /** order of two stored values (the subtype's btree comparison) */
  compare: (a: Uint8Array, b: Uint8Array) => number;
  /**
   * the canonical function's step: the next value, or the error its addition raises, or null
   * when the value is left as it is with its inclusivity (an infinite date); undefined for a
   * continuous range
   */
  next?: (v: Uint8Array) => Uint8Array | null;
}


function malformed(text: string, detail: string): FormatError {
  return new FormatError("DATUM_BAD_INPUT", `malformed range literal: "${text}"`, {}, detail);
}

/** range_parse_bound: the bound's de-quoted text (null: infinite) and where the scan stopped. */
function parseBound(text: string, at: number): [string | null, number] {
  const c = text[at];
  if (c === "," || c === ")" || c === "]") return [null, at];
  let out = "";
  let inQuote = false;
  let i = at;
  while (inQuote || !(text[i] === "," || text[i] === ")" || text[i] === "]")) {
    const ch = text[i++];
    if (ch === undefined) throw malformed(text, "Unexpected end of input.");
    if (ch === "\\") {
      if (i >= text.length) throw malformed(text, "Unexpected end of input.");
      out += text[i++];
    } else if (ch === '"') {
      if (!inQuote) inQuote = true;
      else if (text[i] === '"') out += text[i++];
      else inQuote = false;
    } else out += ch;
  }
  return [out, i];
}

/** range_parse: flags and the bounds' texts. */
function parseRange(text: string): { flags: number; lower: string | null; upper: string | null } {
  let i = 0;
  while (i < text.length && isSpace(text[i])) i++;
  if (text.slice(i, i + 5).toLowerCase() === "empty") {
    i += 5;
    while (i < text.length && isSpace(text[i])) i++;
    if (i < text.length) throw malformed(text, 'Junk after "empty" key word.');
    return { flags: RANGE_EMPTY, lower: null, upper: null };
  }
  let flags = 0;
  if (text[i] === "[") flags |= RANGE_LB_INC;
  else if (text[i] !== "(") throw malformed(text, "Missing left parenthesis or bracket.");
  i++;
  const [lower, afterLower] = parseBound(text, i);
  if (lower === null) flags |= RANGE_LB_INF;
  i = afterLower;
  if (text[i] !== ",") throw malformed(text, "Missing comma after lower bound.");
  const [upper, afterUpper] = parseBound(text, i + 1);
  if (upper === null) flags |= RANGE_UB_INF;
  i = afterUpper;
  if (text[i] === "]") flags |= RANGE_UB_INC;
  else if (text[i] !== ")") throw malformed(text, "Too many commas.");
  i++;
  while (i < text.length && isSpace(text[i])) i++;
  if (i < text.length) throw malformed(text, "Junk after right parenthesis or bracket.");
  return { flags, lower, upper };
}

interface Bound {
  value: Uint8Array | null;
  inf: boolean;
  inc: boolean;
  lower: boolean;
}

/** A range as make_range leaves it: empty, or its two bounds (canonical for a discrete range). */
interface RangeValue {
  empty: boolean;
  lo: Bound;
  up: Bound;
}

const EMPTY_BOUND: Bound = { value: null, inf: false, inc: false, lower: true };
const EMPTY_RANGE: RangeValue = { empty: true, lo: EMPTY_BOUND, up: { ...EMPTY_BOUND, lower: false } };

/** range_cmp_bound_values: the held values, infinities by side; inclusivity ignored. */
function cmpBoundValues(st: RangeSubtype, a: Bound, b: Bound): number {
  if (a.inf && b.inf) return a.lower === b.lower ? 0 : a.lower ? -1 : 1;
  if (a.inf) return a.lower ? -1 : 1;
  if (b.inf) return b.lower ? 1 : -1;
  return st.compare(a.value!, b.value!);
}

/** range_cmp_bounds: as cmpBoundValues, then an exclusive bound sits just inside its value. */
function cmpBounds(st: RangeSubtype, a: Bound, b: Bound): number {
  const r = cmpBoundValues(st, a, b);
  if (r !== 0 || (a.inf && b.inf) || a.inf || b.inf) return r;
  if (!a.inc && !b.inc) return a.lower === b.lower ? 0 : a.lower ? 1 : -1;
  if (!a.inc) return a.lower ? 1 : -1;
  if (!b.inc) return b.lower ? -1 : 1;
  return 0;
}

/** range_serialize's checks: lower above upper is an error; equal bounds not both inclusive make it empty. */
function serializeCheck(st: RangeSubtype, lo: Bound, up: Bound): boolean {
  const cmp = cmpBoundValues(st, lo, up);
  if (cmp > 0) throw new FormatError("DATUM_BAD_INPUT", "range lower bound must be less than or equal to range upper bound");
  return cmp === 0 && !(lo.inc && up.inc);
}

/** make_range: serialized (checked), then the canonical function for a discrete range, which serializes again. */
function makeRange(st: RangeSubtype, lo0: Bound, up0: Bound): RangeValue {
  if (serializeCheck(st, lo0, up0)) return EMPTY_RANGE;
  // infinite bounds are never inclusive
  const lo = { ...lo0, inc: lo0.inc && !lo0.inf };
  const up = { ...up0, inc: up0.inc && !up0.inf };
  if (st.next) {
    const nextLo = !lo.inf && !lo.inc ? st.next(lo.value!) : null;
    if (nextLo) {
      lo.value = nextLo;
      lo.inc = true;
    }
    const nextUp = !up.inf && up.inc ? st.next(up.value!) : null;
    if (nextUp) {
      up.value = nextUp;
      up.inc = false;
    }
    if (serializeCheck(st, lo, up)) return EMPTY_RANGE;
  }
  return { empty: false, lo, up };
}

/** range_in's value of a literal. */
function rangeValue(st: RangeSubtype, text: string, ctx: InputContext): RangeValue {
  const p = parseRange(text);
  if (p.flags & RANGE_EMPTY) return EMPTY_RANGE;
  const lo: Bound = { value: p.lower === null ? null : st.input(p.lower, ctx), inf: p.lower === null, inc: (p.flags & RANGE_LB_INC) !== 0, lower: true };
  const up: Bound = { value: p.upper === null ? null : st.input(p.upper, ctx), inf: p.upper === null, inc: (p.flags & RANGE_UB_INC) !== 0, lower: false };
  return makeRange(st, lo, up);
}

const flagsOf = (r: RangeValue): number =>
  r.empty ? RANGE_EMPTY : (r.lo.inf ? RANGE_LB_INF : r.lo.inc ? RANGE_LB_INC : 0) | (r.up.inf ? RANGE_UB_INF : r.up.inc ? RANGE_UB_INC : 0);

/** range_in of range type `rangeOid` over `st`. */
export function rangeInput(rangeOid: number, st: RangeSubtype): InputFunction {
  return (text: string, ctx: InputContext): Uint8Array => serialize(rangeOid, st, rangeValue(st, text, ctx));
}

/** The payload (after the 4-byte header) of a range. */
function serialize(rangeOid: number, st: RangeSubtype, r: RangeValue): Uint8Array {
  const bounds = boundBytes(st, r);
  const out = new Uint8Array(4 + bounds.length + 1);
  new DataView(out.buffer).setUint32(0, rangeOid, true);
  out.set(bounds, 4);
  out[out.length - 1] = flagsOf(r);
  return out;
}

/** The present bounds as range_serialize lays them out from offset 8 of the range (8-aligned): fixed-size ones aligned, short varlenas unaligned. */
function boundBytes(st: RangeSubtype, r: RangeValue): Uint8Array {
  const values = r.empty ? [] : [r.lo, r.up].filter((b) => !b.inf).map((b) => b.value!);
  const parts: [number, Uint8Array, boolean][] = []; // offset from the header's start, bytes, short header
  const start = VARHDRSZ + 4;
  let size = start;
  for (const v of values) {
    if (st.len === -1 && canMakeShort(v.length)) {
      parts.push([size, v, true]);
      size += VARHDRSZ_SHORT + v.length;
    } else {
      size = alignUp(size, alignBytes(st.align));
      parts.push([size, v, false]);
      size += st.len === -1 ? VARHDRSZ + v.length : v.length;
    }
  }
  const out = new Uint8Array(size - start);
  const dv = new DataView(out.buffer);
  for (const [at, v, short] of parts) {
    const o = at - start;
    if (st.len !== -1) out.set(v, o);
    else if (short) {
      out[o] = ((VARHDRSZ_SHORT + v.length) << 1) | 1;
      out.set(v, o + 1);
    } else {
      dv.setUint32(o, (VARHDRSZ + v.length) << 2, true);
      out.set(v, o + VARHDRSZ);
    }
  }
  return out;
}

/** range_cmp: empty first, then lower bounds, then upper bounds. */
function cmpRanges(st: RangeSubtype, a: RangeValue, b: RangeValue): number {
  if (a.empty || b.empty) return a.empty === b.empty ? 0 : a.empty ? -1 : 1;
  return cmpBounds(st, a.lo, b.lo) || cmpBounds(st, a.up, b.up);
}

/** bounds_adjacent: upper bound a meets lower bound b with nothing between. */
function boundsAdjacent(st: RangeSubtype, a: Bound, b: Bound): boolean {
  const cmp = cmpBoundValues(st, a, b);
  if (cmp > 0) return false;
  if (cmp === 0) return a.inc !== b.inc;
  // a continuous subtype has points between; a discrete one may not
  if (!st.next) return false;
  return makeRange(st, { ...a, inc: !a.inc, lower: true }, { ...b, inc: !b.inc, lower: false }).empty;
}

/** multirange_canonicalize: sorted, empty ranges dropped, touching or overlapping ones merged. */
function canonicalRanges(st: RangeSubtype, ranges: RangeValue[]): RangeValue[] {
  const sorted = ranges.filter((r) => !r.empty).sort((a, b) => cmpRanges(st, a, b));
  const out: RangeValue[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (!last) {
      out.push(r);
      continue;
    }
    const adjacent = boundsAdjacent(st, last.up, r.lo) || boundsAdjacent(st, r.up, last.lo);
    if (!adjacent && cmpBounds(st, last.up, r.lo) < 0) {
      out.push(r); // a gap
      continue;
    }
    // range_union_internal: the lower of the lowers, the higher of the uppers
    const lo = cmpBounds(st, last.lo, r.lo) < 0 ? last.lo : r.lo;
    const up = cmpBounds(st, last.up, r.up) > 0 ? last.up : r.up;
    out[out.length - 1] = makeRange(st, lo, up);
  }
  return out;
}

function malformedMultirange(text: string, detail: string): FormatError {
  return new FormatError("DATUM_BAD_INPUT", `malformed multirange literal: "${text}"`, {}, detail);
}

/** multirange_in's scan: the range literals between the braces (empty ones dropped), as multirange_in finds them. */
function multirangeLiterals(text: string): string[] {
  let i = 0;
  while (i < text.length && isSpace(text[i])) i++;
  if (text[i] !== "{") throw malformedMultirange(text, "Missing left brace.");
  i++;
  const out: string[] = [];
  let seen = 0;
  let state: "before" | "in" | "escaped" | "quoted" | "quotedEscaped" | "after" | "done" = "before";
  let begin = 0;
  for (; state !== "done"; i++) {
    const ch = text[i];
    if (ch === undefined) throw malformedMultirange(text, "Unexpected end of input.");
    if (isSpace(ch)) continue;
    switch (state) {
      case "before":
        if (ch === "[" || ch === "(") {
          begin = i;
          state = "in";
        } else if (ch === "}" && seen === 0) state = "done";
        else if (text.slice(i, i + 5).toLowerCase() === "empty") {
          seen++;
          i += 4;
          state = "after";
        } else throw malformedMultirange(text, "Expected range start.");
        break;
      case "in":
        if (ch === "]" || ch === ")") {
          seen++;
          out.push(text.slice(begin, i + 1));
          state = "after";
        } else if (ch === '"') state = "quoted";
        else if (ch === "\\") state = "escaped";
        break;
      case "escaped":
        state = "in";
        break;
      case "quoted":
        if (ch === '"') {
          if (text[i + 1] === '"') i++;
          else state = "in";
        } else if (ch === "\\") state = "quotedEscaped";
        break;
      case "quotedEscaped":
        state = "quoted";
        break;
      case "after":
        if (ch === ",") state = "before";
        else if (ch === "}") state = "done";
        else throw malformedMultirange(text, "Expected comma or end of multirange.");
        break;
    }
  }
  while (i < text.length && isSpace(text[i])) i++;
  if (i < text.length) throw malformedMultirange(text, "Junk after closing right brace.");
  return out;
}

/**
 * multirange_in of multirange type `multirangeOid` whose ranges are `rangeOid` over `st`. The
 * payload: the multirange type OID, the range count, an item per range after the first (every
 * 4th the offset of its bounds, the others the length of the previous range's), a flags byte per
 * range, then from a start aligned to the subtype each range's bounds, each aligned to it too.
 */
export function multirangeInput(multirangeOid: number, st: RangeSubtype): InputFunction {
  const align = alignBytes(st.align);
  return (text: string, ctx: InputContext): Uint8Array => {
    const ranges = canonicalRanges(st, multirangeLiterals(text).map((lit) => rangeValue(st, lit, ctx)));
    const bounds = ranges.map((r) => boundBytes(st, r));
    const n = ranges.length;
    // offsets from the 4-byte header's start, as multirange_size_estimate counts them
    const boundsStart = alignUp(VARHDRSZ + 8 + Math.max(n - 1, 0) * 4 + n, align);
    let size = boundsStart;
    for (const b of bounds) size += alignUp(b.length, align);
    const out = new Uint8Array(size - VARHDRSZ);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, multirangeOid, true);
    dv.setUint32(4, n, true);
    let at = boundsStart - VARHDRSZ;
    let prev = 0;
    for (let k = 0; k < n; k++) {
      const rel = at - (boundsStart - VARHDRSZ);
      if (k > 0) dv.setUint32(8 + (k - 1) * 4, k % MULTIRANGE_ITEM_OFFSET_STRIDE !== 0 ? rel - prev : (rel | MULTIRANGE_ITEM_OFF_BIT) >>> 0, true);
      if (k > 0) prev = rel;
      out[8 + Math.max(n - 1, 0) * 4 + k] = flagsOf(ranges[k]!);
      out.set(bounds[k]!, at);
      at += alignUp(bounds[k]!.length, align);
    }
    return out;
  };
}

const i32 = (v: Uint8Array): number => new DataView(v.buffer, v.byteOffset, v.byteLength).getInt32(0, true);
const i64 = (v: Uint8Array): bigint => new DataView(v.buffer, v.byteOffset, v.byteLength).getBigInt64(0, true);

/**
 * A subtype comparison over two stored values (a fixed-length value's bytes, a varlena's
 * payload without header) from the on-disk comparators of formats/order/, which take
 * (buffer, offset, length) pairs: the one order rule for the subtype, as range_cmp uses it.
 */
export const valueCompare =
  (cmp: (a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number) => number) =>
  (a: Uint8Array, b: Uint8Array): number =>
    cmp(a, 0, a.length, b, 0, b.length);

const le32 = (n: number): Uint8Array => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n, true);
  return out;
};

/** int4range_canonical's int4pl(v, 1). */
export const nextInt32 = (v: Uint8Array): Uint8Array => {
  const n = i32(v);
  if (n === 0x7fffffff) throw new FormatError("DATUM_BAD_INPUT", "integer out of range");
  return le32(n + 1);
};
/** int8range_canonical's int8pl(v, 1). */
export const nextInt64 = (v: Uint8Array): Uint8Array => {
  const n = i64(v);
  if (n === 0x7fffffffffffffffn) throw new FormatError("DATUM_BAD_INPUT", "bigint out of range");
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, n + 1n, true);
  return out;
};

const DATEVAL_NOBEGIN = -0x80000000;
const DATEVAL_NOEND = 0x7fffffff;
/** DATE_END_JULIAN - POSTGRES_EPOCH_JDATE: the first day past the last valid date */
const DATE_END = 2147483494 - 2451545;
/** daterange_canonical's date_pli(v, 1); null for an infinite date, which it leaves as it is. */
export const nextDate = (v: Uint8Array): Uint8Array | null => {
  const n = i32(v);
  if (n === DATEVAL_NOBEGIN || n === DATEVAL_NOEND) return null;
  if (n + 1 >= DATE_END) throw new FormatError("DATUM_BAD_INPUT", "date out of range");
  return le32(n + 1);
};
