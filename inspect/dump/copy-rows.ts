// COPY TO's text and CSV formats of the live rows (src/backend/commands/copyto.c), written as
// bytes while the pages are scanned: each value's text is written by its type's writer from the
// tuple's bytes straight into the output, then scanned for bytes that need escaping (text) or
// quoting (CSV); only a value that has some is copied aside and written again, escaped or
// quoted. No object or string is made per value except by the types whose output is built as
// a string (arrays, ranges, catalog names: formats/datum columnWriter) and for TOASTed or
// compressed values.
//
// Text escapes backslash, the control characters \b \f \n \r \t \v and the delimiter with
// backslashes, NULL is `\N`; CSV quotes a value that holds the delimiter, the quote, CR or LF,
// or equals the NULL string (and a lone `\.` in a one-column table), doubling quote and escape
// characters inside, and prints NULL unquoted.
import { FormatError, findingFrom, type Finding, type Location } from "../../formats/schema/errors.js";
import { alignBytes, type TupleDesc } from "../../formats/heap/descriptor.js";
import { deformHeapTuple, expectedHoff, type TupleLayout } from "../../formats/heap/deform.js";
import { AttrSpans } from "../../formats/heap/attr-spans.js";
import { decompressInline } from "../../formats/heap/datum-bytes.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "../../formats/heap/tuple-header.js";
import { VARHDRSZ, VARHDRSZ_COMPRESSED, VARHDRSZ_SHORT } from "../../formats/varlena/varlena.js";
import { readToastPointer } from "../../formats/varlena/toast-pointer.js";
import { isUtf8 } from "node:buffer";
import { columnOutputChars, columnWriter } from "../../formats/datum/index.js";
import { storedWrite } from "../../formats/datum/text.js";
import { INTEGER_WRITERS } from "../../formats/datum/integers.js";
import { FLOAT_WRITERS } from "../../formats/datum/floats.js";
import { NUMERIC_WRITERS } from "../../formats/datum/numeric.js";
import { DATETIME_WRITERS } from "../../formats/datum/datetime.js";
import { UUID_WRITERS } from "../../formats/datum/uuid.js";
import { JSONB_WRITERS, jsonbBackslashes } from "../../formats/datum/jsonb.js";
import { ScratchOut, putText, type TextOut, type ValueWriter } from "../../formats/datum/text-out.js";
import type { ValueContext } from "./heap-values.js";
import { missingValueText } from "./heap-values.js";

export interface CopyOptions {
  csv: boolean;
  /** one ASCII character: TAB for text, comma for CSV */
  delimiter: string;
  /** the NULL string: `\N` for text, empty for CSV */
  null: string;
  /** CSV only: one ASCII character */
  quote: string;
  /** CSV only (defaults to the quote): one ASCII character */
  escape: string;
  header: boolean;
}

export const COPY_TEXT: CopyOptions = { csv: false, delimiter: "\t", null: "\\N", quote: '"', escape: '"', header: false };

/** What the text format prints after a backslash for each byte it escapes (0: copied as is). */
function textEscapes(delimiter: number): Uint8Array {
  const t = new Uint8Array(256);
  t[92] = 92; // backslash
  t[8] = 98; // \b
  t[12] = 102; // \f
  t[10] = 110; // \n
  t[13] = 114; // \r
  t[9] = 116; // \t
  t[11] = 118; // \v
  if (!t[delimiter]) t[delimiter] = delimiter;
  return t;
}

/**
 * The output of COPY rows: a TextOut whose reserve() keeps the bytes from `keep` on (when
 * `keep` >= 0: the row being written) in the buffer it leaves, moved to its start (keep 0) when
 * it hands the bytes before them on, so that a value can be rewritten after it was written.
 */
export interface RowOut extends TextOut {
  keep: number;
}

/** Writes COPY's fields and rows into `out`. */
export class CopyFieldWriter {
  readonly csv: boolean;
  readonly delimiter: number;
  private readonly quote: number;
  private readonly escape: number;
  private readonly nullBytes: Uint8Array;
  /** text: the escape letter of each byte; CSV: 1 for the bytes that make a value quoted */
  private readonly special: Uint8Array;
  /** a value's text before escaping */
  readonly raw = new ScratchOut();

