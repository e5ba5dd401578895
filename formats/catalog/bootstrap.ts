// PostgreSQL 15 descriptors of the catalogs pgdisk needs before it can read pg_attribute
// (src/include/catalog/pg_*.h; checked against pg-format-facts.md §9.3 and a real cluster).
import type { Align, AttrDesc, TupleDesc } from "../heap/descriptor.js";

type ColType = "oid" | "name" | "int2" | "int4" | "bool" | "char" | "float4" | "xid" | "regproc" | "text" | "int2vector" | "oidvector" | "_aclitem" | "_text" | "pg_node_tree" | "anyarray";

const T: Record<ColType, { typid: number; len: number; byval: boolean; align: Align; storage: string }> = {
  oid: { typid: 26, len: 4, byval: true, align: "i", storage: "p" },
  name: { typid: 19, len: 64, byval: false, align: "c", storage: "p" },
  int2: { typid: 21, len: 2, byval: true, align: "s", storage: "p" },
  int4: { typid: 23, len: 4, byval: true, align: "i", storage: "p" },
  bool: { typid: 16, len: 1, byval: true, align: "c", storage: "p" },
  char: { typid: 18, len: 1, byval: true, align: "c", storage: "p" },
  float4: { typid: 700, len: 4, byval: true, align: "i", storage: "p" },
  xid: { typid: 28, len: 4, byval: true, align: "i", storage: "p" },
  regproc: { typid: 24, len: 4, byval: true, align: "i", storage: "p" },
  text: { typid: 25, len: -1, byval: false, align: "i", storage: "x" },
  int2vector: { typid: 22, len: -1, byval: false, align: "i", storage: "p" },
  oidvector: { typid: 30, len: -1, byval: false, align: "i", storage: "p" },
  _aclitem: { typid: 1034, len: -1, byval: false, align: "i", storage: "x" },
  _text: { typid: 1009, len: -1, byval: false, align: "i", storage: "x" },
  pg_node_tree: { typid: 194, len: -1, byval: false, align: "i", storage: "x" },
  anyarray: { typid: 2277, len: -1, byval: false, align: "d", storage: "x" },
};

function desc(cols: [string, ColType][]): TupleDesc {
  return {
    attrs: cols.map(([name, t], i): AttrDesc => ({ attnum: i + 1, name, typmod: -1, dropped: false, ...T[t] })),
  };
}

export const PG_CLASS_OID = 1259;
export const PG_ATTRIBUTE_OID = 1249;
export const PG_TYPE_OID = 1247;
export const PG_NAMESPACE_OID = 2615;
export const PG_INDEX_OID = 2610;
export const PG_AM_OID = 2601;
export const PG_DATABASE_OID = 1262;
export const PG_OPCLASS_OID = 2616;
export const PG_COLLATION_OID = 3456;

export const pgClassDesc = desc([
  ["oid", "oid"], ["relname", "name"], ["relnamespace", "oid"], ["reltype", "oid"], ["reloftype", "oid"], ["relowner", "oid"],
  ["relam", "oid"], ["relfilenode", "oid"], ["reltablespace", "oid"], ["relpages", "int4"], ["reltuples", "float4"],
  ["relallvisible", "int4"], ["reltoastrelid", "oid"], ["relhasindex", "bool"], ["relisshared", "bool"],
  ["relpersistence", "char"], ["relkind", "char"], ["relnatts", "int2"], ["relchecks", "int2"], ["relhasrules", "bool"],
  ["relhastriggers", "bool"], ["relhassubclass", "bool"], ["relrowsecurity", "bool"], ["relforcerowsecurity", "bool"],
  ["relispopulated", "bool"], ["relreplident", "char"], ["relispartition", "bool"], ["relrewrite", "oid"],
  ["relfrozenxid", "xid"], ["relminmxid", "xid"], ["relacl", "_aclitem"], ["reloptions", "_text"], ["relpartbound", "pg_node_tree"],
]);

