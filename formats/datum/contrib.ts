// Output functions of contrib extension types: citext (contrib/citext/citext.c), hstore
// (contrib/hstore/hstore.h, hstore_io.c), ltree and lquery (contrib/ltree/ltree.h,
// ltree_io.c), cube (contrib/cube/cubedata.h, cube.c), seg (contrib/seg/segdata.h, seg.c), and
// pg_trgm's GiST key gtrgm (contrib/pg_trgm/trgm.h), whose server output function only raises
// an error, so pgdisk prints it its own way.
// Extension types get new OIDs in every database, so they are found by the name of their
// input function (pg_type.typinput's proname, TypeInfo.inputFunction), which the extension's
// SQL script fixes.
// As everywhere in formats/datum, `d` is the payload after the varlena header; the structs'
// offsets count from the 4-byte-header form, so payload offset = struct offset - 4.
import { maxAlign } from "../page/page.js";
import { quoteArrayElement } from "./arrays.js";
import { bits32, defineStruct, f32, i16, i8, register, u16, u32, u8, i32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { Decoder } from "./decoder.js";
import { float8Text } from "./floats.js";
import { storedText, storedWrite } from "./text.js";
import type { ValueWriter } from "./text-out.js";
import { utf8Text, view } from "./util.js";
import { VARHDRSZ } from "../varlena/varlena.js";


const malformed = (type: string, msg: string, offset?: number): FormatError =>
  new FormatError("EXTENSION_TYPE_MALFORMED", `${type}: ${msg}`, offset === undefined ? {} : { offset });

// ---- hstore ----------------------------------------------------------------------------

/** HStore after vl_len_: the pair count and the new-format flag, then 2 × count HEntry. */
export const HStoreHeader = register(
  defineStruct("HStore", "contrib/hstore/hstore.h", [
    bits32("size_", { count: 28, unused: 3, newversion: 1 }, "pair count and format flag", {
      count: "number of key/value pairs (HS_COUNT)",
      newversion: "HS_FLAG_NEWVERSION: set by every hstore written since 9.0",
    }),
  ] as const),
);

/** One key or value of an hstore: where its bytes end in the string area. */
export const HEntry = register(
  defineStruct("HEntry", "contrib/hstore/hstore.h", [
    bits32("entry", { endpos: 30, isnull: 1, isfirst: 1 }, "end of a key or value", {
      endpos: "offset just past this string in the string area (its start is the previous entry's end)",
      isnull: "HENTRY_ISNULL: a NULL value",
      isfirst: "HENTRY_ISFIRST: the first entry (starts at 0)",
    }),
  ] as const),
);

export const HS_COUNT_MASK = 0x0fffffff;
export const HS_FLAG_NEWVERSION = 0x80000000;
export const HENTRY_ISNULL = 0x40000000;
export const HENTRY_ISFIRST = 0x80000000;
export const HENTRY_POSMASK = 0x3fffffff;

/** hstore_out's quoting of a key or value: inside double quotes, `"` and `\` get a backslash. */
const hstoreQuoted = (s: string): string => `"${s.replace(/["\\]/g, "\\$&")}"`;

/** hstore_out: `"k"=>"v", "k2"=>NULL` in stored (sorted) order; empty text for no pairs. */
const hstoreText: Decoder = (d) => {
  // An hstore of no pairs may be a bare varlena header (hstoreUpgrade's empty case).
  if (d.length === 0) return "";
  if (d.length < HStoreHeader.size) throw malformed("hstore", `${d.length} bytes, less than its header`);
  const dv = view(d);
  const size = dv.getUint32(HStoreHeader.offsets.size_, true);
  const count = size & HS_COUNT_MASK;
  if (count === 0) return "";
  // Pre-9.0 hstores (no flag) need hstoreUpgrade's guesswork: not decoded here.
  if ((size & HS_FLAG_NEWVERSION) === 0) throw malformed("hstore", "old (pre-9.0) format");
  const entries = HStoreHeader.size;
  const strBase = entries + 2 * count * HEntry.size;
  if (strBase > d.length) throw malformed("hstore", `${count} pairs do not fit in ${d.length} bytes`);
  const strLen = d.length - strBase;
  let prevEnd = 0;
  const str = (k: number): [string, boolean] => {
    const e = dv.getUint32(entries + k * HEntry.size, true);
    const end = e & HENTRY_POSMASK;
    if (end < prevEnd || end > strLen) throw malformed("hstore", `entry ${k} ends at ${end}, outside ${prevEnd}..${strLen}`, entries + k * HEntry.size);
    const s = utf8Text(d.subarray(strBase + prevEnd, strBase + end));
    prevEnd = end;
    return [s, (e & HENTRY_ISNULL) !== 0];
  };
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const [key] = str(2 * i);
    const [val, isnull] = str(2 * i + 1);
    parts.push(`${hstoreQuoted(key)}=>${isnull ? "NULL" : hstoreQuoted(val)}`);
  }
  return parts.join(", ");
};

