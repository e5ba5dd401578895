// The OutputCatalog of a database (formats/datum/output-catalog.ts) from its catalogs: names of
// roles, schemas, relations, types, functions, operators, text search configurations and
// dictionaries and collations, and pg_range. Each catalog is read on first use.
// The search path is the default one ("$user", public) after the implicit pg_catalog; "$user"
// is left out, as the reading session's user is not known offline.
import type { NamedObject, ObjectKind, OutputCatalog, TypeNameFacts } from "../datum/output-catalog.js";
import type { DatabaseCatalog } from "./cluster.js";
import { PG_AUTHID_OID, PG_COLLATION_OID, PG_OPERATOR_OID, PG_PROC_OID, PG_RANGE_OID, PG_TS_CONFIG_OID, PG_TS_DICT_OID } from "./bootstrap.js";
import type { CatalogRow } from "./rows.js";

const PG_CATALOG_NAMESPACE = 11;
const INTERNAL_LANGUAGE_OID = 12;

/** Where a pg_proc row's function lives (NamedObject.library). */
function procLibrary(r: CatalogRow): string | undefined {
  if (typeof r.probin === "string") return r.probin.replace(/\.so$/, "").split("/").pop()!;
  return r.prolang === INTERNAL_LANGUAGE_OID ? `internal ${r.prosrc as string}` : undefined;
}

/** Where each kind of object lives: catalog OID and its name, schema and argument columns. */
const SOURCES: Record<Exclude<ObjectKind, "class" | "type">, { oid: number; name: string; namespace: string; args?: (r: CatalogRow) => number[]; encoding?: string; columns?: string[]; library?: (r: CatalogRow) => string | undefined }> = {
  proc: { oid: PG_PROC_OID, name: "proname", namespace: "pronamespace", args: (r) => (r.proargtypes as number[] | null) ?? [], columns: ["proargtypes", "prolang", "prosrc", "probin"], library: procLibrary },
  operator: { oid: PG_OPERATOR_OID, name: "oprname", namespace: "oprnamespace", args: (r) => [r.oprleft as number, r.oprright as number], columns: ["oprleft", "oprright"] },
  tsconfig: { oid: PG_TS_CONFIG_OID, name: "cfgname", namespace: "cfgnamespace" },
  tsdict: { oid: PG_TS_DICT_OID, name: "dictname", namespace: "dictnamespace" },
  collation: { oid: PG_COLLATION_OID, name: "collname", namespace: "collnamespace", encoding: "collencoding" },
};

interface Index {
  byOid: Map<number, NamedObject>;
  byName: Map<string, NamedObject[]>;
}

function indexOf(objects: Iterable<NamedObject>): Index {
  const byOid = new Map<number, NamedObject>();
  const byName = new Map<string, NamedObject[]>();
  for (const o of objects) {
    byOid.set(o.oid, o);
    const l = byName.get(o.name);
    if (l) l.push(o);
    else byName.set(o.name, [o]);
  }
  return { byOid, byName };
}

export function outputCatalogFor(cat: DatabaseCatalog): OutputCatalog {
  const indexes = new Map<ObjectKind, Index>();
  let roles: Map<number, string> | undefined;
  let ranges: { subtype: Map<number, number>; ofMultirange: Map<number, number> } | undefined;
  const publicNs = [...cat.namespaces].find(([, n]) => n === "public")?.[0];

  const load = (kind: ObjectKind): Index => {
    let ix = indexes.get(kind);
    if (ix) return ix;
    if (kind === "class") ix = indexOf([...cat.classes.values()].map((c) => ({ oid: c.oid, name: c.name, namespace: c.namespace })));
    else if (kind === "type") ix = indexOf([...cat.types.values()].map((t) => ({ oid: t.oid, name: t.name, namespace: t.namespace })));
    else {
      const src = SOURCES[kind];
      const columns = ["oid", src.name, src.namespace, ...(src.columns ?? []), ...(src.encoding ? [src.encoding] : [])];
      ix = indexOf(
        cat.catalogRows(src.oid, columns).map((r) => ({
          oid: r.oid as number,
          name: r[src.name] as string,
          namespace: r[src.namespace] as number,
          ...(src.args ? { args: src.args(r) } : {}),
          ...(src.encoding ? { encoding: r[src.encoding] as number } : {}),
          ...(src.library ? { library: src.library(r) } : {}),
        })),
      );
    }
    indexes.set(kind, ix);
    return ix;
  };

  const loadRanges = (): NonNullable<typeof ranges> => {
    if (ranges) return ranges;
    const rows = cat.catalogRows(PG_RANGE_OID, ["rngtypid", "rngsubtype", "rngmultitypid"]);
    ranges = { subtype: new Map(rows.map((r) => [r.rngtypid as number, r.rngsubtype as number])), ofMultirange: new Map(rows.map((r) => [r.rngmultitypid as number, r.rngtypid as number])) };
    return ranges;
  };

  return {
    searchPath: publicNs === undefined ? [PG_CATALOG_NAMESPACE] : [PG_CATALOG_NAMESPACE, publicNs],
    encoding: cat.db.encoding,
    namespaceName: (oid) => cat.namespaces.get(oid),
    roleName: (oid) => {
      roles ??= new Map(cat.catalogRows(PG_AUTHID_OID, ["oid", "rolname"]).map((r) => [r.oid as number, r.rolname as string]));
      return roles.get(oid);
    },
    object: (kind, oid) => load(kind).byOid.get(oid),
    objectsNamed: (kind, name) => load(kind).byName.get(name) ?? [],
    type: (oid): TypeNameFacts | undefined => {
      const t = cat.type(oid);
      return t && { name: t.name, namespace: t.namespace, elem: t.elem, len: t.len, storage: t.storage };
    },
    rangeSubtype: (oid) => loadRanges().subtype.get(oid),
    multirangeRange: (oid) => loadRanges().ofMultirange.get(oid),
  };
}
