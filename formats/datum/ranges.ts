// range_out and multirange_out (src/include/utils/rangetypes.h, multirangetypes.h, rangetypes.c,
// multirangetypes.c), for the built-in ranges and, through the catalog's pg_range, any range
// whose subtype pgdisk decodes.
// Range payload: uint32 rangetypid, then the lower and upper bound values if present (each
// aligned to the subtype's alignment relative to the 4-byte-header start; varlena bounds may
// have 1-byte headers, which are not aligned), and a flags byte as the very last byte.
// Multirange payload: uint32 multirangetypid, uint32 rangeCount, rangeCount - 1 uint32 items
// (every 4th the offset of a range's bounds, the others the length of the previous range's),
// rangeCount flags bytes, then the ranges' bounds, from a start aligned to the subtype.
import { FormatError } from "../schema/errors.js";
import type { DecodeContext, Decoder } from "./decoder.js";
import { alignBytes, alignUp, type TypeInfo } from "./types.js";
import { embeddedVarlena, undecodedText, view } from "./util.js";
import { VARHDRSZ } from "../varlena/varlena.js";

export const RANGE_EMPTY = 0x01;
export const RANGE_LB_INC = 0x02;
export const RANGE_UB_INC = 0x04;
export const RANGE_LB_INF = 0x08;
export const RANGE_UB_INF = 0x10;
export const RANGE_LB_NULL = 0x20;
export const RANGE_UB_NULL = 0x40;
export const MULTIRANGE_ITEM_OFF_BIT = 0x80000000;
export const MULTIRANGE_ITEM_OFFSET_STRIDE = 4;

/** pg_range.rngsubtype of the built-in ranges (other ranges need the catalog). */
export const BUILTIN_RANGE_SUBTYPES: Readonly<Record<number, number>> = {
  3904: 23, // int4range
  3906: 1700, // numrange
  3908: 1114, // tsrange
  3910: 1184, // tstzrange
  3912: 1082, // daterange
  3926: 20, // int8range
};

/** The range type of each built-in multirange type. */
const BUILTIN_MULTIRANGE_RANGES: Readonly<Record<number, number>> = {
  4451: 3904, // int4multirange
  4532: 3906, // nummultirange
  4533: 3908, // tsmultirange
  4534: 3910, // tstzmultirange
  4535: 3912, // datemultirange
  4536: 3926, // int8multirange
};

const rangeSubtype = (ctx: DecodeContext, range: number): number | undefined => BUILTIN_RANGE_SUBTYPES[range] ?? ctx.catalog?.rangeSubtype(range);