// ---- ltree and lquery --------------------------------------------------------------------

/** ltree after vl_len_: the level count; the levels start at MAXALIGN(6) from the varlena start. */
export const LtreeHeader = register(
  defineStruct("ltree", "contrib/ltree/ltree.h", [u16("numlevel", "number of labels")] as const),
);

/** One ltree label; the next starts MAXALIGN(2 + len) bytes later. */
export const LtreeLevel = register(
  defineStruct("ltree_level", "contrib/ltree/ltree.h", [u16("len", "label length in bytes (the label follows)")] as const),
);

/** lquery after vl_len_; the levels start at MAXALIGN(10) from the varlena start. */
export const LqueryHeader = register(
  defineStruct("lquery", "contrib/ltree/ltree.h", [
    u16("numlevel", "number of lquery_levels"),
    u16("firstgood", "number of leading simple-match levels"),
    u16("flag", "LQUERY_HASNOT: some level has '!'"),
  ] as const),
);

/** One lquery level; its variants start at MAXALIGN(10), the next level MAXALIGN(totallen) later. */
export const LqueryLevel = register(
  defineStruct("lquery_level", "contrib/ltree/ltree.h", [
    u16("totallen", "bytes of this level, variants included"),
    u16("flag", "LQL_NOT 0x10 ('!'), LQL_COUNT 0x20 (repeat counts given), and the variants' LVAR_* flags"),
    u16("numvar", "number of variants; 0 means '*'"),
    u16("low", "minimum repeat count"),
    u16("high", "maximum repeat count (65535: unbounded)"),
  ] as const),
);

/** One alternative label of an lquery level (the label at offset 7); the next starts MAXALIGN(7) + MAXALIGN(len) later. */
export const LqueryVariant = register(
  defineStruct("lquery_variant", "contrib/ltree/ltree.h", [
    i32("val", "CRC32 of the label"),
    u16("len", "label length in bytes (the label follows the MAXALIGNed header)"),
    u8("flag", "LVAR_ANYEND 0x01 ('*'), LVAR_INCASE 0x02 ('@'), LVAR_SUBLEXEME 0x04 ('%')"),
  ] as const),
);

export const LTREE_FIRST = maxAlign(VARHDRSZ + LtreeHeader.size) - VARHDRSZ;
export const LQUERY_FIRST = maxAlign(VARHDRSZ + LqueryHeader.size) - VARHDRSZ;
export const LQL_HDRSIZE = maxAlign(LqueryLevel.size);
export const LVAR_HDRSIZE = maxAlign(LqueryVariant.size);
export const LQL_NOT = 0x10;
export const LQL_COUNT = 0x20;
export const LVAR_ANYEND = 0x01;
export const LVAR_INCASE = 0x02;
export const LVAR_SUBLEXEME = 0x04;
export const LTREE_MAX_LEVELS = 0xffff;
/** lquery.flag: some level has '!' */
export const LQUERY_HASNOT = 0x01;

