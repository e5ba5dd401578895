// Attribute equality for suffix truncation and deduplication (nbtutils.c _bt_keep_natts and
// _bt_keep_natts_fast). PostgreSQL asks the opclass's comparator; we compare bytes:
// - "image": the opclass is equalimage (BTEQUALIMAGE_PROC says so), so equal values have equal
//   images and datum_image_eq is exact: raw sizes, then the detoasted bytes (a compressed and an
//   uncompressed copy of one value are equal).
// - "numeric", "float4", "float8", "interval": not equalimage (display scale, -0, NaN bit patterns,
//   '1 day' = '24 hours'), so equality is their btree comparator's (formats/order/) 0.
// - "unknown": any other type whose opclass is not equalimage (arrays, jsonb, ranges, records,
//   tsvector, text under a nondeterministic collation, ...): equal images still mean equal values,
//   but different images may or may not; the caller keeps what stays correct either way.
import { decompressTcinfo } from "../compression/index.js";
import type { AttrSlot } from "../heap/deform.js";
import type { DatumCmp } from "../order/bytes.js";
import { cmpFloat4, cmpFloat8, cmpInterval } from "../order/scalar.js";
import { cmpNumeric } from "../order/numeric.js";

export type AttEqKind = "image" | "numeric" | "float4" | "float8" | "interval" | "unknown";

/** Built-in type OIDs whose btree equality is decided here although their opclass is not equalimage. */
export const SEMANTIC_EQ_TYPES: ReadonlyMap<number, AttEqKind> = new Map([
  [1700, "numeric"],
  [700, "float4"],
  [701, "float8"],
  [1186, "interval"],
]);

/** The comparators whose 0 decides equality for the kinds that are not "image". */
const SEMANTIC_CMP: Readonly<Record<"numeric" | "float4" | "float8" | "interval", DatumCmp>> = { numeric: cmpNumeric, float4: cmpFloat4, float8: cmpFloat8, interval: cmpInterval };

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
    case "float8":
    case "interval":
    case "numeric": {
      // equality is the btree comparator's 0 (float NaN = NaN and -0 = 0, interval_cmp_value,
      // numeric by value whatever the display scale); NaN (undecodable) leaves it undecided
      const c = SEMANTIC_CMP[kind](ta, a.off, a.len, tb, b.off, b.len);
      return Number.isNaN(c) ? null : c === 0;
    }
    default:
      return null;
  }
}
