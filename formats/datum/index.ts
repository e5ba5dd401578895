// Datum bytes -> PostgreSQL's text output: the type's output function (what psql shows for
// `SELECT col`), as with DateStyle ISO, IntervalStyle postgres, TimeZone UTC,
// extra_float_digits 1, bytea_output hex, lc_monetary C, server encoding UTF-8. This differs
// from `col::text` where the cast is not the output function: bpchar keeps its padding and
// inet omits a /32 (/128) mask, as in psql.
//
// `data` is exactly typlen bytes for fixed-length types, the payload after the varlena header
// (detoasted and decompressed) for varlena types, and the bytes without the NUL for cstring.
//
// Types of contrib extensions (hstore, citext, ltree, lquery, cube, seg) are found by the name of
// their input function (TypeInfo.inputFunction; contrib.ts), as their OIDs vary.
// Types without a decoder here print as `<typname>:\x<hex of data>` (e.g. `mytype:\x0a0b`), or
// `#<oid>:\x...` when the lookup does not know the OID (extension types, ranges whose subtype
// is unknown). Enums and composites decode through the catalog's lookup (TypeInfo.decode),
// domains as their base type (TypeInfo.basetype), ranges and multiranges through pg_range.
// Output functions that print catalog names (reg*, aclitem) take them from the lookup's
// catalog (TypeLookup.catalog); without one they print OIDs, as the server does for an OID
// it cannot find.
import type { DecodeContext, Decoder, DecoderTable } from "./decoder.js";
import { alphabetNeedsNoQuotes, arrayText, fixedArrayWriter, VECTOR_DECODERS } from "./arrays.js";
import { builtinTypeLookup } from "./builtin-types.js";
import { BYTEA_DECODERS, BYTEA_WRITERS } from "./bytea.js";
import { CONTRIB_DECODERS, CONTRIB_WRITERS } from "./contrib.js";
import { DATETIME_DECODERS, DATETIME_OUTPUT_CHARS, DATETIME_WRITERS } from "./datetime.js";
import { FLOAT_DECODERS, FLOAT_OUTPUT_CHARS, FLOAT_WRITERS } from "./floats.js";
import { GEOMETRY_DECODERS } from "./geometry.js";
import { INTEGER_DECODERS, INTEGER_OUTPUT_CHARS, INTEGER_WRITERS } from "./integers.js";
import { JSON_DECODERS, JSON_WRITERS } from "./json.js";
import { JSONB_DECODERS, JSONB_WRITERS } from "./jsonb.js";
import { MISC_DECODERS } from "./misc.js";
import { NETWORK_DECODERS, NETWORK_WRITERS } from "./network.js";
import { NUMERIC_DECODERS, NUMERIC_OUTPUT_CHARS, NUMERIC_WRITERS } from "./numeric.js";
import { multirangeText, POLYMORPHIC_RANGE_DECODERS, rangeText } from "./ranges.js";
import { BRIN_SUMMARY_DECODERS } from "./brin-summary.js";
import { ACL_DECODERS } from "./acl.js";
import { REG_DECODERS } from "./reg.js";
import { STATISTICS_DECODERS } from "./statistics.js";
import { TSQUERY_DECODERS } from "./tsquery.js";
import { JSONPATH_DECODERS } from "./jsonpath.js";
import { TEXT_DECODERS, TEXT_WRITERS } from "./text.js";
import { TSVECTOR_DECODERS } from "./tsvector.js";
import { alignBytes, type TypeInfo, type TypeLookup } from "./types.js";
import { undecodedText } from "./util.js";
import { FormatError } from "../schema/errors.js";
import { UUID_DECODERS, UUID_OUTPUT_CHARS, UUID_WRITERS } from "./uuid.js";
import { putText, type ValueWriter } from "./text-out.js";
import type { WriterTable } from "./decoder.js";

export type { TypeInfo, TypeLookup } from "./types.js";
export { BUILTIN_TYPES, builtinTypeLookup } from "./builtin-types.js";

