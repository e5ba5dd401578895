// The text dump's value lines written as bytes during the scan: for a value whose type has its
// own writer (formats/datum/text-out.ts), stored inline and uncompressed, the writer's text goes
// quoted and escaped (quoteForText's rule) into the page's byte scratch, with no DumpValue, no
// string and no UTF-8 encoding per value; compressed inline values are decompressed first.
// Every other value (NULLs aside: the renderer prints those) gets its DumpValue as before:
// TOAST pointers, missing values, dropped columns, types built as strings (arrays, ranges,
// enums ...), non-ASCII text (quoteForText cuts strings in UTF-16 units) and jsonb longer than
// the cut (datumPreview may stop it without its length).
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { AttrSpans } from "../../formats/heap/attr-spans.js";
import { decompressInline } from "../../formats/heap/datum-bytes.js";
import { VARHDRSZ, VARHDRSZ_COMPRESSED, VARHDRSZ_SHORT } from "../../formats/varlena/varlena.js";
import { columnOwnWriter } from "../../formats/datum/index.js";
import { ScratchOut, type ValueWriter } from "../../formats/datum/text-out.js";
import { storedWrite } from "../../formats/datum/text.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { DumpValue } from "./model.js";
import { displayTypeName, type ValueContext } from "./heap-values.js";

const JSONB = 3802;
const BYTEA = 17;

/** Show text values on one line: long ones shortened, control characters escaped. */
export const TEXT_VALUE_CHARS = 200;
const TEXT_VALUE_CHARS_PLUS_ONE = TEXT_VALUE_CHARS + 1;
/** stored text (storedWrite): a byte a character when ASCII */
const STORED_PREFIX = TEXT_VALUE_CHARS_PLUS_ONE;
/** bytea: "\\x" and two digits a byte */
const BYTEA_PREFIX = TEXT_VALUE_CHARS_PLUS_ONE >> 1;
/**
 * A value's text as the text dump shows it (the string form of put's rule below). `length`: the
 * whole text's length, -1 when unknown (the value was cut without learning it).
 */
