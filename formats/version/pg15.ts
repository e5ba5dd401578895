// PostgreSQL 15 (catalog version 202209061; checked against 15.18: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/versions/profiles.test.ts).
import { pg14 } from "./pg14.js";
import { defineProfile } from "./profile.js";

export const pg15 = defineProfile({
  major: 15,
  testedRelease: "15.18",
  catalogVersionNo: 202209061,
  pgControlVersion: 1300,
  relmapMappings: 62,
  aclitemAlign: "i",
  spgistLeafNextOffsetMask: pg14.spgistLeafNextOffsetMask,
  slru: pg14.slru,
  tablespaceDir: "PG_15_202209061",
  catalogColumns: {
    ...pg14.catalogColumns,
    pg_database: [
      ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datlocprovider", "char"],
      ["datistemplate", "bool"], ["datallowconn", "bool"], ["datconnlimit", "int4"], ["datfrozenxid", "xid"],
      ["datminmxid", "xid"], ["dattablespace", "oid"], ["datcollate", "text"], ["datctype", "text"],
      ["daticulocale", "text"], ["datcollversion", "text"], ["datacl", "_aclitem"],
    ],
    pg_index: [
      ["indexrelid", "oid"], ["indrelid", "oid"], ["indnatts", "int2"], ["indnkeyatts", "int2"], ["indisunique", "bool"],
      ["indnullsnotdistinct", "bool"], ["indisprimary", "bool"], ["indisexclusion", "bool"], ["indimmediate", "bool"],
      ["indisclustered", "bool"], ["indisvalid", "bool"], ["indcheckxmin", "bool"], ["indisready", "bool"],
      ["indislive", "bool"], ["indisreplident", "bool"], ["indkey", "int2vector"], ["indcollation", "oidvector"],
      ["indclass", "oidvector"], ["indoption", "int2vector"], ["indexprs", "pg_node_tree"], ["indpred", "pg_node_tree"],
    ],
    pg_collation: [
      ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
      ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "text"], ["collctype", "text"],
      ["colliculocale", "text"], ["collversion", "text"],
    ],
  },
  differences: [
    "pg_database: datcollate and datctype become text; datlocprovider, daticulocale, datcollversion added; datlastsysoid gone",
    "pg_collation: collcollate and collctype become text; colliculocale added",
    "pg_index: indnullsnotdistinct added",
  ],
});
