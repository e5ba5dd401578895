// What output functions need from a database's catalogs (the names regclassout, aclitemout & co.
// print, the subtype of a user-defined range): a plain interface the catalog layer fills in, so
// the decoders stay pure. A type lookup may carry one (TypeLookup.catalog); without it those
// types print what PostgreSQL prints for an OID it cannot find.

/** A catalog object found by name: its OID, name and schema, and what tells same-named ones apart. */
export interface NamedObject {
  oid: number;
  name: string;
  namespace: number;
  /** pg_proc.proargtypes, or [oprleft, oprright] of an operator: objects with equal names and args hide each other */
  args?: readonly number[];
  /** pg_collation.collencoding (-1: any encoding) */
  encoding?: number;
  /** Where a function lives: its library's name (the last part of pg_proc.probin, no ".so"), or "internal <prosrc>" */
  library?: string;
}

/** The catalogs whose objects reg* values name. */
export type ObjectKind = "class" | "type" | "proc" | "operator" | "tsconfig" | "tsdict" | "collation";

export interface TypeNameFacts {
  name: string;
  namespace: number;
  elem: number;
  len: number;
  /** typstorage: arrays stored plain (int2vector, oidvector) are not shown as elem[] */
  storage: string;
}

export interface OutputCatalog {
  /** the schemas an unqualified name is looked up in, in order (pg_catalog first, then the default search_path's) */
  readonly searchPath: readonly number[];
  /** pg_database.encoding of the database (decides which collations are usable) */
  readonly encoding: number;
  namespaceName(oid: number): string | undefined;
  roleName(oid: number): string | undefined;
  object(kind: ObjectKind, oid: number): NamedObject | undefined;
  /** every object of a kind with this name, in any schema */
  objectsNamed(kind: ObjectKind, name: string): readonly NamedObject[];
  type(oid: number): TypeNameFacts | undefined;
  /** pg_range.rngsubtype of a range type */
  rangeSubtype(rangeOid: number): number | undefined;
  /** pg_range.rngtypid of the range type whose multirange type this is */
  multirangeRange(multirangeOid: number): number | undefined;
}
