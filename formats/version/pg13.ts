// PostgreSQL 13 (catalog version 202007201; checked against 13.23: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
// The oldest supported release: every catalog is listed in full; later profiles list what changed.
import { defineProfile } from "./profile.js";

export const pg13 = defineProfile({
  major: 13,
  testedRelease: "13.23",
  catalogVersionNo: 202007201,
  pgControlVersion: 1300,
  relmapMappings: 62,
  aclitemAlign: "i",
  spgistLeafNextOffsetMask: 0xffff,
  slru: { xactDir: "pg_xact", multixactDir: "pg_multixact", segmentNameDigits: 4 },
  tablespaceDir: "PG_13_202007201",
  catalogColumns: {
    pg_class: [
      ["oid", "oid"], ["relname", "name"], ["relnamespace", "oid"], ["reltype", "oid"], ["reloftype", "oid"],
      ["relowner", "oid"], ["relam", "oid"], ["relfilenode", "oid"], ["reltablespace", "oid"], ["relpages", "int4"],
      ["reltuples", "float4"], ["relallvisible", "int4"], ["reltoastrelid", "oid"], ["relhasindex", "bool"],
      ["relisshared", "bool"], ["relpersistence", "char"], ["relkind", "char"], ["relnatts", "int2"],
      ["relchecks", "int2"], ["relhasrules", "bool"], ["relhastriggers", "bool"], ["relhassubclass", "bool"],
      ["relrowsecurity", "bool"], ["relforcerowsecurity", "bool"], ["relispopulated", "bool"], ["relreplident", "char"],
      ["relispartition", "bool"], ["relrewrite", "oid"], ["relfrozenxid", "xid"], ["relminmxid", "xid"],
      ["relacl", "_aclitem"], ["reloptions", "_text"], ["relpartbound", "pg_node_tree"],
    ],
    pg_attribute: [
      ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attstattarget", "int4"], ["attlen", "int2"],
      ["attnum", "int2"], ["attndims", "int4"], ["attcacheoff", "int4"], ["atttypmod", "int4"], ["attbyval", "bool"],
      ["attstorage", "char"], ["attalign", "char"], ["attnotnull", "bool"], ["atthasdef", "bool"],
      ["atthasmissing", "bool"], ["attidentity", "char"], ["attgenerated", "char"], ["attisdropped", "bool"],
      ["attislocal", "bool"], ["attinhcount", "int4"], ["attcollation", "oid"], ["attacl", "_aclitem"],
      ["attoptions", "_text"], ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
    ],
    pg_type: [
      ["oid", "oid"], ["typname", "name"], ["typnamespace", "oid"], ["typowner", "oid"], ["typlen", "int2"],
      ["typbyval", "bool"], ["typtype", "char"], ["typcategory", "char"], ["typispreferred", "bool"],
      ["typisdefined", "bool"], ["typdelim", "char"], ["typrelid", "oid"], ["typelem", "oid"], ["typarray", "oid"],
      ["typinput", "regproc"], ["typoutput", "regproc"], ["typreceive", "regproc"], ["typsend", "regproc"],
      ["typmodin", "regproc"], ["typmodout", "regproc"], ["typanalyze", "regproc"], ["typalign", "char"],
      ["typstorage", "char"], ["typnotnull", "bool"], ["typbasetype", "oid"], ["typtypmod", "int4"],
      ["typndims", "int4"], ["typcollation", "oid"], ["typdefaultbin", "pg_node_tree"], ["typdefault", "text"],
      ["typacl", "_aclitem"],
    ],
    pg_database: [
      ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datcollate", "name"],
      ["datctype", "name"], ["datistemplate", "bool"], ["datallowconn", "bool"], ["datconnlimit", "int4"],
      ["datlastsysoid", "oid"], ["datfrozenxid", "xid"], ["datminmxid", "xid"], ["dattablespace", "oid"],
      ["datacl", "_aclitem"],
    ],
    pg_namespace: [
      ["oid", "oid"], ["nspname", "name"], ["nspowner", "oid"], ["nspacl", "_aclitem"],
    ],
    pg_index: [
      ["indexrelid", "oid"], ["indrelid", "oid"], ["indnatts", "int2"], ["indnkeyatts", "int2"], ["indisunique", "bool"],
      ["indisprimary", "bool"], ["indisexclusion", "bool"], ["indimmediate", "bool"], ["indisclustered", "bool"],
      ["indisvalid", "bool"], ["indcheckxmin", "bool"], ["indisready", "bool"], ["indislive", "bool"],
      ["indisreplident", "bool"], ["indkey", "int2vector"], ["indcollation", "oidvector"], ["indclass", "oidvector"],
      ["indoption", "int2vector"], ["indexprs", "pg_node_tree"], ["indpred", "pg_node_tree"],
    ],
    pg_am: [
      ["oid", "oid"], ["amname", "name"], ["amhandler", "regproc"], ["amtype", "char"],
    ],
    pg_opclass: [
      ["oid", "oid"], ["opcmethod", "oid"], ["opcname", "name"], ["opcnamespace", "oid"], ["opcowner", "oid"],
      ["opcfamily", "oid"], ["opcintype", "oid"], ["opcdefault", "bool"], ["opckeytype", "oid"],
    ],
    pg_collation: [
      ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
      ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "name"], ["collctype", "name"],
      ["collversion", "text"],
    ],
    pg_enum: [
      ["oid", "oid"], ["enumtypid", "oid"], ["enumsortorder", "float4"], ["enumlabel", "name"],
    ],
    pg_amproc: [
      ["oid", "oid"], ["amprocfamily", "oid"], ["amproclefttype", "oid"], ["amprocrighttype", "oid"],
      ["amprocnum", "int2"], ["amproc", "regproc"],
    ],
    pg_attrdef: [
      ["oid", "oid"], ["adrelid", "oid"], ["adnum", "int2"], ["adbin", "pg_node_tree"],
    ],
    pg_trigger: [
      ["oid", "oid"], ["tgrelid", "oid"], ["tgparentid", "oid"], ["tgname", "name"], ["tgfoid", "oid"], ["tgtype", "int2"],
      ["tgenabled", "char"], ["tgisinternal", "bool"], ["tgconstrrelid", "oid"], ["tgconstrindid", "oid"], ["tgconstraint", "oid"],
      ["tgdeferrable", "bool"], ["tginitdeferred", "bool"], ["tgnargs", "int2"], ["tgattr", "int2vector"], ["tgargs", "bytea"],
      ["tgqual", "pg_node_tree"], ["tgoldtable", "name"], ["tgnewtable", "name"],
    ],
  },
  differences: [],
});
