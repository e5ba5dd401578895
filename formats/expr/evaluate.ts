// An offline evaluator for the expressions real indexes store (pg_index.indexprs, indpred):
// column references, constants, binary-compatible casts and CoerceViaIO to text, boolean logic,
// NULL tests, COALESCE, comparisons and arithmetic of integers, text equality and
// concatenation, lower/upper, jsonb ->, ->> and #>>, and (functions.ts) comparisons of every
// evaluated type, float and numeric arithmetic, the immutable casts between them, text
// functions, date_trunc, date_part and extract. A node or function outside that set is refused
// when the expression is compiled (EXPR_UNSUPPORTED naming it), never guessed. Values are plain
// JS of their type (values.ts); null is SQL NULL.
import { FormatError } from "../schema/errors.js";
import { isNode, type NodeValue, type PgNode } from "../catalog/node-tree.js";
import { jsonbObjectField, jsonbPathField, jsonbScalarText, type JsonbValue } from "../datum/jsonb.js";
import { readArray } from "../datum/arrays.js";
import { builtinTypeLookup } from "../datum/builtin-types.js";
import { utf8Text } from "../datum/util.js";
import { INPUT_FUNCTIONS } from "../datum/input-catalog.js";
import { BOOLOID, BPCHAROID, decodeExprValue, ROW_TYPES, TEXTOID, VARCHAROID, type ExprValue } from "./values.js";
import { deterministicEquality, MORE_FUNCTIONS, outputText, type ExprContext, type Fn, type FnEntry } from "./functions.js";

export type { ExprValue, Numeric } from "./values.js";
export { ROW_TYPES, encodeExprValue, decodeExprValue } from "./values.js";
export type { ExprContext } from "./functions.js";

/** Reads attribute `attnum` (1-based) of the current row as an ExprValue of its type. */
export type RowReader = (attnum: number) => ExprValue;
export type Compiled = (row: RowReader) => ExprValue;

const C_COLLATION_OID = 950;
const POSIX_COLLATION_OID = 951;
const TEXTARRAYOID = 1009;
const TEXT_TYPES: ReadonlySet<number> = new Set([TEXTOID, VARCHAROID, BPCHAROID]);
/** the types a text is cast to through their (immutable) input function: int2, int4, int8, oid, bool, float4, float8, numeric, uuid */
const TEXT_INPUT_TYPES: ReadonlySet<number> = new Set([21, 23, 20, 26, 16, 700, 701, 1700, 2950]);

const unsupported = (what: string): never => {
  throw new FormatError("EXPR_UNSUPPORTED", `${what} cannot be evaluated offline`);
};

/** Every attribute number the expression reads. */
export function referencedAttnums(n: NodeValue, out: Set<number> = new Set()): Set<number> {
  if (Array.isArray(n)) for (const x of n) referencedAttnums(x, out);
  else if (isNode(n)) {
    if (n.type === "VAR") out.add(Number(n.fields.varattno));
    for (const v of Object.values(n.fields)) referencedAttnums(v, out);
  }
  return out;
}

const num = (v: NodeValue | undefined): number => Number(v);
const args = (n: PgNode): NodeValue[] => (Array.isArray(n.fields.args) ? n.fields.args : []);

/** A Const's value as an ExprValue of its type. */
function constValue(n: PgNode): ExprValue {
  if (n.fields.constisnull === "true") return null;
  const b = n.fields.constvalue;
  if (!(b instanceof Uint8Array)) return unsupported("a constant without a value");
  const typ = num(n.fields.consttype);
  // a text[] constant (a #>> path) travels as its JSON text: no other array type is evaluated
  if (typ === TEXTARRAYOID) return JSON.stringify(readArray(varlenaPayload(b), builtinTypeLookup).elements.map((e) => (e === null ? null : utf8Text(e))));
  if (!ROW_TYPES.has(typ)) return unsupported(`a constant of type ${typ}`);
  const v = num(n.fields.constlen) > 0 ? b : varlenaPayload(b);
  return decodeExprValue(v, 0, v.length, typ);
}

