// Attribute equality for suffix truncation and deduplication (nbtutils.c _bt_keep_natts and
// _bt_keep_natts_fast). PostgreSQL asks the opclass's comparator; we compare bytes:
// - "image": the opclass is equalimage (BTEQUALIMAGE_PROC says so), so equal values have equal
//   images and datum_image_eq is exact: raw sizes, then the detoasted bytes (a compressed and an
//   uncompressed copy of one value are equal).
// - "numeric", "float4", "float8", "interval": not equalimage (display scale, -0, NaN bit patterns,
//   '1 day' = '24 hours'), but their comparators' equality is simple enough to decide exactly here.
// - "unknown": any other type whose opclass is not equalimage (arrays, jsonb, ranges, records,
//   tsvector, text under a nondeterministic collation, ...): equal images still mean equal values,
//   but different images may or may not; the caller keeps what stays correct either way.
import { decompressTcinfo } from "../compression/index.js";
import type { AttrSlot } from "../heap/deform.js";

export type AttEqKind = "image" | "numeric" | "float4" | "float8" | "interval" | "unknown";

/** Built-in type OIDs whose btree equality is decided here although their opclass is not equalimage. */
export const SEMANTIC_EQ_TYPES: ReadonlyMap<number, AttEqKind> = new Map([
  [1700, "numeric"],
  [700, "float4"],
  [701, "float8"],
  [1186, "interval"],
]);

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** The raw (uncompressed) value bytes of a varlena datum, header excluded. */
function varlenaRaw(tuple: Uint8Array, s: AttrSlot): Uint8Array {
  const d = tuple.subarray(s.off, s.off + s.len);
  const kind = s.varlena?.kind;
  if (kind === "1b") return d.subarray(1);
  if (kind === "4b_c") return decompressTcinfo(d.subarray(4));
  if (kind === "1b_e") return d; // TOAST pointers never sit in index tuples; compare as bytes
  return d.subarray(4);
}

/** datum_image_eq on two present (non-null) attribute slots. */
export function imageEqual(ta: Uint8Array, a: AttrSlot, tb: Uint8Array, b: AttrSlot): boolean {
  if (a.varlena || b.varlena) {
    const da = ta.subarray(a.off, a.off + a.len);
    const db = tb.subarray(b.off, b.off + b.len);
    if (sameBytes(da, db)) return true;
    return sameBytes(varlenaRaw(ta, a), varlenaRaw(tb, b));
  }
  if (a.len !== b.len) return false;
  for (let i = 0; i < a.len; i++) if (ta[a.off + i] !== tb[b.off + i]) return false;
  return true;
}

interface NumericParts {
  special: number; // 0 finite, else the special header (NaN / +Inf / -Inf)
  neg: boolean;
  weight: number;
  digits: Uint8Array; // the base-10000 digits as stored (int16 each)
}
function numericParts(p: Uint8Array): NumericParts | null {
  if (p.length < 2) return null;
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const h = dv.getUint16(0, true);
  const flags = h & 0xc000;
  if (flags === 0xc000) return { special: h & 0xf000, neg: false, weight: 0, digits: new Uint8Array(0) };
  if (flags === 0x8000) {
    const w = h & 0x3f;
    return { special: 0, neg: (h & 0x2000) !== 0, weight: h & 0x40 ? w | ~0x3f : w, digits: p.subarray(2) };
  }
  if (p.length < 4) return null;
  return { special: 0, neg: flags === 0x4000, weight: dv.getInt16(2, true), digits: p.subarray(4) };
}

/**
 * Do two present attributes compare equal under the opclass? true/false when it can be decided
 * from the bytes, null when it cannot ("unknown" kinds with different images).
 */
export function attrsEqual(kind: AttEqKind, ta: Uint8Array, a: AttrSlot, tb: Uint8Array, b: AttrSlot): boolean | null {
  if (imageEqual(ta, a, tb, b)) return true;
  switch (kind) {
    case "image":
      return false;
    case "float4":
    case "float8": {
      const va = new DataView(ta.buffer, ta.byteOffset + a.off, a.len);
      const vb = new DataView(tb.buffer, tb.byteOffset + b.off, b.len);
      const x = kind === "float4" ? va.getFloat32(0, true) : va.getFloat64(0, true);
      const y = kind === "float4" ? vb.getFloat32(0, true) : vb.getFloat64(0, true);
      return x === y || (Number.isNaN(x) && Number.isNaN(y)); // float8_cmp_internal: NaN = NaN, -0 = 0
    }
    case "interval": {
      const span = (t: Uint8Array, s: AttrSlot): bigint => {
        const dv = new DataView(t.buffer, t.byteOffset + s.off, 16);
        const days = BigInt(dv.getInt32(12, true)) * 30n + BigInt(dv.getInt32(8, true));
        return dv.getBigInt64(0, true) + days * 86_400_000_000n; // interval_cmp_value
      };
      return span(ta, a) === span(tb, b);
    }
    case "numeric": {
      let pa: NumericParts | null, pb: NumericParts | null;
      try {
        pa = numericParts(varlenaRaw(ta, a));
        pb = numericParts(varlenaRaw(tb, b));
      } catch {
        return null;
      }
      if (!pa || !pb) return null;
      if (pa.special || pb.special) return pa.special === pb.special;
      // stored digits are stripped of leading and trailing zeros (make_result), so equal values
      // differ only in display scale; zero has no digits
      if (pa.digits.length === 0 || pb.digits.length === 0) return pa.digits.length === pb.digits.length;
      return pa.neg === pb.neg && pa.weight === pb.weight && sameBytes(pa.digits, pb.digits);
    }
    default:
      return null;
  }
}