  constructor(
    readonly out: RowOut,
    o: CopyOptions,
  ) {
    for (const [name, v] of [["delimiter", o.delimiter], ["quote", o.quote], ["escape", o.escape]] as const) {
      if (v.length !== 1 || v.charCodeAt(0) >= 0x80) throw new Error(`COPY ${name} must be a single one-byte character`);
    }
    this.csv = o.csv;
    this.delimiter = o.delimiter.charCodeAt(0);
    this.quote = o.quote.charCodeAt(0);
    this.escape = o.escape.charCodeAt(0);
    this.nullBytes = new TextEncoder().encode(o.null);
    if (o.csv) {
      this.special = new Uint8Array(256);
      for (const c of [this.delimiter, this.quote, 10, 13]) this.special[c] = 1;
    } else this.special = textEscapes(this.delimiter);
  }

  /**
   * Whether a value made only of `chars` (an OutputCharsTable's: never empty) is a field as it
   * is: no byte to escape (text), or none that makes it quoted (CSV), where it cannot equal the
   * NULL string (one of whose characters is not in `chars`, or the empty one) nor be `\.`.
   */
  plain(chars: string | undefined): boolean {
    if (chars === undefined) return false;
    for (let i = 0; i < chars.length; i++) if (this.special[chars.charCodeAt(i)] !== 0) return false;
    if (!this.csv) return true;
    if (chars.includes("\\")) return false;
    const z = this.nullBytes;
    if (z.length === 0) return true;
    for (let i = 0; i < z.length; i++) if (!chars.includes(String.fromCharCode(z[i]!))) return true;
    return false;
  }

  delimit(): void {
    this.out.reserve(1);
    this.out.buf[this.out.pos++] = this.delimiter;
  }

  endRow(): void {
    this.out.reserve(1);
    this.out.buf[this.out.pos++] = 10;
  }

  writeNull(): void {
    const n = this.nullBytes;
    this.out.reserve(n.length);
    this.out.buf.set(n, this.out.pos);
    this.out.pos += n.length;
  }

  /** Copy the value in `raw` out as one field (CopyAttributeOutText / CopyAttributeOutCSV). */
  field(singleColumn: boolean): void {
    const src = this.raw.buf;
    const n = this.raw.pos;
    const sp = this.special;
    const out = this.out;
    if (!this.csv) {
      out.reserve(2 * n);
      const b = out.buf;
      let p = out.pos;
      for (let i = 0; i < n; i++) {
        const c = src[i]!;
        const e = sp[c]!;
        if (e !== 0) {
          b[p++] = 92;
          b[p++] = e;
        } else b[p++] = c;
      }
      out.pos = p;
      return;
    }
    let quoted = this.isNullString(src, n) || (singleColumn && n === 2 && src[0] === 92 && src[1] === 46);
    for (let i = 0; i < n && !quoted; i++) if (sp[src[i]!]) quoted = true;
    if (!quoted) {
      out.reserve(n);
      out.buf.set(src.subarray(0, n), out.pos);
      out.pos += n;
      return;
    }
    out.reserve(2 * n + 2);
    const b = out.buf;
    let p = out.pos;
    b[p++] = this.quote;
    for (let i = 0; i < n; i++) {
      const c = src[i]!;
      if (c === this.quote || c === this.escape) b[p++] = this.escape;
      b[p++] = c;
    }
    b[p++] = this.quote;
    out.pos = p;
  }

  /**
   * The value just written into the output at out.buf[start, out.pos) made a field: escaped
   * (text) or quoted (CSV) in place when it needs to be (copied aside and written again; the
   * caller has set out.keep at or before `start`).
   */
  fieldAt(start: number, singleColumn: boolean): void {
    const out = this.out;
    const b = out.buf;
    const end = out.pos;
    const sp = this.special;
    let i = start;
    while (i < end && sp[b[i]!] === 0) i++;
    if (i === end) {
      if (!this.csv) return;
      const n = end - start;
      // CSV quotes a value equal to the NULL string, and a lone \. in a one-column table
      if (!this.isNullStringAt(b, start, n) && !(singleColumn && n === 2 && b[start] === 92 && b[start + 1] === 46)) return;
    }
    const raw = this.raw;
    const n = end - start;
    raw.pos = 0;
    raw.reserve(n);
    const r = raw.buf;
    for (let j = 0; j < n; j++) r[j] = b[start + j]!;
    raw.pos = n;
    out.pos = start;
    this.field(singleColumn);
  }

