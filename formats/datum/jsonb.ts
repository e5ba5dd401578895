// jsonb_out (src/include/utils/jsonb.h, src/backend/utils/adt/jsonb.c, jsonb_util.c).
// A JsonbContainer is a uint32 header (count | JB_FSCALAR/JB_FOBJECT/JB_FARRAY), one JEntry
// per child (objects: all keys, then all values), then the children's data. A JEntry holds
// 3 type bits and either the child's length or, every JB_OFFSET_STRIDE-th child (flag
// JENTRY_HAS_OFF), its end offset. Numerics (a whole varlena) and nested containers start
// 4-byte aligned, the padding counted in their length. A top-level scalar is stored as a
// one-element array flagged JB_FSCALAR and printed bare.
import { defineStruct, register, u32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { isUtf8 } from "node:buffer";
import { decodersOf, type WriterTable } from "./decoder.js";
import { jsonString } from "./json.js";
import { numericWrite } from "./numeric.js";
import { putText, textOf, type TextOut, type ValueWriter } from "./text-out.js";
import { alignUp } from "./types.js";
import { embeddedVarlenaSize, utf8Text, view } from "./util.js";

export const JsonbContainer = register(
  defineStruct("JsonbContainer", "src/include/utils/jsonb.h", [
    u32("header", "low 28 bits: number of elements or key/value pairs; 0x10000000 scalar, 0x20000000 object, 0x40000000 array"),
  ] as const),
);

export const JB_CMASK = 0x0fffffff;
export const JB_FSCALAR = 0x10000000;
export const JB_FOBJECT = 0x20000000;
export const JB_FARRAY = 0x40000000;
export const JENTRY_OFFLENMASK = 0x0fffffff;
export const JENTRY_TYPEMASK = 0x70000000;
export const JENTRY_HAS_OFF = 0x80000000;
export const JENTRY_ISSTRING = 0x00000000;
export const JENTRY_ISNUMERIC = 0x10000000;
export const JENTRY_ISBOOL_FALSE = 0x20000000;
export const JENTRY_ISBOOL_TRUE = 0x30000000;
export const JENTRY_ISNULL = 0x40000000;
export const JENTRY_ISCONTAINER = 0x50000000;

/** A text limit: output stops once it passes `limit` characters (cut says it did). */
interface Cut {
  limit: number;
  cut: boolean;
  /** where the value's text starts in the output */
  from: number;
}

const word = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** Where child i of a container lies: its JEntry, its data [from, to) and its data offset. */
function childSpan(b: Uint8Array, entriesAt: number, dataAt: number, end: number, i: number): { je: number; from: number; to: number; off: number } {
  const off = childOffset(b, entriesAt, i);
  const je = word(b, entriesAt + 4 * i);
  const to = childEnd(b, entriesAt, dataAt, end, i, off);
  return { je, from: dataAt + off, to, off };
}

/** Child i's data offset: the sum of lengths back to the nearest entry that stores an end offset. */
function childOffset(b: Uint8Array, entriesAt: number, i: number): number {
  let off = 0;
  for (let j = i - 1; j >= 0; j--) {
    const e = word(b, entriesAt + 4 * j);
    off += e & JENTRY_OFFLENMASK;
    if (e & JENTRY_HAS_OFF) break;
  }
  return off;
}

/** Child i's data end, checked to lie inside its container. */
function childEnd(b: Uint8Array, entriesAt: number, dataAt: number, end: number, i: number, off: number): number {
  const je = word(b, entriesAt + 4 * i);
  const len = je & JENTRY_HAS_OFF ? (je & JENTRY_OFFLENMASK) - off : je & JENTRY_OFFLENMASK;
  const to = dataAt + off + len;
  if (len < 0 || to > end) throw new FormatError("JSONB_BAD_JENTRY", `jsonb child ${i} at data offset ${off} length ${len} runs past its container`, { offset: entriesAt + 4 * i });
  return to;
}

/** escape_json's escapes: the letter after the backslash (u: \u00xx), 0 for bytes copied as they are. */
const JSON_ESCAPE = (() => {
  const t = new Uint8Array(256);
  for (let c = 0; c < 0x20; c++) t[c] = 117;
  t[8] = 98;
  t[12] = 102;
  t[10] = 110;
  t[13] = 114;
  t[9] = 116;
  t[34] = 34;
  t[92] = 92;
  return t;
})();
const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

/**
 * How many times the jsonb writer wrote a string with a backslash in it (an escape, or a string
 * through the decoder's replacements). jsonb's text holds no raw byte below 0x20 and a
 * backslash only there, so COPY's text format with a control character as the delimiter need
 * not scan a jsonb value for bytes to escape when this did not change while it was written.
 */
export const jsonbBackslashes = { count: 0 };

/** A jsonb string (UTF-8 bytes [from, to)) as a JSON string literal (escape_json). */
function putJsonString(b: Uint8Array, from: number, to: number, out: TextOut): void {
  out.reserve(6 * (to - from) + 2);
  const o = out.buf;
  const p0 = out.pos;
  let p = p0;
  let high = 0;
  o[p++] = 34;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    high |= c;
    const e = JSON_ESCAPE[c]!;
    if (e === 0) o[p++] = c;
    else if (e !== 117) {
      o[p++] = 92;
      o[p++] = e;
    } else {
      o[p++] = 92;
      o[p++] = 117;
      o[p++] = 48;
      o[p++] = 48;
      o[p++] = HEX_DIGITS[c >> 4]!;
      o[p++] = HEX_DIGITS[c & 15]!;
    }
  }
  o[p++] = 34;
  // ill-formed UTF-8: printed as the decoder's replacements, as utf8Text gives them
  if (high >= 0x80 && !isUtf8(b.subarray(from, to))) {
    jsonbBackslashes.count++;
    return putText(out, jsonString(utf8Text(b.subarray(from, to))));
  }
  if (p - p0 !== to - from + 2) jsonbBackslashes.count++; // an escape made it longer
  out.pos = p;
}

