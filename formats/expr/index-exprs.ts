// The expressions and predicate of an index (pg_index.indexprs, indpred) compiled for
// verify's heapallindexed and the loader's new index entries: each index column whose indkey is 0 gets its expression, the predicate (when
// it is more than the NULL tests the probe loop handles itself) a boolean evaluator. An index
// whose trees use something formats/expr cannot evaluate is refused with EXPR_UNSUPPORTED,
// which verify reports as a counted not-checked note naming it. Source:
// src/backend/catalog/index.c (FormIndexDatum) (PostgreSQL 15).
import { parseNodeTree } from "../catalog/node-tree.js";
import { compileExpr, encodeExprValue, exprType, referencedAttnums, ROW_TYPES, type Compiled, type ExprContext, type ExprValue } from "./evaluate.js";
import type { AttrDesc } from "../heap/descriptor.js";
import { VAL_CSTRING, VAL_FIXED, VAL_NULL, VAL_VARLENA, type IndexValues } from "../nbtree/index-form.js";
import { FormatError } from "../schema/errors.js";
import type { DatabaseCatalog } from "../catalog/cluster.js";

/** LC_CTYPE values under which lower/upper change ASCII letters only (LC_COLLATE values ordering text by byte). */
const C_LOCALES = new Set(["C", "POSIX"]);

/** The evaluation context of a database's index expressions. */
export const exprContextOf = (cat: DatabaseCatalog): ExprContext => ({
  defaultCtypeIsC: C_LOCALES.has(cat.db.ctype),
  defaultCollateIsC: C_LOCALES.has(cat.db.collate),
  nondeterministic: (collid) => cat.collations().get(collid)?.deterministic === false,
});

export interface IndexExprs {
  /** one per index column whose indkey is 0, in column order */
  exprs: { fn: Compiled; typid: number }[];
  /** the predicate; null when the index has none or the probe's NULL tests cover it */
  pred: Compiled | null;
  /** the largest attnum the expressions and predicate read */
  maxAttnum: number;
}

/** Compile an index's trees; null when it has neither expressions nor a predicate needing them. */
export function indexExprs(exprs: string | null, pred: string | null, predIsNullTests: boolean, ctx: ExprContext): IndexExprs | null {
  if (!exprs && (!pred || predIsNullTests)) return null;
  const out: IndexExprs = { exprs: [], pred: null, maxAttnum: 0 };
  const reads = new Set<number>();
  if (exprs) {
    const list = parseNodeTree(exprs);
    for (const e of Array.isArray(list) ? list : [list]) {
      const typid = exprType(e);
      if (!ROW_TYPES.has(typid)) throw new FormatError("EXPR_UNSUPPORTED", `an index expression of result type ${typid} cannot be evaluated offline`);
      out.exprs.push({ fn: compileExpr(e, ctx), typid });
      referencedAttnums(e, reads);
    }
  }
  if (pred && !predIsNullTests) {
    const p = parseNodeTree(pred);
    out.pred = compileExpr(p, ctx);
    referencedAttnums(p, reads);
  }
  out.maxAttnum = Math.max(0, ...reads);
  return out;
}

/**
 * An expression's result `v` (of type `typid`) as index value k, for index column `ia`: a
 * varlena's payload, fixed bytes, or, for a name key of name_ops (a cstring column), the name's
 * bytes to its first NUL and the NUL. One rule for verify's expected tuples and the loader's.
 */
export function setExprResult(vals: IndexValues, k: number, v: ExprValue, typid: number, ia: AttrDesc): void {
  if (v === null) {
    vals.set(k, VAL_NULL);
    return;
  }
  const b = encodeExprValue(v, typid);
  if (ia.len === -2) {
    const nul = b.indexOf(0);
    vals.set(k, VAL_CSTRING, b, 0, nul < 0 ? b.length : nul + 1);
  } else vals.set(k, ia.len === -1 ? VAL_VARLENA : VAL_FIXED, b, 0, b.length);
}