/** ltree_out: the labels joined by dots (labels need no quoting: only label characters are accepted). */
const ltreeText: Decoder = (d) => {
  if (d.length < LtreeHeader.size) throw malformed("ltree", `${d.length} bytes, less than its header`);
  const dv = view(d);
  const n = dv.getUint16(LtreeHeader.offsets.numlevel, true);
  const labels: string[] = [];
  let p = LTREE_FIRST;
  for (let i = 0; i < n; i++) {
    if (p + LtreeLevel.size > d.length) throw malformed("ltree", `level ${i + 1} of ${n} is past the end`, p);
    const len = dv.getUint16(p + LtreeLevel.offsets.len, true);
    const start = p + LtreeLevel.size;
    if (start + len > d.length) throw malformed("ltree", `label ${i + 1} (${len} bytes) runs past the end`, p);
    labels.push(utf8Text(d.subarray(start, start + len)));
    p += maxAlign(LtreeLevel.size + len);
  }
  return labels.join(".");
};

/** A level's repeat counts as lquery_out prints them (nothing for a plain '*'). */
function lqueryCount(low: number, high: number, star: boolean): string {
  if (low === high) return `{${low}}`;
  if (low === 0) return high === LTREE_MAX_LEVELS ? (star ? "" : "{,}") : `{,${high}}`;
  return high === LTREE_MAX_LEVELS ? `{${low},}` : `{${low},${high}}`;
}

/** lquery_out: levels joined by dots; a level is '!'? variants joined by '|' (each with its %@* flags) or '*', then its counts. */
const lqueryText: Decoder = (d) => {
  if (d.length < LqueryHeader.size) throw malformed("lquery", `${d.length} bytes, less than its header`);
  const dv = view(d);
  const n = dv.getUint16(LqueryHeader.offsets.numlevel, true);
  const levels: string[] = [];
  let p = LQUERY_FIRST;
  for (let i = 0; i < n; i++) {
    if (p + LqueryLevel.size > d.length) throw malformed("lquery", `level ${i + 1} of ${n} is past the end`, p);
    const totallen = dv.getUint16(p + LqueryLevel.offsets.totallen, true);
    const flag = dv.getUint16(p + LqueryLevel.offsets.flag, true);
    const numvar = dv.getUint16(p + LqueryLevel.offsets.numvar, true);
    const low = dv.getUint16(p + LqueryLevel.offsets.low, true);
    const high = dv.getUint16(p + LqueryLevel.offsets.high, true);
    if (totallen < LQL_HDRSIZE || p + totallen > d.length) throw malformed("lquery", `level ${i + 1} claims ${totallen} bytes`, p);
    let s = "";
    if (numvar === 0) s = "*";
    else {
      if (flag & LQL_NOT) s = "!";
      let v = p + LQL_HDRSIZE;
      for (let j = 0; j < numvar; j++) {
        if (v + LqueryVariant.size > p + totallen) throw malformed("lquery", `variant ${j + 1} of level ${i + 1} is past its level`, v);
        const len = dv.getUint16(v + LqueryVariant.offsets.len, true);
        const vflag = d[v + LqueryVariant.offsets.flag]!;
        // the label follows the unpadded header; the next variant starts after the padded one
        const start = v + LqueryVariant.size;
        if (start + len > p + totallen) throw malformed("lquery", `label of variant ${j + 1} of level ${i + 1} runs past its level`, v);
        if (j > 0) s += "|";
        s += utf8Text(d.subarray(start, start + len));
        if (vflag & LVAR_SUBLEXEME) s += "%";
        if (vflag & LVAR_INCASE) s += "@";
        if (vflag & LVAR_ANYEND) s += "*";
        v += LVAR_HDRSIZE + maxAlign(len);
      }
    }
    // Levels stored before PostgreSQL 13 have no LQL_COUNT and zero counts: nothing printed.
    if (flag & LQL_COUNT || numvar === 0) s += lqueryCount(low, high, numvar === 0);
    levels.push(s);
    p += maxAlign(totallen);
  }
  return levels.join(".");
};

// ---- ltxtquery ------------------------------------------------------------------------------

/** ltxtquery after vl_len_: the item count; the items start at MAXALIGN(8) from the varlena start. */
export const LtxtqueryHeader = register(
  defineStruct("ltxtquery", "contrib/ltree/ltree.h", [i32("size", "number of ITEMs (polish notation)")] as const),
);

