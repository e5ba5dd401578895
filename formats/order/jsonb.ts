// jsonb_cmp over on-disk bytes (src/backend/utils/adt/jsonb_util.c compareJsonbContainers,
// compareJsonbScalarValue; PostgreSQL 15): both values are walked as JsonbIterator walks them
// (nested containers entered), token by token. Equal tokens compare their values: an object's
// pair count, an array's raw-scalar flag then element count (the latter deciding when both
// differ), scalars of one type by value (strings by the database's default collation, so only
// when that compares bytewise; numerics as numeric_cmp; false before true). Different tokens or
// types compare by type: null < string < numeric < bool < array < object.
import { jsonbContainer, JENTRY_ISBOOL_FALSE, JENTRY_ISBOOL_TRUE, JENTRY_ISCONTAINER, JENTRY_ISNULL, JENTRY_ISNUMERIC, JENTRY_ISSTRING } from "../datum/jsonb.js";
import { cmpBytes, payloadOf, type DatumCmp } from "./bytes.js";
import { cmpNumeric } from "./numeric.js";

// JsonbIteratorToken and enum jbvType
const WJB_KEY = 1;
const WJB_VALUE = 2;
const WJB_ELEM = 3;
const WJB_BEGIN_ARRAY = 4;
const WJB_END_ARRAY = 5;
const WJB_BEGIN_OBJECT = 6;
const WJB_END_OBJECT = 7;
const JBV_NULL = 0;
const JBV_STRING = 1;
const JBV_NUMERIC = 2;
const JBV_BOOL = 3;
const JBV_ARRAY = 0x10;
const JBV_OBJECT = 0x11;

interface Token {
  tok: number;
  type: number;
  from: number;
  to: number;
  /** containers: pair or element count; bools: 1 for true */
  n: number;
  raw: boolean;
}

/** The JsonbIterator tokens of the container at d[start, end). */
function tokens(d: Uint8Array, start: number, end: number, out: Token[]): void {
  const c = jsonbContainer(d, start, end);
  const isObject = c.kind === "object";
  out.push({ tok: isObject ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, type: isObject ? JBV_OBJECT : JBV_ARRAY, from: 0, to: 0, n: c.count, raw: c.kind === "scalar" });
  const child = (i: number, tok: number): void => {
    const ch = c.children[i];
    if (ch.type === JENTRY_ISCONTAINER) return tokens(d, ch.from, ch.to, out);
    const type = ch.type === JENTRY_ISSTRING ? JBV_STRING : ch.type === JENTRY_ISNUMERIC ? JBV_NUMERIC : ch.type === JENTRY_ISNULL ? JBV_NULL : JBV_BOOL;
    if (type === JBV_BOOL && ch.type !== JENTRY_ISBOOL_FALSE && ch.type !== JENTRY_ISBOOL_TRUE) throw new Error("jsonb: bad JEntry type");
    out.push({ tok, type, from: ch.from, to: ch.to, n: ch.type === JENTRY_ISBOOL_TRUE ? 1 : 0, raw: false });
  };
  if (isObject) {
    for (let i = 0; i < c.count; i++) {
      child(i, WJB_KEY);
      child(i + c.count, WJB_VALUE);
    }
  } else for (let i = 0; i < c.count; i++) child(i, WJB_ELEM);
  out.push({ tok: isObject ? WJB_END_OBJECT : WJB_END_ARRAY, type: isObject ? JBV_OBJECT : JBV_ARRAY, from: 0, to: 0, n: 0, raw: false });
}

/** jsonb_cmp; `bytewiseDefault`: the database's default collation compares bytewise (C, POSIX). */
export function jsonbComparator(bytewiseDefault: boolean): DatumCmp | null {
  if (!bytewiseDefault) return null;
  return (a0, ao, al, b0, bo, bl) => {
    const x = payloadOf(a0, ao, al);
    const y = payloadOf(b0, bo, bl);
    if (!x || !y) return NaN;
    const ta: Token[] = [];
    const tb: Token[] = [];
    try {
      tokens(x[0], x[1], x[1] + x[2], ta);
      tokens(y[0], y[1], y[1] + y[2], tb);
    } catch {
      return NaN;
    }
    const a = x[0];
    const b = y[0];
    for (let i = 0; i < ta.length && i < tb.length; i++) {
      const p = ta[i];
      const q = tb[i];
      if (p.tok === q.tok) {
        if (p.tok === WJB_END_ARRAY || p.tok === WJB_END_OBJECT) continue;
        if (p.type !== q.type) return p.type > q.type ? 1 : -1;
        let res = 0;
        switch (p.type) {
          case JBV_STRING:
            res = cmpBytes(a, p.from, p.to - p.from, b, q.from, q.to - q.from);
            break;
          case JBV_NUMERIC:
            res = cmpNumeric(a, p.from, p.to - p.from, b, q.from, q.to - q.from);
            break;
          case JBV_BOOL:
            res = p.n - q.n;
            break;
          case JBV_ARRAY:
            if (p.raw !== q.raw) res = p.raw ? -1 : 1;
            if (p.n !== q.n) res = p.n > q.n ? 1 : -1;
            break;
          case JBV_OBJECT:
            if (p.n !== q.n) res = p.n > q.n ? 1 : -1;
            break;
        }
        if (Number.isNaN(res)) return NaN;
        if (res !== 0) return res < 0 ? -1 : 1;
      } else {
        if (p.type === q.type) return NaN;
        return p.type > q.type ? 1 : -1;
      }
    }
    return ta.length === tb.length ? 0 : NaN;
  };
}
