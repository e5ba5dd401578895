// btoidvectorcmp over oidvector bytes (a one-dimensional ArrayType of oids without NULLs): the
// vector length first, then element by element as unsigned oids. Source:
// src/backend/access/nbtree/nbtcompare.c (btoidvectorcmp), utils/adt/oid.c (PostgreSQL 15).
import { ArrayTypeHeader } from "../datum/arrays.js";
import { i32At, u32At } from "../schema/bytes.js";
import { payloadOf, type DatumCmp } from "./bytes.js";

/** dim1 follows the header; the oids follow dim1 and lbound1 (int32 each) */
const DIM1 = ArrayTypeHeader.size;
const VALUES = DIM1 + 8;

export const cmpOidvector: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y) return NaN;
  const [a, as, an] = x;
  const [b, bs, bn] = y;
  if (an < VALUES || bn < VALUES) return NaN;
  const da = i32At(a, as + DIM1);
  const db = i32At(b, bs + DIM1);
  if (da !== db) return da - db;
  for (let i = 0; i < da; i++) {
    const p = u32At(a, as + VALUES + 4 * i);
    const q = u32At(b, bs + VALUES + 4 * i);
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
};
