// What the datum decoders need to know about a type: the pg_type columns that decide the
// on-disk layout (typlen, typbyval, typalign), the element type of arrays, and the name
// (used for the fallback text of types we cannot decode).
import type { OutputCatalog } from "./output-catalog.js";

export interface TypeInfo {
  oid: number;
  name: string;
  /** typlen: > 0 fixed length, -1 varlena, -2 NUL-terminated cstring */
  len: number;
  byval: boolean;
  align: "c" | "s" | "i" | "d";
  /** typelem, 0 if none (anyarray also has 0: its element type is in each array's header) */
  elem: number;
  /** typcategory, e.g. "A" for arrays */
  category?: string;
  /** typtype: b base, c composite, d domain, e enum, p pseudo, r range, m multirange */
  typtype?: string;
  /** typbasetype of a domain: its values print as the base type's */
  basetype?: number;
  /**
   * pg_proc.proname of typinput, for types created by extensions: their OIDs differ in every
   * database, their input function's name does not (citextin, hstore_in, cube_in ...; contrib.ts).
   */
  inputFunction?: string;
  /**
   * An output function supplied by whoever knows more than the built-in table (the catalog:
   * enum labels, composite types' attributes). `toText` decodes nested datums.
   */
  decode?: (data: Uint8Array, toText: (data: Uint8Array, typeOid: number, typmod: number) => string) => string;
}

/**
 * The types of a database (or the built-in ones). A lookup built from a database's catalogs
 * also carries them (`catalog`), for the output functions that print catalog names.
 */
export type TypeLookup = ((oid: number) => TypeInfo | undefined) & { readonly catalog?: OutputCatalog };

/** Bytes of an alignment code. */
export function alignBytes(align: TypeInfo["align"]): number {
  switch (align) {
    case "c":
      return 1;
    case "s":
      return 2;
    case "i":
      return 4;
    case "d":
      return 8;
  }
}

/** Round `off` up to a multiple of `n` (a power of two). */
export const alignUp = (off: number, n: number): number => (off + n - 1) & ~(n - 1);
