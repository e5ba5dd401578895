// Type lookups for the datum decoders from a database's pg_type, carrying its OutputCatalog.
import type { TypeInfo, TypeLookup } from "../datum/types.js";
import type { DatabaseCatalog } from "./cluster.js";
import { recordText } from "../datum/record.js";
import { CONTRIB_LIBRARIES } from "../datum/contrib.js";

/** FirstNormalObjectId: OIDs below it are the built-in objects initdb creates. */
const FIRST_NORMAL_OBJECT_ID = 16384;

/**
 * The input function's name of a base type created after initdb (an extension's), which names the
 * type whatever its OID: a contrib input function (CONTRIB_LIBRARIES) only when it lives in that
 * contrib module's library, so a user's function of the same name is not taken for it.
 */
export function extensionInputFunction(cat: DatabaseCatalog, r: { oid: number; type: string; input?: number }): string | undefined {
  if (r.type !== "b" || r.oid < FIRST_NORMAL_OBJECT_ID || !r.input) return undefined;
  const proc = cat.outputCatalog.object("proc", r.input);
  const library = proc === undefined ? undefined : CONTRIB_LIBRARIES.get(proc.name);
  if (library === undefined) return proc?.name;
  return proc!.library === library ? proc!.name : undefined;
}

export function typeLookupFor(cat: DatabaseCatalog): { types: TypeLookup; decodeAs: (oid: number) => number } {
  const cache = new Map<number, TypeInfo>();
  const lookup = (oid: number): TypeInfo | undefined => {
    let t = cache.get(oid);
    if (t) return t;
    const r = cat.type(oid);
    if (!r) return undefined;
    t = { oid: r.oid, name: r.name, len: r.len, byval: r.byval, align: r.align, elem: r.elem, category: r.category, typtype: r.type };
    if (r.type === "e") {
      // An enum datum is the OID of its pg_enum row.
      t.decode = (d) => {
        const label = d.length === 4 ? cat.enumLabels().get(new DataView(d.buffer, d.byteOffset, 4).getUint32(0, true)) : undefined;
        return label ?? `${r.name}:\\x${Buffer.from(d).toString("hex")}`;
      };
    } else if (r.type === "c" && r.relid) {
      t.decode = (d, toText) => recordText(d, cat.descriptor(r.relid), toText);
    } else if (r.type === "d" && r.basetype) t.basetype = r.basetype;
    else {
      // A base type created after initdb (an extension's): its input function names it.
      const name = extensionInputFunction(cat, r);
      if (name !== undefined) t.inputFunction = name;
    }
    cache.set(oid, t);
    return t;
  };
  const types: TypeLookup = Object.assign(lookup, { catalog: cat.outputCatalog });
  // Domains decode as their base type (repeatedly: a domain over a domain).
  const decodeAs = (oid: number): number => {
    for (let i = 0; i < 10; i++) {
      const r = cat.type(oid);
      if (!r || r.type !== "d" || !r.basetype) return oid;
      oid = r.basetype;
    }
    return oid;
  };
  return { types, decodeAs };
}
