// Index keys as text, through the index's column types (pg_attribute of the index describes the
// stored key type, e.g. cstring for name_ops), for leaf tuples and for pivots (fewer attributes
// after suffix truncation).
import type { TupleDesc } from "../heap/descriptor.js";
import { datumBytes } from "../heap/datum-bytes.js";
import { datumToText, type TypeLookup } from "../datum/index.js";
import { BT_OFFSET_MASK, INDEX_ALT_TID_MASK, BT_IS_POSTING, posidRaw, tInfoRaw } from "./index-tuple.js";
import { attrSlots } from "./pivot.js";

export interface KeyTextOptions {
  types: TypeLookup;
  /** domains decode as their base type */
  decodeAs?: (typid: number) => number;
}

/**
 * The text of each attribute present in an index tuple (null for SQL NULL): all of them for a leaf
 * tuple, the kept ones for a pivot (none for minus infinity).
 */
export function indexKeyTexts(tuple: Uint8Array, desc: TupleDesc, o: KeyTextOptions): (string | null)[] {
  const info = tInfoRaw(tuple);
  const pivot = (info & INDEX_ALT_TID_MASK) !== 0 && (posidRaw(tuple) & BT_IS_POSTING) === 0;
  const natts = pivot ? Math.min(posidRaw(tuple) & BT_OFFSET_MASK, desc.attrs.length) : desc.attrs.length;
  if (natts === 0) return [];
  const { slots } = attrSlots(tuple, desc, natts);
  return slots.map((s, i) => {
    if (s.isnull) return null;
    const a = desc.attrs[i]!;
    const d = datumBytes(tuple, s);
    if (d.kind !== "inline") return `(external ${a.name})`;
    return datumToText(d.bytes, o.decodeAs ? o.decodeAs(a.typid) : a.typid, a.typmod, o.types);
  });
}
