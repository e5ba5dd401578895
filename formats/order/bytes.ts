// The shape every on-disk comparator has (DatumCmp) and the two byte rules the others build on:
// memcmp-then-length order (varstr_cmp under C, byteacmp) and a varlena's payload (header off,
// decompressed when index_form_tuple stored it compressed). Sources: src/backend/utils/adt/
// varlena.c (varstr_cmp, byteacmp), access/common/indextuple.c (index_form_tuple compresses keys
// above TOAST_INDEX_TARGET), include/varatt.h (the header bits) (PostgreSQL 15).
import { decompressTcinfo } from "../compression/index.js";
import { dataViewCache } from "../page/word-view.js";

/**
 * Two datums as (buffer, offset, length) with a varlena's header still on (length = whole
 * datum); returns <0, 0 or >0, or NaN when the bytes cannot be compared (undecodable, external).
 */
export type DatumCmp = (a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number) => number;

const viewA = dataViewCache();
const viewB = dataViewCache();
let lastA: Uint8Array | null = null;
let lastB: Uint8Array | null = null;
let dvA: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
let dvB = dvA;

/**
 * memcmp of two byte ranges, then the shorter first (varstr_cmp under C, byteacmp). Long ranges
 * go four bytes at a time as big-endian words, whose unsigned order is memcmp's (keys often share
 * long prefixes: URLs, paths). Only the sign of the result is meaningful.
 */
export function cmpBytes(a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number): number {
  const n = Math.min(al, bl);
  let i = 0;
  if (n >= 12) {
    // views looked up once per byte array: reading .buffer per call costs more than short keys
    if (a !== lastA) {
      lastA = a;
      dvA = viewA(a.buffer);
    }
    if (b !== lastB) {
      lastB = b;
      dvB = viewB(b.buffer);
    }
    const da = dvA;
    const db = dvB;
    const pa = a.byteOffset + ao;
    const pb = b.byteOffset + bo;
    for (const e = n - 3; i < e; i += 4) {
      const x = da.getUint32(pa + i);
      const y = db.getUint32(pb + i);
      if (x !== y) return x < y ? -1 : 1;
    }
  }
  for (; i < n; i++) {
    const d = a[ao + i] - b[bo + i];
    if (d !== 0) return d;
  }
  return al - bl;
}

/**
 * A varlena's payload as [buffer, start, length]: after a 1- or 4-byte header, or decompressed
 * when index_form_tuple stored it compressed (keys above TOAST_INDEX_TARGET). Null for an
 * external pointer (never valid in an index) or undecodable bytes.
 */
export function payloadOf(b: Uint8Array, o: number, l: number): [Uint8Array, number, number] | null {
  const b0 = b[o];
  if (b0 === 0x01) return null;
  if (b0 & 1) return [b, o + 1, l - 1];
  if ((b0 & 3) === 2) {
    try {
      const raw = decompressTcinfo(b.subarray(o + 4, o + l));
      return [raw, 0, raw.length];
    } catch {
      return null;
    }
  }
  return [b, o + 4, l - 4];
}

/** A datum's payload as its own byte array (header off, decompressed), or null (payloadOf). */
export function payloadBytes(b: Uint8Array, o: number, l: number): Uint8Array | null {
  const p = payloadOf(b, o, l);
  return p && p[0].subarray(p[1], p[1] + p[2]);
}
