// COPY FROM's text and CSV formats, parsed as the server parses them (src/backend/commands/
// copyfromparse.c; the rules of the COPY reference page, "File Formats"): input arrives in
// chunks, rows come out as fields (byte spans of the input where the bytes are the text, strings
// where escapes or non-ASCII bytes were decoded; null for SQL NULL) with their line number,
// and a malformed row is a LOAD_BAD_INPUT error naming the line and, where known, the column.
//
// Text format: rows end at an unescaped newline (\n, \r\n or \r, the same all through the file);
// fields are split at the delimiter; a field equal to the NULL string before any de-escaping is
// NULL; backslash escapes are \b \f \n \r \t \v, \ooo (octal), \xhh (hex), and \c for any
// other character c; "\." alone on a line ends the data.
// CSV format: fields may be quoted (the quote character, doubled or escaped inside); quoted
// fields may hold delimiters and newlines; an unquoted field equal to the NULL string (default:
// empty) is NULL, a quoted one never is; "\." alone on a line ends the data.
import { FormatError } from "../../formats/schema/errors.js";
import { grown } from "../../formats/schema/bytes.js";

export interface CopyFormat {
  format: "text" | "csv";
  /** one single-byte character; default tab (text) or comma (CSV) */
  delimiter?: string;
  /** default \N (text) or the empty string (CSV) */
  null?: string;
  /** CSV: default " */
  quote?: string;
  /** CSV: default the quote character */
  escape?: string;
  /** the first line is a header, skipped */
  header?: boolean;
}

/** A field of a row: SQL NULL; its bytes are its text (ASCII, no escape: no copy, no UTF-8 check); or decoded to a string. */
export const FIELD_NULL = 0;
export const FIELD_PLAIN = 1;
export const FIELD_TEXT = 2;

/**
 * One parsed row. The parser reuses one CopyRow for every row (no allocation per row): its
 * fields are valid only during the onRow call.
 */
export class CopyRow {
  /** 1-based line number of the row's first line in the input (the header counts) */
  line = 0;
  /** number of fields */
  count = 0;
  /** the bytes the FIELD_PLAIN fields are spans of */
  raw: Buffer = Buffer.alloc(0);
  start = new Int32Array(16);
  end = new Int32Array(16);
  kind = new Uint8Array(16);
  /** the FIELD_TEXT fields' strings */
  readonly texts: (string | null)[] = [];

  /** Field i as text (null for SQL NULL). */
  text(i: number): string | null {
    const k = this.kind[i];
    if (k === FIELD_NULL) return null;
    return k === FIELD_PLAIN ? this.raw.toString("latin1", this.start[i], this.end[i]) : this.texts[i]!;
  }

  /** Every field as text. */
  get fields(): (string | null)[] {
    return Array.from({ length: this.count }, (_, i) => this.text(i));
  }

