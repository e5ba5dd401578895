// jsonb_in (src/backend/utils/adt/jsonb.c, jsonb_util.c convertToJsonb): JSON text -> the binary
// container jsonb.ts decodes. Object keys are sorted by length, then bytes, a duplicate key keeps
// its last value; numbers are numeric_in of their text (scale kept as written); strings are
// their unescaped UTF-8 (\u0000 refused, surrogate pairs joined). In a container, child i's
// JEntry holds its end offset every JB_OFFSET_STRIDE-th child, else its length; numerics and
// nested containers start 4-byte aligned, the padding counted in their length.
import { FormatError } from "../schema/errors.js";
import { numericIn, type InputFunction } from "./input.js";
import { JB_FARRAY, JB_FOBJECT, JB_FSCALAR, JENTRY_HAS_OFF, JENTRY_ISBOOL_FALSE, JENTRY_ISBOOL_TRUE, JENTRY_ISCONTAINER, JENTRY_ISNULL, JENTRY_ISNUMERIC, JENTRY_ISSTRING, JENTRY_OFFLENMASK, JsonbContainer } from "./jsonb.js";
import { varlena4B } from "../varlena/varlena.js";

type JsonNode =
  | { t: "object"; pairs: [Uint8Array, JsonNode][] }
  | { t: "array"; items: JsonNode[] }
  | { t: "string"; bytes: Uint8Array }
  | { t: "number"; text: string }
  | { t: "true" | "false" | "null" };

const enc = new TextEncoder();
const syntax = (detail: string): FormatError => new FormatError("DATUM_BAD_INPUT", "invalid input syntax for type json", {}, detail);
const unicode = (detail: string): FormatError => new FormatError("DATUM_BAD_INPUT", "unsupported Unicode escape sequence", {}, detail);

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z0-9_$\u0080-\uffff]*/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** A recursive-descent reader of the JSON grammar the server's lexer accepts (whitespace: space, tab, CR, LF). */
class JsonReader {
  private p = 0;
  constructor(private readonly s: string) {}

  document(): JsonNode {
    const v = this.value();
    this.space();
    if (this.p < this.s.length) throw syntax(`Expected end of input, but found "${this.token()}".`);
    return v;
  }

  private space(): void {
    while (this.p < this.s.length) {
      const c = this.s[this.p];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") this.p++;
      else break;
    }
  }

  private token(): string {
    WORD.lastIndex = this.p;
    const m = WORD.exec(this.s)![0];
    return m || this.s[this.p] || "";
  }

  private value(): JsonNode {
    this.space();
    const c = this.s[this.p];
    if (c === undefined) throw syntax("The input string ended unexpectedly.");
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return { t: "string", bytes: enc.encode(this.string()) };
    if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = this.p;
      const m = NUMBER.exec(this.s);
      WORD.lastIndex = this.p + (m ? m[0].length : 0);
      const tail = WORD.exec(this.s)![0];
      if (!m || tail) throw syntax(`Token "${this.s.slice(this.p, WORD.lastIndex) || c}" is invalid.`);
      this.p += m[0].length;
      return { t: "number", text: m[0] };
    }
    const word = this.token();
    if (word === "true" || word === "false" || word === "null") {
      this.p += word.length;
      return { t: word };
    }
    throw syntax(`Token "${word}" is invalid.`);
  }

  private object(): JsonNode {
    this.p++;
    const pairs: [Uint8Array, JsonNode][] = [];
    this.space();
    if (this.s[this.p] === "}") {
      this.p++;
      return { t: "object", pairs };
    }
    for (;;) {
      this.space();
      if (this.s[this.p] !== '"') throw this.s[this.p] === undefined ? syntax("The input string ended unexpectedly.") : syntax(`Expected string, but found "${this.token()}".`);
      const key = enc.encode(this.string());
      this.space();
      if (this.s[this.p] !== ":") throw this.s[this.p] === undefined ? syntax("The input string ended unexpectedly.") : syntax(`Expected ":", but found "${this.token()}".`);
      this.p++;
      pairs.push([key, this.value()]);
      this.space();
      const c = this.s[this.p++];
      if (c === "}") return { t: "object", pairs };
      if (c !== ",") throw c === undefined ? syntax("The input string ended unexpectedly.") : syntax(`Expected "," or "}", but found "${c}".`);
    }
  }

  private array(): JsonNode {
    this.p++;
    const items: JsonNode[] = [];
    this.space();
    if (this.s[this.p] === "]") {
      this.p++;
      return { t: "array", items };
    }
    for (;;) {
      items.push(this.value());
      this.space();
      const c = this.s[this.p++];
      if (c === "]") return { t: "array", items };
      if (c !== ",") throw c === undefined ? syntax("The input string ended unexpectedly.") : syntax(`Expected "," or "]", but found "${c}".`);
    }
  }

  /** A string token's value; the reader stands on its opening quote. */
  private string(): string {
    const s = this.s;
    let p = this.p + 1;
    let out = "";
    let high = -1; // a pending high surrogate escape
    for (;;) {
      const c = s[p];
      if (c === undefined) throw syntax("The input string ended unexpectedly.");
      if (c === '"') break;
      if (c.charCodeAt(0) < 0x20) throw syntax(`Character with value 0x${c.charCodeAt(0).toString(16).padStart(2, "0")} must be escaped.`);
      if (c !== "\\") {
        if (high >= 0) throw syntax("Unicode low surrogate must follow a high surrogate.");
        out += c;
        p++;
        continue;
      }
      const e = s[p + 1];
      if (e === undefined) throw syntax("The input string ended unexpectedly.");
      if (e === "u") {
        const h = s.slice(p + 2, p + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) throw syntax('"\\u" must be followed by four hexadecimal digits.');
        const cp = parseInt(h, 16);
        p += 6;
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (high >= 0) throw syntax("Unicode high surrogate must not follow a high surrogate.");
          high = cp;
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
          if (high < 0) throw syntax("Unicode low surrogate must follow a high surrogate.");
          out += String.fromCharCode(high, cp);
          high = -1;
        } else {
          if (high >= 0) throw syntax("Unicode low surrogate must follow a high surrogate.");
          if (cp === 0) throw unicode("\\u0000 cannot be converted to text.");
          out += String.fromCharCode(cp);
        }
        continue;
      }
      if (high >= 0) throw syntax("Unicode low surrogate must follow a high surrogate.");
      const v = ESCAPES[e];
      if (v === undefined) throw syntax(`Escape sequence "\\${e}" is invalid.`);
      out += v;
      p += 2;
    }
    if (high >= 0) throw syntax("Unicode low surrogate must follow a high surrogate.");
    this.p = p + 1;
    return out;
  }
}

