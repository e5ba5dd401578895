// tsqueryout (src/include/tsearch/ts_type.h, src/backend/utils/adt/tsquery.c): int32 size,
// `size` 12-byte QueryItems in prefix order (an operator, then its right operand's items, then
// its left operand's), then the operands' NUL-terminated strings. Printed infix: operands
// quoted with ' and \ doubled, `:*` for a prefix and the weight letters; a subexpression in
// parentheses when its operator binds less than its parent's (! 4, <-> 3, & 2, | 1), and a
// phrase operator as the right operand of a phrase operator.
import { bits32, defineStruct, i16, i32, i8, pad, register, u32, u8 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { utf8Text, view } from "./util.js";

export const QueryOperand = register(
  defineStruct("QueryOperand", "src/include/tsearch/ts_type.h", [
    i8("type", "QI_VAL (1)"),
    u8("weight", "allowed weights: A 8, B 4, C 2, D 1; 0 any"),
    u8("prefix", "1 for a prefix match (:*)"),
    pad("pad", 1),
    i32("valcrc", "CRC of the operand"),
    bits32("operand", { length: 12, distance: 20 }, "where the operand's text is", { length: "bytes of the operand", distance: "its offset in the operand area" }),
  ] as const),
);

export const QueryOperator = register(
  defineStruct("QueryOperator", "src/include/tsearch/ts_type.h", [
    i8("type", "QI_OPR (2)"),
    i8("oper", "OP_NOT 1, OP_AND 2, OP_OR 3, OP_PHRASE 4"),
    i16("distance", "distance of a phrase operator"),
    u32("left", "the left operand is this many items on"),
  ] as const),
);

const QUERY_ITEM_SIZE = 12; // the union of both
const QI_VAL = 1;
const QI_OPR = 2;
const OP_NOT = 1;
const OP_PHRASE = 4;
const PRIORITY = [0, 4, 2, 1, 3];
const INFIX = ["", "!", " & ", " | ", ""];
const WEIGHTS: [number, string][] = [
  [8, "A"],
  [4, "B"],
  [2, "C"],
  [1, "D"],
];

function tsqueryText(d: Uint8Array): string {
  const bad = (msg: string, offset?: number): FormatError => new FormatError("TSQUERY_MALFORMED", `tsquery: ${msg}`, { offset });
  if (d.length < 4) throw bad(`${d.length} bytes, less than the 4-byte size`);
  const dv = view(d);
  const size = dv.getInt32(0, true);
  const operands = 4 + QUERY_ITEM_SIZE * size;
  if (size < 0 || operands > d.length) throw bad(`${size} items do not fit in ${d.length} bytes`, 0);
  if (size === 0) return "";
  let next = 0;
  const at = (i: number): number => 4 + QUERY_ITEM_SIZE * i;

  const operand = (p: number): string => {
    const w = dv.getUint32(p + QueryOperand.offsets.operand, true);
    const start = operands + (w >>> 12);
    const end = d.indexOf(0, start);
    if (end < 0) throw bad("operand string has no terminator", start);
    let s = `'${utf8Text(d.subarray(start, end)).replace(/'/g, "''").replace(/\\/g, "\\\\")}'`;
    const weight = d[p + QueryOperand.offsets.weight]!;
    const prefix = d[p + QueryOperand.offsets.prefix]! !== 0;
    if (weight || prefix) s += ":" + (prefix ? "*" : "") + WEIGHTS.filter(([bit]) => weight & bit).map(([, l]) => l).join("");
    return s;
  };

  const infix = (parent: number, rightOfPhrase: boolean): string => {
    if (next >= size) throw bad("an operator lacks an operand", at(next));
    const p = at(next++);
    const type = dv.getInt8(p);
    if (type === QI_VAL) return operand(p);
    if (type !== QI_OPR) throw bad(`item type ${type}`, p);
    const op = dv.getInt8(p + QueryOperator.offsets.oper);
    if (op < OP_NOT || op > OP_PHRASE) throw bad(`operator ${op}`, p);
    const prio = PRIORITY[op]!;
    let s: string;
    if (op === OP_NOT) s = "!" + infix(prio, false);
    else {
      const right = infix(prio, op === OP_PHRASE);
      const left = infix(prio, false);
      const dist = dv.getInt16(p + QueryOperator.offsets.distance, true);
      s = left + (op === OP_PHRASE ? (dist === 1 ? " <-> " : ` <${dist}> `) : INFIX[op]) + right;
    }
    return prio < parent || (op === OP_PHRASE && rightOfPhrase) ? `( ${s} )` : s;
  };
  return infix(-1, false);
}

export const TSQUERY_DECODERS: DecoderTable = { 3615: tsqueryText };
