// PostgreSQL 16 (catalog version 202307071; checked against 16.14: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
import { pg15 } from "./pg15.js";
import { defineProfile } from "./profile.js";

export const pg16 = defineProfile({
  major: 16,
  testedRelease: "16.14",
  catalogVersionNo: 202307071,
  pgControlVersion: 1300,
  relmapMappings: 64,
  aclitemAlign: "d",
  spgistLeafNextOffsetMask: pg15.spgistLeafNextOffsetMask,
  slru: pg15.slru,
  tablespaceDir: "PG_16_202307071",
  catalogColumns: {
    ...pg15.catalogColumns,
    pg_attribute: [
      ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attlen", "int2"], ["attnum", "int2"],
      ["attcacheoff", "int4"], ["atttypmod", "int4"], ["attndims", "int2"], ["attbyval", "bool"], ["attalign", "char"],
      ["attstorage", "char"], ["attcompression", "char"], ["attnotnull", "bool"], ["atthasdef", "bool"],
      ["atthasmissing", "bool"], ["attidentity", "char"], ["attgenerated", "char"], ["attisdropped", "bool"],
      ["attislocal", "bool"], ["attinhcount", "int2"], ["attstattarget", "int2"], ["attcollation", "oid"],
      ["attacl", "_aclitem"], ["attoptions", "_text"], ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
    ],
    pg_database: [
      ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datlocprovider", "char"],
      ["datistemplate", "bool"], ["datallowconn", "bool"], ["datconnlimit", "int4"], ["datfrozenxid", "xid"],
      ["datminmxid", "xid"], ["dattablespace", "oid"], ["datcollate", "text"], ["datctype", "text"],
      ["daticulocale", "text"], ["daticurules", "text"], ["datcollversion", "text"], ["datacl", "_aclitem"],
    ],
    pg_collation: [
      ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
      ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "text"], ["collctype", "text"],
      ["colliculocale", "text"], ["collicurules", "text"], ["collversion", "text"],
    ],
  },
  differences: [
    "pg_filenode.map: 64 entries and no pad (524 bytes instead of 512)",
    "aclitem: 16 bytes (64-bit AclMode), so aclitem[] columns (relacl, attacl, typacl, datacl, nspacl, ...) are double-aligned",
    "pg_attribute: attstattarget moves after attinhcount; attndims and attinhcount become int2",
    "pg_database: daticurules added",
    "pg_collation: collicurules added",
  ],
});