export const pgAttributeDesc = desc([
  ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attstattarget", "int4"], ["attlen", "int2"],
  ["attnum", "int2"], ["attndims", "int4"], ["attcacheoff", "int4"], ["atttypmod", "int4"], ["attbyval", "bool"],
  ["attalign", "char"], ["attstorage", "char"], ["attcompression", "char"], ["attnotnull", "bool"], ["atthasdef", "bool"],
  ["atthasmissing", "bool"], ["attidentity", "char"], ["attgenerated", "char"], ["attisdropped", "bool"],
  ["attislocal", "bool"], ["attinhcount", "int4"], ["attcollation", "oid"], ["attacl", "_aclitem"], ["attoptions", "_text"],
  ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
]);

export const pgTypeDesc = desc([
  ["oid", "oid"], ["typname", "name"], ["typnamespace", "oid"], ["typowner", "oid"], ["typlen", "int2"], ["typbyval", "bool"],
  ["typtype", "char"], ["typcategory", "char"], ["typispreferred", "bool"], ["typisdefined", "bool"], ["typdelim", "char"],
  ["typrelid", "oid"], ["typsubscript", "regproc"], ["typelem", "oid"], ["typarray", "oid"], ["typinput", "regproc"],
  ["typoutput", "regproc"], ["typreceive", "regproc"], ["typsend", "regproc"], ["typmodin", "regproc"], ["typmodout", "regproc"],
  ["typanalyze", "regproc"], ["typalign", "char"], ["typstorage", "char"], ["typnotnull", "bool"], ["typbasetype", "oid"],
  ["typtypmod", "int4"], ["typndims", "int4"], ["typcollation", "oid"], ["typdefaultbin", "pg_node_tree"], ["typdefault", "text"],
  ["typacl", "_aclitem"],
]);

export const pgNamespaceDesc = desc([["oid", "oid"], ["nspname", "name"], ["nspowner", "oid"], ["nspacl", "_aclitem"]]);

export const pgDatabaseDesc = desc([
  ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datlocprovider", "char"],
  ["datistemplate", "bool"], ["datallowconn", "bool"], ["datconnlimit", "int4"], ["datfrozenxid", "xid"],
  ["datminmxid", "xid"], ["dattablespace", "oid"], ["datcollate", "text"], ["datctype", "text"], ["daticulocale", "text"],
  ["datcollversion", "text"], ["datacl", "_aclitem"],
]);

export const pgIndexDesc = desc([
  ["indexrelid", "oid"], ["indrelid", "oid"], ["indnatts", "int2"], ["indnkeyatts", "int2"], ["indisunique", "bool"],
  ["indnullsnotdistinct", "bool"], ["indisprimary", "bool"], ["indisexclusion", "bool"], ["indimmediate", "bool"],
  ["indisclustered", "bool"], ["indisvalid", "bool"], ["indcheckxmin", "bool"], ["indisready", "bool"], ["indislive", "bool"],
  ["indisreplident", "bool"], ["indkey", "int2vector"], ["indcollation", "oidvector"], ["indclass", "oidvector"],
  ["indoption", "int2vector"], ["indexprs", "pg_node_tree"], ["indpred", "pg_node_tree"],
]);

export const pgAmDesc = desc([["oid", "oid"], ["amname", "name"], ["amhandler", "regproc"], ["amtype", "char"]]);

export const pgOpclassDesc = desc([
  ["oid", "oid"], ["opcmethod", "oid"], ["opcname", "name"], ["opcnamespace", "oid"], ["opcowner", "oid"],
  ["opcfamily", "oid"], ["opcintype", "oid"], ["opcdefault", "bool"], ["opckeytype", "oid"],
]);

export const pgCollationDesc = desc([
  ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
  ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "text"], ["collctype", "text"],
  ["colliculocale", "text"], ["collversion", "text"],
]);

export const PG_AMPROC_OID = 2603;
export const pgAmprocDesc = desc([["oid", "oid"], ["amprocfamily", "oid"], ["amproclefttype", "oid"], ["amprocrighttype", "oid"], ["amprocnum", "int2"], ["amproc", "regproc"]]);

export const PG_ENUM_OID = 3501;
export const pgEnumDesc = desc([["oid", "oid"], ["enumtypid", "oid"], ["enumsortorder", "float4"], ["enumlabel", "name"]]);
