// The byte-ordered string comparators: bytea (byteacmp), text and varchar under a bytewise
// collation or as *_pattern_cmp (varstr_cmp under C, bttext_pattern_cmp), bpchar (bpcharcmp:
// trailing spaces do not count) and name as name_ops stores it (a cstring; btnamecmp under C).
// Under any other collation the order is libc's or ICU's, which pgdisk does not reproduce.
// Sources: src/backend/utils/adt/{varlena,varchar,name}.c (PostgreSQL 15).
import { cmpBytes, payloadOf, type DatumCmp } from "./bytes.js";

/** byteacmp, and text under C: the payloads by cmpBytes. */
export const cmpVarlenaBytes: DatumCmp = (a, ao, al, b, bo, bl) => {
  // plain 1- and 4-byte headers (nearly every key) compared in place, without payloadOf's arrays
  const a0 = a[ao];
  const b0 = b[bo];
  if (a0 !== 0x01 && b0 !== 0x01 && (a0 & 3) !== 2 && (b0 & 3) !== 2) {
    const ah = a0 & 1 ? 1 : 4;
    const bh = b0 & 1 ? 1 : 4;
    return cmpBytes(a, ao + ah, al - ah, b, bo + bh, bl - bh);
  }
  const x = payloadOf(a, ao, al);
  const y = payloadOf(b, bo, bl);
  if (!x || !y) return NaN;
  return cmpBytes(x[0], x[1], x[2], y[0], y[1], y[2]);
};

/** The length of a bpchar payload without its trailing spaces (bcTruelen). */
export function bpcharTrueLength(b: Uint8Array, o: number, n: number): number {
  while (n > 0 && b[o + n - 1] === 0x20) n--;
  return n;
}

/** bpchar: trailing spaces do not count (bcTruelen). */
export const cmpBpchar: DatumCmp = (a, ao, al, b, bo, bl) => {
  const x = payloadOf(a, ao, al);
  const y = payloadOf(b, bo, bl);
  if (!x || !y) return NaN;
  return cmpBytes(x[0], x[1], bpcharTrueLength(x[0], x[1], x[2]), y[0], y[1], bpcharTrueLength(y[0], y[1], y[2]));
};

/** name (stored as cstring in name_ops indexes, or NAMEDATALEN bytes): up to the first NUL. */
export const cmpCstring: DatumCmp = (a, ao, al, b, bo, bl) => {
  let an = 0;
  while (an < al && a[ao + an] !== 0) an++;
  let bn = 0;
  while (bn < bl && b[bo + bn] !== 0) bn++;
  return cmpBytes(a, ao, an, b, bo, bn);
};
