// COPY text format of the live rows (what `COPY t TO STDOUT` prints), with COPY's escaping:
// backslash, TAB, newline, carriage return, backspace, form feed and vertical tab.
import type { DumpEvent } from "./dump.js";

export function copyEscape(s: string): string {
  return s.replace(/[\\\t\n\r\b\f\v]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v" })[c]!);
}

export class CopyRenderer {
  constructor(private readonly write: (s: string) => void) {}

  event(e: DumpEvent): void {
    if (e.type !== "page") return;
    for (const it of e.page.items) {
      const h = it.heap;
      if (!h?.values || (h.state && h.state !== "live")) continue;
      const cols = h.values.filter((v) => !v.dropped).map((v) => (v.isnull ? "\\N" : v.value === undefined ? "\\N" : copyEscape(v.value)));
      this.write(cols.join("\t") + "\n");
    }
  }
}