export function quoteForText(s: string, length: number): string {
  // cut at TEXT_VALUE_CHARS UTF-16 units, not inside a surrogate pair (a 4-byte character)
  const cut = TEXT_VALUE_CHARS - (isHighSurrogate(s.charCodeAt(TEXT_VALUE_CHARS - 1)) ? 1 : 0);
  const shown = s.length > TEXT_VALUE_CHARS ? `${s.slice(0, cut)}… (${length < 0 ? "more" : length} chars)` : s;
  // most values need no escaping: one scan instead of five replacements
  if (!NEEDS_ESCAPE.test(shown)) return `'${shown}'`;
  return `'${shown.replace(ESCAPES, (c) => ESCAPE_OF[c]!)}'`;
}
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const NEEDS_ESCAPE = /[\\\n\r\t']/;
const ESCAPES = /[\\\n\r\t']/g;
const ESCAPE_OF: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "'": "''" };

/** How one attribute's line is given: its value bytes in the scratch, NULL, or a DumpValue. */
export const ValueLineKind = {
  /** `'…'` at [start, end) of the page's value bytes, then the storage note */
  Bytes: 0,
  Null: 1,
  /** fallback[k] */
  Value: 2,
} as const;

/** The storage note after a value written as bytes (DumpValue.storage), 0 for none. */
export const STORAGE_NOTES = ["", "short", "plain", "cstring", "compressed pglz", "compressed lz4"] as const;

/** What the value lines of a relation's tuples (or an index's keys) need, read once per relation. */
export class TextValuePlan {
  readonly natts: number;
  readonly names: string[];
  /** the type each line names */
  readonly typeNames: string[];
  /** the type's own writer, or undefined: every value a DumpValue */
  readonly writers: (ValueWriter | undefined)[];
  /** jsonb: a text longer than the cut is a DumpValue (datumPreview may stop it without its length) */
  readonly jsonb: boolean[];
  /** a dropped column: its line is a DumpValue */
  readonly dropped: boolean[];
  /** bytes of a long value that give more than TEXT_VALUE_CHARS of its text (STORED_PREFIX, BYTEA_PREFIX), 0: all */
  readonly prefix: Int32Array;
  readonly attlen: Int16Array;
  /** the spans of the tuple being shown (AttrSpans, reused tuple after tuple) */
  readonly spans: AttrSpans;
  private readonly scratch = new ScratchOut();

  constructor(
    desc: TupleDesc,
    types: TypeLookup,
    typeNames: string[],
    /** storage notes after the values (heap tuples; index keys have none) */
    readonly notes: boolean,
  ) {
    this.natts = desc.attrs.length;
    this.names = desc.attrs.map((a) => a.name);
    this.typeNames = typeNames;
    const own = desc.attrs.map((a) => (a.dropped ? undefined : columnOwnWriter(a.typid, types)));
    this.writers = own.map((w) => w?.write);
    this.jsonb = own.map((w) => w?.outputOid === JSONB);
    this.prefix = Int32Array.from(own, (w) => (w?.write === storedWrite ? STORED_PREFIX : w?.outputOid === BYTEA ? BYTEA_PREFIX : 0));
    this.dropped = desc.attrs.map((a) => a.dropped);
    this.attlen = Int16Array.from(desc.attrs, (a) => a.len);
    this.spans = new AttrSpans(Math.max(1, this.natts));
  }

  /** The plan of a heap relation's tuples: type names as format_type shows them, storage notes. */
  static heap(desc: TupleDesc, ctx: ValueContext): TextValuePlan {
    return new TextValuePlan(desc, ctx.types, desc.attrs.map((a) => (a.dropped ? "(dropped)" : displayTypeName(ctx.types, a.typid))), true);
  }

  /**
   * The value lines of attributes 1..n of a tuple in `buf` whose spans (AttrSpans, offsets in
   * `buf`) are walked, into `lines`, value bytes appended to `out`. Where a line needs a
   * DumpValue its kind is Value and the caller gives lines.fallback[k]. Returns 1 when any line
   * does, 0 when none, -1 when the tuple's layout check (walkAttributes: a compressed varlena
   * shorter than its header) fails, for the caller to take the checked path.
   */
  write(buf: Uint8Array, spans: AttrSpans, n: number, out: ScratchOut, lines: ValueLines): number {
    lines.reset(this, n);
    let fallback = 0;
    const { off, len, isnull } = spans;
    for (let k = 0; k < n; k++) {
      if (isnull[k]) {
        // beyond natts: NULL or attmissingval, as heapValue says
        if (k >= spans.natts || this.dropped[k]) (lines.kind[k] = ValueLineKind.Value), (fallback = 1);
        else lines.kind[k] = ValueLineKind.Null;
        continue;
      }
      const at = off[k]!;
      const l = len[k]!;
      const attlen = this.attlen[k]!;
      const w = this.writers[k];
      lines.kind[k] = ValueLineKind.Value;
      if (attlen > 0) {
        if (w && this.put(w, buf, at, at + l, k, out, lines)) this.shown(lines, k, 0);
        else fallback = 1;
      } else if (attlen === -2) {
        // a cstring, without its NUL
        if (w && this.put(w, buf, at, at + l - 1, k, out, lines)) this.shown(lines, k, 3);
        else fallback = 1;
      } else {
        const b0 = buf[at]!;
        if ((b0 & 3) === 2 && l < VARHDRSZ_COMPRESSED) return -1;
        if (b0 === 0x01) fallback = 1; // a TOAST pointer
        else if (b0 & 1) {
          if (w && this.put(w, buf, at + VARHDRSZ_SHORT, at + l, k, out, lines)) this.shown(lines, k, 1);
          else fallback = 1;
        } else if ((b0 & 3) === 0) {
          if (w && this.put(w, buf, at + VARHDRSZ, at + l, k, out, lines)) this.shown(lines, k, 2);
          else fallback = 1;
        } else {
          // compressed inline: pglz or lz4 (the two methods TOAST_COMPRESS_METHOD names)
          const method = buf[at + 7]! >>> 6;
          const raw = w && method <= 1 ? this.decompressed(buf, at, l, k) : undefined;
          if (raw && this.put(w!, raw, 0, raw.length, k, out, lines)) this.shown(lines, k, 4 + method);
          else fallback = 1;
        }
      }
    }
    return fallback;
  }

  private shown(lines: ValueLines, k: number, note: number): void {
    lines.kind[k] = ValueLineKind.Bytes;
    lines.note[k] = this.notes ? note : 0;
  }

  /** The raw bytes of the compressed inline datum buf[at, at + total); undefined when they cannot be had (the DumpValue says why). */
  private decompressed(buf: Uint8Array, at: number, total: number, k: number): Uint8Array | undefined {
    try {
      return decompressInline(buf, at, total, k + 1);
    } catch (e) {
      if (e instanceof FormatError) return undefined;
      throw e;
    }
  }

  /**
   * `'text'` of the datum src[start, end) into out, as quoteForText shows it; false (out as it
   * was) to fall back. The writer writes in place; text that needs escaping or cutting (rare)
   * is copied out and written back.
   */
  private put(w: ValueWriter, src: Uint8Array, start: number, end: number, k: number, out: ScratchOut, lines: ValueLines): boolean {
    // a long text or bytea value: only the prefix that is shown is written (its whole length
    // follows from its size); a text value must still be ASCII throughout
    let full = -1;
    const prefix = this.prefix[k]!;
    if (prefix > 0 && end - start > prefix) {
      if (prefix === STORED_PREFIX) {
        for (let i = start + prefix; i < end; i++) if (src[i]! >= 0x80) return false;
        full = end - start;
      } else full = 2 + 2 * (end - start);
      end = start + prefix;
    }
    const mark = out.pos;
    out.reserve(1);
    out.buf[out.pos++] = 39;
    const textAt = out.pos;
    try {
      w(src, start, end, out);
    } catch (e) {
      out.pos = mark;
      if (e instanceof FormatError) return false; // the DumpValue reports it
      throw e;
    }
    let b = out.buf;
    const textEnd = out.pos;
    const written = textEnd - textAt;
    const len = full >= 0 ? full : written;
    let plain = true;
    for (let i = textAt; i < textEnd; i++) {
      const c = b[i]!;
      if (c >= 40 && c !== 92 && c < 0x80) continue;
      if (c >= 0x80) {
        out.pos = mark;
        return false;
      }
      if (c === 92 || c === 39 || c === 10 || c === 13 || c === 9) plain = false;
    }
    if (len > TEXT_VALUE_CHARS && this.jsonb[k]) {
      out.pos = mark;
      return false;
    }
    if (!plain) {
      const s = this.scratch;
      s.pos = 0;
      s.reserve(written);
      s.buf.set(b.subarray(textAt, textEnd));
      const shown = len > TEXT_VALUE_CHARS ? TEXT_VALUE_CHARS : len;
      out.pos = textAt;
      out.reserve(2 * shown + 32);
      b = out.buf;
      let p = textAt;
      const t = s.buf;
      for (let i = 0; i < shown; i++) {
        const c = t[i]!;
        if (c === 92) (b[p++] = 92), (b[p++] = 92);
        else if (c === 39) (b[p++] = 39), (b[p++] = 39);
        else if (c === 10) (b[p++] = 92), (b[p++] = 110);
        else if (c === 13) (b[p++] = 92), (b[p++] = 114);
        else if (c === 9) (b[p++] = 92), (b[p++] = 116);
        else b[p++] = c;
      }
      out.pos = p;
    } else if (len > TEXT_VALUE_CHARS) out.pos = textAt + TEXT_VALUE_CHARS;
    out.reserve(32);
    b = out.buf;
    let p = out.pos;
    if (len > TEXT_VALUE_CHARS) {
      // "… (N chars)": N is the whole text's length, in characters as in bytes (ASCII)
      for (let i = 0; i < CUT_OPEN.length; i++) b[p++] = CUT_OPEN[i]!;
      const digits = String(len);
      for (let i = 0; i < digits.length; i++) b[p++] = digits.charCodeAt(i);
      for (let i = 0; i < CUT_CLOSE.length; i++) b[p++] = CUT_CLOSE[i]!;
    }
    b[p++] = 39;
    out.pos = p;
    lines.start[k] = mark;
    lines.end[k] = p;
    return true;
  }
}

const CUT_OPEN = new TextEncoder().encode("… (");
const CUT_CLOSE = new TextEncoder().encode(" chars)");

/** One tuple's value lines (a reused slot of the page record's heap item). */
export class ValueLines {
  plan: TextValuePlan | undefined = undefined;
  n = 0;
  kind = new Uint8Array(16);
  note = new Uint8Array(16);
  start = new Int32Array(16);
  end = new Int32Array(16);
  fallback: (DumpValue | undefined)[] = [];

  reset(plan: TextValuePlan, n: number): void {
    this.plan = plan;
    this.n = n;
    if (n > this.kind.length) {
      this.kind = new Uint8Array(n);
      this.note = new Uint8Array(n);
      this.start = new Int32Array(n);
      this.end = new Int32Array(n);
    }
    this.fallback.length = 0;
  }
}
