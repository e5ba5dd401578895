// formats/expr and pg_node_tree parsing on trees a PostgreSQL 15 server printed (pg_index.indexprs,
// indpred): SQL's three-valued logic, strictness, overflow and refusal codes. Whole-table
// agreement with the server is tested in test/verify/index-exprs.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNodeTree } from "../../formats/catalog/node-tree.js";
import { compileExpr, type ExprValue } from "../../formats/expr/evaluate.js";
import { FormatError } from "../../formats/schema/errors.js";

const VAR = (attno: number, type: number) => `{VAR :varno 1 :varattno ${attno} :vartype ${type} :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn ${attno} :location 1}`;
const INT4 = (v: number) => `{CONST :consttype 23 :consttypmod -1 :constcollid 0 :constlen 4 :constbyval true :constisnull false :location 2 :constvalue 4 [ ${[v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255].map((b) => (b > 127 ? b - 256 : b)).join(" ")} 0 0 0 0 ]}`;
const OP = (funcid: number, a: string, b: string) => `{OPEXPR :opno 1 :opfuncid ${funcid} :opresulttype 23 :opretset false :opcollid 0 :inputcollid 0 :args (${a} ${b}) :location 3}`;
const ctx = { defaultCtypeIsC: true };
const run = (tree: string, row: ExprValue[]): ExprValue => compileExpr(parseNodeTree(tree), ctx)((n) => row[n - 1] ?? null);
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof FormatError) return e.code;
    throw e;
  }
  return "none";
};

test("integer arithmetic and comparison are strict and overflow as the server's", () => {
  assert.equal(run(OP(177, VAR(1, 23), INT4(1)), [41]), 42);
  assert.equal(run(OP(177, VAR(1, 23), INT4(1)), [null]), null);
  assert.equal(run(OP(66, VAR(1, 23), INT4(-5)), [-6]), true);
  assert.equal(code(() => run(OP(177, VAR(1, 23), INT4(1)), [2 ** 31 - 1])), "EXPR_OVERFLOW");
});

test("AND, OR and NOT follow three-valued logic; IS NULL and COALESCE see NULL", () => {
  const lt = OP(66, VAR(1, 23), INT4(10));
  const and = `{BOOLEXPR :boolop and :args (${lt} {NULLTEST :arg ${VAR(2, 23)} :nulltesttype 1 :argisrow false :location 4}) :location 5}`;
  const or = `{BOOLEXPR :boolop or :args (${lt} ${OP(65, VAR(2, 23), INT4(7))}) :location 5}`;
  assert.equal(run(and, [5, 1]), true);
  assert.equal(run(and, [null, 1]), null);
  assert.equal(run(and, [20, null]), false);
  assert.equal(run(or, [null, 7]), true);
  assert.equal(run(or, [null, 8]), null);
  assert.equal(run(`{BOOLEXPR :boolop not :args (${lt}) :location 6}`, [null]), null);
  assert.equal(run(`{COALESCEEXPR :coalescetype 23 :coalescecollid 0 :args (${VAR(1, 23)} ${INT4(9)}) :location 7}`, [null]), 9);
});

test("a node or function the evaluator lacks is refused when compiled, a broken tree when parsed", () => {
  assert.equal(code(() => compileExpr(parseNodeTree(OP(872, VAR(1, 25), INT4(1))), ctx)), "EXPR_UNSUPPORTED");
  assert.equal(code(() => compileExpr(parseNodeTree(`{SUBPLAN :subLinkType 0}`), ctx)), "EXPR_UNSUPPORTED");
  assert.equal(code(() => parseNodeTree(`{OPEXPR :opno 1 :args (`)), "NODE_TREE_MALFORMED");
  assert.equal(code(() => parseNodeTree(`{CONST :constvalue 4 [ 1 2 ]}`)), "NODE_TREE_MALFORMED");
});

const FN = (funcid: number, collid: number, ...as: string[]) => `{FUNCEXPR :funcid ${funcid} :funcresulttype 25 :funcretset false :funcvariadic false :funcformat 0 :funccollid 0 :inputcollid ${collid} :args (${as.join(" ")}) :location 1}`;
const TEXT = (s: string) => {
  const b = [...new TextEncoder().encode(s)];
  const len = (b.length + 4) << 2;
  const bytes = [len & 255, (len >> 8) & 255, 0, 0, ...b].map((x) => (x > 127 ? x - 256 : x));
  return `{CONST :consttype 25 :consttypmod -1 :constcollid 100 :constlen -1 :constbyval false :constisnull false :location 2 :constvalue ${bytes.length} [ ${bytes.join(" ")} ]}`;
};
const num = (n: bigint, scale: number) => ({ n, scale, special: 0 });

