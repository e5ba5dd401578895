// Input functions of contrib/ltree's types, the inverse of their output in contrib.ts: ltree_in
// and lquery_in (contrib/ltree/ltree_io.c), ltxtq_in (ltxtquery_io.c). Labels are ASCII letters,
// digits and "_": where versions or locales read a label differently pgdisk refuses by name,
// "-" (a label character from PostgreSQL 16 on) and non-ASCII characters (letters by the
// database's locale); labels longer than 255 characters get 15's error, though 16 takes up to 1000.
import { FormatError } from "../schema/errors.js";
import type { InputFunction } from "./input.js";
import {
  LQL_COUNT, LQL_HDRSIZE, LQL_NOT, LQUERY_FIRST, LQUERY_HASNOT, LqueryHeader, LqueryLevel, LqueryVariant, LTREE_FIRST, LTREE_MAX_LEVELS,
  LtreeHeader, LtreeLevel, LTXTQ_FIRST, LTXTQ_OPR, LTXTQ_VAL, LtxtqueryHeader, LtxtqueryItem, LVAR_ANYEND, LVAR_HDRSIZE, LVAR_INCASE, LVAR_SUBLEXEME,
} from "./contrib.js";
import { traditionalCrc32 } from "./crc32.js";
import { maxAlign } from "../page/page.js";

/** PostgreSQL 15's LTREE_LABEL_MAX_CHARS (16 allows 1000). */
const LTREE_LABEL_MAX = 255;
const syntax = (msg: string): FormatError => new FormatError("DATUM_BAD_INPUT", msg);

const isLabelChar = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

/** The refusal of text whose reading depends on the version or the locale: "-" or any non-ASCII character. */
function refuseUnportable(type: string, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2d || c > 0x7f)
      throw new FormatError("DATUM_BAD_INPUT", `pgdisk reads ${type} labels only of A-Z, a-z, 0-9 and _ ("-" is a label character from PostgreSQL 16 on, other letters depend on the locale): "${text}"`);
  }
}

/** ltree_crc32_sz: CRC-32 of the label's bytes lowercased (LOWER_NODE; ASCII only here). */
const labelCrc = (label: Uint8Array): number => traditionalCrc32(label, (x) => (x >= 0x41 && x <= 0x5a ? x | 0x20 : x));
const ascii = (s: string): Uint8Array => Uint8Array.from(s, (ch) => ch.charCodeAt(0));

// ---- ltree ----

/** ltree_in: labels split by ".", none empty; the empty text is the empty path. */
const ltreeIn: InputFunction = (text) => {
  let dots = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x2e) dots++;
  if (dots + 1 > LTREE_MAX_LEVELS) throw syntax(`number of ltree labels (${dots + 1}) exceeds the maximum allowed (${LTREE_MAX_LEVELS})`);
  const labels: string[] = [];
  if (text !== "") {
    let start = 0;
    for (let i = 0; i <= text.length; i++) {
      const c = text.charCodeAt(i);
      if (i === text.length || c === 0x2e) {
        if (i === start) throw syntax(i === text.length ? "ltree syntax error" : `ltree syntax error at character ${i + 1}`);
        if (i - start > LTREE_LABEL_MAX) throw syntax("label string is too long");
        labels.push(text.slice(start, i));
        start = i + 1;
        continue;
      }
      if (isLabelChar(c)) continue;
      refuseUnportable("ltree", text);
      throw syntax(`ltree syntax error at character ${i + 1}`);
    }
  }
  let size = LTREE_FIRST;
  for (const l of labels) size += maxAlign(LtreeLevel.size + l.length);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint16(LtreeHeader.offsets.numlevel, labels.length, true);
  let p = LTREE_FIRST;
  for (const l of labels) {
    dv.setUint16(p + LtreeLevel.offsets.len, l.length, true);
    for (let k = 0; k < l.length; k++) out[p + LtreeLevel.size + k] = l.charCodeAt(k);
    p += maxAlign(LtreeLevel.size + l.length);
  }
  return out;
};

// ---- lquery ----

interface LqueryVar {
  label: string;
  flag: number;
}
interface LqueryLevelIn {
  flag: number;
  low: number;
  high: number;
  /** empty for '*' */
  vars: LqueryVar[];
}

/** A repeat count as atoi reads it; longer runs of digits than an int holds are refused (atoi's overflow is undefined). */
function repeatCount(text: string, at: number): number {
  let end = at;
  while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
  const v = Number(text.slice(at, end));
  if (v > 0x7fffffff) throw new FormatError("DATUM_BAD_INPUT", `pgdisk cannot tell how the server reads the lquery repeat count ${text.slice(at, end)}: "${text}"`);
  return v;
}

