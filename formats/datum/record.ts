// record_out (src/backend/utils/adt/rowtypes.c): "(v1,v2,...)", NULL as nothing, a value quoted
// when empty or holding a double quote, backslash, parenthesis, comma or white space; quotes
// and backslashes inside doubled.
import type { TupleDesc } from "../heap/descriptor.js";
import { walkAttributes } from "../heap/deform.js";
import { readVarlenaHeader } from "../varlena/varlena.js";
import { FormatError } from "../schema/errors.js";

/** Quote one field the way record_out does. */
export function recordField(v: string): string {
  if (v !== "" && !/["\\(),\s]/.test(v)) return v;
  return `"${v.replace(/(["\\])/g, "$1$1")}"`;
}

/**
 * A composite datum: the payload after the varlena header is a HeapTupleHeader whose first four
 * bytes (datum_len_) were the header, so header offsets are shifted by 4 here.
 */
export function recordText(payload: Uint8Array, desc: TupleDesc, toText: (d: Uint8Array, oid: number, typmod: number) => string): string {
  if (payload.length < 19) throw new FormatError("RECORD_TRUNCATED", `composite datum of ${payload.length + 4} bytes is shorter than a tuple header`, {});
  // Rebuild the header-relative view: 4 bytes for datum_len_ in front.
  const tuple = new Uint8Array(payload.length + 4);
  tuple.set(payload, 4);
  const dv = new DataView(tuple.buffer);
  const natts = dv.getUint16(18, true) & 0x07ff;
  const infomask = dv.getUint16(20, true);
  const hoff = tuple[22];
  const bits = infomask & 1 ? tuple.subarray(23, 23 + ((natts + 7) >> 3)) : undefined;
  const { attrs } = walkAttributes(tuple, hoff, bits, natts, desc);
  const out: string[] = [];
  desc.attrs.forEach((a, i) => {
    if (a.dropped) return;
    const s = attrs[i];
    if (s.isnull || s.missing) return void out.push("");
    let data: Uint8Array;
    if (s.varlena) {
      const h = readVarlenaHeader(tuple, s.off);
      if (h.kind !== "4b" && h.kind !== "1b") throw new FormatError("RECORD_NESTED_TOAST", `composite field ${a.name} is compressed or external inside the record`, { attnum: a.attnum });
      data = tuple.subarray(s.off + h.header, s.off + h.total);
    } else data = tuple.subarray(s.off, s.off + s.len - (s.cstring ? 1 : 0));
    out.push(recordField(toText(data, a.typid, a.typmod)));
  });
  return `(${out.join(",")})`;
}
