// COPY text format (the default of COPY ... FROM STDIN): one line per row, TAB between fields,
// \N for NULL, and backslash escapes for backslash, TAB, newline and carriage return.

/** A row field: the column's text input form, or null for SQL NULL. */
export type Field = string | null;

const SPECIAL = /[\\\t\n\r]/;

export function copyField(v: Field): string {
  if (v === null) return "\\N";
  if (!SPECIAL.test(v)) return v;
  return v.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

export function copyLine(fields: readonly Field[]): string {
  return fields.map(copyField).join("\t") + "\n";
}

/** Quote a string as an SQL literal (standard_conforming_strings is on). */
export function sqlLiteral(v: string): string {
  return `'${v.replace(/'/g, "''")}'`;
}

/** Quote an identifier only when needed. */
export function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