const TABLES: DecoderTable[] = [
  POLYMORPHIC_RANGE_DECODERS,
  BRIN_SUMMARY_DECODERS,
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
  ACL_DECODERS,
  REG_DECODERS,
  STATISTICS_DECODERS,
  TSQUERY_DECODERS,
  JSONPATH_DECODERS,
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

/** Writers of the types whose output is written straight from the datum's bytes. */
const WRITERS: ReadonlyMap<number, ValueWriter> = (() => {
  const m = new Map<number, ValueWriter>();
  for (const t of [INTEGER_WRITERS, FLOAT_WRITERS, NUMERIC_WRITERS, TEXT_WRITERS, BYTEA_WRITERS, DATETIME_WRITERS, UUID_WRITERS, JSON_WRITERS, JSONB_WRITERS, NETWORK_WRITERS] as WriterTable[]) {
    for (const [oid, w] of Object.entries(t)) m.set(Number(oid), w);
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

/** Output functions shared by every type of a typtype: ranges and multiranges. */
const TYPTYPE_DECODERS: Readonly<Record<string, Decoder>> = { r: rangeText, m: multirangeText };

/** Domains over domains resolve in a few steps; a cycle (damage) stops here. */
const MAX_DOMAIN_DEPTH = 16;

/** PostgreSQL's text output of a datum; throws FormatError when the bytes are malformed. */
export function datumToText(data: Uint8Array, typeOid: number, typmod: number, types: TypeLookup): string {
  const lookup: TypeLookup = (oid) => types(oid) ?? builtinTypeLookup(oid);
  const catalog = types.catalog;
  const toText = (d: Uint8Array, oid: number, mod: number): string => {
    let info = lookup(oid);
    for (let i = 0; info?.basetype && i < MAX_DOMAIN_DEPTH; i++) [oid, info] = [info.basetype, lookup(info.basetype)];
    const ctx: DecodeContext = { typeOid: oid, typmod: mod, types: lookup, info, toText, catalog };
    const f = DECODERS.get(oid) ?? (info?.typtype ? TYPTYPE_DECODERS[info.typtype] : undefined) ?? (info?.inputFunction ? CONTRIB_DECODERS.get(info.inputFunction) : undefined);
    if (f) return f(d, ctx);
    if (info?.decode) return info.decode(d, toText);
    if (isArrayType(info)) {
      try {
        return arrayText(d, ctx);
      } catch (e) {
        if (e instanceof FormatError && e.code === "ARRAY_UNKNOWN_ELEMTYPE") return undecodedText(d, oid, info);
        throw e;
      }
    }
    return undecodedText(d, oid, info);
  };
  return toText(data, typeOid, typmod);
}

/** The type whose output a column of `typeOid` prints: a domain's base type (through MAX_DOMAIN_DEPTH domains). */
function outputType(typeOid: number, types: TypeLookup): { oid: number; info: TypeInfo | undefined } {
  let oid = typeOid;
  let info = types(oid) ?? builtinTypeLookup(oid);
  for (let i = 0; info?.basetype && i < MAX_DOMAIN_DEPTH; i++) {
    oid = info.basetype;
    info = types(oid) ?? builtinTypeLookup(oid);
  }
  return { oid, info };
}

const OUTPUT_CHARS: ReadonlyMap<number, string> = new Map(
  [INTEGER_OUTPUT_CHARS, FLOAT_OUTPUT_CHARS, NUMERIC_OUTPUT_CHARS, DATETIME_OUTPUT_CHARS, UUID_OUTPUT_CHARS].flatMap((t) => Object.entries(t).map(([oid, chars]) => [Number(oid), chars] as const)),
);

/**
 * Every byte columnWriter's writer for `typeOid` can write, when its text is short ASCII of a
 * known alphabet (OutputCharsTable: at most 128 bytes a value); undefined for other types.
 */
export function columnOutputChars(typeOid: number, types: TypeLookup): string | undefined {
  return OUTPUT_CHARS.get(outputType(typeOid, types).oid);
}

/**
 * The type's own writer of a column's values (domains as their base type) and the type it
 * writes; undefined for the types whose output is built as a string.
 */
export function columnOwnWriter(typeOid: number, types: TypeLookup): { write: ValueWriter; outputOid: number } | undefined {
  const { oid, info } = outputType(typeOid, types);
  const write = WRITERS.get(oid) ?? (info?.inputFunction ? CONTRIB_WRITERS.get(info.inputFunction) : undefined) ?? arrayWriter(oid, info, types);
  return write && { write, outputOid: oid };
}

/** The writer of an array type whose elements are fixed-length and never quoted (fixedArrayWriter); undefined for other arrays. */
function arrayWriter(oid: number, info: TypeInfo | undefined, types: TypeLookup): ValueWriter | undefined {
  if (!isArrayType(info) || info!.decode || !info!.elem) return undefined;
  const elem = info!.elem;
  const elemInfo = types(elem) ?? builtinTypeLookup(elem);
  const alphabet = columnOutputChars(elem, types);
  const elemWrite = elemInfo && elemInfo.len > 0 && alphabet !== undefined && alphabetNeedsNoQuotes(alphabet) ? columnOwnWriter(elem, types)?.write : undefined;
  if (!elemWrite) return undefined;
  const slow: ValueWriter = (b, start, end, out) => putText(out, datumToText(b.subarray(start, end), oid, -1, types));
  return fixedArrayWriter(elem, elemInfo!.len, alignBytes(elemInfo!.align), elemWrite, slow);
}

/**
 * The writer of a column's values: the type's own writer (domains as their base type), or, for
 * the types whose output is built as a string (arrays, jsonb, ranges, catalog names ...), one
 * that writes datumToText's string.
 */
export function columnWriter(typeOid: number, typmod: number, types: TypeLookup): ValueWriter {
  const w = columnOwnWriter(typeOid, types)?.write;
  if (w) return w;
  return (b, start, end, out) => putText(out, datumToText(b.subarray(start, end), typeOid, typmod, types));
}
