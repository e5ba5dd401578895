// Input functions of contrib extension types, the inverse of contrib.ts, found like the output
// functions by the name of the type's input function (InputTypeInfo.inputFunction): citextin
// (contrib/citext/citext.c), hstore_in (contrib/hstore/hstore_io.c),
// cube_in (contrib/cube/cube.c, cubescan.l, cubeparse.y),
// seg_in (contrib/seg/seg.c, segscan.l, segparse.y). Also the xid family (src/backend/utils/adt/xid.c: xidin, xid8in,
// cidin), whose input differs between versions (15 reads xid and cid with strtoul(str, NULL, 0)
// and no checks, 16 checks the range): pgdisk takes the spelling every version reads alike.
import { FormatError } from "../schema/errors.js";
import { float4In, float8In, textIn, type InputFunction } from "./input.js";
import { cExponential, cExpText, FLT_DIG, HEntry, HENTRY_ISFIRST, HENTRY_ISNULL, HS_FLAG_NEWVERSION, HStoreHeader, NdboxHeader, SegStruct } from "./contrib.js";
import { LTREE_INPUT } from "./input-ltree.js";

/**
 * xidin, cidin, xid8in: decimal digits within the type's range only. Versions read other
 * spellings (spaces, signs, 0x prefixes, trailing text, out-of-range values) differently, so
 * pgdisk refuses them by name rather than guess which reading the server would store.
 */
function transactionId(type: string, size: 4 | 8): InputFunction {
  const max = size === 4 ? 0xffffffffn : 0xffffffffffffffffn;
  const refuse = (text: string): FormatError => new FormatError("DATUM_BAD_INPUT", `pgdisk reads ${type} input only as decimal digits within 0..${max}: "${text}"`);
  return (text) => {
    if (text.length === 0 || text.length > 20) throw refuse(text);
    const out = new Uint8Array(size);
    if (size === 4) {
      // a double holds every 10-digit value exactly: no BigInt on the common path
      let v = 0;
      for (let i = 0; i < text.length; i++) {
        const d = text.charCodeAt(i) - 48;
        if (d < 0 || d > 9) throw refuse(text);
        v = v * 10 + d;
      }
      if (v > 0xffffffff) throw refuse(text);
      for (let i = 0; i < 4; i++) out[i] = (v >>> (8 * i)) & 0xff;
      return out;
    }
    if (!/^\d+$/.test(text) || BigInt(text) > max) throw refuse(text);
    new DataView(out.buffer).setBigUint64(0, BigInt(text), true);
    return out;
  };
}

/** The xid family by type OID (pg_type.dat: xid 28, cid 29, xid8 5069). */
export const XID_INPUT: [number, InputFunction][] = [
  [28, transactionId("xid", 4)],
  [29, transactionId("cid", 4)],
  [5069, transactionId("xid8", 8)],
];

// ---- hstore (contrib/hstore/hstore_io.c: hstore_in, hstoreUniquePairs, hstorePairs) ----

const enc = new TextEncoder();
const SP = (b: number | undefined): boolean => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);
const hstoreEnd = (): FormatError => new FormatError("DATUM_BAD_INPUT", "Unexpected end of string");

/** A parsed pair: key and value bytes (value null: SQL NULL). */
interface HPair {
  key: Uint8Array;
  val: Uint8Array | null;
}

/** PostgreSQL 15's wording for a character hstore_in does not expect: the character and its byte position. */
function hstoreNear(b: Uint8Array, p: number): FormatError {
  let n = 1;
  const c = b[p]!;
  if (c >= 0xf0) n = 4;
  else if (c >= 0xe0) n = 3;
  else if (c >= 0xc0) n = 2;
  return new FormatError("DATUM_BAD_INPUT", `Syntax error near "${new TextDecoder().decode(b.subarray(p, p + n))}" at position ${p}`);
}

/**
 * hstore_in's parse: pairs `key=>value` split by commas, whitespace around them. A key or value
 * is a double-quoted string (backslash escapes any byte) or a bare word (backslash escapes; a
 * key ends at whitespace or "=", a value at whitespace or ","; nothing ends either).
 * An unquoted value spelled NULL in any case is SQL NULL. "=>" takes no space inside.
 */
