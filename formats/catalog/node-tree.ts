// pg_node_tree text (src/backend/nodes/outfuncs.c, read.c): what pg_index.indexprs / indpred,
// pg_attrdef.adbin and friends store. A node is `{NAME :field value ...}`, a list `(v v ...)`
// (`(i 1 2)`, `(o ...)`, `(b ...)` for int, OID and bitmap lists), `<>` is NULL, strings are
// "quoted" with backslash escapes; a Const's `:constvalue` is `N [ b0 b1 ... ]` (N bytes, printed
// as signed chars; a by-value datum prints all 8 bytes of the Datum) or `<>`.
import { FormatError } from "../schema/errors.js";

export type NodeValue = string | null | NodeValue[] | PgNode | Uint8Array;

export interface PgNode {
  /** the node tag as printed: OPEXPR, FUNCEXPR, VAR, CONST, ... */
  type: string;
  fields: Record<string, NodeValue>;
}

const SINGLE = new Set(["(", ")", "{", "}"]);

function tokenize(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\n" || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (SINGLE.has(c)) {
      out.push(c);
      i++;
      continue;
    }
    if (c === '"') {
      let s = '"';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        s += text[i++];
      }
      i++;
      out.push(s + '"');
      continue;
    }
    let s = "";
    while (i < text.length && !" \n\t\r(){}".includes(text[i]!)) {
      if (text[i] === "\\" && i + 1 < text.length) i++;
      s += text[i++];
    }
    out.push(s);
  }
  return out;
}

/** Parse a pg_node_tree text into nodes; throws NODE_TREE_MALFORMED naming the position. */
export function parseNodeTree(text: string): NodeValue {
  const toks = tokenize(text);
  let p = 0;
  const fail = (why: string): never => {
    throw new FormatError("NODE_TREE_MALFORMED", `pg_node_tree: ${why} at token ${p} of ${toks.length}`);
  };
  const value = (): NodeValue => {
    const t = toks[p++];
    if (t === undefined) return fail("unexpected end");
    if (t === "{") return node();
    if (t === "(") {
      const items: NodeValue[] = [];
      while (toks[p] !== ")") {
        if (p >= toks.length) fail("unterminated list");
        items.push(value());
      }
      p++;
      return items;
    }
    if (t === "<>") return null;
    if (t === ")" || t === "}") return fail(`unexpected "${t}"`);
    return t;
  };
  const node = (): PgNode => {
    const type = toks[p++];
    if (!type || SINGLE.has(type)) return fail("node without a tag");
    const fields: Record<string, NodeValue> = {};
    while (toks[p] !== "}") {
      const f = toks[p++];
      if (f === undefined) return fail(`unterminated node ${type}`);
      if (!f.startsWith(":")) return fail(`field name expected in ${type}, got "${f}"`);
      const name = f.slice(1);
      if (name === "constvalue") fields[name] = constValue();
      else if (toks[p] === "}" || toks[p]?.startsWith(":")) fields[name] = "";
      else fields[name] = value();
    }
    p++;
    return { type, fields };
  };
  const constValue = (): Uint8Array | null => {
    const n = toks[p++];
    if (n === "<>") return null;
    const len = Number(n);
    if (!Number.isInteger(len) || len < 0 || toks[p++] !== "[") return fail("bad constvalue");
    // a by-value datum prints all 8 bytes of its Datum after its type's length
    const bytes: number[] = [];
    while (toks[p] !== "]") {
      if (p >= toks.length) fail("unterminated constvalue");
      bytes.push(Number(toks[p++]) & 0xff);
    }
    p++;
    if (bytes.length < len) fail("constvalue shorter than its length");
    return Uint8Array.from(bytes);
  };
  const v = value();
  if (p !== toks.length) fail("trailing tokens");
  return v;
}

export const isNode = (v: NodeValue | undefined, type?: string): v is PgNode =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && (type === undefined || v.type === type);
