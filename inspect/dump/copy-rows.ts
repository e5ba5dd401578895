// COPY TO's text and CSV formats of the live rows (src/backend/commands/copyto.c), written as
// bytes while the pages are scanned: each value's text is written by its type's writer from the
// tuple's bytes into a scratch buffer, then copied out escaped (text) or quoted (CSV). No object
// or string is made per value except by the types whose output is built as a string (arrays,
// jsonb, ranges, catalog names: formats/datum columnWriter) and for TOASTed or compressed values.
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
import { columnOutputChars, columnWriter } from "../../formats/datum/index.js";
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

/** Writes COPY's fields and rows into `out`. */
export class CopyFieldWriter {
  private readonly csv: boolean;
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly escape: number;
  private readonly nullBytes: Uint8Array;
  /** text: the escape letter of each byte; CSV: 1 for the bytes that make a value quoted */
  private readonly special: Uint8Array;
  /** a value's text before escaping */
  readonly raw = new ScratchOut();

  constructor(
    readonly out: TextOut,
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

  /** Whether a value made only of `chars` is a field as it is (no byte to escape: text format only). */
  plain(chars: string | undefined): boolean {
    if (this.csv || chars === undefined) return false;
    for (let i = 0; i < chars.length; i++) if (this.special[chars.charCodeAt(i)] !== 0) return false;
    return true;
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

interface Column {
  attnum: number;
  /** index of the attribute in the descriptor and the layout */
  index: number;
  typid: number;
  typmod: number;
  write: ValueWriter;
  /** attmissingval: the text of the fast default, once */
  missing?: string;
  /** a fixed-length type whose text never needs escaping here: written straight into the output */
  direct: boolean;
}

/** The room made in the output before a direct write (OutputCharsTable's bound), so that it never flushes part of a value. */
const DIRECT_MAX = 128;

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
      const direct = a.len > 0 && w.plain(columnOutputChars(typid, ctx.types));
      this.columns.push({ attnum: a.attnum, index, typid, typmod: a.typmod, write: columnWriter(typid, a.typmod, ctx.types), direct });
    });
    this.single = this.columns.length === 1;
    this.spans = new AttrSpans(Math.max(1, desc.attrs.length));
    this.varlenas = desc.attrs.flatMap((a, i) => (a.len === -1 ? [i] : []));
    // deformHeapTuple does not align a cstring and rejects other attlens: those take its walk
    this.spanWalk = desc.attrs.every((a) => a.len > 0 || a.len === -1 || (a.len === -2 && alignBytes(a.align) === 1));
  }

  /**
   * One heap tuple (the item's bytes: item `item` at `offset` of the page at `pageLoc`): its
   * layout is checked, and when `live` it is written as a row. The attributes are walked with
   * AttrSpans (nothing allocated per attribute); a tuple whose header or attributes do not fit
   * takes the checked walk (deformHeapTuple), whose error is the finding, worded as in the
   * other formats. A value that cannot be decoded is printed as NULL and reported as a finding
   * there (as the dump reports it).
   */
  tuple(tuple: Uint8Array, live: boolean, pageLoc: Location, item: number, offset: number, findings: Finding[]): void {
    if (!this.spanWalk || !this.spansFit(tuple)) {
      let layout: TupleLayout;
      try {
        layout = deformHeapTuple(tuple, this.desc);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        findings.push(findingFrom(e, "error", { ...pageLoc, item, offset }));
        return;
      }
      this.spansOf(layout);
    }
    if (live) this.row(tuple, pageLoc, item, offset, findings);
  }

  /** Walk `tuple` into the spans; false when the checked walk would find something wrong. */
  private spansFit(tuple: Uint8Array): boolean {
    const n = tuple.length;
    if (n < SizeofHeapTupleHeader) return false;
    const infomask = tuple[HTH.t_infomask]! | (tuple[HTH.t_infomask + 1]! << 8);
    const natts = (tuple[HTH.t_infomask2]! | (tuple[HTH.t_infomask2 + 1]! << 8)) & HEAP_NATTS_MASK;
    const hoff = tuple[HTH.t_hoff]!;
    if (hoff !== expectedHoff(natts, (infomask & HEAP_HASNULL) !== 0) || hoff > n) return false;
    const s = this.spans;
    if (s.heapTuple(tuple, 0, n, this.desc.attrs.length, this.desc.attrs) >= 0) return false;
    // a compressed varlena's header is 8 bytes (readVarlenaHeader's rule)
    for (const i of this.varlenas) if (!s.isnull[i] && (tuple[s.off[i]!]! & 3) === 2 && s.len[i]! < VARHDRSZ_COMPRESSED) return false;
    return true;
  }

  /** The checked walk's layout as spans. */
  private spansOf(layout: TupleLayout): void {
    const s = this.spans;
    s.natts = layout.natts;
    layout.attrs.forEach((slot, i) => {
      s.isnull[i] = slot.isnull || slot.missing ? 1 : 0;
      s.off[i] = slot.off;
      s.len[i] = slot.len;
    });
  }

  /** The row of the tuple whose attributes the spans hold. */
  private row(tuple: Uint8Array, pageLoc: Location, item: number, offset: number, findings: Finding[]): void {
    const w = this.w;
    const s = this.spans;
    const cols = this.columns;
    for (let k = 0; k < cols.length; k++) {
      if (k) w.delimit();
      const c = cols[k]!;
      const i = c.index;
      const missing = i >= s.natts;
      const a = this.desc.attrs[i]!;
      if (missing ? !a.missing : s.isnull[i]) {
        w.writeNull();
        continue;
      }
      if (c.direct && !missing) {
        // no scratch copy: the writer writes into the output, which has room for the whole value
        const out = w.out;
        out.reserve(DIRECT_MAX);
        const p0 = out.pos;
        try {
          c.write(tuple, s.off[i]!, s.off[i]! + s.len[i]!, out);
        } catch (e) {
          out.pos = p0;
          this.failedValue(e, { ...pageLoc, item, offset, attnum: c.attnum }, findings);
        }
        continue;
      }
      w.raw.pos = 0;
      try {
        if (missing) putText(w.raw, (c.missing ??= missingValueText(a.missing!, c.typid, c.typmod, this.ctx.types)));
        else if (!this.writeStored(tuple, s.off[i]!, s.len[i]!, a.len, c)) {
          w.writeNull();
          continue;
        }
      } catch (e) {
        this.failedValue(e, { ...pageLoc, item, offset, attnum: c.attnum }, findings);
        continue;
      }
      w.field(this.single);
    }
    w.endRow();
  }

  /** A value that cannot be decoded: its error becomes a finding and the field prints NULL. */
  private failedValue(e: unknown, at: Location, findings: Finding[]): void {
    if (!(e instanceof FormatError)) throw e;
    findings.push(findingFrom(e, "error", at));
    this.w.writeNull();
  }

  /**
   * The value of `len` bytes at tuple[off] (attlen `attlen`) into the raw buffer; false when it
   * is a TOAST pointer with no TOAST reader.
   */
  private writeStored(tuple: Uint8Array, off: number, len: number, attlen: number, c: Column): boolean {
    const raw = this.w.raw;
    if (attlen > 0) c.write(tuple, off, off + len, raw);
    else if (attlen === -2) c.write(tuple, off, off + len - 1, raw); // without the NUL
    else {
      const b0 = tuple[off]!;
      if (b0 === 1) {
        const pointer = readToastPointer(tuple, off);
        if (!this.ctx.detoast || !this.ctx.toast) return false;
        const value = this.ctx.toast.fetch(pointer);
        c.write(value, 0, value.length, raw);
      } else if (b0 & 1) c.write(tuple, off + VARHDRSZ_SHORT, off + len, raw);
      else if ((b0 & 3) === 0) c.write(tuple, off + VARHDRSZ, off + len, raw);
      else {
        const value = decompressInline(tuple, off, len, c.attnum);
        c.write(value, 0, value.length, raw);
      }
    }
    return true;
  }
}