/** One ltxtquery item; the operands (NUL-terminated labels) follow the last item. */
export const LtxtqueryItem = register(
  defineStruct("ITEM (ltxtquery)", "contrib/ltree/ltree.h", [
    i16("type", "VAL 2 (a label) or OPR 3 (an operator)"),
    i16("left", "items to the left operand of an operator"),
    i32("val", "VAL: CRC32 of the label; OPR: the operator character '!', '&' or '|'"),
    u8("flag", "VAL: LVAR_ANYEND 0x01 ('*'), LVAR_INCASE 0x02 ('@'), LVAR_SUBLEXEME 0x04 ('%')"),
    u8("length", "VAL: label length in bytes"),
    u16("distance", "VAL: offset of the label from the first operand byte"),
  ] as const),
);

export const LTXTQ_FIRST = maxAlign(VARHDRSZ + LtxtqueryHeader.size) - VARHDRSZ;
export const LTXTQ_VAL = 2;
export const LTXTQ_OPR = 3;

/**
 * ltxtq_out: the polish-notation items printed infix. An operator item is followed by its right
 * operand, then its left one; '|' is parenthesised unless it is the whole query or the operand of
 * '!', and '!' puts "( ... )" around an operator operand.
 */
const ltxtqueryText: Decoder = (d) => {
  if (d.length < LTXTQ_FIRST) throw malformed("ltxtquery", `${d.length} bytes, less than its header`);
  const dv = view(d);
  const size = dv.getInt32(LtxtqueryHeader.offsets.size, true);
  // the server refuses an empty query on output ("syntax error", "Empty query.")
  if (size <= 0) throw malformed("ltxtquery", `${size} items`);
  const ops = LTXTQ_FIRST + size * LtxtqueryItem.size;
  if (ops > d.length) throw malformed("ltxtquery", `${size} items need ${ops} bytes, the value has ${d.length}`);
  let pos = 0;
  const item = (k: number): number => LTXTQ_FIRST + k * LtxtqueryItem.size;
  const next = (): number => {
    if (pos >= size) throw malformed("ltxtquery", `an operator's operand is past the last of ${size} items`, item(pos));
    return item(pos++);
  };
  const infix = (first: boolean): string => {
    const at = next();
    const type = dv.getInt16(at + LtxtqueryItem.offsets.type, true);
    if (type === LTXTQ_VAL) {
      const start = ops + dv.getUint16(at + LtxtqueryItem.offsets.distance, true);
      const end = d.indexOf(0, start);
      if (start >= d.length || end < 0) throw malformed("ltxtquery", "a label runs past the end", at);
      const flag = d[at + LtxtqueryItem.offsets.flag]!;
      let s = utf8Text(d.subarray(start, end));
      if (flag & LVAR_SUBLEXEME) s += "%";
      if (flag & LVAR_INCASE) s += "@";
      if (flag & LVAR_ANYEND) s += "*";
      return s;
    }
    if (type !== LTXTQ_OPR) throw malformed("ltxtquery", `item type ${type}`, at);
    const op = dv.getInt32(at + LtxtqueryItem.offsets.val, true);
    if (op === 0x21) {
      const operand = pos < size && dv.getInt16(item(pos) + LtxtqueryItem.offsets.type, true) === LTXTQ_OPR;
      return operand ? `!( ${infix(true)} )` : `!${infix(false)}`;
    }
    if (op !== 0x26 && op !== 0x7c) throw malformed("ltxtquery", `operator ${op}`, at);
    const right = infix(false);
    const s = `${infix(false)} ${String.fromCharCode(op)} ${right}`;
    return op === 0x7c && !first ? `( ${s} )` : s;
  };
  let text: string;
  try {
    text = infix(true);
  } catch (e) {
    if (e instanceof RangeError) throw malformed("ltxtquery", "operators nested too deep to print");
    throw e;
  }
  return text;
};

// ---- cube --------------------------------------------------------------------------------

