// Type lookups for the datum decoders from a database's pg_type.
import type { TypeInfo, TypeLookup } from "../datum/types.js";
import type { DatabaseCatalog } from "./cluster.js";

export function typeLookupFor(cat: DatabaseCatalog): { types: TypeLookup; decodeAs: (oid: number) => number } {
  const cache = new Map<number, TypeInfo>();
  const types: TypeLookup = (oid) => {
    let t = cache.get(oid);
    if (t) return t;
    const r = cat.types.get(oid);
    if (!r) return undefined;
    t = { oid: r.oid, name: r.name, len: r.len, byval: r.byval, align: r.align, elem: r.elem, category: r.category, typtype: r.type };
    cache.set(oid, t);
    return t;
  };
  // Domains decode as their base type (repeatedly: a domain over a domain).
  const decodeAs = (oid: number): number => {
    for (let i = 0; i < 10; i++) {
      const r = cat.types.get(oid);
      if (!r || r.type !== "d" || !r.basetype) return oid;
      oid = r.basetype;
    }
    return oid;
  };
  return { types, decodeAs };
}
