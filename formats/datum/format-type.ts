// format_type_be (src/backend/utils/adt/format_type.c): a type's SQL name as regtypeout and
// regprocedureout print it: the SQL-standard spelling of the built-in types that have one,
// otherwise the type name, schema-qualified when the search path would not find it; arrays
// as their element type's name followed by [].
import { quoteQualified } from "./identifiers.js";
import type { OutputCatalog } from "./output-catalog.js";
import { isVisible } from "./visibility.js";

/** The types format_type spells the SQL way (without a typmod). */
const SQL_NAMES: Readonly<Record<number, string>> = {
  1560: "bit",
  16: "boolean",
  1042: "character",
  700: "real",
  701: "double precision",
  21: "smallint",
  23: "integer",
  20: "bigint",
  1700: "numeric",
  1186: "interval",
  1083: "time without time zone",
  1266: "time with time zone",
  1114: "timestamp without time zone",
  1184: "timestamp with time zone",
  1562: "bit varying",
  1043: "character varying",
};

/** The name of a type, or undefined when the catalog does not know it. */
export function formatType(cat: OutputCatalog, oid: number): string | undefined {
  let t = cat.type(oid);
  if (!t) return undefined;
  let suffix = "";
  if (t.elem !== 0 && t.len === -1 && t.storage !== "p") {
    const elem = cat.type(t.elem);
    if (!elem) return "???[]";
    [oid, t, suffix] = [t.elem, elem, "[]"];
  }
  const sql = SQL_NAMES[oid];
  if (sql) return sql + suffix;
  const visible = isVisible(cat, "type", { oid, name: t.name, namespace: t.namespace });
  return quoteQualified(visible ? undefined : (cat.namespaceName(t.namespace) ?? ""), t.name) + suffix;
}
