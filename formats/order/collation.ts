// Which collations order strings bytewise (memcmp, as varstr_cmp does when lc_collate_is_c):
// the built-in C and POSIX collations, the database default when datcollate is C or POSIX, and a
// libc collation created with LC_COLLATE C or POSIX. Only under these do the text-like
// comparators of this folder hold. Sources: src/backend/utils/adt/pg_locale.c
// (lc_collate_is_c), src/include/catalog/pg_collation.dat (PostgreSQL 15).

const C_COLLATION_OID = 950;
const POSIX_COLLATION_OID = 951;
const DEFAULT_COLLATION_OID = 100;

/** The pg_collation facts the rule reads. */
export interface CollationFacts {
  /** collprovider: 'd' default, 'c' libc, 'i' ICU */
  provider: string;
  /** collcollate */
  collate: string | null | undefined;
}

export const bytewiseLocale = (name: string | null | undefined): boolean => name === "C" || name === "POSIX";

/**
 * Does collation `oid` compare bytewise? 0 (a non-collatable key) does. `dbCollate` is the
 * database's datcollate; `lookup` gives other pg_collation rows (without it, only the built-in
 * OIDs and the default are known, and any other collation counts as not bytewise).
 */
export function collationIsBytewise(oid: number, dbCollate: string | null | undefined, lookup?: (oid: number) => CollationFacts | undefined): boolean {
  if (oid === 0 || oid === C_COLLATION_OID || oid === POSIX_COLLATION_OID) return true;
  if (oid === DEFAULT_COLLATION_OID) return bytewiseLocale(dbCollate);
  const c = lookup?.(oid);
  if (!c) return false;
  if (c.provider === "d") return bytewiseLocale(dbCollate);
  return c.provider === "c" && bytewiseLocale(c.collate);
}
