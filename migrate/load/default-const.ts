// A default an offline writer can apply: pg_attrdef.adbin of a column, or pg_type.typdefaultbin of
// a domain. A Const node (nodeToString form, src/backend/nodes/outfuncs.c _outConst / outDatum)
// holds its value's bytes as the server keeps them in memory: `:constvalue N [ b0 b1 ... ]` prints
// N bytes, for a by-value type the whole Datum (typlen announced, 8 bytes printed, little-endian,
// the value in the low bytes), for a by-reference type the pointed-to bytes (a varlena with its
// 4-byte header, or a cstring with its NUL). Other expressions are computed by the offline
// evaluator when it can (immutable functions and casts over constants: the length coercion a
// domain keeps around its default, varchar('ab', 9, false), is one); a function it does not have,
// such as nextval() or now(), leaves the default not a constant.
import { FormatError } from "../../formats/schema/errors.js";
import type { AttrDesc } from "../../formats/heap/descriptor.js";
import { varlenaStored } from "../../formats/heap/form.js";
import { compileExpr, encodeExprValue, exprType, ROW_TYPES, type ExprContext } from "../../formats/expr/evaluate.js";
import { isNode, parseNodeTree } from "../../formats/catalog/node-tree.js";

/** `stored`: the datum as the tuple holds it; `value`: the input-function form (a varlena's payload) that domain checks read. */
export type ConstDefault = { constant: true; stored: Uint8Array | null; value: Uint8Array | null } | { constant: false; node: string };

const CONST = /^\{CONST :consttype (\d+) :consttypmod (-?\d+) :constcollid \d+ :constlen (-?\d+) :constbyval (true|false) :constisnull (true|false) :location -?\d+ :constvalue (?:<>|(\d+) \[ ((?:-?\d+ )*)\])\}$/;

/** The stored datum of a Const node of type `valueType` (default: the attribute's type), or why it is not one. */
export function constDefault(nodeTree: string, a: AttrDesc, valueType = a.typid): ConstDefault {
  const m = CONST.exec(nodeTree.trim());
  if (!m || Number(m[1]) !== valueType) return { constant: false, node: /^\{(\w+)/.exec(nodeTree)?.[1] ?? nodeTree.slice(0, 40) };
  if (m[5] === "true") return { constant: true, stored: null, value: null };
  const len = Number(m[3]);
  const bytes = Uint8Array.from((m[7] ?? "").trim().split(/\s+/).filter(Boolean).map((x) => Number(x) & 0xff));
  // by value: the length is typlen, but the whole Datum (8 bytes) is printed
  const printed = m[4] === "true" ? Math.max(8, Number(m[6])) : Number(m[6]);
  if (bytes.length !== printed || (m[4] === "true" && len > 8)) throw new FormatError("LOAD_BAD_DEFAULT", `default of column "${a.name}": ${printed} bytes announced, ${bytes.length} given`);
  if (m[4] === "true") {
    const v = bytes.slice(0, len);
    return { constant: true, stored: v, value: v };
  }
  if (len === -1) {
    // an in-memory varlena: 4-byte header (length << 2), never compressed for a literal
    const total = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 2;
    if ((bytes[0] & 3) !== 0 || total !== bytes.length) return { constant: false, node: "CONST (a compressed or short varlena)" };
    const payload = bytes.subarray(4);
    return { constant: true, stored: varlenaStored(a, payload), value: payload };
  }
  return { constant: true, stored: bytes, value: bytes };
}

/**
 * The stored datum of a default expression yielding `valueType` (the column's type, or the type
 * under a domain column's domains): a Const as it is, else what the evaluator computes. A
 * CoerceToDomain around it is left to the caller, which applies every level's constraints.
 */
export function defaultDatum(nodeTree: string, a: AttrDesc, valueType: number, ctx: ExprContext): ConstDefault {
  const c = constDefault(nodeTree, a, valueType);
  if (c.constant) return c;
  let n = parseNodeTree(nodeTree);
  if (isNode(n, "COERCETODOMAIN")) n = n.fields.arg ?? null;
  try {
    const type = exprType(n);
    if (type !== valueType || !ROW_TYPES.has(type)) return { constant: false, node: `${c.node} of a type the evaluator does not compute` };
    const v = compileExpr(n, ctx)(() => {
      throw new FormatError("EXPR_UNSUPPORTED", "a column reference in a default");
    });
    if (v === null) return { constant: true, stored: null, value: null };
    const payload = encodeExprValue(v, type);
    return { constant: true, stored: a.len === -1 ? varlenaStored(a, payload) : payload, value: payload };
  } catch (e) {
    if (e instanceof FormatError) return { constant: false, node: `${c.node}: ${e.message}` };
    throw e;
  }
}
