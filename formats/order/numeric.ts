// numeric_cmp over NumericData bytes (cmp_numerics, cmp_var_common, cmp_abs_common): NaN above
// +Infinity above every finite value above -Infinity; finite values by sign, then their base
// 10000 digits aligned by weight. Short and long headers both read. Source:
// src/backend/utils/adt/numeric.c (PostgreSQL 15).
import { i16At } from "../schema/bytes.js";
import { payloadOf, type DatumCmp } from "./bytes.js";
import { NUMERIC_EXT_SIGN_MASK, NUMERIC_NAN, NUMERIC_NEG, NUMERIC_PINF, NUMERIC_SHORT, NUMERIC_SIGN_MASK, NUMERIC_SPECIAL, SHORT_SIGN_MASK, SHORT_WEIGHT_MASK, SHORT_WEIGHT_SIGN_MASK } from "../datum/numeric.js";


interface Num {
  /** 0 finite, 1 NaN, 2 +Inf, 3 -Inf */
  special: number;
  neg: boolean;
  weight: number;
  at: number;
  ndigits: number;
}
/** The header of the payload at b[s, s + n) into `out`; false when too short. */
function readNumeric(b: Uint8Array, s: number, n: number, out: Num): boolean {
  if (n < 2) return false;
  const h = b[s] | (b[s + 1] << 8);
  const flag = h & NUMERIC_SIGN_MASK;
  if (flag === NUMERIC_SPECIAL) {
    const x = h & NUMERIC_EXT_SIGN_MASK;
    out.special = x === NUMERIC_NAN ? 1 : x === NUMERIC_PINF ? 2 : 3;
    return true;
  }
  out.special = 0;
  if (flag === NUMERIC_SHORT) {
    out.neg = (h & SHORT_SIGN_MASK) !== 0;
    out.weight = (h & SHORT_WEIGHT_SIGN_MASK ? ~SHORT_WEIGHT_MASK : 0) | (h & SHORT_WEIGHT_MASK);
    out.at = s + 2;
    out.ndigits = (n - 2) >> 1;
  } else {
    if (n < 4) return false;
    out.neg = flag === NUMERIC_NEG;
    out.weight = i16At(b, s + 2);
    out.at = s + 4;
    out.ndigits = (n - 4) >> 1;
  }
  return true;
}
// the two operands' headers, reused by every call (no allocation per comparison)
const NA: Num = { special: 0, neg: false, weight: 0, at: 0, ndigits: 0 };
const NB: Num = { special: 0, neg: false, weight: 0, at: 0, ndigits: 0 };

/** cmp_abs_common: compare digit arrays aligned by weight (zeros where one has none). */
function cmpAbs(a: Uint8Array, x: Num, b: Uint8Array, y: Num): number {
  const hi = Math.max(x.weight, y.weight);
  const lo = Math.min(x.weight - x.ndigits + 1, y.weight - y.ndigits + 1);
  for (let w = hi; w >= lo; w--) {
    const ia = x.weight - w;
    const ib = y.weight - w;
    const da = ia >= 0 && ia < x.ndigits ? i16At(a, x.at + 2 * ia) : 0;
    const db = ib >= 0 && ib < y.ndigits ? i16At(b, y.at + 2 * ib) : 0;
    if (da !== db) return da < db ? -1 : 1;
  }
  return 0;
}
function allZero(b: Uint8Array, n: Num): boolean {
  for (let i = 0; i < n.ndigits; i++) if (i16At(b, n.at + 2 * i) !== 0) return false;
  return true;
}
/** NaN > +Inf > finite > -Inf */
const rank = (n: Num): number => (n.special === 1 ? 3 : n.special === 2 ? 2 : n.special === 3 ? 0 : 1);

/** numeric_cmp of two payloads (no varlena header): a[as, as + an) against b[bs, bs + bn); NaN when undecodable. */
export function cmpNumericPayload(a: Uint8Array, as: number, an: number, b: Uint8Array, bs: number, bn: number): number {
  if (!readNumeric(a, as, an, NA) || !readNumeric(b, bs, bn, NB)) return NaN;
  if (NA.special || NB.special) {
    const ra = rank(NA);
    const rb = rank(NB);
    if (ra !== rb) return ra - rb;
    if (ra !== 1) return 0;
  }
  const za = NA.ndigits === 0 || allZero(a, NA);
  const zb = NB.ndigits === 0 || allZero(b, NB);
  if (za || zb) {
    if (za && zb) return 0;
    if (za) return NB.neg ? 1 : -1;
    return NA.neg ? -1 : 1;
  }
  if (NA.neg !== NB.neg) return NA.neg ? -1 : 1;
  const c = cmpAbs(a, NA, b, NB);
  return NA.neg ? -c : c;
}

/** numeric_cmp of two datums (header on, maybe compressed). */
export const cmpNumeric: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = x && payloadOf(b0, bo, bl);
  if (!x || !y) return NaN;
  return cmpNumericPayload(x[0], x[1], x[2], y[0], y[1], y[2]);
};