/**
 * lquery_in: levels split by "."; a level is "*" with optional counts {n}, {n,}, {,m}, {n,m},
 * or "!"? labels split by "|", each with the flags "@" "*" "%" after it, then optional counts.
 * The state machine of parse_lquery, with its messages and character positions.
 */
const lqueryIn: InputFunction = (text) => {
  refuseUnportable("lquery", text);
  const unchar = (i: number): FormatError => syntax(`lquery syntax error at character ${i + 1}`);
  let num = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x2e) num++;
  if (num > LTREE_MAX_LEVELS) throw new FormatError("DATUM_BAD_INPUT", `number of lquery items (${num}) exceeds the maximum allowed (${LTREE_MAX_LEVELS})`);
  type State = "level" | "var" | "delim" | "open" | "fnum" | "snum" | "close" | "nd" | "end";
  const levels: LqueryLevelIn[] = [];
  let cur: LqueryLevelIn = { flag: 0, low: 0, high: 0, vars: [] };
  let start = 0;
  let hasNot = false;
  let state: State = "level";
  /** finish_nodeitem: the label ends at `i` less its trailing flag characters; empty or too long is an error */
  const finish = (i: number): void => {
    let end = i;
    while (end > start && "@*%".includes(text[end - 1]!)) end--;
    if (end === start) throw syntax(`lquery syntax error at character ${end + 1}: Empty labels are not allowed.`);
    if (end - start > LTREE_LABEL_MAX) throw syntax("label string is too long");
    cur.vars[cur.vars.length - 1]!.label = text.slice(start, end);
  };
  const nextLevel = (): void => {
    levels.push(cur);
    cur = { flag: 0, low: 0, high: 0, vars: [] };
  };
  const limit = (kind: "Low" | "High", v: number, i: number): FormatError =>
    syntax(`lquery syntax error: ${kind} limit (${v}) exceeds the maximum allowed (${LTREE_MAX_LEVELS}), at character ${i + 1}.`);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const c = text.charCodeAt(i);
    switch (state) {
      case "level":
        if (isLabelChar(c)) {
          cur.vars.push({ label: "", flag: 0 });
          start = i;
          state = "delim";
        } else if (ch === "!") {
          cur.vars.push({ label: "", flag: 0 });
          start = i + 1;
          cur.flag |= LQL_NOT;
          hasNot = true;
          state = "delim";
        } else if (ch === "*") state = "open";
        else throw unchar(i);
        break;
      case "var":
        if (!isLabelChar(c)) throw unchar(i);
        if (cur.vars.length === 0xffff) throw syntax("lquery level has too many variants");
        cur.vars.push({ label: "", flag: 0 });
        start = i;
        state = "delim";
        break;
      case "delim": {
        const v = cur.vars[cur.vars.length - 1]!;
        const flag = ch === "@" ? LVAR_INCASE : ch === "*" ? LVAR_ANYEND : ch === "%" ? LVAR_SUBLEXEME : 0;
        if (flag) {
          v.flag |= flag;
          cur.flag |= flag;
        } else if (ch === "|") {
          finish(i);
          state = "var";
        } else if (ch === "{") {
          finish(i);
          cur.flag |= LQL_COUNT;
          state = "fnum";
        } else if (ch === ".") {
          finish(i);
          nextLevel();
          state = "level";
        } else if (isLabelChar(c)) {
          // no label characters after a flag
          if (v.flag) throw unchar(i);
        } else throw unchar(i);
        break;
      }
      case "open":
        if (ch === "{") state = "fnum";
        else if (ch === ".") {
          cur.high = LTREE_MAX_LEVELS;
          nextLevel();
          state = "level";
        } else throw unchar(i);
        break;
      case "fnum":
        if (ch === ",") state = "snum";
        else if (c >= 0x30 && c <= 0x39) {
          const low = repeatCount(text, i);
          if (low > LTREE_MAX_LEVELS) throw limit("Low", low, i);
          cur.low = low;
          state = "nd";
        } else throw unchar(i);
        break;
      case "snum":
        if (c >= 0x30 && c <= 0x39) {
          const high = repeatCount(text, i);
          if (high > LTREE_MAX_LEVELS) throw limit("High", high, i);
          if (cur.low > high) throw syntax(`lquery syntax error: Low limit (${cur.low}) is greater than high limit (${high}), at character ${i + 1}.`);
          cur.high = high;
          state = "close";
        } else if (ch === "}") {
          cur.high = LTREE_MAX_LEVELS;
          state = "end";
        } else throw unchar(i);
        break;
      case "close":
        if (ch === "}") state = "end";
        else if (!(c >= 0x30 && c <= 0x39)) throw unchar(i);
        break;
      case "nd":
        if (ch === "}") {
          cur.high = cur.low;
          state = "end";
        } else if (ch === ",") state = "snum";
        else if (!(c >= 0x30 && c <= 0x39)) throw unchar(i);
        break;
      case "end":
        if (ch !== ".") throw unchar(i);
        nextLevel();
        state = "level";
        break;
    }
  }
  if (state === "delim") finish(text.length);
  else if (state === "open") cur.high = LTREE_MAX_LEVELS;
  else if (state !== "end") throw syntax("lquery syntax error: Unexpected end of input.");
  nextLevel();

  let size = LQUERY_FIRST;
  const lens = levels.map((l) => {
    let len = LQL_HDRSIZE;
    for (const v of l.vars) {
      len += LVAR_HDRSIZE + maxAlign(v.label.length);
      if (len > 0xffff) throw syntax("lquery level is too large");
    }
    size += len;
    return len;
  });
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let firstgood = 0;
  let simple = true;
  let p = LQUERY_FIRST;
  levels.forEach((l, k) => {
    dv.setUint16(p + LqueryLevel.offsets.totallen, lens[k]!, true);
    dv.setUint16(p + LqueryLevel.offsets.flag, l.flag, true);
    dv.setUint16(p + LqueryLevel.offsets.numvar, l.vars.length, true);
    dv.setUint16(p + LqueryLevel.offsets.low, l.low, true);
    dv.setUint16(p + LqueryLevel.offsets.high, l.high, true);
    let v = p + LQL_HDRSIZE;
    for (const x of l.vars) {
      const label = ascii(x.label);
      dv.setInt32(v + LqueryVariant.offsets.val, labelCrc(label), true);
      dv.setUint16(v + LqueryVariant.offsets.len, label.length, true);
      out[v + LqueryVariant.offsets.flag] = x.flag;
      out.set(label, v + LqueryVariant.size);
      v += LVAR_HDRSIZE + maxAlign(label.length);
    }
    // firstgood: the leading levels that match one plain label
    if (l.vars.length !== 1 || l.flag !== 0) simple = false;
    else if (simple) firstgood++;
    p += lens[k]!;
  });
  dv.setUint16(LqueryHeader.offsets.numlevel, levels.length, true);
  dv.setUint16(LqueryHeader.offsets.firstgood, firstgood, true);
  dv.setUint16(LqueryHeader.offsets.flag, hasNot ? LQUERY_HASNOT : 0, true);
  return out;
};

