// PostgreSQL 14 (catalog version 202107181; checked against 14.23: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
import { pg13 } from "./pg13.js";
import { defineProfile } from "./profile.js";

export const pg14 = defineProfile({
  major: 14,
  testedRelease: "14.23",
  catalogVersionNo: 202107181,
  pgControlVersion: 1300,
  relmapMappings: 62,
  aclitemAlign: "i",
  spgistLeafNextOffsetMask: 0x3fff,
  slru: pg13.slru,
  tablespaceDir: "PG_14_202107181",
  catalogColumns: {
    ...pg13.catalogColumns,
    pg_attribute: [
      ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attstattarget", "int4"], ["attlen", "int2"],
      ["attnum", "int2"], ["attndims", "int4"], ["attcacheoff", "int4"], ["atttypmod", "int4"], ["attbyval", "bool"],
      ["attalign", "char"], ["attstorage", "char"], ["attcompression", "char"], ["attnotnull", "bool"],
      ["atthasdef", "bool"], ["atthasmissing", "bool"], ["attidentity", "char"], ["attgenerated", "char"],
      ["attisdropped", "bool"], ["attislocal", "bool"], ["attinhcount", "int4"], ["attcollation", "oid"],
      ["attacl", "_aclitem"], ["attoptions", "_text"], ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
    ],
    pg_type: [
      ["oid", "oid"], ["typname", "name"], ["typnamespace", "oid"], ["typowner", "oid"], ["typlen", "int2"],
      ["typbyval", "bool"], ["typtype", "char"], ["typcategory", "char"], ["typispreferred", "bool"],
      ["typisdefined", "bool"], ["typdelim", "char"], ["typrelid", "oid"], ["typsubscript", "regproc"],
      ["typelem", "oid"], ["typarray", "oid"], ["typinput", "regproc"], ["typoutput", "regproc"],
      ["typreceive", "regproc"], ["typsend", "regproc"], ["typmodin", "regproc"], ["typmodout", "regproc"],
      ["typanalyze", "regproc"], ["typalign", "char"], ["typstorage", "char"], ["typnotnull", "bool"],
      ["typbasetype", "oid"], ["typtypmod", "int4"], ["typndims", "int4"], ["typcollation", "oid"],
      ["typdefaultbin", "pg_node_tree"], ["typdefault", "text"], ["typacl", "_aclitem"],
    ],
  },
  differences: [
    "pg_attribute: attcompression added (column compression); attalign now comes before attstorage",
    "pg_type: typsubscript added",
    "SP-GiST leaf tuples: nextOffset became t_info (next offset & 0x3FFF, 0x8000 = a null bitmap follows, for INCLUDE columns)",
  ],
});
