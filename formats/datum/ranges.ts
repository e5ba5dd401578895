// range_out for the built-in range types (src/include/utils/rangetypes.h, rangetypes.c).
// Payload: uint32 rangetypid, then the lower and upper bound values if present (each aligned
// to the subtype's alignment relative to the 4-byte-header start; varlena bounds may have
// 1-byte headers, which are not aligned), and a flags byte as the very last byte.
import { FormatError } from "../schema/errors.js";
import type { DecodeContext, DecoderTable } from "./decoder.js";
import { alignBytes, alignUp } from "./types.js";
import { embeddedVarlena } from "./util.js";

const RANGE_EMPTY = 0x01;
const RANGE_LB_INC = 0x02;
const RANGE_UB_INC = 0x04;
const RANGE_LB_INF = 0x08;
const RANGE_UB_INF = 0x10;
const RANGE_LB_NULL = 0x20;
const RANGE_UB_NULL = 0x40;
const VARHDRSZ = 4;

/** pg_range.rngsubtype of the built-in ranges (other ranges need the catalog). */
export const BUILTIN_RANGE_SUBTYPES: Readonly<Record<number, number>> = {
  3904: 23, // int4range
  3906: 1700, // numrange
  3908: 1114, // tsrange
  3910: 1184, // tstzrange
  3912: 1082, // daterange
  3926: 20, // int8range
};

/** range_bound_escape: quote if empty or containing " \ ( ) [ ] , or space; double " and \. */
function boundText(s: string): string {
  const nq = s === "" || /["\\()[\],\s]/.test(s);
  return nq ? '"' + s.replace(/["\\]/g, "$&$&") + '"' : s;
}

export function rangeText(d: Uint8Array, ctx: DecodeContext): string {
  if (d.length < 5) throw new FormatError("DATUM_TRUNCATED", `range datum needs at least 5 bytes, got ${d.length}`);
  const flags = d[d.length - 1]!;
  if (flags & RANGE_EMPTY) return "empty";
  const subtype = BUILTIN_RANGE_SUBTYPES[ctx.typeOid]!;
  const st = ctx.types(subtype)!;
  let off = 4;
  const bound = (): string => {
    let from: number, to: number;
    if (st.len === -1 && d[off] !== 0) {
      const [p, total] = embeddedVarlena(d, off, "range bound");
      [from, to] = [p, off + total];
    } else {
      off = alignUp(off + VARHDRSZ, alignBytes(st.align)) - VARHDRSZ;
      if (st.len > 0) [from, to] = [off, off + st.len];
      else {
        const [p, total] = embeddedVarlena(d, off, "range bound");
        [from, to] = [p, off + total];
      }
    }
    if (to > d.length - 1) throw new FormatError("RANGE_TRUNCATED", "range bound runs into the flags byte", { offset: off });
    off = to;
    return boundText(ctx.toText(d.subarray(from, to), subtype, -1));
  };
  const lower = flags & (RANGE_LB_INF | RANGE_LB_NULL) ? "" : bound();
  const upper = flags & (RANGE_UB_INF | RANGE_UB_NULL) ? "" : bound();
  return `${flags & RANGE_LB_INC ? "[" : "("}${lower},${upper}${flags & RANGE_UB_INC ? "]" : ")"}`;
}

export const RANGE_DECODERS: DecoderTable = Object.fromEntries(Object.keys(BUILTIN_RANGE_SUBTYPES).map((oid) => [oid, rangeText]));