// ---- ltxtquery ----

/** STACKDEPTH of makepol: operators pending in one parenthesis level */
const STACK_DEPTH = 32;
/** Parentheses nested deeper than this are refused: the server's check_stack_depth limit depends on its settings. */
const MAX_NESTING = 1000;

interface TxtNode {
  type: number;
  val: number;
  flag: number;
  length: number;
  distance: number;
}

/**
 * ltxtq_in: labels (each with the flags "%" "@" "*" after it) joined by "&" and "|", "!" and
 * parentheses; stored in polish notation as queryin's makepol orders it (its operator stack
 * included), each operator's left operand found as findoprnd does.
 */
const ltxtqueryIn: InputFunction = (text) => {
  refuseUnportable("ltxtquery", text);
  const WAITOPERAND = 1;
  const INOPERAND = 2;
  const WAITOPERATOR = 3;
  const END = 0;
  const ERR = 1;
  const OPEN = 4;
  const CLOSE = 5;
  let i = 0;
  let state = WAITOPERAND;
  let count = 0;
  let tokVal = 0;
  let tokStart = 0;
  let tokLen = 0;
  let tokFlag = 0;
  const pushed: TxtNode[] = [];
  const labels: string[] = [];
  let sumlen = 0;
  const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
  const gettoken = (): number => {
    for (;;) {
      const c = i < text.length ? text.charCodeAt(i) : 0;
      switch (state) {
        case WAITOPERAND:
          if (c === 0x21) {
            i++;
            tokVal = 0x21;
            return LTXTQ_OPR;
          }
          if (c === 0x28) {
            count++;
            i++;
            return OPEN;
          }
          if (isLabelChar(c)) {
            state = INOPERAND;
            tokStart = i;
            tokLen = 1;
            tokFlag = 0;
          } else if (!isSpace(c)) throw syntax("operand syntax error");
          break;
        case INOPERAND:
          if (isLabelChar(c)) {
            if (tokFlag) throw syntax("modifiers syntax error");
            tokLen++;
          } else if (c === 0x25) tokFlag |= LVAR_SUBLEXEME;
          else if (c === 0x40) tokFlag |= LVAR_INCASE;
          else if (c === 0x2a) tokFlag |= LVAR_ANYEND;
          else {
            state = WAITOPERATOR;
            return LTXTQ_VAL;
          }
          break;
        case WAITOPERATOR:
          if (c === 0x26 || c === 0x7c) {
            state = WAITOPERAND;
            tokVal = c;
            i++;
            return LTXTQ_OPR;
          }
          if (c === 0x29) {
            i++;
            count--;
            return count < 0 ? ERR : CLOSE;
          }
          if (i >= text.length) return count ? ERR : END;
          if (c !== 0x20) return ERR;
          break;
      }
      i++;
    }
  };
  const push = (type: number, val: number, distance: number, length: number, flag: number): void => {
    if (distance > 0xffff) throw new FormatError("DATUM_BAD_INPUT", "value is too big");
    if (length > 0xff) throw new FormatError("DATUM_BAD_INPUT", "operand is too long");
    pushed.push({ type, val, flag, length, distance });
  };
  const pushVal = (): void => {
    const label = text.slice(tokStart, tokStart + tokLen);
    push(LTXTQ_VAL, labelCrc(ascii(label)), sumlen, tokLen, tokFlag);
    labels.push(label);
    sumlen += tokLen + 1;
  };
  const makepol = (depth: number): void => {
    if (depth > MAX_NESTING) throw new FormatError("DATUM_BAD_INPUT", `pgdisk reads ltxtquery parentheses nested at most ${MAX_NESTING} deep`);
    const stack: number[] = [];
    const popUnary = (): void => {
      while (stack.length && (stack[stack.length - 1] === 0x26 || stack[stack.length - 1] === 0x21)) push(LTXTQ_OPR, stack.pop()!, 0, 0, 0);
    };
    for (let type; (type = gettoken()) !== END; ) {
      if (type === LTXTQ_VAL) {
        pushVal();
        popUnary();
      } else if (type === LTXTQ_OPR) {
        if (stack.length && tokVal === 0x7c) push(LTXTQ_OPR, tokVal, 0, 0, 0);
        else {
          if (stack.length === STACK_DEPTH) throw new FormatError("DATUM_BAD_INPUT", "stack too short");
          stack.push(tokVal);
        }
      } else if (type === OPEN) {
        makepol(depth + 1);
        popUnary();
      } else if (type === CLOSE) {
        while (stack.length) push(LTXTQ_OPR, stack.pop()!, 0, 0, 0);
        return;
      } else throw syntax("syntax error");
    }
    while (stack.length) push(LTXTQ_OPR, stack.pop()!, 0, 0, 0);
  };
  makepol(0);
  if (pushed.length === 0) throw syntax("syntax error: Empty query.");

  // queryin stores the pushed nodes last first: polish (prefix) notation
  const items = pushed.reverse();
  const left = new Int16Array(items.length);
  let pos = 0;
  const unparsed = (): FormatError => new FormatError("DATUM_BAD_INPUT", `pgdisk cannot tell how the server stores ltxtquery "${text}"`);
  const findoprnd = (): void => {
    if (pos >= items.length) throw unparsed();
    const me = pos++;
    const it = items[me]!;
    if (it.type === LTXTQ_VAL) left[me] = 0;
    else if (it.val === 0x21) {
      left[me] = 1;
      findoprnd();
    } else {
      findoprnd();
      const delta = pos - me;
      if (delta > 0x7fff) throw new FormatError("DATUM_BAD_INPUT", "ltxtquery is too large");
      left[me] = delta;
      findoprnd();
    }
  };
  findoprnd();
  if (pos !== items.length) throw unparsed();

  const ops = LTXTQ_FIRST + items.length * LtxtqueryItem.size;
  const out = new Uint8Array(ops + sumlen);
  const dv = new DataView(out.buffer);
  dv.setInt32(LtxtqueryHeader.offsets.size, items.length, true);
  items.forEach((it, k) => {
    const at = LTXTQ_FIRST + k * LtxtqueryItem.size;
    dv.setInt16(at + LtxtqueryItem.offsets.type, it.type, true);
    dv.setInt16(at + LtxtqueryItem.offsets.left, left[k]!, true);
    dv.setInt32(at + LtxtqueryItem.offsets.val, it.val | 0, true);
    out[at + LtxtqueryItem.offsets.flag] = it.flag & 0xff;
    out[at + LtxtqueryItem.offsets.length] = it.length;
    dv.setUint16(at + LtxtqueryItem.offsets.distance, it.distance, true);
  });
  // the operands in the order they were read, each NUL-terminated
  let p = ops;
  for (const l of labels) {
    out.set(ascii(l), p);
    p += l.length + 1;
  }
  return out;
};

/** The ltree family's input functions by the name of the type's input function. */
export const LTREE_INPUT: [string, InputFunction][] = [
  ["ltree_in", ltreeIn],
  ["lquery_in", lqueryIn],
  ["ltxtq_in", ltxtqueryIn],
];
