// bit_cmp (bitcmp, varbitcmp) over VarBit bytes: memcmp of the bytes both values have, then the
// bit length. Source: src/backend/utils/adt/varbit.c (bit_cmp) (PostgreSQL 15).
import { i32At } from "../schema/bytes.js";
import { cmpBytes, payloadOf, type DatumCmp } from "./bytes.js";

/** the int32 bit_len before the bits */
const VARBITHDRSZ = 4;

export const cmpBits: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y || x[2] < VARBITHDRSZ || y[2] < VARBITHDRSZ) return NaN;
  const na = x[2] - VARBITHDRSZ;
  const nb = y[2] - VARBITHDRSZ;
  const n = Math.min(na, nb);
  const c = cmpBytes(x[0], x[1] + VARBITHDRSZ, n, y[0], y[1] + VARBITHDRSZ, n);
  if (c !== 0) return c;
  const d = i32At(x[0], x[1]) - i32At(y[0], y[1]);
  return d < 0 ? -1 : d > 0 ? 1 : 0;
};
