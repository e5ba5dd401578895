// The values formats/expr computes with, and their datum bytes both ways. A value is plain JS of
// its type (the type is known when the expression is compiled): number for int2, int4, oid,
// date (days since 2000-01-01), float4 and float8; bigint for int8, timestamp and timestamptz
// (microseconds since 2000-01-01); string for text, varchar, bpchar (with its padding), name and
// uuid (its lowercase text); boolean; Jsonb (its bytes); Numeric (an exact decimal). null is NULL.
// The encoders are the server's own byte forms (src/include/utils/date.h, timestamp.h, numeric.c
// via formats/datum's numeric_in, uuid.c via uuid_in), so an index datum formed from a value is
// the one the server stored.
import { FormatError } from "../schema/errors.js";
import type { JsonbValue } from "../datum/jsonb.js";
import { utf8Text } from "../datum/util.js";
import { numericText } from "../datum/numeric.js";
import { numericIn, uuidIn } from "../datum/input.js";
import { UUID_WRITERS } from "../datum/uuid.js";
import { textOf } from "../datum/text-out.js";

/** numeric: n * 10^-scale (scale = the display scale, dscale), or NaN / +Infinity / -Infinity */
export interface Numeric {
  readonly n: bigint;
  readonly scale: number;
  /** 0 finite, NUM_NAN, NUM_PINF, NUM_NINF */
  readonly special: number;
}
export const NUM_NAN = 1;
export const NUM_PINF = 2;
export const NUM_NINF = 3;

export type ExprValue = number | bigint | string | boolean | JsonbValue | Numeric | null;

export const BOOLOID = 16;
export const NAMEOID = 19;
export const INT8OID = 20;
export const INT2OID = 21;
export const INT4OID = 23;
export const TEXTOID = 25;
export const OIDOID = 26;
export const FLOAT4OID = 700;
export const FLOAT8OID = 701;
export const BPCHAROID = 1042;
export const VARCHAROID = 1043;
export const DATEOID = 1082;
export const TIMESTAMPOID = 1114;
export const TIMESTAMPTZOID = 1184;
export const NUMERICOID = 1700;
export const UUIDOID = 2950;
export const JSONBOID = 3802;

/** The column types a RowReader gives as ExprValues, and the result types an index datum is encoded from. */
export const ROW_TYPES: ReadonlySet<number> = new Set([
  INT2OID, INT4OID, INT8OID, BOOLOID, TEXTOID, VARCHAROID, BPCHAROID, JSONBOID,
  NUMERICOID, FLOAT4OID, FLOAT8OID, DATEOID, TIMESTAMPOID, TIMESTAMPTZOID, NAMEOID, OIDOID, UUIDOID,
]);

const UTF8 = new TextEncoder();
const NAMEDATALEN = 64;

/** A numeric's text as numeric_out prints it (dscale fraction digits). */
export function numericString(v: Numeric): string {
  if (v.special) return v.special === NUM_NAN ? "NaN" : v.special === NUM_PINF ? "Infinity" : "-Infinity";
  const neg = v.n < 0n;
  const digits = (neg ? -v.n : v.n).toString().padStart(v.scale + 1, "0");
  const int = digits.slice(0, digits.length - v.scale);
  return (neg ? "-" : "") + int + (v.scale > 0 ? "." + digits.slice(digits.length - v.scale) : "");
}

/** numeric_out's text back into a Numeric (the text has exactly dscale fraction digits). */
export function numericFromString(s: string): Numeric {
  if (s === "NaN") return { n: 0n, scale: 0, special: NUM_NAN };
  if (s === "Infinity") return { n: 0n, scale: 0, special: NUM_PINF };
  if (s === "-Infinity") return { n: 0n, scale: 0, special: NUM_NINF };
  const dot = s.indexOf(".");
  return dot < 0 ? { n: BigInt(s), scale: 0, special: 0 } : { n: BigInt(s.slice(0, dot) + s.slice(dot + 1)), scale: s.length - dot - 1, special: 0 };
}

/** An ExprValue of type `typid` (one of ROW_TYPES) as datum bytes: fixed bytes, or a varlena's payload. */
export function encodeExprValue(v: Exclude<ExprValue, null>, typid: number): Uint8Array {
  switch (typid) {
    case INT2OID: {
      const b = new Uint8Array(2);
      new DataView(b.buffer).setInt16(0, v as number, true);
      return b;
    }
    case INT4OID:
    case DATEOID:
    case OIDOID: {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setInt32(0, v as number, true);
      return b;
    }
    case INT8OID:
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigInt64(0, v as bigint, true);
      return b;
    }
    case FLOAT4OID: {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setFloat32(0, v as number, true);
      return b;
    }
    case FLOAT8OID: {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, v as number, true);
      return b;
    }
    case BOOLOID:
      return Uint8Array.of(v ? 1 : 0);
    case JSONBOID:
      return (v as JsonbValue).jsonb;
    case NUMERICOID:
      return numericIn(numericString(v as Numeric), { typmod: -1 });
    case UUIDOID:
      return uuidIn(v as string, { typmod: -1 });
    case NAMEOID: {
      // NUL-padded to NAMEDATALEN; the evaluator's names are already cut to 63 bytes
      const b = new Uint8Array(NAMEDATALEN);
      const r = UTF8.encodeInto(v as string, b.subarray(0, NAMEDATALEN - 1));
      if (r.read !== (v as string).length) throw new FormatError("EXPR_OVERFLOW", "name longer than NAMEDATALEN - 1 bytes");
      return b;
    }
    default:
      return UTF8.encode(v as string);
  }
}

/** A heap datum of type `typid` (one of ROW_TYPES) as an ExprValue: fixed bytes or a varlena's payload. */
export function decodeExprValue(b: Uint8Array, off: number, len: number, typid: number): ExprValue {
  const dv = new DataView(b.buffer, b.byteOffset + off, len);
  switch (typid) {
    case INT2OID:
      return dv.getInt16(0, true);
    case INT4OID:
    case DATEOID:
      return dv.getInt32(0, true);
    case OIDOID:
      return dv.getUint32(0, true);
    case INT8OID:
    case TIMESTAMPOID:
    case TIMESTAMPTZOID:
      return dv.getBigInt64(0, true);
    case FLOAT4OID:
      return dv.getFloat32(0, true);
    case FLOAT8OID:
      return dv.getFloat64(0, true);
    case BOOLOID:
      return b[off] !== 0;
    case JSONBOID:
      return { jsonb: b.subarray(off, off + len) };
    case NUMERICOID:
      return numericFromString(numericText(b, off, off + len));
    case UUIDOID:
      return textOf(UUID_WRITERS[UUIDOID]!, b.subarray(off, off + len));
    case NAMEOID: {
      let e = off;
      while (e < off + len && b[e] !== 0) e++;
      return utf8Text(b.subarray(off, e));
    }
    default:
      return utf8Text(b.subarray(off, off + len));
  }
}