/** NDBOX after vl_len_: the header, then dim (point) or 2 × dim float8 coordinates. */
export const NdboxHeader = register(
  defineStruct("NDBOX", "contrib/cube/cubedata.h", [
    // one u32, not bit parts: DIM_MASK is 31 bits wide
    u32("header", "bits 0..30: number of dimensions (DIM_MASK); bit 31: POINT_BIT, only the lower-left corner is stored"),
  ] as const),
);

const FLOAT8 = 8;

/** cube_out: `(ll, ...)`, then `,(ur, ...)` unless the cube is a point (flagged, or every ll = ur). */
const cubeText: Decoder = (d) => {
  if (d.length < NdboxHeader.size) throw malformed("cube", `${d.length} bytes, less than its header`);
  const dv = view(d);
  const header = dv.getUint32(NdboxHeader.offsets.header, true);
  const dim = header & 0x7fffffff;
  const flagged = header >>> 31 === 1; // POINT_BIT
  const x = NdboxHeader.size;
  const need = x + (flagged ? dim : 2 * dim) * FLOAT8;
  if (need > d.length) throw malformed("cube", `${dim} dimensions need ${need} bytes, got ${d.length}`);
  const ll = (i: number): number => dv.getFloat64(x + i * FLOAT8, true);
  const ur = (i: number): number => dv.getFloat64(x + (flagged ? i : i + dim) * FLOAT8, true);
  const corner = (at: (i: number) => number): string => {
    let s = "(";
    for (let i = 0; i < dim; i++) s += (i > 0 ? ", " : "") + float8Text(at(i));
    return s + ")";
  };
  let point = flagged;
  if (!point) {
    point = true;
    for (let i = 0; i < dim && point; i++) point = ll(i) === ur(i);
  }
  return point ? corner(ll) : `${corner(ll)},${corner(ur)}`;
};

// ---- seg ---------------------------------------------------------------------------------

/** SEG (fixed 12 bytes): the bounds as float4, their significant digits and extension marks. */
export const SegStruct = register(
  defineStruct("SEG", "contrib/seg/segdata.h", [
    f32("lower", "lower bound"),
    f32("upper", "upper bound"),
    i8("l_sigd", "significant digits the lower bound was written with"),
    i8("u_sigd", "significant digits the upper bound was written with"),
    u8("l_ext", "lower bound mark: 0 none, '<', '>', '~', or '-' (open)"),
    u8("u_ext", "upper bound mark: 0 none, '<', '>', '~', or '-' (open)"),
  ] as const),
);

/** float.h's FLT_DIG: the most significant digits seg keeps */
export const FLT_DIG = 6;
const F64_VIEW = new DataView(new ArrayBuffer(8));

/**
 * C's `%.*e` of a double (glibc: exact value, ties to even): sign, digits and decimal
 * exponent, or null for inf/nan (which C prints as "inf", "-nan" ...).
 */
export function cExponential(v: number, prec: number): { neg: boolean; digits: string; exp: number } | null {
  if (!Number.isFinite(v)) return null;
  const neg = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  const p1 = prec + 1;
  if (a === 0) return { neg, digits: "0".repeat(p1), exp: 0 };
  // the exact decimal expansion of a = m × 2^e2
  const dv = F64_VIEW;
  dv.setFloat64(0, a);
  const hi = dv.getUint32(0);
  const biased = hi >>> 20;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(dv.getUint32(4));
  let e2 = biased - 1075;
  if (biased === 0) e2 = -1074;
  else m |= 1n << 52n;
  let s: string;
  let exp: number;
  if (e2 >= 0) {
    s = (m << BigInt(e2)).toString();
    exp = s.length - 1;
  } else {
    s = (m * 5n ** BigInt(-e2)).toString();
    exp = s.length - 1 + e2;
  }
  if (s.length <= p1) return { neg, digits: s.padEnd(p1, "0"), exp };
  let head = BigInt(s.slice(0, p1));
  const rest = s.slice(p1);
  const up = rest[0]! > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || head % 2n === 1n));
  if (up) head += 1n;
  let digits = head.toString();
  if (digits.length > p1) {
    digits = digits.slice(0, p1);
    exp++;
  }
  return { neg, digits, exp };
}