/** range_bound_escape: quote if empty or containing " \ ( ) [ ] , or space; double " and \. */
function boundText(s: string): string {
  const nq = s === "" || /["\\()[\],\s]/.test(s);
  return nq ? '"' + s.replace(/["\\]/g, "$&$&") + '"' : s;
}

export const RANGE_FLAGS = { empty: RANGE_EMPTY, lbInc: RANGE_LB_INC, ubInc: RANGE_UB_INC, lbInf: RANGE_LB_INF, ubInf: RANGE_UB_INF, lbNull: RANGE_LB_NULL, ubNull: RANGE_UB_NULL } as const;

/** Where a range's bound values are: each as [whole datum start, end, payload start] (varlena header included in the whole), or null when absent. */
export interface RangeBoundSpans {
  lower: [number, number, number] | null;
  upper: [number, number, number] | null;
  /** where the bounds end */
  end: number;
}

/**
 * Locate the bound values of a range that start at `from` (aligned for the subtype in the
 * 4-byte-header form) and end at or before `end`, for a subtype of length `len` and alignment
 * `align`.
 */
export function rangeBoundSpans(d: Uint8Array, from: number, end: number, flags: number, len: number, align: TypeInfo["align"]): RangeBoundSpans {
  if (flags & RANGE_EMPTY) return { lower: null, upper: null, end: from };
  let off = from;
  const bound = (): [number, number, number] => {
    let whole: number, at: number, to: number;
    if (len === -1 && d[off] !== 0) {
      const [p, total] = embeddedVarlena(d, off, "range bound");
      [whole, at, to] = [off, p, off + total];
    } else {
      off = from + alignUp(off - from, alignBytes(align));
      if (len > 0) [whole, at, to] = [off, off, off + len];
      else if (len === -1) {
        const [p, total] = embeddedVarlena(d, off, "range bound");
        [whole, at, to] = [off, p, off + total];
      } else {
        const nul = d.indexOf(0, off);
        [whole, at, to] = [off, off, nul < 0 ? d.length : nul + 1];
        if (nul < 0 || to > end) throw new FormatError("RANGE_TRUNCATED", "cstring range bound has no terminator", { offset: off });
      }
    }
    if (to > end) throw new FormatError("RANGE_TRUNCATED", "range bound runs past the end of its range", { offset: off });
    off = to;
    return [whole, to, at];
  };
  const lower = flags & (RANGE_LB_INF | RANGE_LB_NULL) ? null : bound();
  const upper = flags & (RANGE_UB_INF | RANGE_UB_NULL) ? null : bound();
  return { lower, upper, end: off };
}

/**
 * The text of a range whose bound values start at `from` (aligned for the subtype in the
 * 4-byte-header form) and end at or before `end`; returns the text and where the bounds end.
 */
function boundsText(d: Uint8Array, from: number, end: number, flags: number, subtype: number, ctx: DecodeContext): [string, number] {
  if (flags & RANGE_EMPTY) return ["empty", from];
  const st = ctx.types(subtype);
  if (!st) throw new FormatError("RANGE_UNKNOWN_SUBTYPE", `range subtype ${subtype} is unknown, so its bounds cannot be located`, { offset: from });
  const spans = rangeBoundSpans(d, from, end, flags, st.len, st.align);
  // a cstring bound's text leaves out its terminator
  const text = (s: [number, number, number] | null): string => (s ? boundText(ctx.toText(d.subarray(s[2], st.len === -2 ? s[1] - 1 : s[1]), subtype, -1)) : "");
  return [`${flags & RANGE_LB_INC ? "[" : "("}${text(spans.lower)},${text(spans.upper)}${flags & RANGE_UB_INC ? "]" : ")"}`, spans.end];
}

/** The ranges of a multirange payload: each range's flags and where its bounds start; throws on a malformed item array. */
export function multirangeSpans(d: Uint8Array, align: TypeInfo["align"]): { flags: number; begin: number }[] {
  if (d.length < 8) throw new FormatError("DATUM_TRUNCATED", `multirange datum needs at least 8 bytes, got ${d.length}`);
  const dv = view(d);
  const count = dv.getUint32(4, true);
  if (count === 0) return [];
  const flagsAt = 8 + 4 * (count - 1);
  if (flagsAt + count > d.length) throw new FormatError("MULTIRANGE_TRUNCATED", `multirange of ${count} ranges cannot fit in ${d.length + VARHDRSZ} bytes`, { offset: 4 });
  const begin = alignUp(flagsAt + count + VARHDRSZ, alignBytes(align)) - VARHDRSZ;
  const out: { flags: number; begin: number }[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0) {
      const item = dv.getUint32(8 + 4 * (i - 1), true);
      offset = item & MULTIRANGE_ITEM_OFF_BIT ? item & ~MULTIRANGE_ITEM_OFF_BIT : offset + item;
      if (i % MULTIRANGE_ITEM_OFFSET_STRIDE === 0 && !(item & MULTIRANGE_ITEM_OFF_BIT)) throw new FormatError("MULTIRANGE_BAD_ITEM", `multirange item ${i} should hold an offset`, { offset: 8 + 4 * (i - 1) });
    }
    if (begin + offset > d.length) throw new FormatError("MULTIRANGE_TRUNCATED", `range ${i + 1} of the multirange starts past its end`, { offset: 8 + 4 * (i - 1) });
    out.push({ flags: d[flagsAt + i]!, begin: begin + offset });
  }
  return out;
}

export const rangeText: Decoder = (d, ctx) => {
  if (d.length < 5) throw new FormatError("DATUM_TRUNCATED", `range datum needs at least 5 bytes, got ${d.length}`);
  const subtype = rangeSubtype(ctx, ctx.typeOid);
  if (subtype === undefined) return undecodedText(d, ctx.typeOid, ctx.info);
  return boundsText(d, 4, d.length - 1, d[d.length - 1]!, subtype, ctx)[0];
};

const ANYRANGEOID = 3831;

/**
 * A datum declared anyrange (a BRIN inclusion opclass's stored union, a polymorphic column of
 * a catalog): range_out of the range type its own header names.
 */
const anyrangeText: Decoder = (d, ctx) => {
  if (d.length < 5) throw new FormatError("DATUM_TRUNCATED", `range datum needs at least 5 bytes, got ${d.length}`);
  const rangetypid = view(d).getUint32(0, true);
  if (rangetypid === ANYRANGEOID) throw new FormatError("RANGE_UNKNOWN_SUBTYPE", "an anyrange datum names anyrange as its range type");
  return ctx.toText(d, rangetypid, -1);
};

/** The output functions of pseudo-types whose datums name their real type. */
export const POLYMORPHIC_RANGE_DECODERS = { [ANYRANGEOID]: anyrangeText };

export const multirangeText: Decoder = (d, ctx) => {
  if (d.length < 8) throw new FormatError("DATUM_TRUNCATED", `multirange datum needs at least 8 bytes, got ${d.length}`);
  const range = BUILTIN_MULTIRANGE_RANGES[ctx.typeOid] ?? ctx.catalog?.multirangeRange(ctx.typeOid);
  const subtype = range === undefined ? undefined : rangeSubtype(ctx, range);
  const st = subtype === undefined ? undefined : ctx.types(subtype);
  if (range === undefined || subtype === undefined || !st) return undecodedText(d, ctx.typeOid, ctx.info);
  const rangeCtx: DecodeContext = { ...ctx, typeOid: range, info: ctx.types(range) };
  const parts = multirangeSpans(d, st.align).map((r) => boundsText(d, r.begin, d.length, r.flags, subtype, rangeCtx)[0]);
  return `{${parts.join(",")}}`;
};
