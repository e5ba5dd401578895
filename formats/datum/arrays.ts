// array_out (src/include/utils/array.h, src/backend/utils/adt/arrayfuncs.c), plus
// int2vectorout / oidvectorout. The caller passes the payload after the varlena header; every
// offset in ArrayType (dataoffset included) counts from the start of the 4-byte-header form,
// so payload offset = array offset - 4 (this also holds when the array was stored with a
// 1-byte header). Elements are in row-major order, NULLs take no space, and each element is
// padded to its type's alignment; varlena elements carry their own (4-byte) headers.
import { defineStruct, i32, register, u32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecodeContext, DecoderTable } from "./decoder.js";
import { alignBytes, alignUp, type TypeLookup } from "./types.js";
import { embeddedVarlena, view } from "./util.js";
import type { Code } from "../codes/index.js";
import { VARHDRSZ } from "../varlena/varlena.js";
import { maxAlign } from "../page/page.js";
import { putText, type ValueWriter } from "./text-out.js";

/** ArrayType after vl_len_ (the caller strips the varlena header). */
export const ArrayTypeHeader = register(
  defineStruct("ArrayType", "src/include/utils/array.h", [
    i32("ndim", "number of dimensions, 0..6 (0: empty array)"),
    i32("dataoffset", "0 if no null bitmap; else offset of the element data from the start of the 4-byte-header varlena"),
    u32("elemtype", "element type OID"),
  ] as const),
);

const MAXDIM = 6;
const BOX_OID = 603;
/** typdelim of an element type: box is the only built-in type whose arrays do not use ','. */
export const arrayDelimiter = (elemtype: number): string => (elemtype === BOX_OID ? ";" : ",");

export interface DecodedArray {
  elemtype: number;
  dims: number[];
  lbounds: number[];
  /** elements in row-major order: their bytes (varlena payload without header), or null */
  elements: (Uint8Array | null)[];
  /** the same elements as whole datums (a varlena with its header, a cstring with its terminator) */
  datums: (Uint8Array | null)[];
}

/** Split an array payload into its elements. Needs the element type's length and alignment. */
export function readArray(d: Uint8Array, types: TypeLookup): DecodedArray {
  const err = (code: Code, msg: string, offset?: number): FormatError => new FormatError(code, `array: ${msg}`, { offset });
  if (d.length < ArrayTypeHeader.size) throw err("ARRAY_TRUNCATED", `header needs ${ArrayTypeHeader.size} bytes, got ${d.length}`);
  const dv = view(d);
  const ndim = dv.getInt32(ArrayTypeHeader.offsets.ndim, true);
  const dataoffset = dv.getInt32(ArrayTypeHeader.offsets.dataoffset, true);
  const elemtype = dv.getUint32(ArrayTypeHeader.offsets.elemtype, true);
  if (ndim < 0 || ndim > MAXDIM) throw err("ARRAY_BAD_NDIM", `ndim ${ndim} outside 0..${MAXDIM}`, 0);
  const dimsAt = ArrayTypeHeader.size;
  const bitmapAt = dimsAt + 8 * ndim;
  if (d.length < bitmapAt) throw err("ARRAY_TRUNCATED", `dimensions need ${bitmapAt} bytes, got ${d.length}`);
  const dims: number[] = [];
  const lbounds: number[] = [];
  let nitems = ndim === 0 ? 0 : 1;
  for (let i = 0; i < ndim; i++) {
    const n = dv.getInt32(dimsAt + 4 * i, true);
    if (n < 0) throw err("ARRAY_BAD_DIM", `dimension ${i + 1} has length ${n}`, dimsAt + 4 * i);
    dims.push(n);
    lbounds.push(dv.getInt32(dimsAt + 4 * ndim + 4 * i, true));
    nitems *= n;
  }
  if (nitems > d.length * 8 + 8) throw err("ARRAY_TOO_MANY_ITEMS", `${nitems} items cannot fit in ${d.length} bytes`);
  const hasNulls = dataoffset !== 0;
  const dataAt = hasNulls ? dataoffset - VARHDRSZ : maxAlign(bitmapAt + VARHDRSZ) - VARHDRSZ;
  if (hasNulls && (dataAt < bitmapAt + Math.ceil(nitems / 8) || dataAt > d.length)) throw err("ARRAY_BAD_DATAOFFSET", `dataoffset ${dataoffset} is inconsistent with ${nitems} items`, ArrayTypeHeader.offsets.dataoffset);
  const elements: (Uint8Array | null)[] = [];
  const datums: (Uint8Array | null)[] = [];
  if (nitems === 0) return { elemtype, dims, lbounds, elements, datums };
  const et = types(elemtype);
  if (!et) throw err("ARRAY_UNKNOWN_ELEMTYPE", `element type ${elemtype} is unknown, so its elements cannot be located`);
  const align = alignBytes(et.align);
  let off = dataAt;
  for (let i = 0; i < nitems; i++) {
    if (hasNulls && (d[bitmapAt + (i >> 3)]! & (1 << (i & 7))) === 0) {
      elements.push(null);
      datums.push(null);
      continue;
    }
    off = dataAt + alignUp(off - dataAt, align);
    let from: number, to: number;
    if (et.len > 0) [from, to] = [off, off + et.len];
    else if (et.len === -1) {
      const [p, total] = embeddedVarlena(d, off, `element ${i + 1}`);
      [from, to] = [p, off + total];
    } else {
      const nul = d.indexOf(0, off);
      if (nul < 0) throw err("ARRAY_TRUNCATED", `cstring element ${i + 1} has no terminator`, off);
      [from, to] = [off, nul];
    }
    if (to > d.length) throw err("ARRAY_TRUNCATED", `element ${i + 1} runs past the end`, off);
    elements.push(d.subarray(from, to));
    datums.push(d.subarray(off, et.len === -2 ? to + 1 : to));
    off = et.len === -2 ? to + 1 : to;
  }
  return { elemtype, dims, lbounds, elements, datums };
}