test("text ordering is evaluated under the C collation only, equality under deterministic ones; a date/time unit only as a known constant", () => {
  const lt = (collid: number) => OP(740, VAR(1, 25), VAR(2, 25)).replace(":inputcollid 0", `:inputcollid ${collid}`);
  assert.equal(code(() => compileExpr(parseNodeTree(lt(100)), { defaultCtypeIsC: true, defaultCollateIsC: false })), "EXPR_UNSUPPORTED");
  assert.equal(compileExpr(parseNodeTree(lt(100)), { defaultCtypeIsC: true, defaultCollateIsC: true })((n) => ["a\u{1F600}", "a\uFFFD"][n - 1]!), false);
  assert.equal(run(lt(950), ["b", "ab"]), false);
  // equality is byte equality under a deterministic collation only (an ICU one with deterministic = false is refused)
  const eq = (opfunc: number, collid: number) => OP(opfunc, VAR(1, 25), VAR(2, 25)).replace(":inputcollid 0", `:inputcollid ${collid}`);
  const nondet = { defaultCtypeIsC: true, nondeterministic: (c: number) => c === 16500 };
  for (const f of [67, 157, 1048, 62]) assert.equal(code(() => compileExpr(parseNodeTree(eq(f, 16500)), nondet)), "EXPR_UNSUPPORTED", String(f));
  assert.equal(compileExpr(parseNodeTree(eq(67, 950)), nondet)((n) => ["ab", "ab"][n - 1]!), true);
  assert.equal(code(() => run(FN(2020, 100, VAR(1, 25), VAR(2, 1114)), ["day", 0n])), "EXPR_UNSUPPORTED");
  assert.equal(code(() => run(FN(2020, 100, TEXT("fortnight"), VAR(1, 1114)), [0n])), "EXPR_UNSUPPORTED");
  // 2000-03-15 10:20:30 truncated to the month (TOKMAXLEN-cut spellings, any case)
  assert.equal(run(FN(2020, 100, TEXT("MONTHS"), VAR(1, 1114)), [(74n * 86400n + 37230n) * 1000000n]), 60n * 86400n * 1000000n);
});

test("a row the server could not have indexed fails with EXPR_OVERFLOW; an unreproducible result is refused", () => {
  assert.equal(code(() => run(FN(1744, 0, VAR(1, 1700)), [num(21474836475n, 1)])), "EXPR_OVERFLOW");
  assert.equal(run(FN(1744, 0, VAR(1, 1700)), [num(-25n, 1)]), -3);
  assert.equal(code(() => run(OP(216, VAR(1, 701), VAR(2, 701)), [1e200, 1e200])), "EXPR_OVERFLOW");
  assert.equal(code(() => run(OP(217, VAR(1, 701), VAR(2, 701)), [1, 0])), "EXPR_OVERFLOW");
  assert.equal(code(() => run(FN(877, 100, VAR(1, 25), INT4(1), INT4(-1)), ["abc"])), "EXPR_OVERFLOW");
  assert.equal(code(() => run(OP(1726, VAR(1, 1700), VAR(2, 1700)), [num(1n, 9000), num(1n, 9000)])), "EXPR_UNSUPPORTED");
  assert.deepEqual(run(OP(1726, VAR(1, 1700), VAR(2, 1700)), [num(15n, 1), num(-3n, 2)]), num(-45n, 3));
  // numeric_div: at least 16 significant digits (select_div_scale), rounded half away from zero
  assert.deepEqual(run(OP(1727, VAR(1, 1700), VAR(2, 1700)), [num(1n, 0), num(3n, 0)]), num(33333333333333333333n, 20));
  assert.deepEqual(run(OP(1727, VAR(1, 1700), VAR(2, 1700)), [num(-2n, 0), num(3n, 0)]), num(-66666666666666666667n, 20));
  assert.equal(code(() => run(OP(1727, VAR(1, 1700), VAR(2, 1700)), [num(1n, 0), num(0n, 2)])), "EXPR_OVERFLOW");
  // numeric(5,2): 12.345 rounds to 12.35; 1234 has more than 3 integer digits
  const typmod = ((5 << 16) | 2) + 4;
  assert.deepEqual(run(FN(1703, 0, VAR(1, 1700), INT4(typmod)), [num(12345n, 3)]), num(1235n, 2));
  assert.equal(code(() => run(FN(1703, 0, VAR(1, 1700), INT4(typmod)), [num(1234n, 0)])), "EXPR_OVERFLOW");
  // text to int4 through int4in: PostgreSQL 15's spellings (16's 1_000 fails: the row is not compared)
  const io = (to: number) => `{COERCEVIAIO :arg ${VAR(1, 25)} :resulttype ${to} :resultcollid 0 :coerceformat 1 :location 3}`;
  assert.equal(run(io(23), [" -42 "]), -42);
  assert.equal(code(() => run(io(23), ["1_000"])), "DATUM_BAD_INPUT");
  // a float's text depends on extra_float_digits: no CoerceViaIO from float8
  assert.equal(code(() => compileExpr(parseNodeTree(`{COERCEVIAIO :arg ${VAR(1, 701)} :resulttype 25 :resultcollid 100 :coerceformat 1 :location 3}`), ctx)), "EXPR_UNSUPPORTED");
});