/** The payload of a constant's varlena (4-byte or 1-byte header, never compressed here). */
function varlenaPayload(b: Uint8Array): Uint8Array {
  if (b[0]! & 1) return b.subarray(1, b[0]! >> 1);
  const len = (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 2;
  return b.subarray(4, len);
}

const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const asciiUpper = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());
// towlower/towupper map one character to one: a JS mapping to several characters is not taken.
const charwise = (s: string, f: (c: string) => string): string => Array.from(s, (c) => { const m = f(c); return Array.from(m).length === 1 ? m : c; }).join("");

function caseFolder(lower: boolean, inputcollid: number, ctx: ExprContext): (s: string) => string {
  const ascii = inputcollid === C_COLLATION_OID || inputcollid === POSIX_COLLATION_OID || (inputcollid === 100 && ctx.defaultCtypeIsC);
  if (ascii) return lower ? asciiLower : asciiUpper;
  return lower ? (s) => charwise(s, (c) => c.toLowerCase()) : (s) => charwise(s, (c) => c.toUpperCase());
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const int4 = (x: number): number => {
  if (x < INT32_MIN || x > INT32_MAX) throw new FormatError("EXPR_OVERFLOW", "integer out of range");
  return x;
};
const int2 = (x: number): number => {
  if (x < -32768 || x > 32767) throw new FormatError("EXPR_OVERFLOW", "smallint out of range");
  return x;
};
const int8 = (x: bigint): bigint => {
  if (x < -(2n ** 63n) || x > 2n ** 63n - 1n) throw new FormatError("EXPR_OVERFLOW", "bigint out of range");
  return x;
};

const cmp = <T>(f: (x: T, y: T) => boolean): Fn => (a) => f(a[0] as T, a[1] as T);

// The integer operators of int2, int4 and int8 and their cross-type forms, by pg_proc OID: name
// suffix, OIDs in the order eq ne lt le gt ge pl mi mul, and the result's range.
const INT_FAMILIES: [string, number[], "int2" | "int4" | "int8"][] = [
  ["int2", [63, 145, 64, 148, 146, 151, 176, 180, 152], "int2"],
  ["int4", [65, 144, 66, 149, 147, 150, 177, 181, 141], "int4"],
  ["int8", [467, 468, 469, 471, 470, 472, 463, 464, 465], "int8"],
  ["int24", [158, 164, 160, 166, 162, 168, 178, 182, 170], "int4"],
  ["int42", [159, 165, 161, 167, 163, 169, 179, 183, 171], "int4"],
  ["int48", [852, 853, 854, 856, 855, 857, 1278, 1279, 1280], "int8"],
  ["int84", [474, 475, 476, 478, 477, 479, 1274, 1275, 1276], "int8"],
];
const INT_OPS: [string, (x: bigint, y: bigint) => bigint | boolean][] = [
  ["eq", (x, y) => x === y], ["ne", (x, y) => x !== y], ["lt", (x, y) => x < y], ["le", (x, y) => x <= y], ["gt", (x, y) => x > y], ["ge", (x, y) => x >= y],
  ["pl", (x, y) => x + y], ["mi", (x, y) => x - y], ["mul", (x, y) => x * y],
];
const big = (v: ExprValue): bigint => (typeof v === "bigint" ? v : BigInt(v as number));
function intFamily(): [number, FnEntry][] {
  const out: [number, FnEntry][] = [];
  for (const [name, oids, result] of INT_FAMILIES) {
    oids.forEach((oid, k) => {
      const [op, f] = INT_OPS[k]!;
      const fn: Fn = (a) => {
        const r = f(big(a[0]!), big(a[1]!));
        if (typeof r === "boolean") return r;
        if (result === "int8") return int8(r);
        return result === "int4" ? int4(Number(r)) : int2(Number(r));
      };
      out.push([oid, [name + op, fn]]);
    });
  }
  return out;
}

/** int2div/int4div/int8div and the mods: truncating, division by zero an error, x / -1 checked for overflow, x % -1 = 0 (int.c, int8.c). */
function intDivision(): [number, FnEntry][] {
  const zero = (): never => {
    throw new FormatError("EXPR_OVERFLOW", "division by zero");
  };
  const out: [number, FnEntry][] = [];
  for (const [div, mod, name, range] of [[153, 155, "int2", int2], [154, 156, "int4", int4]] as const) {
    out.push([div, [`${name}div`, (a) => ((a[1] as number) === 0 ? zero() : range(Math.trunc((a[0] as number) / (a[1] as number))))]]);
    out.push([mod, [`${name}mod`, (a) => ((a[1] as number) === 0 ? zero() : (a[1] as number) === -1 ? 0 : (a[0] as number) % (a[1] as number) || 0)]]);
  }
  out.push([466, ["int8div", (a) => ((a[1] as bigint) === 0n ? zero() : int8((a[0] as bigint) / (a[1] as bigint)))]]);
  out.push([945, ["int8mod", (a) => ((a[1] as bigint) === 0n ? zero() : (a[1] as bigint) === -1n ? 0n : (a[0] as bigint) % (a[1] as bigint))]]);
  return out;
}

/** Strict functions by pg_proc OID (stable built-in OIDs; a NULL argument gives NULL). */
const FUNCTIONS: ReadonlyMap<number, FnEntry> = new Map<number, FnEntry>([
  ...intFamily(),
  ...intDivision(),
  [60, ["booleq", cmp<boolean>((x, y) => x === y)]],
  [84, ["boolne", cmp<boolean>((x, y) => x !== y)]],
  // deterministic collations compare text for equality byte by byte
  [67, ["texteq", cmp<string>((x, y) => x === y), deterministicEquality]],
  [157, ["textne", cmp<string>((x, y) => x !== y), deterministicEquality]],
  [481, ["int8(int4)", (a) => BigInt(a[0] as number)]],
  [313, ["int4(int2)", (a) => a[0] as number]],
  [754, ["int8(int2)", (a) => BigInt(a[0] as number)]],
  [480, ["int4(int8)", (a) => int4(Number(a[0] as bigint))]],
  [1258, ["textcat", (a) => (a[0] as string) + (a[1] as string)]],
  [870, ["lower", (a, c, ctx) => caseFolder(true, c, ctx)(a[0] as string)]],
  [871, ["upper", (a, c, ctx) => caseFolder(false, c, ctx)(a[0] as string)]],
  [1317, ["length(text)", (a) => Array.from(a[0] as string).length]],
  [3478, ["jsonb_object_field (->)", (a) => jsonbObjectField(a[0] as JsonbValue, a[1] as string)]],
  [3214, ["jsonb_object_field_text (->>)", (a) => jsonbScalarText(jsonbObjectField(a[0] as JsonbValue, a[1] as string))]],
  [3940, ["jsonb_extract_path_text (#>>)", (a) => jsonbScalarText(jsonbPathField(a[0] as JsonbValue, JSON.parse(a[1] as string) as (string | null)[]))]],
  [3217, ["jsonb_extract_path (#>)", (a) => jsonbPathField(a[0] as JsonbValue, JSON.parse(a[1] as string) as (string | null)[])]],
  ...MORE_FUNCTIONS,
]);

/** The pg_proc OIDs of the functions the evaluator has. */
export const evaluatedFunctionOids = (): number[] => [...FUNCTIONS.keys()];

/** Compile an expression node; throws EXPR_UNSUPPORTED naming the first node or function it cannot evaluate. */
export function compileExpr(n: NodeValue, ctx: ExprContext): Compiled {
  if (!isNode(n)) return unsupported(`a ${Array.isArray(n) ? "list" : "token"} where an expression belongs`);
  const f = n.fields;
  switch (n.type) {
    case "VAR": {
      if (num(f.varlevelsup) !== 0 || num(f.varno) !== 1) return unsupported("an outer reference");
      const attnum = num(f.varattno);
      if (attnum <= 0) return unsupported(`system column ${attnum}`);
      if (!ROW_TYPES.has(num(f.vartype))) return unsupported(`a column of type ${num(f.vartype)}`);
      return (row) => row(attnum);
    }
    case "CONST": {
      const v = constValue(n);
      return () => v;
    }
    // a COLLATE clause only sets the collation its parent already names as inputcollid
    case "RELABELTYPE":
    case "COLLATEEXPR":
      return compileExpr(f.arg ?? null, ctx);
    case "FUNCEXPR":
    case "OPEXPR": {
      const oid = num(n.type === "FUNCEXPR" ? f.funcid : f.opfuncid);
      const known = FUNCTIONS.get(oid);
      if (!known) return unsupported(`function ${oid}${n.type === "OPEXPR" ? ` (operator ${num(f.opno)})` : ""}`);
      if (f.funcretset === "true" || f.opretset === "true") return unsupported(`set-returning function ${known[0]}`);
      const [name, fn, check] = known;
      const collid = num(f.inputcollid);
      const argNodes = args(n);
      const why = check ? check(argNodes.map((x) => (isNode(x, "CONST") ? constValue(x) : undefined)), collid, ctx) : null;
      if (why) return unsupported(`${why} (in ${name})`);
      const as = argNodes.map((x) => compileExpr(x, ctx));
      // one argument array per call site, refilled per row (no function keeps it)
      const vals: ExprValue[] = new Array(as.length);
      return (row) => {
        for (let i = 0; i < as.length; i++) {
          const v = as[i]!(row);
          if (v === null) return null;
          vals[i] = v;
        }
        return fn(vals, collid, ctx);
      };
    }
    case "BOOLEXPR": {
      const as = args(n).map((x) => compileExpr(x, ctx));
      const op = f.boolop;
      if (op === "not") return (row) => { const v = as[0]!(row); return v === null ? null : !v; };
      // SQL three-valued logic: AND is false if any is false, else NULL if any is NULL
      const and = op === "and";
      if (!and && op !== "or") return unsupported(`boolean operator ${String(op)}`);
      return (row) => {
        let sawNull = false;
        for (const a of as) {
          const v = a(row);
          if (v === null) sawNull = true;
          else if (v === !and) return !and;
        }
        return sawNull ? null : and;
      };
    }
    case "NULLTEST": {
      if (f.argisrow === "true") return unsupported("a row-valued IS NULL");
      const a = compileExpr(f.arg ?? null, ctx);
      const isNotNull = f.nulltesttype === "1";
      return (row) => (a(row) === null) !== isNotNull;
    }
    case "COERCEVIAIO": {
      // an output function then an input function: to a text type from types whose output is
      // immutable and known, or from a text type through formats/datum's input function
      const from = exprType(f.arg ?? null);
      const to = num(f.resulttype);
      const a = compileExpr(f.arg ?? null, ctx);
      const out = TEXT_TYPES.has(to) ? outputText(from) : null;
      if (out) return (row) => { const v = a(row); return v === null ? null : out(v); };
      const input = TEXT_TYPES.has(from) && TEXT_INPUT_TYPES.has(to) ? INPUT_FUNCTIONS.get(to) : undefined;
      if (!input) return unsupported(`a cast through text from type ${from} to type ${to}`);
      // PostgreSQL 16 accepts more integer and numeric spellings (1_000, 0x1f) than the input
      // functions here (15's): such a text fails here (a row not compared), never a wrong value
      return (row) => {
        const v = a(row);
        if (v === null) return null;
        const b = input(v as string, { typmod: -1 });
        return decodeExprValue(b, 0, b.length, to);
      };
    }
    case "COALESCEEXPR": {
      const as = args(n).map((x) => compileExpr(x, ctx));
      return (row) => {
        for (const a of as) {
          const v = a(row);
          if (v !== null) return v;
        }
        return null;
      };
    }
    default:
      return unsupported(`expression node ${n.type}`);
  }
}

/** The result type OID an expression node produces (for encoding the index datum). */
export function exprType(n: NodeValue): number {
  if (!isNode(n)) return unsupported("a non-node expression");
  const f = n.fields;
  switch (n.type) {
    case "VAR":
      return num(f.vartype);
    case "CONST":
      return num(f.consttype);
    case "COLLATEEXPR":
      return exprType(f.arg ?? null);
    case "RELABELTYPE":
    case "COERCEVIAIO":
      return num(f.resulttype);
    case "FUNCEXPR":
      return num(f.funcresulttype);
    case "OPEXPR":
      return num(f.opresulttype);
    case "COALESCEEXPR":
      return num(f.coalescetype);
    case "BOOLEXPR":
    case "NULLTEST":
      return BOOLOID;
    default:
      return unsupported(`expression node ${n.type}`);
  }
}
