// numeric_out: the on-disk NumericData of src/backend/utils/adt/numeric.c. After the varlena
// header comes a uint16 whose top two bits select the form: 00/01 long format (sign, dscale,
// then an int16 weight), 10 short format (sign, dscale and weight packed in the one word),
// 11 special (NaN, +Infinity, -Infinity). The digits that follow are int16 base-10000 digits,
// the first having weight `weight` (value = sum digit[i] * 10000^(weight - i)).
import { bits16, defineStruct, i16, register, u16 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { decodersOf, type OutputCharsTable, type WriterTable } from "./decoder.js";
import { putDigits4, putText, putUpTo4, textOf, type ValueWriter } from "./text-out.js";

export const NumericLong = register(
  defineStruct("NumericLong", "src/backend/utils/adt/numeric.c", [
    u16("n_sign_dscale", "top 2 bits: sign (0x0000 positive, 0x4000 negative); low 14 bits: display scale"),
    i16("n_weight", "weight of the first digit, in base-10000 digits"),
  ] as const),
);

export const NumericShort = register(
  defineStruct("NumericShort", "src/backend/utils/adt/numeric.c", [
    bits16(
      "n_header",
      { n_weight_bits: 6, n_weight_sign: 1, n_dscale: 6, n_sign: 1, n_flagbits: 2 },
      "short-format header word (flag bits 10)",
      { n_weight_bits: "weight magnitude bits (two's complement with n_weight_sign)", n_weight_sign: "1: weight is negative", n_dscale: "display scale", n_sign: "1: negative", n_flagbits: "0b10 = NUMERIC_SHORT" },
    ),
  ] as const),
);

/** numeric.c's header bits (n_header / n_sign_dscale), shared by the decoder, numeric_in and numeric_cmp */
export const NUMERIC_SIGN_MASK = 0xc000;
export const NUMERIC_NEG = 0x4000;
export const NUMERIC_SHORT = 0x8000;
export const NUMERIC_SPECIAL = 0xc000;
export const NUMERIC_EXT_SIGN_MASK = 0xf000;
export const NUMERIC_NAN = 0xc000;
export const NUMERIC_PINF = 0xd000;
export const NUMERIC_NINF = 0xf000;
export const NUMERIC_DSCALE_MASK = 0x3fff;
export const SHORT_SIGN_MASK = 0x2000;
export const SHORT_DSCALE_MASK = 0x1f80;
export const SHORT_DSCALE_SHIFT = 7;
/** the largest display scale a numeric stores (NUMERIC_DSCALE_MAX) */
export const NUMERIC_DSCALE_MAX = NUMERIC_DSCALE_MASK;
export const SHORT_WEIGHT_SIGN_MASK = 0x0040;
export const SHORT_WEIGHT_MASK = 0x003f;

/** Base-10000 digit i of the ndigits at b[digitsAt] (0 outside them), checked to be 0..9999. */
function numericDigit(b: Uint8Array, digitsAt: number, ndigits: number, i: number): number {
  if (i < 0 || i >= ndigits) return 0;
  const at = digitsAt + 2 * i;
  const x = ((b[at]! | (b[at + 1]! << 8)) << 16) >> 16;
  if (x < 0 || x > 9999) throw new FormatError("NUMERIC_BAD_DIGIT", `numeric digit ${x} outside 0..9999`, { offset: at });
  return x;
}

/** Write the text of the numeric whose payload (after the varlena header) is b[start, end). */
export const numericWrite: ValueWriter = (b, start, end, out) => {
  if (end - start < 2) throw new FormatError("DATUM_TRUNCATED", `numeric datum needs at least 2 bytes, got ${end - start}`);
  const header = b[start]! | (b[start + 1]! << 8);
  const flags = header & NUMERIC_SIGN_MASK;
  let neg: boolean, dscale: number, weight: number, digitsAt: number;
  if (flags === NUMERIC_SPECIAL) {
    switch (header & NUMERIC_EXT_SIGN_MASK) {
      case NUMERIC_NAN:
        return putText(out, "NaN");
      case NUMERIC_PINF:
        return putText(out, "Infinity");
      case NUMERIC_NINF:
        return putText(out, "-Infinity");
      default:
        throw new FormatError("NUMERIC_BAD_SPECIAL", `numeric special header 0x${header.toString(16)} is not NaN or +/-Infinity`, { offset: start });
    }
  } else if (flags === NUMERIC_SHORT) {
    neg = (header & SHORT_SIGN_MASK) !== 0;
    dscale = (header & SHORT_DSCALE_MASK) >>> SHORT_DSCALE_SHIFT;
    weight = (header & SHORT_WEIGHT_SIGN_MASK ? -64 : 0) | (header & SHORT_WEIGHT_MASK);
    digitsAt = start + 2;
  } else {
    if (end - start < 4) throw new FormatError("DATUM_TRUNCATED", `numeric datum needs at least 4 bytes, got ${end - start}`);
    neg = flags === NUMERIC_NEG;
    dscale = header & NUMERIC_DSCALE_MASK;
    const w = b[start + NumericLong.offsets.n_weight]! | (b[start + NumericLong.offsets.n_weight + 1]! << 8);
    weight = (w << 16) >> 16;
    digitsAt = start + 4;
  }
  if ((end - digitsAt) % 2 !== 0) throw new FormatError("NUMERIC_ODD_LENGTH", `numeric digit area has odd length ${end - digitsAt}`, { offset: start });
  const ndigits = (end - digitsAt) / 2;
  // sign, 4 characters per integer digit (at least "0"), the point and dscale fraction digits
  out.reserve(2 + 4 * Math.max(weight + 1, 1) + 1 + dscale + 4);
  const o = out.buf;
  let p = out.pos;
  if (neg) o[p++] = 45;
  if (weight < 0) o[p++] = 48;
  else {
    p = putUpTo4(o, p, numericDigit(b, digitsAt, ndigits, 0));
    for (let i = 1; i <= weight; i++) p = putDigits4(o, p, numericDigit(b, digitsAt, ndigits, i));
  }
  if (dscale > 0) {
    o[p++] = 46;
    // whole base-10000 digits, then the last one cut to the scale
    let left = dscale;
    for (let i = weight + 1; left > 0; i++) {
      const x = numericDigit(b, digitsAt, ndigits, i);
      if (left >= 4) {
        p = putDigits4(o, p, x);
        left -= 4;
      } else {
        const q = putDigits4(o, p, x);
        p = q - (4 - left);
        left = 0;
      }
    }
  }
  out.pos = p;
};

/** Text of the numeric whose payload (after the varlena header) is b[start, end). */
export const numericText = (b: Uint8Array, start = 0, end = b.length): string => textOf(numericWrite, b, start, end);

export const NUMERIC_WRITERS: WriterTable = {
  1700: numericWrite,
};

export const NUMERIC_DECODERS = decodersOf(NUMERIC_WRITERS);

// digits, sign, point, NaN, Infinity, -Infinity
export const NUMERIC_OUTPUT_CHARS: OutputCharsTable = { 1700: "0123456789-.NaInfity" };
