// PostgreSQL 17 (catalog version 202406281; checked against 17.10: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
import { pg16 } from "./pg16.js";
import { defineProfile } from "./profile.js";

export const pg17 = defineProfile({
  major: 17,
  testedRelease: "17.10",
  catalogVersionNo: 202406281,
  pgControlVersion: 1700,
  relmapMappings: 64,
  aclitemAlign: "d",
  spgistLeafNextOffsetMask: pg16.spgistLeafNextOffsetMask,
  slru: pg16.slru,
  tablespaceDir: "PG_17_202406281",
  catalogColumns: {
    ...pg16.catalogColumns,
    pg_attribute: [
      ["attrelid", "oid"], ["attname", "name"], ["atttypid", "oid"], ["attlen", "int2"], ["attnum", "int2"],
      ["attcacheoff", "int4"], ["atttypmod", "int4"], ["attndims", "int2"], ["attbyval", "bool"], ["attalign", "char"],
      ["attstorage", "char"], ["attcompression", "char"], ["attnotnull", "bool"], ["atthasdef", "bool"],
      ["atthasmissing", "bool"], ["attidentity", "char"], ["attgenerated", "char"], ["attisdropped", "bool"],
      ["attislocal", "bool"], ["attinhcount", "int2"], ["attcollation", "oid"], ["attstattarget", "int2"],
      ["attacl", "_aclitem"], ["attoptions", "_text"], ["attfdwoptions", "_text"], ["attmissingval", "anyarray"],
    ],
    pg_database: [
      ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datlocprovider", "char"],
      ["datistemplate", "bool"], ["datallowconn", "bool"], ["dathasloginevt", "bool"], ["datconnlimit", "int4"],
      ["datfrozenxid", "xid"], ["datminmxid", "xid"], ["dattablespace", "oid"], ["datcollate", "text"],
      ["datctype", "text"], ["datlocale", "text"], ["daticurules", "text"], ["datcollversion", "text"],
      ["datacl", "_aclitem"],
    ],
    pg_collation: [
      ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
      ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "text"], ["collctype", "text"],
      ["colllocale", "text"], ["collicurules", "text"], ["collversion", "text"],
    ],
  },
  differences: [
    "pg_control: PG_CONTROL_VERSION 1700, CheckPoint gains wal_level",
    "pg_attribute: attstattarget (nullable int2) moves after attcollation",
    "pg_database: dathasloginevt added; daticulocale renamed datlocale",
    "pg_collation: colliculocale renamed colllocale",
  ],
});
