// array_in (src/backend/utils/adt/arrayfuncs.c): '{1,2,NULL}', quoted and backslash-escaped
// elements, nested braces for more dimensions, explicit bounds '[0:1]={1,2}'; the inverse of
// arrays.ts. The payload is the ArrayType header, dimensions and lower bounds, the null bitmap
// when an element is NULL (dataoffset set), padding to MAXALIGN, then the elements, each
// padded to the element type's alignment (varlena elements with 4-byte headers). The column's
// typmod applies to every element.
import { FormatError } from "../schema/errors.js";
import { ArrayTypeHeader } from "./arrays.js";
import type { InputContext, InputFunction } from "./input.js";
import { alignBytes, alignUp, type TypeInfo } from "./types.js";
import { isSpace } from "./util.js";
import { VARHDRSZ, varlena4B } from "../varlena/varlena.js";
import { maxAlign } from "../page/page.js";

const MAXDIM = 6;
const MAX_ARRAY_SIZE = Math.floor(0x3fffffff / 8); // MaxAllocSize / sizeof(Datum)

/** The element type as array_in needs it: layout, input function, and the error a NULL element gets (a NOT NULL domain). */
export interface ArrayElement {
  oid: number;
  len: number;
  align: TypeInfo["align"];
  input: InputFunction;
  nullError?: string;
}


function malformed(text: string, detail?: string): FormatError {
  return new FormatError("DATUM_BAD_INPUT", `malformed array literal: "${text}"`, {}, detail);
}

/** atoi: optional sign and digits at the start, 0 if none. */
const atoi = (s: string): number => Number(/^[+-]?\d*/.exec(s)![0].replace(/^([+-]?)$/, "$10")) | 0;

type State = "none" | "levelStarted" | "elemStarted" | "quotedStarted" | "quotedDone" | "levelDone" | "elemDelimited" | "levelDelimited";

/** ArrayCount: the dimensions the braces describe (none for '{}'), checking the structure as the server does. */
function countDims(text: string, s: string, delim: string): number[] {
  let nest = 0;
  let ndim = 1;
  const temp = new Array<number>(MAXDIM).fill(0);
  const nelems = new Array<number>(MAXDIM).fill(1);
  const nelemsLast = new Array<number>(MAXDIM).fill(0);
  let inQuotes = false;
  let empty = true;
  let state: State = "none";
  let p = 0;
  const unexpected = (c: string): FormatError => malformed(text, `Unexpected "${c}" character.`);
  for (let done = false; !done; ) {
    for (let itemDone = false; !itemDone; ) {
      if (state === "elemStarted" || state === "quotedStarted") empty = false;
      const c = s[p];
      if (c === undefined) throw malformed(text, "Unexpected end of input.");
      if (c === "\\") {
        if (state !== "levelStarted" && state !== "elemStarted" && state !== "quotedStarted" && state !== "elemDelimited") throw unexpected("\\");
        if (state !== "quotedStarted") state = "elemStarted";
        if (s[p + 1] === undefined) throw malformed(text, "Unexpected end of input.");
        p++;
      } else if (c === '"') {
        if (state !== "levelStarted" && state !== "quotedStarted" && state !== "elemDelimited") throw malformed(text, "Unexpected array element.");
        inQuotes = !inQuotes;
        state = inQuotes ? "quotedStarted" : "quotedDone";
      } else if (c === "{" && !inQuotes) {
        if (state !== "none" && state !== "levelStarted" && state !== "levelDelimited") throw unexpected("{");
        state = "levelStarted";
        if (nest >= MAXDIM) throw new FormatError("DATUM_BAD_INPUT", `number of array dimensions (${nest + 1}) exceeds the maximum allowed (${MAXDIM})`);
        temp[nest] = 0;
        nest++;
        if (ndim < nest) ndim = nest;
      } else if (c === "}" && !inQuotes) {
        if (state !== "elemStarted" && state !== "quotedDone" && state !== "levelDone" && !(nest === 1 && state === "levelStarted")) throw unexpected("}");
        state = "levelDone";
        if (nest === 0) throw malformed(text, 'Unmatched "}" character.');
        nest--;
        if (nelemsLast[nest] !== 0 && nelems[nest] !== nelemsLast[nest]) throw malformed(text, "Multidimensional arrays must have sub-arrays with matching dimensions.");
        nelemsLast[nest] = nelems[nest];
        nelems[nest] = 1;
        if (nest === 0) done = itemDone = true;
        else temp[nest - 1]++;
      } else if (!inQuotes && c === delim) {
        if (state !== "elemStarted" && state !== "quotedDone" && state !== "levelDone") throw unexpected(delim);
        state = state === "levelDone" ? "levelDelimited" : "elemDelimited";
        itemDone = true;
        nelems[nest - 1]++;
      } else if (!inQuotes && !isSpace(c) && c !== "{" && c !== "}") {
        if (state !== "levelStarted" && state !== "elemStarted" && state !== "elemDelimited") throw malformed(text, "Unexpected array element.");
        state = "elemStarted";
      }
      if (!itemDone) p++;
    }
    temp[ndim - 1]++;
    p++;
  }
  for (; p < s.length; p++) if (!isSpace(s[p])) throw malformed(text, "Junk after closing right brace.");
  return empty ? [] : temp.slice(0, ndim);
}