  /**
   * Stored UTF-8 text src[from, to) as a field of the text format, copied and checked for bytes
   * to escape in one pass (then escaped from src again when it has any); false when it is not
   * well-formed UTF-8 (nothing is written: the caller writes it through storedWrite's rule).
   */
  textField(src: Uint8Array, from: number, to: number): boolean {
    const out = this.out;
    out.reserve(2 * (to - from));
    const b = out.buf;
    const sp = this.special;
    let p = out.pos;
    let high = 0;
    let esc = 0;
    for (let i = from; i < to; i++) {
      const c = src[i]!;
      high |= c;
      esc |= sp[c]!;
      b[p++] = c;
    }
    if (high >= 0x80 && !isUtf8(src.subarray(from, to))) return false;
    if (esc !== 0) {
      p = out.pos;
      for (let i = from; i < to; i++) {
        const c = src[i]!;
        const e = sp[c]!;
        if (e !== 0) {
          b[p++] = 92;
          b[p++] = e;
        } else b[p++] = c;
      }
    }
    out.pos = p;
    return true;
  }

  private isNullStringAt(src: Uint8Array, at: number, n: number): boolean {
    const z = this.nullBytes;
    if (z.length !== n) return false;
    for (let i = 0; i < n; i++) if (src[at + i] !== z[i]) return false;
    return true;
  }

  private isNullString(src: Uint8Array, n: number): boolean {
    const z = this.nullBytes;
    if (z.length !== n) return false;
    for (let i = 0; i < n; i++) if (src[i] !== z[i]) return false;
    return true;
  }

  /** The header line: the column names as fields. */
  header(names: readonly string[]): void {
    names.forEach((name, k) => {
      if (k) this.delimit();
      this.raw.pos = 0;
      putText(this.raw, name);
      this.field(names.length === 1);
    });
    this.endRow();
  }
}

// The writers of the commonest column types, called by name in CopyRows.writeStored: a call
// through Column.write is one call site for every type (megamorphic, never inlined), a call of
// one of these is a call site of its own.
const INT4 = INTEGER_WRITERS[23]!;
const INT8 = INTEGER_WRITERS[20]!;
const BOOL = INTEGER_WRITERS[16]!;
const FLOAT8 = FLOAT_WRITERS[701]!;
const NUMERIC = NUMERIC_WRITERS[1700]!;
const TIMESTAMPTZ = DATETIME_WRITERS[1184]!;
const TIMESTAMP = DATETIME_WRITERS[1114]!;
const DATE = DATETIME_WRITERS[1082]!;
const UUID = UUID_WRITERS[2950]!;
const JSONB = JSONB_WRITERS[3802]!;
const KNOWN: ValueWriter[] = [INT4, INT8, BOOL, FLOAT8, NUMERIC, TIMESTAMPTZ, TIMESTAMP, DATE, UUID, JSONB];

interface Column {
  attnum: number;
  /** index of the attribute in the descriptor and the layout */
  index: number;
  typid: number;
  typmod: number;
  write: ValueWriter;
  /** attmissingval: the text of the fast default, once */
  missing?: string;
  /** a type whose text never needs escaping here (OutputCharsTable): no scan after the write */
  plain: boolean;
  /** the text format's stored text (text, varchar, bpchar ...: storedWrite): copied and scanned in one pass */
  text: boolean;
  /** 1 + the index of `write` in KNOWN, 0 for another writer */
  known: number;
  /** jsonb in the text format with a control character as the delimiter: scanned only when the writer wrote a backslash (jsonbBackslashes) */
  jsonb: boolean;
}

/** The rows of one table, written as they are scanned. */
export class CopyRows {
  private readonly columns: Column[];
  private readonly single: boolean;
  /** where each attribute of the tuple at hand lies (reused tuple after tuple) */
  private readonly spans: AttrSpans;
  /** indexes of the varlena attributes, whose compressed headers the span walk does not check */
  private readonly varlenas: number[];
  /** every attlen is one AttrSpans walks as deformHeapTuple does */
  private readonly spanWalk: boolean;

