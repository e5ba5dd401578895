// jsonpath_out (src/include/utils/jsonpath.h, src/backend/utils/adt/jsonpath.c): a uint32
// header (version 1, the lax bit 0x80000000; "strict " printed when it is clear), then the
// items. Each item: its type byte, then (int-aligned) the int32 offset of the next item in
// the accessor chain (0: none), then the type's fields; every offset counts from the item's
// own start. Printed as printJsonPathItem does: operands in parentheses when their operator
// binds no less tightly than their parent's, numbers followed by an accessor in parentheses.
import { defineStruct, register, u32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { jsonString } from "./json.js";
import { numericText } from "./numeric.js";
import { alignUp } from "./types.js";
import { embeddedVarlena, utf8Text, view } from "./util.js";

export const JsonPathHeader = register(
  defineStruct("JsonPath", "src/include/utils/jsonpath.h", [u32("header", "JSONPATH_VERSION (1) | JSONPATH_LAX (0x80000000)")] as const),
);

const JSONPATH_LAX = 0x80000000;
const UINT32_MAX = 0xffffffff;

// JsonPathItemType codes (jpiNull = jbvNull 0 ... jpiBool = jbvBool 3, then jpiAnd = 4 ...)
const J = {
  Null: 0, String: 1, Numeric: 2, Bool: 3, And: 4, Or: 5, Not: 6, IsUnknown: 7, Equal: 8, NotEqual: 9, Less: 10, Greater: 11, LessOrEqual: 12, GreaterOrEqual: 13,
  Add: 14, Sub: 15, Mul: 16, Div: 17, Mod: 18, Plus: 19, Minus: 20, AnyArray: 21, AnyKey: 22, IndexArray: 23, Any: 24, Key: 25, Current: 26, Root: 27, Variable: 28,
  Filter: 29, Exists: 30, Type: 31, Size: 32, Abs: 33, Floor: 34, Ceiling: 35, Double: 36, Datetime: 37, KeyValue: 38, Subscript: 39, Last: 40, StartsWith: 41, LikeRegex: 42,
} as const;

const BINARY: Readonly<Record<number, string>> = {
  [J.And]: "&&", [J.Or]: "||", [J.Equal]: "==", [J.NotEqual]: "!=", [J.Less]: "<", [J.Greater]: ">", [J.LessOrEqual]: "<=", [J.GreaterOrEqual]: ">=",
  [J.Add]: "+", [J.Sub]: "-", [J.Mul]: "*", [J.Div]: "/", [J.Mod]: "%", [J.StartsWith]: "starts with",
};

/** Item methods without arguments and the other fixed texts. */
const FIXED: Readonly<Record<number, string>> = {
  [J.Null]: "null", [J.Current]: "@", [J.Root]: "$", [J.Last]: "last", [J.AnyArray]: "[*]",
  [J.Type]: ".type()", [J.Size]: ".size()", [J.Abs]: ".abs()", [J.Floor]: ".floor()", [J.Ceiling]: ".ceiling()", [J.Double]: ".double()", [J.KeyValue]: ".keyvalue()",
};

function priority(type: number): number {
  if (type === J.Or) return 0;
  if (type === J.And) return 1;
  if ((type >= J.Equal && type <= J.GreaterOrEqual) || type === J.StartsWith) return 2;
  if (type === J.Add || type === J.Sub) return 3;
  if (type === J.Mul || type === J.Div || type === J.Mod) return 4;
  if (type === J.Plus || type === J.Minus) return 5;
  return 6;
}

const REGEX_FLAGS: [number, string][] = [
  [0x01, "i"],
  [0x02, "s"],
  [0x04, "m"],
  [0x08, "x"],
  [0x10, "q"],
];

function jsonpathText(d: Uint8Array): string {
  const bad = (msg: string, offset: number): FormatError => new FormatError("JSONPATH_MALFORMED", `jsonpath: ${msg}`, { offset });
  if (d.length < JsonPathHeader.size + 1) throw bad(`${d.length} bytes cannot hold a header and an item`, 0);
  const dv = view(d);
  const int32 = (at: number): number => {
    if (at + 4 > d.length) throw bad("item runs past the end", at);
    return dv.getInt32(at, true);
  };
  // offsets in the payload; the items start right after the header (int alignment is the same
  // counted from the payload or from the 4-byte-header varlena)
  let depth = 0;
  const item = (at: number, inKey: boolean, brackets: boolean): string => {
    if (at < JsonPathHeader.size || at >= d.length) throw bad(`item offset ${at} is outside the value`, at);
    if (++depth > 10000) throw bad("items nest too deeply (a cycle?)", at);
    const type = d[at]!;
    let p = alignUp(at + 1, 4);
    const next = int32(p);
    p += 4;
    const rel = (off: number): number => at + off;
    const child = (off: number, b: boolean): string => item(rel(off), false, b);
    const sub = (off: number, parentType: number): string => child(off, priority(d[rel(off)]!) <= priority(parentType));
    const str = (): string => {
      const len = int32(p);
      if (len < 0 || p + 4 + len > d.length) throw bad(`string of ${len} bytes runs past the end`, p);
      return jsonString(utf8Text(d.subarray(p + 4, p + 4 + len)));
    };
    let s: string;
    if (FIXED[type] !== undefined) s = FIXED[type]!;
    else if (BINARY[type] !== undefined) {
      const [left, right] = [int32(p), int32(p + 4)];
      s = `${sub(left, type)} ${BINARY[type]} ${sub(right, type)}`;
      if (brackets) s = `(${s})`;
    } else
      switch (type) {
        case J.Key:
          s = (inKey ? "." : "") + str();
          break;
        case J.String:
          s = str();
          break;
        case J.Variable:
          s = "$" + str();
          break;
        case J.Numeric: {
          const [from, total] = embeddedVarlena(d, p, "jsonpath numeric");
          s = numericText(d, from, p + total);
          if (next > 0) s = `(${s})`;
          break;
        }
        case J.Bool:
          s = d[p] ? "true" : "false";
          break;
        case J.LikeRegex: {
          const [flags, expr, patlen] = [int32(p), int32(p + 4), int32(p + 8)];
          if (patlen < 0 || p + 12 + patlen > d.length) throw bad(`pattern of ${patlen} bytes runs past the end`, p + 8);
          s = `${sub(expr, type)} like_regex ${jsonString(utf8Text(d.subarray(p + 12, p + 12 + patlen)))}`;
          if (flags) s += ` flag "${REGEX_FLAGS.filter(([bit]) => flags & bit).map(([, c]) => c).join("")}"`;
          if (brackets) s = `(${s})`;
          break;
        }
        case J.Plus:
        case J.Minus:
          s = (type === J.Plus ? "+" : "-") + sub(int32(p), type);
          if (brackets) s = `(${s})`;
          break;
        case J.Filter:
          s = `?(${child(int32(p), false)})`;
          break;
        case J.Not:
          s = `!(${child(int32(p), false)})`;
          break;
        case J.IsUnknown:
          s = `(${child(int32(p), false)}) is unknown`;
          break;
        case J.Exists:
          s = `exists (${child(int32(p), false)})`;
          break;
        case J.Datetime: {
          const arg = int32(p);
          s = `.datetime(${arg ? child(arg, false) : ""})`;
          break;
        }
        case J.AnyKey:
          s = (inKey ? "." : "") + "*";
          break;
        case J.IndexArray: {
          const n = int32(p);
          const parts: string[] = [];
          for (let i = 0; i < n; i++) {
            const [from, to] = [int32(p + 4 + 8 * i), int32(p + 8 + 8 * i)];
            parts.push(child(from, false) + (to ? ` to ${child(to, false)}` : ""));
          }
          s = `[${parts.join(",")}]`;
          break;
        }
        case J.Any: {
          const [first, last] = [int32(p) >>> 0, int32(p + 4) >>> 0];
          const b = (x: number): string => (x === UINT32_MAX ? "last" : String(x));
          s = (inKey ? "." : "") + (first === 0 && last === UINT32_MAX ? "**" : first === last ? `**{${b(first)}}` : `**{${b(first)} to ${b(last)}}`);
          break;
        }
        default:
          throw bad(`item type ${type}`, at);
      }
    if (next > 0) s += item(rel(next), true, true);
    depth--;
    return s;
  };
  const lax = (dv.getUint32(0, true) & JSONPATH_LAX) !== 0;
  return (lax ? "" : "strict ") + item(JsonPathHeader.size, false, true);
}

export const JSONPATH_DECODERS: DecoderTable = { 4072: jsonpathText };