/** ReadArrayStr: the element texts in row-major order (null: an unquoted NULL). */
function elementTexts(text: string, s: string, ndim: number, delim: string): { text: string | null; }[] {
  const out: { text: string | null }[] = [];
  let p = 0;
  let nest = 0;
  let inQuotes = false;
  for (let done = false; !done; ) {
    let item = "";
    let kept = 0; // item length up to its last significant character (trailing blanks dropped)
    let leadingSpace = true;
    let quoted = false;
    for (let itemDone = false; !itemDone; ) {
      const c = s[p];
      if (c === undefined) throw malformed(text);
      if (c === "\\") {
        p++;
        if (s[p] === undefined) throw malformed(text);
        item += s[p++];
        kept = item.length;
        leadingSpace = false;
        quoted = true;
      } else if (c === '"') {
        inQuotes = !inQuotes;
        if (inQuotes) leadingSpace = false;
        else kept = item.length;
        quoted = true;
        p++;
      } else if (c === "{" && !inQuotes) {
        if (nest >= ndim) throw malformed(text);
        nest++;
        p++;
      } else if (c === "}" && !inQuotes) {
        if (nest === 0) throw malformed(text);
        nest--;
        if (nest === 0) done = itemDone = true;
        p++;
      } else if (inQuotes) {
        item += c;
        p++;
      } else if (c === delim) {
        itemDone = true;
        p++;
      } else if (isSpace(c)) {
        if (!leadingSpace) item += c;
        p++;
      } else {
        item += c;
        kept = item.length;
        leadingSpace = false;
        p++;
      }
    }
    const value = item.slice(0, kept);
    out.push({ text: !quoted && value.toLowerCase() === "null" ? null : value });
  }
  return out;
}