function hstorePairs(b: Uint8Array): HPair[] {
  let p = 0;
  const buf: number[] = [];
  let escaped = false;
  // one key (inKey) or value; false when the text ends before one starts; p is left on its last byte
  const word = (inKey: boolean): boolean => {
    buf.length = 0;
    escaped = false;
    // skip whitespace; an opening quote, a backslash or another byte starts the word
    for (;; p++) {
      const c = b[p];
      if (c === undefined) return false;
      if (c === 0x22) {
        escaped = true;
        break;
      }
      if (c === 0x3d && inKey) throw hstoreNear(b, p);
      if (c === 0x5c || !SP(c)) break;
    }
    if (escaped) {
      for (p++; ; p++) {
        const c = b[p];
        if (c === undefined) throw hstoreEnd();
        if (c === 0x22) return true;
        if (c === 0x5c) {
          p++;
          if (b[p] === undefined) throw hstoreEnd();
        }
        buf.push(b[p]!);
      }
    }
    // the word's first byte is taken whatever it is (a value may start with "," or "=")
    if (b[p] !== 0x5c) buf.push(b[p++]!);
    for (; ; p++) {
      const c = b[p];
      if (c === 0x5c) {
        p++;
        if (b[p] === undefined) throw hstoreEnd();
        buf.push(b[p]!);
        continue;
      }
      if (c === undefined || (c === 0x3d && inKey) || (c === 0x2c && !inKey)) {
        p--;
        return true;
      }
      if (SP(c)) return true;
      buf.push(c);
    }
  };
  const pairs: HPair[] = [];
  for (;;) {
    if (!word(true)) return pairs;
    const key = Uint8Array.from(buf);
    // "=>", whitespace allowed before the "=" only
    for (p++; ; p++) {
      const c = b[p];
      if (c === 0x3d) break;
      if (c === undefined) throw hstoreEnd();
      if (!SP(c)) throw hstoreNear(b, p);
    }
    p++;
    if (b[p] !== 0x3e) throw b[p] === undefined ? hstoreEnd() : hstoreNear(b, p);
    p++;
    if (!word(false)) throw hstoreEnd();
    const isNull = !escaped && buf.length === 4 && String.fromCharCode(...buf).toUpperCase() === "NULL";
    pairs.push({ key, val: isNull ? null : Uint8Array.from(buf) });
    // a comma next, or the end
    for (p++; ; p++) {
      const c = b[p];
      if (c === undefined) return pairs;
      if (c === 0x2c) break;
      if (!SP(c)) throw hstoreNear(b, p);
    }
    p++;
  }
}

/** hstoreUniquePairs' order: key length, then key bytes. */
function pairOrder(a: HPair, b: HPair): number {
  if (a.key.length !== b.key.length) return a.key.length - b.key.length;
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
  return 0;
}

const sameValue = (a: HPair, b: HPair): boolean => (a.val === null ? b.val === null : b.val !== null && Buffer.compare(a.val, b.val) === 0);

/** hstore_in: the pairs sorted, duplicate keys dropped keeping the first in sorted order, laid out as HStore. */
const hstoreIn: InputFunction = (text) => {
  const pairs = hstorePairs(enc.encode(text));
  // The server sorts with its own qsort, stable for fewer than 7 pairs or input already in order;
  // past that, which of a duplicate key's differing values survives is its quicksort's choice.
  const inOrder = pairs.every((x, i) => i === 0 || pairOrder(pairs[i - 1]!, x) <= 0);
  const sorted = pairs.map((x, i) => [x, i] as const).sort((x, y) => pairOrder(x[0], y[0]) || x[1] - y[1]).map((x) => x[0]);
  const unique: HPair[] = [];
  for (const x of sorted) {
    const last = unique[unique.length - 1];
    if (last && pairOrder(last, x) === 0) {
      if (pairs.length >= 7 && !inOrder && !sameValue(last, x))
        throw new FormatError("DATUM_BAD_INPUT", `pgdisk cannot tell which value of duplicate hstore key "${new TextDecoder().decode(x.key)}" the server keeps (7 or more pairs out of order): "${text}"`);
      continue;
    }
    unique.push(x);
  }
  let strLen = 0;
  for (const x of unique) strLen += x.key.length + (x.val?.length ?? 0);
  const entries = HStoreHeader.size;
  const strBase = entries + 2 * unique.length * HEntry.size;
  const out = new Uint8Array(strBase + strLen);
  const dv = new DataView(out.buffer);
  dv.setUint32(HStoreHeader.offsets.size_, (unique.length | HS_FLAG_NEWVERSION) >>> 0, true);
  let pos = 0;
  unique.forEach((x, i) => {
    out.set(x.key, strBase + pos);
    pos += x.key.length;
    dv.setUint32(entries + 2 * i * HEntry.size, (pos | (i === 0 ? HENTRY_ISFIRST : 0)) >>> 0, true);
    if (x.val) {
      out.set(x.val, strBase + pos);
      pos += x.val.length;
    }
    dv.setUint32(entries + (2 * i + 1) * HEntry.size, (pos | (x.val ? 0 : HENTRY_ISNULL)) >>> 0, true);
  });
  return out;
};

