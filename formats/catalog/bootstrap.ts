// OIDs of the catalogs pgdisk reads (the same in every release: src/include/catalog/pg_*.h).
// Their descriptors differ between releases and live in the version profiles (formats/version/).
export const PG_CLASS_OID = 1259;
export const PG_ATTRIBUTE_OID = 1249;
export const PG_TYPE_OID = 1247;
export const PG_NAMESPACE_OID = 2615;
export const PG_INDEX_OID = 2610;
export const PG_AM_OID = 2601;
export const PG_DATABASE_OID = 1262;
export const PG_OPCLASS_OID = 2616;
export const PG_COLLATION_OID = 3456;
export const PG_ENUM_OID = 3501;
export const PG_AMPROC_OID = 2603;
export const PG_ATTRDEF_OID = 2604;
export const PG_TRIGGER_OID = 2620;
export const PG_PROC_OID = 1255;
export const PG_OPERATOR_OID = 2617;
export const PG_AUTHID_OID = 1260;
export const PG_TS_CONFIG_OID = 3602;
export const PG_TS_DICT_OID = 3600;
export const PG_RANGE_OID = 3541;
export const PG_CONSTRAINT_OID = 2606;
export const PG_SEQUENCE_OID = 2224;
export const PG_DB_ROLE_SETTING_OID = 2964;