/** array_in for one element type. */
export function arrayInput(elem: ArrayElement, delim = ","): InputFunction {
  const align = alignBytes(elem.align);
  return (text: string, ctx: InputContext): Uint8Array => {
    let p = 0;
    const dims: number[] = [];
    const lbounds: number[] = [];
    // explicit dimensions: [n] or [m:n] items, blanks between them
    for (;;) {
      while (isSpace(text[p])) p++;
      if (text[p] !== "[") break;
      p++;
      if (dims.length >= MAXDIM) throw new FormatError("DATUM_BAD_INPUT", `number of array dimensions (${dims.length + 1}) exceeds the maximum allowed (${MAXDIM})`);
      let q = p;
      while (/[0-9+-]/.test(text[q] ?? "")) q++;
      if (q === p) throw malformed(text, '"[" must introduce explicitly-specified array dimensions.');
      let lb = 1;
      if (text[q] === ":") {
        lb = atoi(text.slice(p, q));
        p = q + 1;
        q = p;
        while (/[0-9+-]/.test(text[q] ?? "")) q++;
        if (q === p) throw malformed(text, "Missing array dimension value.");
      }
      if (text[q] !== "]") throw malformed(text, 'Missing "]" after array dimensions.');
      const ub = atoi(text.slice(p, q));
      p = q + 1;
      if (ub < lb) throw new FormatError("DATUM_BAD_INPUT", "upper bound cannot be less than lower bound");
      dims.push(ub - lb + 1);
      lbounds.push(lb);
    }
    let braceDims: number[];
    if (dims.length === 0) {
      if (text[p] !== "{") throw malformed(text, 'Array value must start with "{" or dimension information.');
      braceDims = countDims(text, text.slice(p), delim);
      dims.push(...braceDims);
      for (let i = 0; i < dims.length; i++) lbounds.push(1);
    } else {
      if (text[p] !== "=") throw malformed(text, 'Missing "=" after array dimensions.');
      p++;
      while (isSpace(text[p])) p++;
      if (text[p] !== "{") throw malformed(text, 'Array contents must start with "{".');
      braceDims = countDims(text, text.slice(p), delim);
      if (braceDims.length !== dims.length || braceDims.some((d, i) => d !== dims[i])) throw malformed(text, "Specified array dimensions do not match array contents.");
    }
    const header = new Uint8Array(ArrayTypeHeader.size);
    const hv = new DataView(header.buffer);
    hv.setUint32(ArrayTypeHeader.offsets.elemtype, elem.oid, true);
    if (braceDims.length === 0) return header; // the empty array: ndim 0, no dimensions
    let nitems = 1;
    for (const d of dims) {
      nitems *= d;
      if (nitems > MAX_ARRAY_SIZE) throw new FormatError("DATUM_BAD_INPUT", `array size exceeds the maximum allowed (${MAX_ARRAY_SIZE})`);
    }
    const texts = elementTexts(text, text.slice(p), dims.length, delim);
    if (texts.length !== nitems) throw malformed(text);
    const values: (Uint8Array | null)[] = texts.map((t) => {
      if (t.text === null) {
        if (elem.nullError) throw new FormatError("DATUM_BAD_INPUT", elem.nullError);
        return null;
      }
      const v = elem.input(t.text, { ...ctx });
      if (elem.len !== -1) return v;
      return varlena4B(v);
    });
    const hasNulls = values.includes(null);
    const ndim = dims.length;
    // offsets in the 4-byte-header form: the payload starts VARHDRSZ later
    const bitmapAt = VARHDRSZ + ArrayTypeHeader.size + 8 * ndim;
    const dataAt = maxAlign(bitmapAt + (hasNulls ? Math.ceil(nitems / 8) : 0));
    let dataLen = 0;
    for (const v of values) if (v) dataLen = alignUp(dataLen + v.length, align);
    const out = new Uint8Array(dataAt - VARHDRSZ + dataLen);
    out.set(header);
    const dv = new DataView(out.buffer);
    dv.setInt32(ArrayTypeHeader.offsets.ndim, ndim, true);
    dv.setInt32(ArrayTypeHeader.offsets.dataoffset, hasNulls ? dataAt : 0, true);
    for (let i = 0; i < ndim; i++) {
      dv.setInt32(ArrayTypeHeader.size + 4 * i, dims[i], true);
      dv.setInt32(ArrayTypeHeader.size + 4 * ndim + 4 * i, lbounds[i], true);
    }
    let off = dataAt - VARHDRSZ;
    values.forEach((v, i) => {
      if (v === null) return;
      if (hasNulls) out[bitmapAt - VARHDRSZ + (i >> 3)] |= 1 << (i & 7);
      out.set(v, off);
      off = dataAt - VARHDRSZ + alignUp(off - (dataAt - VARHDRSZ) + v.length, align);
    });
    return out;
  };
}
