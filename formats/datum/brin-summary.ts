// Output functions of BRIN's summary types (src/backend/access/brin/brin_bloom.c,
// brin_minmax_multi.c): pg_brin_bloom_summary and pg_brin_minmax_multi_summary, the values a
// bloom or minmax-multi opclass stores in a range summary.
import { defineStruct, i32, pad, register, u8, u16, u32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { quoteArrayElement } from "./arrays.js";
import { embeddedVarlena } from "./util.js";

/** BloomFilter after vl_len_: the filter's parameters, then its bitmap. */
export const BloomFilterHeader = register(
  defineStruct("BloomFilter", "src/backend/access/brin/brin_bloom.c", [
    u16("flags", "unused"),
    u8("nhashes", "number of hash functions"),
    pad("pad", 1),
    u32("nbits", "bits in the bitmap"),
    u32("nbits_set", "bits set to 1"),
  ] as const),
);

/** SerializedRanges after vl_len_: the values' type and counts, then 2 × nranges + nvalues values packed without alignment. */
export const SerializedRangesHeader = register(
  defineStruct("SerializedRanges", "src/backend/access/brin/brin_minmax_multi.c", [
    u32("typid", "type of the values"),
    i32("nranges", "ranges stored (two values each)"),
    i32("nvalues", "single values stored after the ranges"),
    i32("maxvalues", "the opclass's values_per_range"),
  ] as const),
);

const malformed = (type: string, msg: string): FormatError => new FormatError("DATUM_TRUNCATED", `${type}: ${msg}`);

/** brin_bloom_summary_out */
const bloomSummaryText = (d: Uint8Array): string => {
  if (d.length < BloomFilterHeader.size) throw malformed("pg_brin_bloom_summary", `${d.length} bytes, less than its header`);
  const f = BloomFilterHeader.decode(d, 0);
  return `{mode: hashed  nhashes: ${f.nhashes}  nbits: ${f.nbits}  nbits_set: ${f.nbits_set}}`;
};

/**
 * brin_minmax_multi_summary_out: the counts, then the ranges ("a ... b") and the single values
 * each as a text array, through the output function of the values' type.
 */
const minmaxMultiSummaryText: DecoderTable[number] = (d, ctx) => {
  const type = "pg_brin_minmax_multi_summary";
  if (d.length < SerializedRangesHeader.size) throw malformed(type, `${d.length} bytes, less than its header`);
  const h = SerializedRangesHeader.decode(d, 0);
  const info = ctx.types(h.typid);
  if (!info) throw new FormatError("ARRAY_UNKNOWN_ELEMTYPE", `${type}: values of unknown type ${h.typid}`);
  const n = 2 * h.nranges + h.nvalues;
  if (h.nranges < 0 || h.nvalues < 0) throw malformed(type, `${h.nranges} ranges, ${h.nvalues} values`);
  const texts: string[] = [];
  let p = SerializedRangesHeader.size;
  for (let i = 0; i < n; i++) {
    let bytes: Uint8Array;
    if (info.len > 0) {
      if (p + info.len > d.length) throw malformed(type, `value ${i + 1} of ${n} runs past the end`);
      bytes = d.subarray(p, p + info.len);
      p += info.len;
    } else if (info.len === -1) {
      const [start, total] = embeddedVarlena(d, p, type);
      bytes = d.subarray(start, p + total);
      p += total;
    } else {
      const nul = d.indexOf(0, p);
      if (nul < 0) throw malformed(type, `value ${i + 1} of ${n} runs past the end`);
      bytes = d.subarray(p, nul);
      p = nul + 1;
    }
    texts.push(ctx.toText(bytes, h.typid, -1));
  }
  let s = `{nranges: ${h.nranges}  nvalues: ${h.nvalues}  maxvalues: ${h.maxvalues}`;
  const ranges: string[] = [];
  for (let i = 0; i < h.nranges; i++) ranges.push(quoteArrayElement(`${texts[2 * i]} ... ${texts[2 * i + 1]}`));
  if (h.nranges > 0) s += ` ranges: {${ranges.join(",")}}`;
  if (h.nvalues > 0) s += ` values: {${texts.slice(2 * h.nranges).map((t) => quoteArrayElement(t)).join(",")}}`;
  return s + "}";
};

export const BRIN_SUMMARY_DECODERS: DecoderTable = { 4600: bloomSummaryText, 4601: minmaxMultiSummaryText };
