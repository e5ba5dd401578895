// numeric_out: the on-disk NumericData of src/backend/utils/adt/numeric.c. After the varlena
// header comes a uint16 whose top two bits select the form: 00/01 long format (sign, dscale,
// then an int16 weight), 10 short format (sign, dscale and weight packed in the one word),
// 11 special (NaN, +Infinity, -Infinity). The digits that follow are int16 base-10000 digits,
// the first having weight `weight` (value = sum digit[i] * 10000^(weight - i)).
import { bits16, defineStruct, i16, register, u16 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { expectAtLeast, view } from "./util.js";

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

const NUMERIC_SIGN_MASK = 0xc000;
const NUMERIC_NEG = 0x4000;
const NUMERIC_SHORT = 0x8000;
const NUMERIC_SPECIAL = 0xc000;
const NUMERIC_EXT_SIGN_MASK = 0xf000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;
const NUMERIC_DSCALE_MASK = 0x3fff;
const SHORT_SIGN_MASK = 0x2000;
const SHORT_DSCALE_MASK = 0x1f80;
const SHORT_DSCALE_SHIFT = 7;
const SHORT_WEIGHT_SIGN_MASK = 0x0040;
const SHORT_WEIGHT_MASK = 0x003f;

/** Text of the numeric whose payload (after the varlena header) is b[start, end). */
export function numericText(b: Uint8Array, start = 0, end = b.length): string {
  expectAtLeast(b.subarray(start, end), 2, "numeric");
  const dv = view(b);
  const header = dv.getUint16(start, true);
  const flags = header & NUMERIC_SIGN_MASK;
  let neg: boolean, dscale: number, weight: number, digitsAt: number;
  if (flags === NUMERIC_SPECIAL) {
    switch (header & NUMERIC_EXT_SIGN_MASK) {
      case NUMERIC_NAN:
        return "NaN";
      case NUMERIC_PINF:
        return "Infinity";
      case NUMERIC_NINF:
        return "-Infinity";
      default:
        throw new FormatError("NUMERIC_BAD_SPECIAL", `numeric special header 0x${header.toString(16)} is not NaN or +/-Infinity`, { offset: start });
    }
  } else if (flags === NUMERIC_SHORT) {
    neg = (header & SHORT_SIGN_MASK) !== 0;
    dscale = (header & SHORT_DSCALE_MASK) >>> SHORT_DSCALE_SHIFT;
    weight = (header & SHORT_WEIGHT_SIGN_MASK ? -64 : 0) | (header & SHORT_WEIGHT_MASK);
    digitsAt = start + 2;
  } else {
    expectAtLeast(b.subarray(start, end), 4, "numeric");
    neg = flags === NUMERIC_NEG;
    dscale = header & NUMERIC_DSCALE_MASK;
    weight = dv.getInt16(start + NumericLong.offsets.n_weight, true);
    digitsAt = start + 4;
  }
  if ((end - digitsAt) % 2 !== 0) throw new FormatError("NUMERIC_ODD_LENGTH", `numeric digit area has odd length ${end - digitsAt}`, { offset: start });
  const ndigits = (end - digitsAt) / 2;
  const digit = (i: number): number => {
    if (i < 0 || i >= ndigits) return 0;
    const x = dv.getInt16(digitsAt + 2 * i, true);
    if (x < 0 || x > 9999) throw new FormatError("NUMERIC_BAD_DIGIT", `numeric digit ${x} outside 0..9999`, { offset: digitsAt + 2 * i });
    return x;
  };
  let s = neg ? "-" : "";
  if (weight < 0) s += "0";
  else {
    s += String(digit(0));
    for (let i = 1; i <= weight; i++) s += String(digit(i)).padStart(4, "0");
  }
  if (dscale > 0) {
    let frac = "";
    for (let i = weight + 1; frac.length < dscale; i++) frac += String(digit(i)).padStart(4, "0");
    s += "." + frac.slice(0, dscale);
  }
  return s;
}

export const NUMERIC_DECODERS: DecoderTable = {
  1700: (d) => numericText(d),
};
