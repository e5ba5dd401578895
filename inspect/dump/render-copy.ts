// COPY TO's text and CSV formats of the live rows (src/backend/commands/copyto.c): what
// `COPY t TO STDOUT [(FORMAT csv, ...)]` prints for the same table. Text escapes backslash, the
// control characters and the delimiter with backslashes, NULL is `\N`; CSV quotes a value that
// holds the delimiter, the quote, CR or LF, or equals the NULL string, doubling quote and escape
// characters inside, and prints NULL unquoted. HEADER prints the column names first.
import type { DumpEvent } from "./dump.js";

export interface CopyOptions {
  csv: boolean;
  /** one character: TAB for text, comma for CSV */
  delimiter: string;
  /** the NULL string: `\N` for text, empty for CSV */
  null: string;
  /** CSV only */
  quote: string;
  /** CSV only (defaults to the quote) */
  escape: string;
  header: boolean;
}

export const COPY_TEXT: CopyOptions = { csv: false, delimiter: "\t", null: "\\N", quote: '"', escape: '"', header: false };

const TEXT_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v" };
const TEXT_SPECIAL = /[\\\t\n\r\b\f\v]/g;

export function copyEscape(s: string, delimiter = "\t"): string {
  const out = s.replace(TEXT_SPECIAL, (c) => TEXT_ESCAPES[c]!);
  return delimiter === "\t" || !out.includes(delimiter) ? out : out.split(delimiter).join("\\" + delimiter);
}

/** CopyAttributeOutCSV: quoted when needed (or forced), quote and escape characters escaped. */
export function csvField(s: string, o: CopyOptions, singleColumn: boolean): string {
  const quote = s === o.null || (singleColumn && s === "\\.") || s.includes(o.delimiter) || s.includes(o.quote) || s.includes("\n") || s.includes("\r");
  if (!quote) return s;
  let out = o.quote;
  for (const c of s) out += c === o.quote || c === o.escape ? o.escape + c : c;
  return out + o.quote;
}

export class CopyRenderer {
  private headerDone = false;

  constructor(
    private readonly write: (s: string) => void,
    private readonly o: CopyOptions = COPY_TEXT,
  ) {}

  private field(s: string, single: boolean): string {
    return this.o.csv ? csvField(s, this.o, single) : copyEscape(s, this.o.delimiter);
  }

  event(e: DumpEvent): void {
    if (e.type === "relation" && this.o.header && !this.headerDone && e.target.columns) {
      this.headerDone = true;
      const single = e.target.columns.length === 1;
      this.write(e.target.columns.map((c) => this.field(c, single)).join(this.o.delimiter) + "\n");
      return;
    }
    if (e.type !== "page") return;
    for (const it of e.page.items) {
      const h = it.heap;
      if (!h?.values || (h.state && h.state !== "live")) continue;
      const vals = h.values.filter((v) => !v.dropped);
      const single = vals.length === 1;
      const cols = vals.map((v) => (v.isnull || v.value === undefined ? this.o.null : this.field(v.value, single)));
      this.write(cols.join(this.o.delimiter) + "\n");
    }
  }
}
