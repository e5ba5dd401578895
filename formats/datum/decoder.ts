// The shape every type family module fills in: OID -> output function.
import type { OutputCatalog } from "./output-catalog.js";
import type { TypeInfo, TypeLookup } from "./types.js";

export interface DecodeContext {
  typeOid: number;
  typmod: number;
  types: TypeLookup;
  /** the pg_type facts of typeOid (from `types`, falling back to the built-in table) */
  info: TypeInfo | undefined;
  /** the database's catalogs, for output functions that print names (reg*, aclitem); absent offline without a catalog */
  catalog?: OutputCatalog;
  /** decode another datum (array elements, range bounds) */
  toText(data: Uint8Array, typeOid: number, typmod: number): string;
}

/** An output function: datum bytes (varlena payload without header) -> PostgreSQL text. */
export type Decoder = (data: Uint8Array, ctx: DecodeContext) => string;

export type DecoderTable = Readonly<Record<number, Decoder>>;
