// PostgreSQL 15 (catalog version 202209061; checked against 15.18: pg_control, pg_filenode.map and
// every column below against that server's pg_attribute, by test/version/profiles.test.ts).
import { catalogDesc } from "./catalog-columns.js";
import { pg14 } from "./pg14.js";
import type { VersionProfile } from "./profile.js";

export const pg15: VersionProfile = {
  major: 15,
  testedRelease: "15.18",
  catalogVersionNo: 202209061,
  pgControlVersion: 1300,
  relmapMappings: 62,
  tablespaceDir: "PG_15_202209061",
  catalogs: {
    ...pg14.catalogs,
    pg_database: catalogDesc([
      ["oid", "oid"], ["datname", "name"], ["datdba", "oid"], ["encoding", "int4"], ["datlocprovider", "char"],
      ["datistemplate", "bool"], ["datallowconn", "bool"], ["datconnlimit", "int4"], ["datfrozenxid", "xid"],
      ["datminmxid", "xid"], ["dattablespace", "oid"], ["datcollate", "text"], ["datctype", "text"],
      ["daticulocale", "text"], ["datcollversion", "text"], ["datacl", "_aclitem"],
    ]),
    pg_index: catalogDesc([
      ["indexrelid", "oid"], ["indrelid", "oid"], ["indnatts", "int2"], ["indnkeyatts", "int2"], ["indisunique", "bool"],
      ["indnullsnotdistinct", "bool"], ["indisprimary", "bool"], ["indisexclusion", "bool"], ["indimmediate", "bool"],
      ["indisclustered", "bool"], ["indisvalid", "bool"], ["indcheckxmin", "bool"], ["indisready", "bool"],
      ["indislive", "bool"], ["indisreplident", "bool"], ["indkey", "int2vector"], ["indcollation", "oidvector"],
      ["indclass", "oidvector"], ["indoption", "int2vector"], ["indexprs", "pg_node_tree"], ["indpred", "pg_node_tree"],
    ]),
    pg_collation: catalogDesc([
      ["oid", "oid"], ["collname", "name"], ["collnamespace", "oid"], ["collowner", "oid"], ["collprovider", "char"],
      ["collisdeterministic", "bool"], ["collencoding", "int4"], ["collcollate", "text"], ["collctype", "text"],
      ["colliculocale", "text"], ["collversion", "text"],
    ]),
  },
  differences: [
    "pg_database: datcollate and datctype become text; datlocprovider, daticulocale, datcollversion added; datlastsysoid gone",
    "pg_collation: collcollate and collctype become text; colliculocale added",
    "pg_index: indnullsnotdistinct added",
  ],
};
