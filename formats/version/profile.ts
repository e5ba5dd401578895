// What differs between the PostgreSQL releases pgdisk reads, behind one interface. One file per
// major version (pg13.ts ... pg18.ts) fills it; nothing outside formats/version/ names a release.
import type { TupleDesc } from "../heap/descriptor.js";
import { catalogDesc, type ColumnList } from "./catalog-columns.js";

/** The catalogs pgdisk reads offline, by name. */
export type CatalogName =
  | "pg_class"
  | "pg_attribute"
  | "pg_type"
  | "pg_database"
  | "pg_namespace"
  | "pg_index"
  | "pg_am"
  | "pg_opclass"
  | "pg_collation"
  | "pg_enum"
  | "pg_amproc"
  | "pg_attrdef"
  | "pg_trigger";

export interface VersionProfile {
  /** major version, as PG_VERSION says it */
  major: number;
  /** the release the profile was checked against (the test suite's server) */
  testedRelease: string;
  /** CATALOG_VERSION_NO of the release (catversion.h) */
  catalogVersionNo: number;
  /** PG_CONTROL_VERSION: which pg_control layout (formats/storage/control-file.ts) */
  pgControlVersion: number;
  /** MAX_MAPPINGS of pg_filenode.map (62 until 15, with a 4-byte pad: 512 bytes; 64 from 16: 524 bytes) */
  relmapMappings: number;
  /** typalign of aclitem[] ("i" until 15; "d" from 16, where aclitem holds a 64-bit AclMode) */
  aclitemAlign: "i" | "d";
  /** the bits of an SP-GiST leaf tuple's nextOffset word that name the next tuple of its chain
   * (0xFFFF until 13, a whole OffsetNumber; 0x3FFF from 14, SGLT_GET_NEXTOFFSET of t_info) */
  spgistLeafNextOffsetMask: number;
  /** the SLRUs pgdisk reads: directories and the hex digits of their segment file names */
  slru: { xactDir: string; multixactDir: string; segmentNameDigits: number };
  /** the subdirectory of a tablespace holding this release's files (TABLESPACE_VERSION_DIRECTORY) */
  tablespaceDir: string;
  /** the columns of the catalogs pgdisk reads, in this release's order */
  catalogColumns: Readonly<Record<CatalogName, ColumnList>>;
  /** their tuple descriptors (built from catalogColumns and aclitemAlign) */
  catalogs: Readonly<Record<CatalogName, TupleDesc>>;
  /** on-disk differences from the previous release that pgdisk deals with (for docs and messages) */
  differences: readonly string[];
}

/** A profile from its facts: the catalog descriptors are built from the column lists. */
export function defineProfile(spec: Omit<VersionProfile, "catalogs">): VersionProfile {
  const catalogs = Object.fromEntries(Object.entries(spec.catalogColumns).map(([name, cols]) => [name, catalogDesc(cols, spec.aclitemAlign)])) as Record<CatalogName, TupleDesc>;
  return { ...spec, catalogs };
}