const JB_OFFSET_STRIDE = 32;

/** A growing byte buffer; offsets count from the payload start (4-byte aligned like the server's buffer after its varlena header). */
class Buf {
  bytes = new Uint8Array(256);
  len = 0;
  private ensure(n: number): void {
    if (this.len + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.len + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.bytes.subarray(0, this.len));
    this.bytes = b;
  }
  append(b: Uint8Array): void {
    this.ensure(b.length);
    this.bytes.set(b, this.len);
    this.len += b.length;
  }
  reserve(n: number): number {
    this.ensure(n);
    const at = this.len;
    this.bytes.fill(0, at, at + n);
    this.len += n;
    return at;
  }
  /** pad to a 4-byte boundary; returns the padding */
  padToInt(): number {
    const pad = (4 - (this.len % 4)) % 4;
    this.reserve(pad);
    return pad;
  }
  setU32(at: number, v: number): void {
    new DataView(this.bytes.buffer).setUint32(at, v >>> 0, true);
  }
}

/** length first, then bytes (lengthCompareJsonbStringValue) */
function compareKeys(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Sorted keys, the last of equal keys kept (uniqueifyJsonbObject). */
function uniquePairs(pairs: [Uint8Array, JsonNode][]): [Uint8Array, JsonNode][] {
  const order = pairs.map((p, i) => ({ p, i }));
  order.sort((x, y) => compareKeys(x.p[0], y.p[0]) || y.i - x.i);
  const out: [Uint8Array, JsonNode][] = [];
  for (const { p } of order) if (!out.length || compareKeys(out[out.length - 1][0], p[0]) !== 0) out.push(p);
  return out;
}

/** A numeric datum as a whole varlena with a 4-byte header, as numeric_in returns it. */
function numericVarlena(text: string): Uint8Array {
  return varlena4B(numericIn(text, { typmod: -1 }));
}

/** Append one value; returns its JEntry (type | length, length including leading padding). */
function convertValue(buf: Buf, v: JsonNode): number {
  switch (v.t) {
    case "null":
      return JENTRY_ISNULL;
    case "true":
      return JENTRY_ISBOOL_TRUE;
    case "false":
      return JENTRY_ISBOOL_FALSE;
    case "string":
      buf.append(v.bytes);
      return JENTRY_ISSTRING | v.bytes.length;
    case "number": {
      const pad = buf.padToInt();
      const n = numericVarlena(v.text);
      buf.append(n);
      return JENTRY_ISNUMERIC | (pad + n.length);
    }
    default:
      return JENTRY_ISCONTAINER | convertContainer(buf, v, false);
  }
}

/** Append a container (padding first); returns its length including that padding. */
function convertContainer(buf: Buf, v: JsonNode & { t: "object" | "array" }, rawScalar: boolean): number {
  const base = buf.len;
  buf.padToInt();
  const children: JsonNode[] = v.t === "array" ? v.items : [];
  let header: number;
  if (v.t === "array") header = v.items.length | JB_FARRAY | (rawScalar ? JB_FSCALAR : 0);
  else {
    const pairs = uniquePairs(v.pairs);
    header = pairs.length | JB_FOBJECT;
    for (const [k] of pairs) children.push({ t: "string", bytes: k });
    for (const [, val] of pairs) children.push(val);
  }
  const headerAt = buf.reserve(JsonbContainer.size);
  buf.setU32(headerAt + JsonbContainer.offsets.header, header);
  const entriesAt = buf.reserve(4 * children.length);
  let total = 0;
  children.forEach((c, i) => {
    let meta = convertValue(buf, c);
    total += meta & JENTRY_OFFLENMASK;
    if (total > JENTRY_OFFLENMASK) throw new FormatError("DATUM_BAD_INPUT", `total size of jsonb array elements exceeds the maximum of ${JENTRY_OFFLENMASK} bytes`);
    if (i % JB_OFFSET_STRIDE === 0) meta = (meta & ~JENTRY_OFFLENMASK) | total | JENTRY_HAS_OFF;
    buf.setU32(entriesAt + 4 * i, meta);
  });
  return buf.len - base;
}

export const jsonbIn: InputFunction = (text) => {
  const root = new JsonReader(text).document();
  const buf = new Buf();
  const top: JsonNode & { t: "object" | "array" } = root.t === "object" || root.t === "array" ? root : { t: "array", items: [root] };
  convertContainer(buf, top, top !== root);
  return buf.bytes.slice(0, buf.len);
};