  /** Append a field (growing the arrays when needed). */
  add(kind: number, start: number, end: number, text: string | null): void {
    const i = this.count++;
    if (i === this.kind.length) {
      this.start = grown(this.start, i + 1);
      this.end = grown(this.end, i + 1);
      this.kind = grown(this.kind, i + 1);
    }
    this.kind[i] = kind;
    this.start[i] = start;
    this.end[i] = end;
    this.texts[i] = text;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function single(name: string, c: string): number {
  const b = Buffer.from(c, "utf8");
  if (b.length !== 1) throw new FormatError("USAGE", `COPY ${name} must be a single one-byte character, got "${c}"`);
  return b[0];
}

/** An incremental COPY FROM parser: push() chunks, end() after the last; rows go to `onRow`. */
export class CopyParser {
  private readonly csv: boolean;
  private readonly delim: number;
  private readonly quote: number;
  private readonly escape: number;
  private readonly nullBytes: Uint8Array;
  private pending: Buffer = Buffer.alloc(0);
  private line = 0;
  private eol: "\n" | "\r\n" | "\r" | null = null;
  private done = false;
  private skipHeader: boolean;
  /** the row end found by textRowEnd/csvRowEnd: its content's end, the next row's start */
  private contentEnd = 0;
  private nextRow = 0;
  private readonly current = new CopyRow();

  constructor(
    o: CopyFormat,
    private readonly onRow: (r: CopyRow) => void,
  ) {
    this.csv = o.format === "csv";
    this.delim = single("DELIMITER", o.delimiter ?? (this.csv ? "," : "\t"));
    this.quote = single("QUOTE", o.quote ?? '"');
    this.escape = single("ESCAPE", o.escape ?? o.quote ?? '"');
    this.nullBytes = Buffer.from(o.null ?? (this.csv ? "" : "\\N"), "utf8");
    this.skipHeader = o.header ?? false;
    if (!this.csv && (o.quote !== undefined || o.escape !== undefined)) throw new FormatError("USAGE", "COPY QUOTE and ESCAPE are available only in CSV mode");
    if (!this.csv && [0x5c, 0x0a, 0x0d, 0x2e].includes(this.delim)) throw new FormatError("USAGE", "COPY delimiter cannot be a backslash, a newline, a carriage return or a dot in text mode");
    if (this.csv && this.delim === this.quote) throw new FormatError("USAGE", "COPY delimiter and quote must be different");
  }

  push(chunk: Uint8Array): void {
    if (this.done) return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk);
    let start = 0;
    while (this.csv ? this.csvRowEnd(start) : this.textRowEnd(start)) {
      this.row(this.pending, start, this.contentEnd);
      start = this.nextRow;
      if (this.done) return;
    }
    this.pending = this.pending.subarray(start);
  }

  /** The input ended: a last row without a newline is still a row. */
  end(): void {
    if (this.done || this.pending.length === 0) return;
    const last = this.pending;
    this.pending = Buffer.alloc(0);
    if (this.csv && this.openQuote(last)) throw this.bad(this.line + 1, "unterminated CSV quoted field");
    this.row(last, 0, last.length);
  }

  /** Where the row starting at `start` ends (contentEnd, nextRow), or false: need more input. */
  private textRowEnd(start: number): boolean {
    const b = this.pending;
    for (let i = start; i < b.length; i++) {
      const c = b[i];
      if (c === 0x5c) {
        i++; // an escaped character, even a newline (a literal newline in data is an error below)
        continue;
      }
      if (c === 0x0a || c === 0x0d) return this.newline(i);
    }
    return false;
  }

  private csvRowEnd(start: number): boolean {
    const b = this.pending;
    let inQuote = false;
    for (let i = start; i < b.length; i++) {
      const c = b[i];
      if (inQuote) {
        if (c === this.escape && this.escape !== this.quote && i + 1 < b.length && (b[i + 1] === this.quote || b[i + 1] === this.escape)) i++;
        else if (c === this.quote) {
          if (this.escape === this.quote && i + 1 < b.length && b[i + 1] === this.quote) i++;
          else if (this.escape === this.quote && i + 1 === b.length) return false; // a doubled quote may follow
          else inQuote = false;
        }
        continue;
      }
      if (c === this.quote) inQuote = true;
      else if (c === 0x0a || c === 0x0d) return this.newline(i);
    }
    return false;
  }

  private openQuote(b: Uint8Array): boolean {
    let inQuote = false;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (inQuote && c === this.escape && this.escape !== this.quote && (b[i + 1] === this.quote || b[i + 1] === this.escape)) i++;
      else if (inQuote && c === this.quote && this.escape === this.quote && b[i + 1] === this.quote) i++;
      else if (c === this.quote) inQuote = !inQuote;
    }
    return inQuote;
  }

  /** The newline at i: its kind must be the file's (the first row decides). Sets contentEnd and nextRow. */
  private newline(i: number): boolean {
    const b = this.pending;
    let kind: "\n" | "\r\n" | "\r";
    if (b[i] === 0x0a) kind = "\n";
    else if (i + 1 < b.length) kind = b[i + 1] === 0x0a ? "\r\n" : "\r";
    else return false; // a \r at the end of the chunk: \r\n may be split
    this.eol ??= kind;
    if (kind !== this.eol) {
      const what = kind === "\n" ? "literal newline" : "literal carriage return";
      throw this.bad(this.line + 1, `${what} found in data`, `Use "${kind === "\n" ? "\\n" : "\\r"}" to represent ${kind === "\n" ? "newline" : "carriage return"}.`);
    }
    this.contentEnd = i;
    this.nextRow = i + kind.length;
    return true;
  }

  private row(raw: Buffer, start: number, end: number): void {
    const line = ++this.line;
    if (this.skipHeader) {
      this.skipHeader = false;
      return;
    }
    // the end-of-data marker
    if (end - start === 2 && raw[start] === 0x5c && raw[start + 1] === 0x2e) {
      this.done = true;
      return;
    }
    const r = this.current;
    r.line = line;
    r.count = 0;
    r.raw = raw;
    if (this.csv) this.csvFields(raw, start, end, line);
    else this.textFields(raw, start, end, line);
    this.onRow(r);
  }

  private textFields(raw: Buffer, from: number, to: number, line: number): void {
    const r = this.current;
    let start = from;
    let plain = true; // no backslash, NUL or non-ASCII byte in the field so far
    for (let i = from; i <= to; i++) {
      const c = i < to ? raw[i] : -1;
      if (c === 0x5c) {
        plain = false;
        i++;
        continue;
      }
      if (c === -1 || c === this.delim) {
        // the common field (ASCII, no escape) is its bytes: no copy, no UTF-8 check needed
        if (this.isNull(raw, start, i)) r.add(FIELD_NULL, start, i, null);
        else if (plain) r.add(FIELD_PLAIN, start, i, null);
        else r.add(FIELD_TEXT, start, i, this.textField(raw.subarray(start, i), line, r.count + 1));
        start = i + 1;
        plain = true;
      } else if (c === 0 || c >= 0x80) plain = false;
    }
  }

