// quote_identifier and quote_qualified_identifier (src/backend/utils/adt/ruleutils.c): a name
// stays bare only when it is lower-case ASCII letters, digits and underscores, starts with a
// letter or underscore, and is not a keyword other than an unreserved one.
import { QUOTED_KEYWORDS } from "./keywords.js";

export function quoteIdentifier(name: string): string {
  if (/^[a-z_][a-z0-9_]*$/.test(name) && !QUOTED_KEYWORDS.has(name)) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

/** schema.name with each part quoted as needed; the bare name when `schema` is undefined. */
export function quoteQualified(schema: string | undefined, name: string): string {
  return schema === undefined ? quoteIdentifier(name) : `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
}
