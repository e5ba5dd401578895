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
import { numericText } from "./numeric.js";

const RANGE_EMPTY = 0x01;
const RANGE_LB_INC = 0x02;
const RANGE_UB_INC = 0x04;
const RANGE_LB_INF = 0x08;
const RANGE_UB_INF = 0x10;

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

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f";

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
}

/** range_serialize's flags: an error when lower is above upper; empty when equal and not both inclusive. */
function serializeFlags(st: RangeSubtype, lo: Bound, up: Bound): number {
  let cmp: number;
  if (lo.inf || up.inf) cmp = -1; // an infinite lower is below everything, an infinite upper above
  else cmp = st.compare(lo.value!, up.value!);
  if (cmp > 0) throw new FormatError("DATUM_BAD_INPUT", "range lower bound must be less than or equal to range upper bound");
  if (cmp === 0 && !(lo.inc && up.inc)) return RANGE_EMPTY;
  // infinite bounds are never inclusive
  return (lo.inf ? RANGE_LB_INF : lo.inc ? RANGE_LB_INC : 0) | (up.inf ? RANGE_UB_INF : up.inc ? RANGE_UB_INC : 0);
}

/** range_in of range type `rangeOid` over `st`. */
export function rangeInput(rangeOid: number, st: RangeSubtype): InputFunction {
  return (text: string, ctx: InputContext): Uint8Array => {
    const p = parseRange(text);
    if (p.flags & RANGE_EMPTY) return serialize(rangeOid, st, RANGE_EMPTY, null, null);
    const lo: Bound = { value: p.lower === null ? null : st.input(p.lower, ctx), inf: p.lower === null, inc: (p.flags & RANGE_LB_INC) !== 0 };
    const up: Bound = { value: p.upper === null ? null : st.input(p.upper, ctx), inf: p.upper === null, inc: (p.flags & RANGE_UB_INC) !== 0 };
    let flags = serializeFlags(st, lo, up);
    if (!(flags & RANGE_EMPTY) && st.next) {
      // the canonical function: '[)' bounds, then serialized again (which may make it empty)
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
      flags = serializeFlags(st, lo, up);
    }
    return flags & RANGE_EMPTY ? serialize(rangeOid, st, RANGE_EMPTY, null, null) : serialize(rangeOid, st, flags, lo.value, up.value);
  };
}

/** The payload (after the 4-byte header) of a range with these flags and bound values. */
function serialize(rangeOid: number, st: RangeSubtype, flags: number, lower: Uint8Array | null, upper: Uint8Array | null): Uint8Array {
  const parts: [number, Uint8Array, boolean][] = []; // offset from the header's start, bytes, short header
  let size = VARHDRSZ + 4;
  for (const v of [lower, upper]) {
    if (!v) continue;
    if (st.len === -1 && canMakeShort(v.length)) {
      parts.push([size, v, true]);
      size += VARHDRSZ_SHORT + v.length;
    } else {
      size = alignUp(size, alignBytes(st.align));
      parts.push([size, v, false]);
      size += st.len === -1 ? VARHDRSZ + v.length : v.length;
    }
  }
  const out = new Uint8Array(size + 1 - VARHDRSZ);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, rangeOid, true);
  for (const [at, v, short] of parts) {
    const o = at - VARHDRSZ;
    if (st.len !== -1) out.set(v, o);
    else if (short) {
      out[o] = ((VARHDRSZ_SHORT + v.length) << 1) | 1;
      out.set(v, o + 1);
    } else {
      dv.setUint32(o, (VARHDRSZ + v.length) << 2, true);
      out.set(v, o + VARHDRSZ);
    }
  }
  out[out.length - 1] = flags;
  return out;
}

const i32 = (v: Uint8Array): number => new DataView(v.buffer, v.byteOffset, v.byteLength).getInt32(0, true);
const i64 = (v: Uint8Array): bigint => new DataView(v.buffer, v.byteOffset, v.byteLength).getBigInt64(0, true);
const sign = (x: number | bigint): number => (x > 0 ? 1 : x < 0 ? -1 : 0);

export const compareInt32 = (a: Uint8Array, b: Uint8Array): number => sign(i32(a) - i32(b));
export const compareInt64 = (a: Uint8Array, b: Uint8Array): number => sign(i64(a) - i64(b));

/** A numeric payload as a rank (-Infinity, finite, +Infinity, NaN) and an exact scaled value. */
function numericKey(v: Uint8Array): [number, bigint, number] {
  const t = numericText(v);
  if (t === "NaN") return [3, 0n, 0];
  if (t === "Infinity") return [2, 0n, 0];
  if (t === "-Infinity") return [0, 0n, 0];
  const [int, frac = ""] = t.split(".");
  return [1, BigInt(int + frac), frac.length];
}
/** numeric_cmp: -Infinity < finite < +Infinity < NaN; finite values exactly. */
export const compareNumeric = (a: Uint8Array, b: Uint8Array): number => {
  const [ra, va, sa] = numericKey(a);
  const [rb, vb, sb] = numericKey(b);
  if (ra !== rb || ra !== 1) return ra - rb;
  const s = Math.max(sa, sb);
  return sign(va * 10n ** BigInt(s - sa) - vb * 10n ** BigInt(s - sb));
};

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
