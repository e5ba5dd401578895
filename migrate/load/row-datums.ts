// One parsed COPY row -> the stored datums of a new tuple, as COPY FROM builds them: the fields
// in input order go to their attributes, the others get their constant default or NULL; a
// wrong field count, a value its input function rejects, or a NULL in a NOT NULL column is a
// LOAD_BAD_INPUT error naming the input line, the column and the value (the server's CONTEXT:
// COPY t, line N, column c: "value").
import { FormatError } from "../../formats/schema/errors.js";
import { FIELD_NULL, FIELD_PLAIN, type CopyRow } from "./copy-parse.js";
import type { LoadTarget } from "./target.js";
import type { RowValues } from "./row-values.js";
import { bytesIntoBound } from "../../formats/datum/input-bytes.js";

const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}...` : s);

export function badRow(row: { line: number }, message: string, column?: { attnum: number; name: string }, value?: string | null, detail?: string): FormatError {
  const where = `line ${row.line}${column ? `, column ${column.name}` : ""}${value != null ? `: "${clip(value)}"` : ""}`;
  return new FormatError("LOAD_BAD_INPUT", `${message} (input ${where})`, {}, detail);
}

/** The stored datum of every attribute (len -1: SQL NULL) for one input row, into `out` (reused). */
export function rowValues(t: LoadTarget, row: CopyRow, out: RowValues): void {
  const n = row.count;
  if (n > t.inputAttrs.length) throw badRow(row, "extra data after last expected column");
  if (n < t.inputAttrs.length) throw badRow(row, `missing data for column "${t.inputAttrs[n].name}"`, t.inputAttrs[n]);
  const cols = t.columns;
  out.reset(cols.length);
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i];
    const src = c.source;
    if (src.kind === "constant") {
      if (src.stored === null) {
        out.setNull(i);
        if (c.attr.notnull) throw badRow(row, `null value in column "${c.attr.name}" of relation "${t.rel.name}" violates not-null constraint`, c.attr);
      } else out.setBytes(i, src.stored);
      continue;
    }
    const f = src.field;
    const kind = row.kind[f];
    if (kind === FIELD_NULL) {
      out.setNull(i);
      if (c.nullError) throw badRow(row, c.nullError, c.attr);
      if (c.attr.notnull) throw badRow(row, `null value in column "${c.attr.name}" of relation "${t.rel.name}" violates not-null constraint`, c.attr);
      continue;
    }
    if (kind === FIELD_PLAIN && c.encodeInto) {
      const start = row.start[f];
      const end = row.end[f];
      const buf = out.reserve(bytesIntoBound(end - start));
      const w = c.encodeInto(row.raw, start, end, buf, out.used);
      if (w >= 0) {
        out.keep(i, w);
        continue;
      }
    }
    const text = row.text(f)!;
    let d: Uint8Array;
    try {
      d = c.encode!(text);
    } catch (e) {
      if (e instanceof FormatError && e.code === "DATUM_BAD_INPUT") throw badRow(row, e.message, c.attr, text, e.detail);
      throw e;
    }
    out.setBytes(i, d);
  }
}
