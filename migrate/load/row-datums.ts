// One parsed COPY row -> the stored datums of a new tuple, as COPY FROM builds them: the fields
// in input order go to their attributes, the others get their constant default or NULL; a
// wrong field count, a value its input function rejects, or a NULL in a NOT NULL column is a
// LOAD_BAD_INPUT error naming the input line, the column and the value (the server's CONTEXT:
// COPY t, line N, column c: "value").
import { FormatError } from "../../formats/schema/errors.js";
import type { CopyRow } from "./copy-parse.js";
import type { LoadTarget } from "./target.js";

const clip = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}...` : s);

export function badRow(row: { line: number }, message: string, column?: { attnum: number; name: string }, value?: string | null, detail?: string): FormatError {
  const where = `line ${row.line}${column ? `, column ${column.name}` : ""}${value != null ? `: "${clip(value)}"` : ""}`;
  return new FormatError("LOAD_BAD_INPUT", `${message} (input ${where})`, {}, detail);
}

/** The stored datum of every attribute (null: SQL NULL) for one input row. */
export function rowDatums(t: LoadTarget, row: CopyRow): (Uint8Array | null)[] {
  const f = row.fields;
  if (f.length > t.inputAttrs.length) throw badRow(row, "extra data after last expected column");
  if (f.length < t.inputAttrs.length) throw badRow(row, `missing data for column "${t.inputAttrs[f.length].name}"`, t.inputAttrs[f.length]);
  const out: (Uint8Array | null)[] = new Array(t.columns.length);
  for (let i = 0; i < t.columns.length; i++) {
    const c = t.columns[i];
    let d: Uint8Array | null;
    if (c.source.kind === "constant") d = c.source.stored;
    else {
      const text = f[c.source.field];
      if (text === null) d = null;
      else {
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