/** `%.*e` text: d.ddde±XX. */
export const cExpText = (neg: boolean, digits: string, exp: number): string =>
  `${neg ? "-" : ""}${digits[0]}${digits.length > 1 ? "." + digits.slice(1) : ""}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;

/**
 * seg.c's restore(): `val` with exactly n significant digits (at most FLT_DIG): `%e` style
 * when the exponent is beyond ±4, else positional, keeping trailing zeros ("8.00"); an
 * exponent that the digits cannot absorb is written as e<exp> without padding.
 */
function segRestore(bits: number, n: number): string {
  const val = float4Of(bits);
  n = n <= 0 ? FLT_DIG : Math.min(n, FLT_DIG);
  const e = cExponential(val, n - 1);
  // C prints infinities and NaNs as inf / nan, with the sign bit's minus
  if (!e) return `${bits >>> 31 ? "-" : ""}${Number.isNaN(val) ? "nan" : "inf"}`;
  const { neg, digits, exp } = e;
  if (exp === 0) return cExpText(neg, digits, exp).replace(/e.*$/, "");
  if (Math.abs(exp) > 4) return cExpText(neg, digits, exp);
  // restore() takes its sign from val < 0, so -0 never gets here (its exponent is 0)
  const sign = val < 0 ? "-" : "";
  if (exp > 0) {
    if (1 + exp >= n) return `${sign}${digits[0]}${n > 1 ? "." + digits.slice(1) : ""}e${exp}`;
    return `${sign}${digits.slice(0, 1 + exp)}.${digits.slice(1 + exp)}`;
  }
  return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
}

const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);
const float4Of = (bits: number): number => ((F32_BITS[0] = bits), F32[0]!);

const isMark = (c: number): boolean => c === 0x3c || c === 0x3e || c === 0x7e; // '<' '>' '~'
const OPEN = 0x2d; // '-'

/** seg_out: `[mark]lower`, or `[mark]lower .. [mark]upper` with either side left out when open. */
const segText: Decoder = (d) => {
  if (d.length !== SegStruct.size) throw malformed("seg", `datum must be ${SegStruct.size} bytes, got ${d.length}`);
  const dv = view(d);
  const lExt = d[SegStruct.offsets.l_ext]!;
  const uExt = d[SegStruct.offsets.u_ext]!;
  const lSigd = dv.getInt8(SegStruct.offsets.l_sigd);
  const uSigd = dv.getInt8(SegStruct.offsets.u_sigd);
  const lowerBits = dv.getUint32(SegStruct.offsets.lower, true);
  const upperBits = dv.getUint32(SegStruct.offsets.upper, true);
  const lower = float4Of(lowerBits);
  const upper = float4Of(upperBits);
  const lowerText = segRestore(lowerBits, lSigd);
  const upperText = segRestore(upperBits, uSigd);
  let s = isMark(lExt) ? String.fromCharCode(lExt) : "";
  if (lower === upper && lExt === uExt) s += lowerText;
  else {
    if (lExt !== OPEN) s += lowerText + " ";
    s += "..";
    if (uExt !== OPEN) {
      s += " ";
      // seg_out also tests l_ext == '~' here, so after a '~' lower bound an upper bound
      // without a mark prints its mark, a NUL, which ends the C string: '~1 .. 2' prints as
      // '~1 .. ' (the npm builds of 15.18, 17 and 18.4 do; Debian's 15.20 prints '~1 .. 2',
      // which the stored bytes cannot tell apart)
      if (isMark(uExt) || lExt === 0x7e) s += String.fromCharCode(uExt);
      s += upperText;
    }
  }
  const nul = s.indexOf("\0");
  return nul < 0 ? s : s.slice(0, nul);
};

// ---- pg_trgm's gtrgm ------------------------------------------------------------------------

/** TRGM after vl_len_: a flag byte, then 3-byte trigrams or a signature bitmap (TRGMHDRSIZE is VARHDRSZ + 1). */
export const TrgmHeader = register(
  defineStruct("TRGM", "contrib/pg_trgm/trgm.h", [
    u8("flag", "ARRKEY 0x01 (trigrams follow), SIGNKEY 0x02 (a signature bitmap follows), ALLISTRUE 0x04 (no bitmap: every bit set)"),
  ] as const),
);
const TRGM_ARRKEY = 0x01;
const TRGM_ALLISTRUE = 0x04;
const TRGM_BYTES = 3;
/** Server encodings of more than one byte per character: EUC_JP .. MULE_INTERNAL (pg_wchar.h pg_enc 1-7). */
const multiByteEncoding = (enc: number): boolean => enc >= 1 && enc <= 7;
/** ISPRINTABLECHAR under KEEPONLYALNUM, which trgm.h defines: an ASCII letter, digit or space. */
const printable = (c: number): boolean => c === 0x20 || (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/**
 * A gtrgm key: a leaf's trigrams printed as show_trgm prints the trigrams of its value (an array
 * of text; a trigram with an unprintable byte as 0x%06x of its three bytes when the database
 * encoding has multi-byte characters, pg_trgm's trgm2int), an internal key's signature as
 * gtsvectorout counts bits, "all true bits" for an ALLISTRUE key, which carries no bitmap.
 */
const gtrgmText: Decoder = (d, ctx) => {
  if (d.length < TrgmHeader.size) throw malformed("gtrgm", `${d.length} bytes, less than its flag byte`);
  const flag = d[TrgmHeader.offsets.flag]!;
  const body = d.subarray(TrgmHeader.size);
  if (flag & TRGM_ARRKEY) {
    if (body.length % TRGM_BYTES) throw malformed("gtrgm", `${body.length} bytes of trigrams, not a multiple of 3`, TrgmHeader.size);
    const multi = multiByteEncoding(ctx.catalog?.encoding ?? 6);
    const out: string[] = [];
    for (let i = 0; i < body.length; i += TRGM_BYTES) {
      const a = body[i]!, b = body[i + 1]!, c = body[i + 2]!;
      const t = multi && !(printable(a) && printable(b) && printable(c))
        ? "0x" + ((a << 16) | (b << 8) | c).toString(16).padStart(6, "0")
        : String.fromCharCode(a, b, c);
      out.push(quoteArrayElement(t));
    }
    return `{${out.join(",")}}`;
  }
  if (flag & TRGM_ALLISTRUE) return "all true bits";
  let ones = 0;
  for (let i = 0; i < body.length; i++) for (let x = body[i]!; x; x &= x - 1) ones++;
  return `${ones} true bits, ${body.length * 8 - ones} false bits`;
};

// ---- the table ---------------------------------------------------------------------------

/**
 * Where each contrib input function lives: the shared library of a C function (pg_proc.probin is
 * $libdir/<name>), or "internal <prosrc>" for one made over a built-in (citext's is textin). A type
 * is taken for a contrib one only when its input function agrees.
 */
export const CONTRIB_LIBRARIES: ReadonlyMap<string, string> = new Map([
  ["citextin", "internal textin"],
  ["hstore_in", "hstore"],
  ["ltree_in", "ltree"],
  ["lquery_in", "ltree"],
  ["ltxtq_in", "ltree"],
  ["cube_in", "cube"],
  ["seg_in", "seg"],
  ["gtrgm_in", "pg_trgm"],
]);

/** Output functions by the type's input function name (pg_proc.proname of typinput). */
export const CONTRIB_DECODERS: ReadonlyMap<string, Decoder> = new Map<string, Decoder>([
  ["citextin", storedText], // citext is stored as text, and citextout is textout
  ["hstore_in", hstoreText],
  ["ltree_in", ltreeText],
  ["lquery_in", lqueryText],
  ["ltxtq_in", ltxtqueryText],
  ["cube_in", cubeText],
  ["seg_in", segText],
  ["gtrgm_in", gtrgmText],
]);

/** Writers of the contrib types whose output is their stored bytes. */
export const CONTRIB_WRITERS: ReadonlyMap<string, ValueWriter> = new Map([["citextin", storedWrite]]);
