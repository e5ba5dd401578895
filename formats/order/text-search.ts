// tsvector_cmp and tsquery_cmp over on-disk bytes (src/backend/utils/adt/tsvector_op.c
// silly_cmp_tsvector, tsquery_op.c CompareTSQ, tsquery_util.c QT2QTN and QTNodeCompare,
// tsvector_op.c tsCompareString; PostgreSQL 15). Neither depends on a collation.
import { tsvectorLexemes } from "../datum/tsvector.js";
import { QueryOperand, QueryOperator } from "../datum/tsquery.js";
import { cmpBytes, payloadBytes, type DatumCmp } from "./bytes.js";

/** tsCompareString without prefix matching: memcmp of the common length, then the shorter first. */
const cmpString = (a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number): number => Math.sign(cmpBytes(a, ao, al, b, bo, bl));

/**
 * silly_cmp_tsvector: the size in bytes, then the number of lexemes, then lexeme by lexeme:
 * one with positions first, the lexeme's bytes, then more positions first, each position's
 * number and weight, the higher first.
 */
export const cmpTsvector: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const a = payloadBytes(a0, ao, al);
  const b = payloadBytes(b0, bo, bl);
  if (!a || !b) return NaN;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  let la, lb;
  try {
    la = tsvectorLexemes(a);
    lb = tsvectorLexemes(b);
  } catch {
    return NaN;
  }
  if (la.length !== lb.length) return la.length < lb.length ? -1 : 1;
  for (let i = 0; i < la.length; i++) {
    const p = la[i];
    const q = lb[i];
    if ((p.positions !== null) !== (q.positions !== null)) return p.positions !== null ? -1 : 1;
    const c = cmpString(a, p.start, p.len, b, q.start, q.len);
    if (c !== 0) return c;
    if (p.positions && q.positions) {
      if (p.positions.length !== q.positions.length) return p.positions.length > q.positions.length ? -1 : 1;
      for (let k = 0; k < p.positions.length; k++) {
        const pp = p.positions[k] & 0x3fff;
        const qp = q.positions[k] & 0x3fff;
        if (pp !== qp) return pp > qp ? -1 : 1;
        const pw = p.positions[k] >> 14;
        const qw = q.positions[k] >> 14;
        if (pw !== qw) return pw > qw ? -1 : 1;
      }
    }
  }
  return 0;
};

const QUERY_ITEM_SIZE = 12;
const QI_VAL = 1;
const QI_OPR = 2;
const OP_NOT = 1;
const OP_PHRASE = 4;

/**
 * CompareTSQ: the number of items, then the size in bytes, then the query trees node by node
 * (QTNodeCompare): the item type (operators before operands), an operator's code (higher
 * first), its number of children (more first), the children (the right operand, stored next,
 * first), a phrase's distance (longer first); an operand's CRC (higher first), then its text.
 * Weights and prefix flags do not take part.
 */
export const cmpTsquery: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const a = payloadBytes(a0, ao, al);
  const b = payloadBytes(b0, bo, bl);
  if (!a || !b || a.length < 4 || b.length < 4) return NaN;
  const da = new DataView(a.buffer, a.byteOffset, a.byteLength);
  const db = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const na = da.getInt32(0, true);
  const nb = db.getInt32(0, true);
  if (na !== nb) return na < nb ? -1 : 1;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  if (na <= 0) return 0;
  const operands = 4 + QUERY_ITEM_SIZE * na;
  if (operands > a.length) return NaN;
  const node = (i: number, j: number, depth: number): number => {
    if (i >= na || j >= na || depth > 10000) return NaN;
    const pa = 4 + QUERY_ITEM_SIZE * i;
    const pb = 4 + QUERY_ITEM_SIZE * j;
    const ta = da.getInt8(pa);
    const tb = db.getInt8(pb);
    if (ta !== tb) return ta > tb ? -1 : 1;
    if (ta === QI_OPR) {
      const oa = da.getInt8(pa + QueryOperator.offsets.oper);
      const ob = db.getInt8(pb + QueryOperator.offsets.oper);
      if (oa !== ob) return oa > ob ? -1 : 1;
      let c = node(i + 1, j + 1, depth + 1);
      if (c !== 0) return c;
      if (oa !== OP_NOT) {
        c = node(i + da.getUint32(pa + QueryOperator.offsets.left, true), j + db.getUint32(pb + QueryOperator.offsets.left, true), depth + 1);
        if (c !== 0) return c;
      }
      if (oa === OP_PHRASE) {
        const sa = da.getInt16(pa + QueryOperator.offsets.distance, true);
        const sb = db.getInt16(pb + QueryOperator.offsets.distance, true);
        if (sa !== sb) return sa > sb ? -1 : 1;
      }
      return 0;
    }
    if (ta !== QI_VAL) return NaN;
    const ca = da.getInt32(pa + QueryOperand.offsets.valcrc, true);
    const cb = db.getInt32(pb + QueryOperand.offsets.valcrc, true);
    if (ca !== cb) return ca > cb ? -1 : 1;
    const wa = da.getUint32(pa + QueryOperand.offsets.operand, true);
    const wb = db.getUint32(pb + QueryOperand.offsets.operand, true);
    const sa = operands + (wa >>> 12);
    const sb = operands + (wb >>> 12);
    if (sa + (wa & 0xfff) > a.length || sb + (wb & 0xfff) > b.length) return NaN;
    return cmpString(a, sa, wa & 0xfff, b, sb, wb & 0xfff);
  };
  return node(0, 0, 0);
};
