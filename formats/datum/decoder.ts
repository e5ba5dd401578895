// The shape every type family module fills in: OID -> output function.
import type { OutputCatalog } from "./output-catalog.js";
import type { TypeInfo, TypeLookup } from "./types.js";
import { textOf, type ValueWriter } from "./text-out.js";

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

/** OID -> writer, for the types whose output rule is a writer (text-out.ts). */
export type WriterTable = Readonly<Record<number, ValueWriter>>;
/**
 * By type OID, every byte the type's writer can write, for types whose text is ASCII of a few
 * characters (numbers, dates, uuids): when none of them needs escaping, COPY does not scan such
 * a value for bytes to escape after it is written.
 */
export type OutputCharsTable = Readonly<Record<number, string>>;

/** The string output functions of writer-ruled types: each one the text its writer writes. */
export function decodersOf(writers: WriterTable): DecoderTable {
  const out: Record<number, Decoder> = {};
  for (const [oid, w] of Object.entries(writers)) out[Number(oid)] = (d) => textOf(w, d);
  return out;
}