// ---- cube (contrib/cube/cubescan.l, cubeparse.y, cube.c: cube_in) ----

/** CUBE_MAX_DIM */
const CUBE_MAX_DIM = 100;
const POINT_BIT = 0x80000000;
const CUBE_TOKEN = /[ \t\n\r\f\v]+|([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])|./gy;
const cubeSyntax = (): FormatError => new FormatError("DATUM_BAD_INPUT", "invalid input syntax for cube");

/**
 * cube_in: `(x,..),(y,..)` or `[(x,..),(y,..)]`, `(x,..)` or `x,..` (a point);
 * `()` has no dimensions. Each number as float8in reads it. A cube whose corners are equal
 * (by float comparison: NaN never equal) is stored as a point: POINT_BIT and one corner.
 */
const cubeIn: InputFunction = (text, ctx) => {
  // tokens: "#" and a number's text, or a single character ("(", ")", "," or anything else)
  const toks: string[] = [];
  CUBE_TOKEN.lastIndex = 0;
  for (let m; CUBE_TOKEN.lastIndex < text.length && (m = CUBE_TOKEN.exec(text)); ) {
    if (m[1] !== undefined) toks.push(`#${m[1]}`);
    else if (!/^[ \t\n\r\f\v]/.test(m[0])) toks.push(m[0]);
  }
  let p = 0;
  const isNum = (t: string | undefined): boolean => t !== undefined && t[0] === "#";
  const list = (): string[] => {
    const xs: string[] = [];
    if (!isNum(toks[p])) throw cubeSyntax();
    xs.push(toks[p++]!);
    while (toks[p] === "," && isNum(toks[p + 1])) {
      xs.push(toks[p + 1]!);
      p += 2;
    }
    return xs;
  };
  const parenList = (): string[] => {
    if (toks[p] !== "(") throw cubeSyntax();
    p++;
    if (toks[p] === ")") {
      p++;
      return [];
    }
    const xs = list();
    if (toks[p] !== ")") throw cubeSyntax();
    p++;
    return xs;
  };
  let ll: string[];
  let ur: string[] | undefined;
  if (toks[0] === "[") {
    p = 1;
    ll = parenList();
    if (toks[p++] !== ",") throw cubeSyntax();
    ur = parenList();
    if (toks[p++] !== "]") throw cubeSyntax();
  } else if (toks[0] === "(") {
    ll = parenList();
    if (toks[p] === ",") {
      p++;
      ur = parenList();
    }
  } else ll = list();
  if (p !== toks.length) throw cubeSyntax();
  if (ur && ur.length !== ll.length) throw cubeSyntax();
  if (ll.length > CUBE_MAX_DIM) throw cubeSyntax();
  const num = (t: string): number => new DataView(float8In(t.slice(1), ctx).buffer).getFloat64(0, true);
  const lo = ll.map(num);
  const hi = ur?.map(num);
  const point = !hi || lo.every((v, i) => v === hi[i]);
  const dim = lo.length;
  const out = new Uint8Array(NdboxHeader.size + (point ? dim : 2 * dim) * 8);
  const dv = new DataView(out.buffer);
  dv.setUint32(NdboxHeader.offsets.header, (dim | (point ? POINT_BIT : 0)) >>> 0, true);
  lo.forEach((v, i) => dv.setFloat64(NdboxHeader.size + 8 * i, v, true));
  if (!point) hi!.forEach((v, i) => dv.setFloat64(NdboxHeader.size + 8 * (dim + i), v, true));
  return out;
};

// ---- seg (contrib/seg/segscan.l, segparse.y, seg.c: seg_in) ----