/** Characters (UTF-16 units, as String.length) of the well-formed UTF-8 in b[from, to). */
function charsOf(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if ((c & 0xc0) !== 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

function putAscii(out: TextOut, s: string): void {
  out.reserve(s.length);
  for (let i = 0; i < s.length; i++) out.buf[out.pos++] = s.charCodeAt(i);
}

/** Two ASCII bytes (", " and ": " between children). */
function put2(out: TextOut, c0: number, c1: number): void {
  out.reserve(2);
  const o = out.buf;
  o[out.pos] = c0;
  o[out.pos + 1] = c1;
  out.pos += 2;
}

/** One ASCII byte (a bracket). */
function put1(out: TextOut, c: number): void {
  out.reserve(1);
  out.buf[out.pos++] = c;
}

/**
 * Write the container at b[start, end) (`start` 4-byte aligned relative to the payload). With
 * `stop`, the text ends (without its closing bracket) once the whole output passes
 * stop.limit characters.
 */
function containerWrite(b: Uint8Array, start: number, end: number, top: boolean, out: TextOut, stop?: Cut): void {
  if (start + 4 > end) throw new FormatError("JSONB_TRUNCATED", "jsonb container header past end", { offset: start });
  const header = word(b, start);
  const count = header & JB_CMASK;
  const isObject = (header & JB_FOBJECT) !== 0;
  if (!isObject && (header & JB_FARRAY) === 0) throw new FormatError("JSONB_BAD_HEADER", `jsonb container header 0x${header.toString(16)} is neither array nor object`, { offset: start });
  const nchildren = isObject ? count * 2 : count;
  const entriesAt = start + 4;
  const dataAt = entriesAt + 4 * nchildren;
  if (dataAt > end) throw new FormatError("JSONB_TRUNCATED", "jsonb JEntry array past end", { offset: start });
  if (top && header & JB_FSCALAR) {
    if (count !== 1 || isObject) throw new FormatError("JSONB_BAD_HEADER", "jsonb scalar container must be a one-element array", { offset: start });
    writeChild(b, entriesAt, dataAt, end, 0, 0, out, stop);
    return;
  }
  // a child starts where the one before it ends: keys and values (and array elements) are
  // written in order, so each run's next offset is known without walking the JEntries back
  // (the values' run starts after the last key: its offset is walked back once)
  let keyOff = 0;
  let valueOff = 0;
  put1(out, isObject ? 123 : 91); // { [
  for (let i = 0; i < count; i++) {
    if (i) put2(out, 44, 32); // ", "
    keyOff = writeChild(b, entriesAt, dataAt, end, i, keyOff, out, stop);
    if (isObject) {
      put2(out, 58, 32); // ": "
      if (i === 0) valueOff = childOffset(b, entriesAt, count);
      valueOff = writeChild(b, entriesAt, dataAt, end, i + count, valueOff, out, stop);
    }
    if (stop && (stop.cut || i < count - 1) && charsOf(out.buf, stop.from, out.pos) > stop.limit) {
      stop.cut = true;
      return;
    }
  }
  put1(out, isObject ? 125 : 93); // } ]
}

/** Write child i of a container, whose data starts at data offset `off`; returns the data offset where it ends. */
function writeChild(b: Uint8Array, entriesAt: number, dataAt: number, end: number, i: number, off: number, out: TextOut, stop: Cut | undefined): number {
  const je = word(b, entriesAt + 4 * i);
  // childEnd's rule, from the JEntry read once
  const len = je & JENTRY_HAS_OFF ? (je & JENTRY_OFFLENMASK) - off : je & JENTRY_OFFLENMASK;
  const from = dataAt + off;
  const to = from + len;
  if (len < 0 || to > end) throw new FormatError("JSONB_BAD_JENTRY", `jsonb child ${i} at data offset ${off} length ${len} runs past its container`, { offset: entriesAt + 4 * i });
  const at = dataAt + ((off + 3) & ~3);
  switch (je & JENTRY_TYPEMASK) {
    case JENTRY_ISSTRING:
      putJsonString(b, from, to, out);
      break;
    case JENTRY_ISNUMERIC: {
      const total = embeddedVarlenaSize(b, at, "jsonb numeric");
      if (at + total > to) throw new FormatError("JSONB_BAD_JENTRY", `jsonb numeric child ${i} overruns its entry`, { offset: at });
      numericWrite(b, at + ((b[at]! & 1) === 1 ? 1 : 4), at + total, out);
      break;
    }
    case JENTRY_ISBOOL_FALSE:
      putAscii(out, "false");
      break;
    case JENTRY_ISBOOL_TRUE:
      putAscii(out, "true");
      break;
    case JENTRY_ISNULL:
      putAscii(out, "null");
      break;
    case JENTRY_ISCONTAINER:
      containerWrite(b, at, to, false, out, stop);
      break;
    default:
      throw new FormatError("JSONB_BAD_JENTRY", `jsonb JEntry type 0x${(je & JENTRY_TYPEMASK).toString(16)}`, { offset: entriesAt + 4 * i });
  }
  return to - dataAt;
}

const jsonbWrite: ValueWriter = (d, s, e, out) => containerWrite(d, s, e, true, out);

export function jsonbText(d: Uint8Array): string {
  return textOf(jsonbWrite, d);
}

/** The first characters of jsonb_out's text: an exact prefix, longer than `limit` when cut. */
export function jsonbTextPrefix(d: Uint8Array, limit: number): { text: string; cut: boolean } {
  const stop: Cut = { limit, cut: false, from: 0 };
  const text = textOf((b, s, e, out) => {
    stop.from = out.pos;
    containerWrite(b, s, e, true, out, stop);
  }, d);
  return { text, cut: stop.cut };
}

export const JSONB_WRITERS: WriterTable = { 3802: jsonbWrite };

export const JSONB_DECODERS = decodersOf(JSONB_WRITERS);

/** A jsonb value as its own datum payload (a container; scalars in a one-element JB_FSCALAR array). */
export interface JsonbValue {
  jsonb: Uint8Array;
}

/** The container header, entry and data layout of the jsonb value at d[0, end). */
function containerOf(d: Uint8Array): { dv: DataView; header: number; count: number; entriesAt: number; dataAt: number } {
  const dv = view(d);
  if (d.length < 4) throw new FormatError("JSONB_TRUNCATED", "jsonb container header past end", { offset: 0 });
  const header = dv.getUint32(0, true);
  const count = header & JB_CMASK;
  const n = header & JB_FOBJECT ? count * 2 : count;
  if (4 + 4 * n > d.length) throw new FormatError("JSONB_TRUNCATED", "jsonb JEntry array past end", { offset: 0 });
  return { dv, header, count, entriesAt: 4, dataAt: 4 + 4 * n };
}

/** Child i of a container as a standalone jsonb value (a scalar wrapped as jsonb stores it). */
function childValue(d: Uint8Array, c: ReturnType<typeof containerOf>, i: number): JsonbValue {
  const { je, from, to, off } = childSpan(d, c.entriesAt, c.dataAt, d.length, i);
  const type = je & JENTRY_TYPEMASK;
  if (type === JENTRY_ISCONTAINER) return { jsonb: d.slice(c.dataAt + alignUp(off, 4), to) };
  const start = type === JENTRY_ISNUMERIC ? c.dataAt + alignUp(off, 4) : from;
  const data = d.subarray(start, to);
  const out = new Uint8Array(8 + data.length);
  const ov = view(out);
  ov.setUint32(0, 1 | JB_FSCALAR | JB_FARRAY, true);
  // the first JEntry of an array stores its end offset (convertJsonbArray: i % JB_OFFSET_STRIDE == 0)
  ov.setUint32(4, type | data.length | JENTRY_HAS_OFF, true);
  out.set(data, 8);
  return { jsonb: out };
}

/** `jsonb -> text`: the value of an object's key, null when absent or not an object. */
export function jsonbObjectField(v: JsonbValue, key: string): JsonbValue | null {
  const d = v.jsonb;
  const c = containerOf(d);
  if (!(c.header & JB_FOBJECT)) return null;
  // keys are stored sorted by (length, bytes); a linear scan is enough for index keys
  for (let i = 0; i < c.count; i++) {
    const k = childSpan(d, c.entriesAt, c.dataAt, d.length, i);
    if (utf8Text(d.subarray(k.from, k.to)) === key) return childValue(d, c, i + c.count);
  }
  return null;
}

/** `jsonb #> text[]`: follow object keys and array subscripts; null where the path leaves the value. */
export function jsonbPathField(v: JsonbValue, path: (string | null)[]): JsonbValue | null {
  let cur: JsonbValue | null = v;
  for (const step of path) {
    if (cur === null || step === null) return null;
    const c = containerOf(cur.jsonb);
    if (c.header & JB_FSCALAR) return null;
    if (c.header & JB_FOBJECT) cur = jsonbObjectField(cur, step);
    else {
      if (!/^-?\d+$/.test(step)) return null;
      let i = Number(step);
      if (i < 0) i += c.count;
      cur = i >= 0 && i < c.count ? childValue(cur.jsonb, c, i) : null;
    }
  }
  return cur;
}

/** The text `->>` gives for a value: strings unquoted, JSON null as SQL NULL, the rest as jsonb_out. */
export function jsonbScalarText(v: JsonbValue | null): string | null {
  if (v === null) return null;
  const c = containerOf(v.jsonb);
  if (!(c.header & JB_FSCALAR)) return jsonbText(v.jsonb);
  const { je, from, to } = childSpan(v.jsonb, c.entriesAt, c.dataAt, v.jsonb.length, 0);
  if ((je & JENTRY_TYPEMASK) === JENTRY_ISSTRING) return utf8Text(v.jsonb.subarray(from, to));
  if ((je & JENTRY_TYPEMASK) === JENTRY_ISNULL) return null;
  return jsonbText(v.jsonb);
}

/** One child of a jsonb container: its JEntry type and its data [from, to) (numerics and containers from their aligned start). */
export interface JsonbChild {
  type: number;
  from: number;
  to: number;
}

/**
 * The container at d[start, end): whether it is an object, an array or a raw scalar (a
 * one-element JB_FSCALAR array), its count (pairs of an object), and its children in stored
 * order (an object's keys, then its values).
 */
export function jsonbContainer(d: Uint8Array, start: number, end: number): { kind: "object" | "array" | "scalar"; count: number; children: JsonbChild[] } {
  if (end - start < 4) throw new FormatError("JSONB_TRUNCATED", "jsonb container header past end", { offset: start });
  const header = word(d, start);
  const count = header & JB_CMASK;
  const n = header & JB_FOBJECT ? count * 2 : count;
  const entriesAt = start + 4;
  const dataAt = entriesAt + 4 * n;
  if (dataAt > end) throw new FormatError("JSONB_TRUNCATED", "jsonb JEntry array past end", { offset: start });
  const children: JsonbChild[] = [];
  for (let i = 0; i < n; i++) {
    const { je, from, to, off } = childSpan(d, entriesAt, dataAt, end, i);
    const type = je & JENTRY_TYPEMASK;
    children.push({ type, from: type === JENTRY_ISNUMERIC || type === JENTRY_ISCONTAINER ? dataAt + alignUp(off, 4) : from, to });
  }
  return { kind: header & JB_FOBJECT ? "object" : header & JB_FSCALAR ? "scalar" : "array", count, children };
}
