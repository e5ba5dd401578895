// PostgreSQL 18 (catalog version 202506291; checked against 18.4: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
import { pg17 } from "./pg17.js";
import { defineProfile } from "./profile.js";

export const pg18 = defineProfile({
  major: 18,
  testedRelease: "18.4",
  catalogVersionNo: 202506291,
  pgControlVersion: 1800,
  relmapMappings: 64,
  aclitemAlign: "d",
  spgistLeafNextOffsetMask: pg17.spgistLeafNextOffsetMask,
  slru: pg17.slru,
  tablespaceDir: "PG_18_202506291",
  catalogColumns: {
    ...pg17.catalogColumns,
    pg_class: [
      ["oid", "oid"], ["relname", "name"], ["relnamespace", "oid"], ["reltype", "oid"], ["reloftype", "oid"],
      ["relowner", "oid"], ["relam", "oid"], ["relfilenode", "oid"], ["reltablespace", "oid"], ["relpages", "int4"],
      ["reltuples", "float4"], ["relallvisible", "int4"], ["relallfrozen", "int4"], ["reltoastrelid", "oid"],
      ["relhasindex", "bool"], ["relisshared", "bool"], ["relpersistence", "char"], ["relkind", "char"],
      ["relnatts", "int2"], ["relchecks", "int2"], ["relhasrules", "bool"], ["relhastriggers", "bool"],
      ["relhassubclass", "bool"], ["relrowsecurity", "bool"], ["relforcerowsecurity", "bool"],
      ["relispopulated", "bool"], ["relreplident", "char"], ["relispartition", "bool"], ["relrewrite", "oid"],
      ["relfrozenxid", "xid"], ["relminmxid", "xid"], ["relacl", "_aclitem"], ["reloptions", "_text"],
      ["relpartbound", "pg_node_tree"],
    ],
    pg_attribute: [
      ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attlen", "int2"], ["attnum", "int2"],
      ["atttypmod", "int4"], ["attndims", "int2"], ["attbyval", "bool"], ["attalign", "char"], ["attstorage", "char"],
      ["attcompression", "char"], ["attnotnull", "bool"], ["atthasdef", "bool"], ["atthasmissing", "bool"],
      ["attidentity", "char"], ["attgenerated", "char"], ["attisdropped", "bool"], ["attislocal", "bool"],
      ["attinhcount", "int2"], ["attcollation", "oid"], ["attstattarget", "int2"], ["attacl", "_aclitem"],
      ["attoptions", "_text"], ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
    ],
  },
  differences: [
    "pg_control: PG_CONTROL_VERSION 1800, default_char_signedness added (the CRC moves from offset 288 to 292)",
    "pg_class: relallfrozen added",
    "pg_attribute: attcacheoff gone",
  ],
});
