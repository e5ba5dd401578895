// tsvector_in and tsqueryin (src/backend/utils/adt/tsvector.c, tsvector_parser.c, tsquery.c),
// the inverse of tsvector.ts and tsquery.ts. One lexeme reader serves both, as in the server:
// words end at white space (and, in a tsquery, at an operator or ":"), '...' quotes with ''
// for a quote, a backslash escapes the next character. A tsvector's lexemes are sorted (byte
// order, shorter first on a tie) and merged, their positions sorted, merged (the highest weight
// kept) and cut at 256 or at position 16383; a tsquery is stored in prefix order (operator, its
// right operand, its left operand), its operand strings in the order they were read.
// White space is isspace() of the C locale; a value holding a non-ASCII character another locale
// may call white space is refused by name rather than guessed.
import { legacyCrc32 } from "./crc32.js";
import { FormatError } from "../schema/errors.js";
import type { InputFunction } from "./input.js";
import { QueryOperand, QueryOperator } from "./tsquery.js";
import { WordEntry } from "./tsvector.js";
import { isDigit, isSpace } from "./util.js";

const MAXSTRLEN = 1 << 11; // a lexeme is shorter
const MAXSTRPOS = (1 << 20) - 1; // the lexeme area (tsvector), the operand area (tsquery)
const MAXENTRYPOS = 1 << 14;
const MAXNUMPOS = 256;
const QUERY_ITEM_SIZE = 12;
const QI_VAL = 1;
const QI_OPR = 2;
const OP_NOT = 1;
const OP_AND = 2;
const OP_OR = 3;
const OP_PHRASE = 4;
/** tsearch_op_priority by operator */
const PRIORITY = [0, 4, 2, 1, 3];
/** the operator stack of one parenthesis level (STACKDEPTH) */
const STACKDEPTH = 32;