const SPACE = /[ \t\n\r\v\f]/;

/** array_out's quoting: empty strings, NULL (any case), and text with " \ { } , or whitespace. */
export function quoteArrayElement(s: string, delim = ","): string {
  const needs = s === "" || /^null$/i.test(s) || /["\\{}]/.test(s) || s.includes(delim) || SPACE.test(s);
  return needs ? '"' + s.replace(/["\\]/g, "\\$&") + '"' : s;
}

/**
 * array_out. With `limit`, a one-dimensional array stops once its text passes `limit`
 * characters and returns that prefix (without the closing brace).
 */
export function arrayText(d: Uint8Array, ctx: DecodeContext, limit?: number): string {
  const a = readArray(d, ctx.types);
  if (a.elements.length === 0) return "{}";
  const delim = arrayDelimiter(a.elemtype);
  if (limit !== undefined && a.dims.length === 1 && a.lbounds[0] === 1) {
    let s = "{";
    for (let i = 0; i < a.elements.length; i++) {
      const e = a.elements[i]!;
      s += (i ? delim : "") + (e === null ? "NULL" : quoteArrayElement(ctx.toText(e, a.elemtype, ctx.typmod), delim));
      if (s.length > limit && i < a.elements.length - 1) return s;
    }
    return s + "}";
  }
  const texts = a.elements.map((e) => (e === null ? "NULL" : quoteArrayElement(ctx.toText(e, a.elemtype, ctx.typmod), delim)));
  let k = 0;
  const nest = (dim: number): string => {
    const parts: string[] = [];
    for (let i = 0; i < a.dims[dim]!; i++) parts.push(dim === a.dims.length - 1 ? texts[k++]! : nest(dim + 1));
    return `{${parts.join(delim)}}`;
  };
  const body = nest(0);
  if (a.lbounds.every((l) => l === 1)) return body;
  return a.dims.map((n, i) => `[${a.lbounds[i]}:${a.lbounds[i]! + n - 1}]`).join("") + "=" + body;
}

/** int2vectorout / oidvectorout: the elements separated by single spaces. */
function vectorText(d: Uint8Array, ctx: DecodeContext): string {
  return readArray(d, ctx.types)
    .elements.map((e) => (e === null ? "" : ctx.toText(e, ctx.typeOid === 22 ? 21 : 26, -1)))
    .join(" ");
}

export const VECTOR_DECODERS: DecoderTable = {
  22: vectorText, // int2vector
  30: vectorText, // oidvector
};

/** Characters that make array_out quote an element (with the ',' delimiter). */
const QUOTING_CHARS = ' "\\{},\t\n\r\v\f';

/**
 * Whether no element text over `alphabet` can need array_out's quotes: none of its characters
 * does, and it cannot spell NULL (any case) nor be empty (every writer with an alphabet writes
 * at least one character).
 */
export function alphabetNeedsNoQuotes(alphabet: string): boolean {
  for (const c of QUOTING_CHARS) if (alphabet.includes(c)) return false;
  return !/[uU]/.test(alphabet) || !/[lL]/.test(alphabet);
}

/**
 * array_out as a writer, for arrays of a fixed-length element type whose text never needs
 * quoting (alphabetNeedsNoQuotes): each element written by its own writer, NULLs, nested
 * dimensions and lower bounds as arrayText writes them. Anything readArray would refuse, or an
 * element type other than `elemType` in the header, goes to `slow` (arrayText's path), which
 * gives the same text or error.
 */
export function fixedArrayWriter(elemType: number, elemLen: number, elemAlign: number, elemWrite: ValueWriter, slow: ValueWriter): ValueWriter {
  const dims = new Int32Array(MAXDIM);
  const lbounds = new Int32Array(MAXDIM);
  return (b, s, e, out) => {
    if (e - s < ArrayTypeHeader.size) return slow(b, s, e, out);
    const ndim = i32At(b, s + ArrayTypeHeader.offsets.ndim);
    const dataoffset = i32At(b, s + ArrayTypeHeader.offsets.dataoffset);
    if (ndim < 0 || ndim > MAXDIM || i32At(b, s + ArrayTypeHeader.offsets.elemtype) >>> 0 !== elemType) return slow(b, s, e, out);
    const dimsAt = s + ArrayTypeHeader.size;
    const bitmapAt = dimsAt + 8 * ndim;
    if (bitmapAt > e) return slow(b, s, e, out);
    let nitems = ndim === 0 ? 0 : 1;
    let bounds = false;
    for (let i = 0; i < ndim; i++) {
      dims[i] = i32At(b, dimsAt + 4 * i);
      lbounds[i] = i32At(b, dimsAt + 4 * ndim + 4 * i);
      if (dims[i]! < 0) return slow(b, s, e, out);
      if (lbounds[i] !== 1) bounds = true;
      nitems *= dims[i]!;
    }
    if (nitems === 0) {
      out.reserve(2);
      out.buf[out.pos++] = 123;
      out.buf[out.pos++] = 125;
      return;
    }
    if (nitems > (e - s) * 8 + 8) return slow(b, s, e, out);
    const hasNulls = dataoffset !== 0;
    const dataAt = hasNulls ? s + dataoffset - VARHDRSZ : s + maxAlign(bitmapAt - s + VARHDRSZ) - VARHDRSZ;
    if (hasNulls && (dataAt < bitmapAt + Math.ceil(nitems / 8) || dataAt > e)) return slow(b, s, e, out);
    // every element inside the datum, before anything is written
    let off = dataAt;
    for (let i = 0; i < nitems; i++) {
      if (hasNulls && (b[bitmapAt + (i >> 3)]! & (1 << (i & 7))) === 0) continue;
      off = dataAt + alignUp(off - dataAt, elemAlign) + elemLen;
      if (off > e) return slow(b, s, e, out);
    }
    if (bounds) {
      let t = "";
      for (let i = 0; i < ndim; i++) t += `[${lbounds[i]}:${lbounds[i]! + dims[i]! - 1}]`;
      putText(out, t + "=");
    }
    let item = 0;
    off = dataAt;
    const nest = (dim: number): void => {
      out.reserve(1);
      out.buf[out.pos++] = 123;
      for (let j = 0; j < dims[dim]!; j++) {
        if (j) {
          out.reserve(1);
          out.buf[out.pos++] = 44;
        }
        if (dim < ndim - 1) nest(dim + 1);
        else {
          const i = item++;
          if (hasNulls && (b[bitmapAt + (i >> 3)]! & (1 << (i & 7))) === 0) {
            out.reserve(4);
            out.buf[out.pos++] = 78;
            out.buf[out.pos++] = 85;
            out.buf[out.pos++] = 76;
            out.buf[out.pos++] = 76;
          } else {
            off = dataAt + alignUp(off - dataAt, elemAlign);
            elemWrite(b, off, off + elemLen, out);
            off += elemLen;
          }
        }
      }
      out.reserve(1);
      out.buf[out.pos++] = 125;
    };
    nest(0);
  };
}

const i32At = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);