/** segscan.l's tokens, longest first where they overlap: spaces, RANGE, PLUMIN, SEGFLOAT, EXTENSION, any other character. */
const SEG_TOKEN = /[ \t\n\r\f]+|(\.\.\.?)|('\+-'|\(\+-\))|([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|([<>~])|[^]/y;
const segSyntax = (): FormatError => new FormatError("DATUM_BAD_INPUT", "bad seg representation");

/** seg.c's significant_digits: digits after leading zeros, signs and a leading "0." (at least the zeros skipped, 1), at most FLT_DIG. */
function segSigDigits(s: string): number {
  let p = 0;
  while (s[p] === "0" || s[p] === "+" || s[p] === "-") p++;
  let zeroes = 1;
  for (; s[p] === "0" || s[p] === "."; p++) if (s[p] === "0") zeroes++;
  let n = 0;
  for (; p < s.length && ((s[p]! >= "0" && s[p]! <= "9") || s[p] === "."); p++) if (s[p] !== ".") n++;
  return Math.min(n || zeroes, FLT_DIG);
}

/** C's `%g` of a double (6 significant digits, trailing zeros removed; glibc's rounding). */
function cG(v: number): string {
  const e = cExponential(v, 5);
  if (!e) return Number.isNaN(v) ? "nan" : v < 0 ? "-inf" : "inf";
  const digits = e.digits.replace(/0+$/, "") || "0";
  if (e.exp < -4 || e.exp >= 6) return cExpText(e.neg, digits, e.exp);
  const sign = e.neg ? "-" : "";
  if (e.exp < 0) return `${sign}0.${"0".repeat(-e.exp - 1)}${digits}`;
  const int = digits.slice(0, e.exp + 1).padEnd(e.exp + 1, "0");
  const frac = digits.slice(e.exp + 1);
  return `${sign}${int}${frac ? "." + frac : ""}`;
}

interface SegBound {
  val: number;
  ext: number;
  sigd: number;
}

/**
 * seg_in: `x`, `x .. y`, `x ..`, `.. y` (each bound a number with an optional mark `<`, `>` or
 * `~`), or `x (+-) d` / `x '+-' d` (the interval x - d .. x + d, in float arithmetic). Each
 * number as float4in reads it, with the significant digits it was written with (at most 6).
 */
const segIn: InputFunction = (text, ctx) => {
  type Tok = { kind: "range" | "plumin" | "float" | "ext" | "other"; text: string };
  const toks: Tok[] = [];
  SEG_TOKEN.lastIndex = 0;
  for (let m; SEG_TOKEN.lastIndex < text.length && (m = SEG_TOKEN.exec(text)); ) {
    const kind = m[1] ? "range" : m[2] ? "plumin" : m[3] ? "float" : m[4] ? "ext" : /^[ \t\n\r\f]/.test(m[0]) ? undefined : "other";
    if (kind) toks.push({ kind, text: m[0] });
  }
  let p = 0;
  const number = (t: Tok | undefined): SegBound => {
    if (t?.kind !== "float") throw segSyntax();
    return { val: new DataView(float4In(t.text, ctx).buffer).getFloat32(0, true), ext: 0, sigd: segSigDigits(t.text) };
  };
  const boundary = (): SegBound => {
    if (toks[p]?.kind !== "ext") return number(toks[p++]);
    const ext = toks[p++]!.text.charCodeAt(0);
    return { ...number(toks[p++]), ext };
  };
  let lower: SegBound;
  let upper: SegBound;
  if (toks[0]?.kind === "range") {
    p = 1;
    upper = boundary();
    lower = { val: -Infinity, ext: 0x2d, sigd: 0 };
  } else {
    lower = boundary();
    const op = toks[p]?.kind;
    if (op === undefined) upper = lower;
    else if (op === "plumin") {
      p++;
      const x = lower;
      const dev = number(toks[p++]);
      const lo = Math.fround(x.val - dev.val);
      const hi = Math.fround(x.val + dev.val);
      const sig = Math.max(x.sigd, dev.sigd);
      lower = { val: lo, ext: 0, sigd: Math.max(segSigDigits(cG(lo)), sig) };
      upper = { val: hi, ext: 0, sigd: Math.max(segSigDigits(cG(hi)), sig) };
    } else if (op === "range") {
      p++;
      if (p === toks.length) upper = { val: Infinity, ext: 0x2d, sigd: 0 };
      else {
        upper = boundary();
        if (lower.val > upper.val) throw new FormatError("DATUM_BAD_INPUT", `swapped boundaries: ${cG(lower.val)} is greater than ${cG(upper.val)}`);
      }
    } else throw segSyntax();
  }
  if (p !== toks.length) throw segSyntax();
  const out = new Uint8Array(SegStruct.size);
  const dv = new DataView(out.buffer);
  dv.setFloat32(SegStruct.offsets.lower, lower.val, true);
  dv.setFloat32(SegStruct.offsets.upper, upper.val, true);
  out[SegStruct.offsets.l_sigd] = lower.sigd;
  out[SegStruct.offsets.u_sigd] = upper.sigd;
  out[SegStruct.offsets.l_ext] = lower.ext;
  out[SegStruct.offsets.u_ext] = upper.ext;
  return out;
};

/** Contrib input functions by the name of the type's input function. */
export const CONTRIB_INPUT: ReadonlyMap<string, InputFunction> = new Map<string, InputFunction>([
  // citext stores its text as text does; case folding happens only in comparisons
  ["citextin", textIn],
  ["hstore_in", hstoreIn],
  ...LTREE_INPUT,
  ["cube_in", cubeIn],
  ["seg_in", segIn],
]);