  constructor(
    private readonly w: CopyFieldWriter,
    private readonly desc: TupleDesc,
    private readonly ctx: ValueContext,
  ) {
    this.columns = [];
    desc.attrs.forEach((a, index) => {
      if (a.dropped || a.generated) return; // COPY TO leaves generated columns out
      const typid = ctx.decodeAs ? ctx.decodeAs(a.typid) : a.typid;
      const plain = w.plain(columnOutputChars(typid, ctx.types));
      const write = columnWriter(typid, a.typmod, ctx.types);
      this.columns.push({ attnum: a.attnum, index, typid, typmod: a.typmod, write, plain, text: write === storedWrite && a.len === -1 && !w.csv, known: KNOWN.indexOf(write) + 1, jsonb: write === JSONB && !w.csv && w.delimiter < 0x20 });
    });
    this.single = this.columns.length === 1;
    this.spans = new AttrSpans(Math.max(1, desc.attrs.length));
    this.varlenas = desc.attrs.flatMap((a, i) => (a.len === -1 ? [i] : []));
    // deformHeapTuple does not align a cstring and rejects other attlens: those take its walk
    this.spanWalk = desc.attrs.every((a) => a.len > 0 || a.len === -1 || (a.len === -2 && alignBytes(a.align) === 1));
  }

  /**
   * One heap tuple, page[at, at + len) (item `item` of the page at `pageLoc`): its layout is
   * checked, and when `live` it is written as a row. The attributes are walked with AttrSpans
   * (nothing allocated per attribute); a tuple whose header or attributes do not fit takes the
   * checked walk (deformHeapTuple), whose error is the finding, worded as in the other formats.
   * A value that cannot be decoded is printed as NULL and reported as a finding there (as the
   * dump reports it).
   */
  tuple(page: Uint8Array, at: number, len: number, live: boolean, pageLoc: Location, item: number, findings: Finding[]): void {
    if (!this.spanWalk || !this.spansFit(page, at, len)) {
      let layout: TupleLayout;
      try {
        layout = deformHeapTuple(page.subarray(at, at + len), this.desc);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        findings.push(findingFrom(e, "error", { ...pageLoc, item, offset: at }));
        return;
      }
      this.spansOf(layout, at);
    }
    if (live) this.row(page, at, len, pageLoc, item, findings);
  }

  /** Walk the tuple page[t, t + n) into the spans; false when the checked walk would find something wrong. */
  private spansFit(page: Uint8Array, t: number, n: number): boolean {
    if (n < SizeofHeapTupleHeader) return false;
    const infomask = page[t + HTH.t_infomask]! | (page[t + HTH.t_infomask + 1]! << 8);
    const natts = (page[t + HTH.t_infomask2]! | (page[t + HTH.t_infomask2 + 1]! << 8)) & HEAP_NATTS_MASK;
    const hoff = page[t + HTH.t_hoff]!;
    if (hoff !== expectedHoff(natts, (infomask & HEAP_HASNULL) !== 0) || hoff > n) return false;
    const s = this.spans;
    if (s.heapTuple(page, t, n, this.desc.attrs.length, this.desc.attrs) >= 0) return false;
    // a compressed varlena's header is 8 bytes (readVarlenaHeader's rule)
    for (const i of this.varlenas) if (!s.isnull[i] && (page[s.off[i]!]! & 3) === 2 && s.len[i]! < VARHDRSZ_COMPRESSED) return false;
    return true;
  }

  /** The checked walk's layout (of the tuple at page offset `at`) as spans. */
  private spansOf(layout: TupleLayout, at: number): void {
    const s = this.spans;
    s.natts = layout.natts;
    layout.attrs.forEach((slot, i) => {
      s.isnull[i] = slot.isnull || slot.missing ? 1 : 0;
      s.off[i] = at + slot.off;
      s.len[i] = slot.len;
    });
  }

