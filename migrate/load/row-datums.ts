// One parsed COPY row -> the stored datums of a new tuple, as COPY FROM builds them: the fields
// in input order go to their attributes, the others get their constant default or NULL; a
// wrong field count, a value its input function rejects, or a NULL in a NOT NULL column is a
// LOAD_BAD_INPUT error naming the input line, the column and the value (the server's CONTEXT:
// COPY t, line N, column c: "value").
import { FormatError } from "../../formats/schema/errors.js";
import { FIELD_NULL, FIELD_PLAIN, type CopyRow } from "./copy-parse.js";
import type { LoadTarget } from "./target.js";

const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}...` : s);

export function badRow(row: { line: number }, message: string, column?: { attnum: number; name: string }, value?: string | null, detail?: string): FormatError {
  const where = `line ${row.line}${column ? `, column ${column.name}` : ""}${value != null ? `: "${clip(value)}"` : ""}`;
  return new FormatError("LOAD_BAD_INPUT", `${message} (input ${where})`, {}, detail);
}

/** The stored datum of every attribute (null: SQL NULL) for one input row. */
export function rowDatums(t: LoadTarget, row: CopyRow): (Uint8Array | null)[] {
  const n = row.count;
  if (n > t.inputAttrs.length) throw badRow(row, "extra data after last expected column");
  if (n < t.inputAttrs.length) throw badRow(row, `missing data for column "${t.inputAttrs[n].name}"`, t.inputAttrs[n]);
  const out: (Uint8Array | null)[] = new Array(t.columns.length);
  for (let i = 0; i < t.columns.length; i++) {
    const c = t.columns[i];
    let d: Uint8Array | null = null;
    if (c.source.kind === "constant") d = c.source.stored;
    else {
      const f = c.source.field;
      const kind = row.kind[f];
      if (kind === FIELD_PLAIN && c.encodeBytes) d = c.encodeBytes(row.raw, row.start[f], row.end[f]);
      if (d === null && kind !== FIELD_NULL) {
        const text = row.text(f)!;
        try {
          d = c.encode!(text);
        } catch (e) {
          if (e instanceof FormatError && e.code === "DATUM_BAD_INPUT") throw badRow(row, e.message, c.attr, text, e.detail);
          throw e;
        }
      }
    }
    if (d === null && c.nullError && c.source.kind === "input") throw badRow(row, c.nullError, c.attr);
    if (d === null && c.attr.notnull) throw badRow(row, `null value in column "${c.attr.name}" of relation "${t.rel.name}" violates not-null constraint`, c.attr);
    out[i] = d;
  }
  return out;
}
