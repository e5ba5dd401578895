// The text dump's value lines written as bytes during the scan: for a value whose type has its
// own writer (formats/datum/text-out.ts), stored inline and uncompressed, the writer's text goes
// quoted and escaped (quoteForText's rule) into the page's byte scratch, with no DumpValue, no
// string and no UTF-8 encoding per value; compressed inline values are decompressed first.
// Every other value (NULLs aside: the renderer prints those) gets its DumpValue as before:
// TOAST pointers, missing values, dropped columns, types built as strings (arrays, ranges,
// enums ...), non-ASCII text (quoteForText cuts strings in UTF-16 units) and jsonb longer than
// the cut (datumPreview may stop it without its length).
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { AttrSlot } from "../../formats/heap/deform.js";
import { decompressInline, isPlainDatum, plainDatumEnd, plainDatumStart } from "../../formats/heap/datum-bytes.js";
import { columnOwnWriter } from "../../formats/datum/index.js";
import { ScratchOut, type ValueWriter } from "../../formats/datum/text-out.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { DumpValue } from "./model.js";
import { displayTypeName, type ValueContext } from "./heap-values.js";

const JSONB = 3802;

/** Show text values on one line: long ones shortened, control characters escaped. */
export const TEXT_VALUE_CHARS = 200;
/**
 * A value's text as the text dump shows it (the string form of put's rule below). `length`: the
 * whole text's length, -1 when unknown (the value was cut without learning it).
 */
export function quoteForText(s: string, length: number): string {
  const shown = s.length > TEXT_VALUE_CHARS ? `${s.slice(0, TEXT_VALUE_CHARS)}… (${length < 0 ? "more" : length} chars)` : s;
  // most values need no escaping: one scan instead of five replacements
  if (!NEEDS_ESCAPE.test(shown)) return `'${shown}'`;
  return `'${shown.replace(ESCAPES, (c) => ESCAPE_OF[c]!)}'`;
}
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
    this.dropped = desc.attrs.map((a) => a.dropped);
  }

  /** The plan of a heap relation's tuples: type names as format_type shows them, storage notes. */
  static heap(desc: TupleDesc, ctx: ValueContext): TextValuePlan {
    return new TextValuePlan(desc, ctx.types, desc.attrs.map((a) => (a.dropped ? "(dropped)" : displayTypeName(ctx.types, a.typid))), true);
  }

  /**
   * The value lines of the first `n` attributes (their `slots`) into `lines`, value bytes
   * appended to `out`. Where a line needs a DumpValue its kind is Value and the caller gives
   * lines.fallback[k]; returns whether any does.
   */
  write(tuple: Uint8Array, slots: readonly AttrSlot[], n: number, out: ScratchOut, lines: ValueLines): boolean {
    lines.reset(this, n);
    let fallback = false;
    for (let k = 0; k < n; k++) {
      const slot = slots[k]!;
      const w = this.writers[k];
      if (slot.isnull && !slot.missing && !this.dropped[k]) {
        lines.kind[k] = ValueLineKind.Null;
        continue;
      }
      if (w && !slot.isnull && !slot.missing) {
        const vl = slot.varlena;
        if (isPlainDatum(slot)) {
          if (this.put(w, tuple, plainDatumStart(slot), plainDatumEnd(slot), k, out, lines)) {
            lines.kind[k] = ValueLineKind.Bytes;
            lines.note[k] = !this.notes ? 0 : !vl ? (slot.cstring ? 3 : 0) : vl.kind === "1b" ? 1 : 2;
            continue;
          }
        } else if (vl!.kind === "4b_c") {
          // compressed inline: pglz or lz4 (the two methods TOAST_COMPRESS_METHOD names)
          const method = tuple[slot.off + 7]! >>> 6;
          const raw = method <= 1 ? this.decompressed(tuple, slot) : undefined;
          if (raw && this.put(w, raw, 0, raw.length, k, out, lines)) {
            lines.kind[k] = ValueLineKind.Bytes;
            lines.note[k] = this.notes ? 4 + method : 0;
            continue;
          }
        }
      }
      lines.kind[k] = ValueLineKind.Value;
      fallback = true;
    }
    return fallback;
  }

  /** The raw bytes of a compressed inline datum; undefined when they cannot be had (heapValue reports why). */
  private decompressed(tuple: Uint8Array, slot: AttrSlot): Uint8Array | undefined {
    try {
      return decompressInline(tuple, slot.off, slot.varlena!.total, slot.attnum);
    } catch (e) {
      if (e instanceof FormatError) return undefined;
      throw e;
    }
  }

  /** `'text'` of the datum [start, end) into out, as quoteForText shows it; false to fall back. */
  private put(w: ValueWriter, tuple: Uint8Array, start: number, end: number, k: number, out: ScratchOut, lines: ValueLines): boolean {
    const s = this.scratch;
    s.pos = 0;
    try {
      w(tuple, start, end, s);
    } catch (e) {
      if (e instanceof FormatError) return false; // heapValue reports it
      throw e;
    }
    const len = s.pos;
    const src = s.buf;
    for (let i = 0; i < len; i++) if (src[i]! >= 0x80) return false;
    if (len > TEXT_VALUE_CHARS && this.jsonb[k]) return false;
    const shown = len > TEXT_VALUE_CHARS ? TEXT_VALUE_CHARS : len;
    out.reserve(2 * shown + 32);
    const b = out.buf;
    let p = out.pos;
    lines.start[k] = p;
    b[p++] = 39;
    for (let i = 0; i < shown; i++) {
      const c = src[i]!;
      if (c > 39 && c !== 92) b[p++] = c;
      else if (c === 92) (b[p++] = 92), (b[p++] = 92);
      else if (c === 39) (b[p++] = 39), (b[p++] = 39);
      else if (c === 10) (b[p++] = 92), (b[p++] = 110);
      else if (c === 13) (b[p++] = 92), (b[p++] = 114);
      else if (c === 9) (b[p++] = 92), (b[p++] = 116);
      else b[p++] = c;
    }
    if (len > TEXT_VALUE_CHARS) {
      // "… (N chars)": N is the whole text's length, in characters as in bytes (ASCII)
      b[p++] = 0xe2;
      b[p++] = 0x80;
      b[p++] = 0xa6;
      b[p++] = 32;
      b[p++] = 40;
      const digits = String(len);
      for (let i = 0; i < digits.length; i++) b[p++] = digits.charCodeAt(i);
      for (const c of " chars)") b[p++] = c.charCodeAt(0);
    }
    b[p++] = 39;
    out.pos = p;
    lines.end[k] = p;
    return true;
  }
}

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