const enc = new TextEncoder();
/** ISOPERATOR: what ends a tsquery word */
const isOperator = (c: string | undefined): boolean => c === "!" || c === "&" || c === "|" || c === "(" || c === ")" || c === "<";
/** Characters glibc's iswspace calls white space outside ASCII (U+0085, U+1680, U+2000-U+2006, ...). */
const LOCALE_SPACE = /[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

const bad = (message: string): FormatError => new FormatError("DATUM_BAD_INPUT", message);

/**
 * Server builds differ on a lexeme of exactly 2047 bytes: the system PostgreSQL 15.20 build
 * stores it, the stock 13.23, 15.18 and 18.4 servers refuse it ("max 2046 bytes"); refused.
 */
function refuseDisputedLength(length: number, text: string): void {
  if (length === MAXSTRLEN - 1) throw bad(`pgdisk does not load a lexeme of ${length} bytes: PostgreSQL builds differ on whether it fits: "${text.length > 60 ? text.slice(0, 60) + "..." : text}"`);
}

function refuseLocaleSpace(type: string, text: string): void {
  if (LOCALE_SPACE.test(text)) throw bad(`pgdisk reads ${type} input only with ASCII white space (the database locale decides whether ${JSON.stringify(LOCALE_SPACE.exec(text)![0])} separates words): "${text}"`);
}

/** A lexeme read: its text, its WordEntryPos values (tsvector, null when none), where reading stopped. */
interface Token {
  word: string;
  positions: number[] | null;
  end: number;
}

/** atoi() of the digits at `i` as the server's parser uses it (strtol clamped, then cast to int). */
function atoiAt(s: readonly string[], i: number): number {
  let j = i;
  while (isDigit(s[j])) j++;
  let v = BigInt(s.slice(i, j).join(""));
  if (v > 0x7fffffffffffffffn) v = 0x7fffffffffffffffn;
  return Number(BigInt.asIntN(32, v));
}

/**
 * gettoken_tsvector: the next lexeme of `s` from `i`, null at the end. `query`: the tsquery
 * form (operators end a word, no positions; the caller reads ":" modifiers).
 */
function readToken(s: readonly string[], i: number, query: boolean, syntax: () => FormatError, text: string, type: string): Token | null {
  let word = "";
  let state: "word" | "endword" | "nextchar" | "endcmplx" | "charcmplx" | "posinfo" | "inposinfo" | "posdelim" = "word";
  let old: "endword" | "endcmplx" = "endword";
  let positions: number[] | null = null;
  for (;;) {
    const c = s[i];
    switch (state) {
      case "word":
        if (c === undefined) return null;
        if (c === "'") state = "endcmplx";
        else if (c === "\\") {
          state = "nextchar";
          old = "endword";
        } else if (query && isOperator(c)) throw syntax();
        else if (!isSpace(c)) {
          word += c;
          state = "endword";
        }
        break;
      case "nextchar":
        if (c === undefined) throw bad(`there is no escaped character: "${text}"`);
        word += c;
        state = old;
        break;
      case "endword":
        if (c === "\\") {
          state = "nextchar";
          old = "endword";
        } else if (c === undefined || isSpace(c) || (query && isOperator(c))) {
          if (word === "") throw syntax();
          return { word, positions: null, end: i };
        } else if (c === ":") {
          if (word === "") throw syntax();
          if (query) return { word, positions: null, end: i };
          state = "inposinfo";
        } else word += c;
        break;
      case "endcmplx":
        if (c === "'") state = "charcmplx";
        else if (c === "\\") {
          state = "nextchar";
          old = "endcmplx";
        } else if (c === undefined) throw syntax();
        else word += c;
        break;
      case "charcmplx":
        if (c === "'") {
          word += c;
          state = "endcmplx";
          break;
        }
        if (word === "") throw syntax();
        if (query) return { word, positions: null, end: i };
        state = "posinfo";
        continue; // this character again
      case "posinfo":
        if (c === ":") state = "inposinfo";
        else return { word, positions: null, end: i };
        break;
      case "inposinfo": {
        if (!isDigit(c)) throw syntax();
        const n = atoiAt(s, i);
        const pos = n >= MAXENTRYPOS ? MAXENTRYPOS - 1 : n;
        if ((pos & 0x3fff) === 0) throw bad(`wrong position info in ${type}: "${text}"`);
        (positions ??= []).push(pos & 0x3fff);
        state = "posdelim";
        break;
      }
      case "posdelim": {
        const last = positions!.length - 1;
        const weight = positions![last]! >> 14;
        const set = (w: number): void => {
          if (weight) throw syntax();
          positions![last] = (positions![last]! & 0x3fff) | (w << 14);
        };
        if (c === ",") state = "inposinfo";
        else if (c === "a" || c === "A" || c === "*") set(3);
        else if (c === "b" || c === "B") set(2);
        else if (c === "c" || c === "C") set(1);
        else if (c === "d" || c === "D") set(0);
        else if (c === undefined || isSpace(c)) return { word, positions, end: i };
        else if (!isDigit(c)) throw syntax();
        break;
      }
    }
    i++;
  }
}

/**
 * pg_qsort leaves an array as it was read when it has fewer than 7 elements (insertion sort) or
 * is already in order; otherwise the order of equal elements is its own.
 */
function sortKeepsOrder<T>(a: readonly T[], cmp: (x: T, y: T) => number): boolean {
  if (a.length < 7) return true;
  for (let k = 1; k < a.length; k++) if (cmp(a[k - 1]!, a[k]!) > 0) return false;
  return true;
}

const byPosition = (a: number, b: number): number => (a & 0x3fff) - (b & 0x3fff);

/**
 * uniquePos: sorted by position, one entry per position with the highest weight, at most 256 and
 * none past 16383. When it stops at the limit, the first of the equal positions in sorted order
 * is kept; `inOrder`: the entries are in the order the server's sort sees them.
 */
function uniquePositions(p: number[], inOrder: boolean, text: string): number[] {
  if (p.length <= 1) return p;
  const stable = inOrder && sortKeepsOrder(p, byPosition);
  const sorted = [...p].sort(byPosition);
  const out = [sorted[0]!];
  for (let k = 1; k < sorted.length; k++) {
    const v = sorted[k]!;
    const last = out[out.length - 1]!;
    if ((v & 0x3fff) !== (last & 0x3fff)) {
      out.push(v);
      if (out.length >= MAXNUMPOS || (v & 0x3fff) === MAXENTRYPOS - 1) {
        const same = sorted.slice(k).filter((x) => (x & 0x3fff) === (v & 0x3fff));
        if (!stable && same.some((x) => x !== v)) throw bad(`pgdisk cannot tell which weight the server keeps for position ${v & 0x3fff}, given with different weights where the server stops reading positions: "${text}"`);
        break;
      }
    } else if (v >> 14 > last >> 14) out[out.length - 1] = v;
  }
  return out;
}

/** Byte order, shorter first on a common prefix (tsCompareString without prefix matching). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const shortAlign = (n: number): number => (n + 1) & ~1;

export const tsvectorIn: InputFunction = (text) => {
  refuseLocaleSpace("tsvector", text);
  const syntax = (): FormatError => bad(`syntax error in tsvector: "${text}"`);
  const chars = Array.from(text);
  const lexemes: { bytes: Uint8Array; positions: number[] | null }[] = [];
  let total = 0;
  for (let i = 0; ; ) {
    const t = readToken(chars, i, false, syntax, text, "tsvector");
    if (!t) break;
    i = t.end;
    const bytes = enc.encode(t.word);
    if (bytes.length >= MAXSTRLEN) throw bad(`word is too long (${bytes.length} bytes, max ${MAXSTRLEN - 1} bytes)`);
    refuseDisputedLength(bytes.length, text);
    if (total > MAXSTRPOS) throw bad(`string is too long for tsvector (${total} bytes, max ${MAXSTRPOS} bytes)`);
    total += bytes.length;
    lexemes.push({ bytes, positions: t.positions });
  }
  const byBytes = (a: (typeof lexemes)[0], b: (typeof lexemes)[0]): number => compareBytes(a.bytes, b.bytes);
  const lexemesInOrder = sortKeepsOrder(lexemes, byBytes);
  lexemes.sort(byBytes);
  // merge equal lexemes: the positions of all, or none when none has any
  const merged: (typeof lexemes[0] & { from: number })[] = [];
  for (const l of lexemes) {
    const last = merged[merged.length - 1];
    if (last && compareBytes(last.bytes, l.bytes) === 0) {
      if (l.positions) last.from++;
      if (l.positions) last.positions = last.positions ? [...last.positions, ...l.positions] : l.positions;
    } else merged.push({ bytes: l.bytes, positions: l.positions, from: l.positions ? 1 : 0 });
  }
  let area = 0;
  for (const l of merged) {
    area += l.bytes.length;
    if (l.positions) {
      l.positions = uniquePositions(l.positions, lexemesInOrder || l.from <= 1, text);
      area = shortAlign(area) + 2 + 2 * l.positions.length;
    }
  }
  const base = 4 + WordEntry.size * merged.length;
  const out = new Uint8Array(base + area);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, merged.length, true);
  let off = 0;
  merged.forEach((l, k) => {
    out.set(l.bytes, base + off);
    dv.setUint32(4 + WordEntry.size * k, ((off << 12) | (l.bytes.length << 1) | (l.positions ? 1 : 0)) >>> 0, true);
    off += l.bytes.length;
    if (l.positions) {
      off = shortAlign(off);
      dv.setUint16(base + off, l.positions.length, true);
      off += 2;
      for (const p of l.positions) {
        dv.setUint16(base + off, p, true);
        off += 2;
      }
    }
  });
  return out;
};

type QueryItem = { kind: "val"; bytes: Uint8Array; weight: number; prefix: boolean; distance: number } | { kind: "opr"; oper: number; distance: number };

/** get_modifiers: ":" then weight letters and "*"; returns where they end. */
function modifiers(s: readonly string[], i: number): { weight: number; prefix: boolean; end: number } {
  let weight = 0;
  let prefix = false;
  if (s[i] !== ":") return { weight, prefix, end: i };
  for (i++; i < s.length; i++) {
    const c = s[i]!;
    if (c === "a" || c === "A") weight |= 8;
    else if (c === "b" || c === "B") weight |= 4;
    else if (c === "c" || c === "C") weight |= 2;
    else if (c === "d" || c === "D") weight |= 1;
    else if (c === "*") prefix = true;
    else break;
  }
  return { weight, prefix, end: i };
}

/** parse_phrase_operator: "<->" or "<N>" at `i`: its distance and end, or null when it is not one. */
function phraseOperator(s: readonly string[], i: number): { distance: number; end: number } | null {
  if (s[i] !== "<") return null;
  i++;
  let distance = 1;
  if (s[i] === "-") i++;
  else {
    if (!isDigit(s[i])) return null;
    let j = i;
    while (isDigit(s[j])) j++;
    const v = BigInt(s.slice(i, j).join(""));
    if (v > BigInt(MAXENTRYPOS)) throw bad(`distance in phrase operator must be an integer value between zero and ${MAXENTRYPOS} inclusive`);
    distance = Number(v);
    i = j;
  }
  if (s[i] !== ">") return null;
  i++;
  // the server's loop ends at the end of the string before it returns the operator
  return i < s.length ? { distance, end: i } : null;
}

export const tsqueryIn: InputFunction = (text) => {
  refuseLocaleSpace("tsquery", text);
  const syntax = (): FormatError => bad(`syntax error in tsquery: "${text}"`);
  const chars = Array.from(text);
  const postfix: QueryItem[] = [];
  let sumlen = 0;
  let i = 0;
  let depth = 0;
  let state: "first" | "operand" | "operator" = "first";
  type Tok = { t: "val"; word: string; weight: number; prefix: boolean } | { t: "opr"; oper: number; distance: number } | { t: "open" } | { t: "close" } | { t: "end" };
  const next = (): Tok => {
    for (;;) {
      const c = chars[i];
      if (state !== "operator") {
        if (c === "!") {
          i++;
          state = "operand";
          return { t: "opr", oper: OP_NOT, distance: 0 };
        }
        if (c === "(") {
          i++;
          depth++;
          state = "operand";
          return { t: "open" };
        }
        if (c === ":") throw syntax();
        if (c === undefined || !isSpace(c)) {
          const tok = readToken(chars, i, true, syntax, text, "tsquery");
          if (!tok) {
            if (state === "first") return { t: "end" };
            throw bad(`no operand in tsquery: "${text}"`);
          }
          const m = modifiers(chars, tok.end);
          i = m.end;
          state = "operator";
          return { t: "val", word: tok.word, weight: m.weight, prefix: m.prefix };
        }
      } else {
        if (c === "&" || c === "|") {
          i++;
          state = "operand";
          return { t: "opr", oper: c === "&" ? OP_AND : OP_OR, distance: 0 };
        }
        const ph = phraseOperator(chars, i);
        if (ph) {
          i = ph.end;
          state = "operand";
          return { t: "opr", oper: OP_PHRASE, distance: ph.distance };
        }
        if (c === ")") {
          i++;
          depth--;
          if (depth < 0) throw syntax();
          return { t: "close" };
        }
        if (c === undefined) {
          if (depth) throw syntax();
          return { t: "end" };
        }
        if (!isSpace(c)) throw syntax();
      }
      i += 1;
    }
  };
  const pushValue = (word: string, weight: number, prefix: boolean): void => {
    const bytes = enc.encode(word);
    if (bytes.length >= MAXSTRLEN) throw bad(`word is too long in tsquery: "${text}"`);
    refuseDisputedLength(bytes.length, text);
    if (sumlen >= MAXSTRPOS) throw bad(`value is too big in tsquery: "${text}"`);
    postfix.push({ kind: "val", bytes, weight, prefix, distance: sumlen });
    sumlen += bytes.length + 1;
  };
  // makepol: operands as they come, operators through a stack by priority (NOT binds to the right)
  const makepol = (): void => {
    const stack: { oper: number; distance: number }[] = [];
    const clean = (op: number): void => {
      const prio = PRIORITY[op]!;
      while (stack.length) {
        const top = PRIORITY[stack[stack.length - 1]!.oper]!;
        if ((op !== OP_NOT && prio > top) || (op === OP_NOT && prio >= top)) break;
        const o = stack.pop()!;
        postfix.push({ kind: "opr", oper: o.oper, distance: o.oper === OP_PHRASE ? o.distance : 0 });
      }
    };
    for (;;) {
      const tok = next();
      if (tok.t === "end") break;
      if (tok.t === "val") pushValue(tok.word, tok.weight, tok.prefix);
      else if (tok.t === "opr") {
        clean(tok.oper);
        if (stack.length === STACKDEPTH) throw bad("tsquery stack too small");
        stack.push({ oper: tok.oper, distance: tok.distance });
      } else if (tok.t === "open") makepol();
      else {
        clean(OP_OR);
        return;
      }
    }
    clean(OP_OR);
  };
  makepol();
  if (postfix.length === 0) return new Uint8Array(4); // "doesn't contain lexemes": the empty query
  const items = postfix.reverse();
  const operandsAt = 4 + QUERY_ITEM_SIZE * items.length;
  const out = new Uint8Array(operandsAt + sumlen);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, items.length, true);
  // findoprnd: each binary operator's left operand follows its right operand's items
  let pos = 0;
  const walk = (): void => {
    const it = items[pos]!;
    const at = 4 + QUERY_ITEM_SIZE * pos;
    const here = pos++;
    if (it.kind === "val") {
      out[at] = QI_VAL;
      out[at + QueryOperand.offsets.weight] = it.weight;
      out[at + QueryOperand.offsets.prefix] = it.prefix ? 1 : 0;
      dv.setUint32(at + QueryOperand.offsets.valcrc, legacyCrc32(it.bytes), true);
      dv.setUint32(at + QueryOperand.offsets.operand, ((it.distance << 12) | it.bytes.length) >>> 0, true);
      out.set(it.bytes, operandsAt + it.distance);
      return;
    }
    out[at] = QI_OPR;
    out[at + QueryOperator.offsets.oper] = it.oper;
    dv.setInt16(at + QueryOperator.offsets.distance, it.distance, true);
    // a NOT's operand is the next item: the server stores 1 as its left too
    if (it.oper === OP_NOT) dv.setUint32(at + QueryOperator.offsets.left, 1, true);
    walk();
    if (it.oper !== OP_NOT) {
      dv.setUint32(at + QueryOperator.offsets.left, pos - here, true);
      walk();
    }
  };
  walk();
  return out;
};

export const TEXTSEARCH_INPUT: [number, InputFunction][] = [
  [3614, tsvectorIn],
  [3615, tsqueryIn],
];
