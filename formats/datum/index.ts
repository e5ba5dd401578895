// Datum bytes -> PostgreSQL's text output: the type's output function (what psql shows for
// `SELECT col`), as with DateStyle ISO, IntervalStyle postgres, TimeZone UTC,
// extra_float_digits 1, bytea_output hex, lc_monetary C, server encoding UTF-8. This differs
// from `col::text` where the cast is not the output function: bpchar keeps its padding and
// inet omits a /32 (/128) mask, as in psql.
//
// `data` is exactly typlen bytes for fixed-length types, the payload after the varlena header
// (detoasted and decompressed) for varlena types, and the bytes without the NUL for cstring.
//
// Types without a decoder here print as `<typname>:\x<hex of data>` (e.g. `mytype:\x0a0b`), or
// `#<oid>:\x...` when the lookup does not know the OID. That covers enums (pg_enum OIDs),
// composites, domains (pass the base type's OID instead), non-built-in ranges, multiranges,
// tsquery, jsonpath, aclitem and extension types. reg* types print the OID number
// (names need the catalogs); InvalidOid prints "-" as in PostgreSQL ("0" for regoper and
// regoperator).
import type { DecodeContext, Decoder, DecoderTable } from "./decoder.js";
import { arrayText, VECTOR_DECODERS } from "./arrays.js";
import { builtinTypeLookup } from "./builtin-types.js";
import { BYTEA_DECODERS } from "./bytea.js";
import { DATETIME_DECODERS } from "./datetime.js";
import { FLOAT_DECODERS } from "./floats.js";
import { GEOMETRY_DECODERS } from "./geometry.js";
import { INTEGER_DECODERS } from "./integers.js";
import { JSON_DECODERS } from "./json.js";
import { JSONB_DECODERS } from "./jsonb.js";
import { MISC_DECODERS } from "./misc.js";
import { NETWORK_DECODERS } from "./network.js";
import { NUMERIC_DECODERS } from "./numeric.js";
import { RANGE_DECODERS } from "./ranges.js";
import { TEXT_DECODERS } from "./text.js";
import { TSVECTOR_DECODERS } from "./tsvector.js";
import type { TypeInfo, TypeLookup } from "./types.js";
import { hex } from "./util.js";
import { FormatError } from "../schema/errors.js";
import { UUID_DECODERS } from "./uuid.js";

export type { TypeInfo, TypeLookup } from "./types.js";
export { BUILTIN_TYPES, builtinTypeLookup } from "./builtin-types.js";

const TABLES: DecoderTable[] = [
  INTEGER_DECODERS,
  FLOAT_DECODERS,
  NUMERIC_DECODERS,
  TEXT_DECODERS,
  BYTEA_DECODERS,
  DATETIME_DECODERS,
  UUID_DECODERS,
  JSON_DECODERS,
  JSONB_DECODERS,
  NETWORK_DECODERS,
  MISC_DECODERS,
  GEOMETRY_DECODERS,
  RANGE_DECODERS,
  VECTOR_DECODERS,
  TSVECTOR_DECODERS,
];

/** Output functions by type OID. */
export const DECODERS: ReadonlyMap<number, Decoder> = (() => {
  const m = new Map<number, Decoder>();
  for (const t of TABLES) {
    for (const [oid, f] of Object.entries(t)) {
      if (m.has(Number(oid))) throw new Error(`datum decoder for type ${oid} defined twice`);
      m.set(Number(oid), f);
    }
  }
  return m;
})();

const ANYARRAY = 2277;

/** Whether values of this type are standard arrays (array_out). */
export function isArrayType(info: TypeInfo | undefined): boolean {
  if (!info) return false;
  if (info.oid === ANYARRAY) return true;
  return info.len === -1 && info.elem !== 0 && (info.category === undefined || info.category === "A") && !DECODERS.has(info.oid);
}

/** The fallback text for a type we cannot decode. */
export function unknownText(data: Uint8Array, typeOid: number, info: TypeInfo | undefined): string {
  return `${info?.name ?? `#${typeOid}`}:\\x${hex(data)}`;
}

/** PostgreSQL's text output of a datum; throws FormatError when the bytes are malformed. */
export function datumToText(data: Uint8Array, typeOid: number, typmod: number, types: TypeLookup): string {
  const lookup: TypeLookup = (oid) => types(oid) ?? builtinTypeLookup(oid);
  const toText = (d: Uint8Array, oid: number, mod: number): string => {
    const info = lookup(oid);
    const ctx: DecodeContext = { typeOid: oid, typmod: mod, types: lookup, info, toText };
    const f = DECODERS.get(oid);
    if (f) return f(d, ctx);
    if (info?.decode) return info.decode(d, toText);
    if (isArrayType(info)) {
      try {
        return arrayText(d, ctx);
      } catch (e) {
        if (e instanceof FormatError && e.code === "ARRAY_UNKNOWN_ELEMTYPE") return unknownText(d, oid, info);
        throw e;
      }
    }
    return unknownText(d, oid, info);
  };
  return toText(data, typeOid, typmod);
}