  /**
   * The row of the tuple whose attributes the spans hold. Each value is written by its writer
   * straight into the output (out.keep holds the row in one buffer meanwhile, so a value can be
   * rewritten escaped and a failed one rewound to NULL).
   */
  private row(page: Uint8Array, at: number, len: number, pageLoc: Location, item: number, findings: Finding[]): void {
    const w = this.w;
    const out = w.out;
    const s = this.spans;
    const cols = this.columns;
    const attrs = this.desc.attrs;
    out.keep = out.pos;
    for (let k = 0; k < cols.length; k++) {
      if (k) w.delimit();
      const c = cols[k]!;
      const i = c.index;
      const missing = i >= s.natts;
      const a = attrs[i]!;
      if (missing ? !a.missing : s.isnull[i]) {
        w.writeNull();
        continue;
      }
      if (missing) {
        w.raw.pos = 0;
        try {
          putText(w.raw, (c.missing ??= missingValueText(a.missing!, c.typid, c.typmod, this.ctx.types)));
        } catch (e) {
          this.failedValue(e, { ...pageLoc, item, offset: at, attnum: c.attnum }, findings);
          continue;
        }
        w.field(this.single);
        continue;
      }
      if (c.text) {
        // stored text in one pass: copied and checked for bytes to escape at once
        const off = s.off[i]!;
        const b0 = page[off]!;
        if (b0 !== 1 && (b0 & 1) === 1 && w.textField(page, off + VARHDRSZ_SHORT, off + s.len[i]!)) continue;
        if ((b0 & 3) === 0 && w.textField(page, off + VARHDRSZ, off + s.len[i]!)) continue;
      }
      // where the value starts, relative to the row (a flush moves the row to the buffer's start)
      const rel = out.pos - out.keep;
      const backslashes = jsonbBackslashes.count;
      try {
        if (!this.writeStored(page, s.off[i]!, s.len[i]!, a.len, c, out)) {
          w.writeNull();
          continue;
        }
      } catch (e) {
        out.pos = out.keep + rel;
        this.failedValue(this.tupleError(e, page, at, len, i, c), { ...pageLoc, item, offset: at, attnum: c.attnum }, findings);
        continue;
      }
      if (!c.plain && !(c.jsonb && jsonbBackslashes.count === backslashes)) w.fieldAt(out.keep + rel, this.single);
    }
    w.endRow();
    out.keep = -1;
  }

  /**
   * The error of attribute i's value as the tuple's own bytes give it: the value was read from
   * the page, so the offsets its error names (in the location and the message) count from the
   * page's start; decoded again from the tuple alone (page[at, at + len)), they count from the
   * tuple's, as in the text and JSON dumps.
   */
  private tupleError(e: unknown, page: Uint8Array, at: number, len: number, i: number, c: Column): unknown {
    if (!(e instanceof FormatError)) return e;
    const s = this.spans;
    try {
      this.writeStored(page.subarray(at, at + len), s.off[i]! - at, s.len[i]!, this.desc.attrs[i]!.len, c, new ScratchOut());
    } catch (again) {
      return again;
    }
    return e;
  }

  /** A value that cannot be decoded: its error becomes a finding and the field prints NULL. */
  private failedValue(e: unknown, at: Location, findings: Finding[]): void {
    if (!(e instanceof FormatError)) throw e;
    findings.push(findingFrom(e, "error", at));
    this.w.writeNull();
  }

  /**
   * The text of the value of `len` bytes at tuple[off] (attlen `attlen`) into `raw`; false when
   * it is a TOAST pointer with no TOAST reader.
   */
  private writeStored(tuple: Uint8Array, off: number, len: number, attlen: number, c: Column, raw: TextOut): boolean {
    if (attlen > 0) this.write(c, tuple, off, off + len, raw);
    else if (attlen === -2) c.write(tuple, off, off + len - 1, raw); // without the NUL
    else {
      const b0 = tuple[off]!;
      if (b0 === 1) {
        const pointer = readToastPointer(tuple, off);
        if (!this.ctx.detoast || !this.ctx.toast) return false;
        const value = this.ctx.toast.fetch(pointer);
        c.write(value, 0, value.length, raw);
      } else if (b0 & 1) this.write(c, tuple, off + VARHDRSZ_SHORT, off + len, raw);
      else if ((b0 & 3) === 0) this.write(c, tuple, off + VARHDRSZ, off + len, raw);
      else {
        const value = decompressInline(tuple, off, len, c.attnum);
        c.write(value, 0, value.length, raw);
      }
    }
    return true;
  }

  /** c.write(b, start, end, out), the commonest writers called by name (KNOWN). */
  private write(c: Column, b: Uint8Array, start: number, end: number, out: TextOut): void {
    switch (c.known) {
      case 1:
        return INT4(b, start, end, out);
      case 2:
        return INT8(b, start, end, out);
      case 3:
        return BOOL(b, start, end, out);
      case 4:
        return FLOAT8(b, start, end, out);
      case 5:
        return NUMERIC(b, start, end, out);
      case 6:
        return TIMESTAMPTZ(b, start, end, out);
      case 7:
        return TIMESTAMP(b, start, end, out);
      case 8:
        return DATE(b, start, end, out);
      case 9:
        return UUID(b, start, end, out);
      case 10:
        return JSONB(b, start, end, out);
      default:
        return c.write(b, start, end, out);
    }
  }
}
