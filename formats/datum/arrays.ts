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