  private isNull(raw: Buffer, start: number, end: number): boolean {
    const n = this.nullBytes;
    if (end - start !== n.length) return false;
    for (let k = 0; k < n.length; k++) if (raw[start + k] !== n[k]) return false;
    return true;
  }

  private textField(f: Buffer, line: number, col: number): string | null {
    if (!f.includes(0x5c)) return this.utf8(f, line, col);
    const out = Buffer.allocUnsafe(f.length);
    let n = 0;
    for (let i = 0; i < f.length; i++) {
      const c = f[i];
      if (c !== 0x5c || i + 1 === f.length) {
        out[n++] = c;
        continue;
      }
      const e = f[++i];
      if (e >= 0x30 && e <= 0x37) {
        let v = e - 0x30;
        for (let k = 0; k < 2 && i + 1 < f.length && f[i + 1] >= 0x30 && f[i + 1] <= 0x37; k++) v = v * 8 + (f[++i] - 0x30);
        out[n++] = v & 0xff;
      } else if (e === 0x78 && i + 1 < f.length && isHex(f[i + 1])) {
        let v = hexVal(f[++i]);
        if (i + 1 < f.length && isHex(f[i + 1])) v = v * 16 + hexVal(f[++i]);
        out[n++] = v;
      } else out[n++] = ESCAPES[e] ?? e;
    }
    return this.utf8(out.subarray(0, n), line, col);
  }

  private csvFields(raw: Buffer, from: number, to: number, line: number): void {
    const r = this.current;
    let i = from;
    for (;;) {
      // one field: unquoted parts and quoted parts may alternate (a"b"c is abc)
      const start = i;
      let plain = true; // unquoted ASCII without NUL: the field is its bytes
      while (i < to && raw[i] !== this.delim && raw[i] !== this.quote) {
        if (raw[i] === 0 || raw[i] >= 0x80) plain = false;
        i++;
      }
      if (i >= to || raw[i] === this.delim) {
        // NULL only for an unquoted field equal to the NULL string
        if (this.isNull(raw, start, i)) r.add(FIELD_NULL, start, i, null);
        else if (plain) r.add(FIELD_PLAIN, start, i, null);
        else r.add(FIELD_TEXT, start, i, this.utf8(raw.subarray(start, i), line, r.count + 1));
      } else {
        i = start;
        const bytes: number[] = [];
        while (i < to && raw[i] !== this.delim) {
          if (raw[i] === this.quote) {
            i++;
            for (;;) {
              if (i >= to) throw this.bad(line, "unterminated CSV quoted field");
              const c = raw[i];
              if (c === this.escape && i + 1 < to && (raw[i + 1] === this.quote || (this.escape !== this.quote && raw[i + 1] === this.escape))) {
                bytes.push(raw[i + 1]);
                i += 2;
              } else if (c === this.quote) {
                i++;
                break;
              } else {
                bytes.push(c);
                i++;
              }
            }
          } else {
            bytes.push(raw[i]);
            i++;
          }
        }
        r.add(FIELD_TEXT, start, i, this.utf8(Buffer.from(bytes), line, r.count + 1));
      }
      if (i >= to) return;
      i++; // the delimiter
    }
  }

  private utf8(b: Uint8Array, line: number, col: number): string {
    if (b.includes(0)) throw this.bad(line, "invalid byte sequence for encoding \"UTF8\": 0x00", undefined, col);
    try {
      return utf8.decode(b);
    } catch {
      const at = firstInvalidUtf8(b);
      throw this.bad(line, `invalid byte sequence for encoding "UTF8": ${[...b.subarray(at, at + 2)].map((x) => `0x${x.toString(16).padStart(2, "0")}`).join(" ")}`, undefined, col);
    }
  }

  private bad(line: number, message: string, detail?: string, column?: number): FormatError {
    return new FormatError("LOAD_BAD_INPUT", `${message} (line ${line}${column ? `, column ${column}` : ""})`, { item: line, attnum: column }, detail);
  }
}

const ESCAPES: Record<number, number> = { 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x76: 0x0b };
const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const hexVal = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);

/** Offset of the first byte that does not start a valid UTF-8 sequence. */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (!n || i + n > b.length) return i;
    for (let k = 1; k < n; k++) if ((b[i + k] & 0xc0) !== 0x80) return i;
    i += n;
  }
  return b.length;
}
