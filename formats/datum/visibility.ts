// Name lookup under a search path (src/backend/catalog/namespace.c): whether an unqualified
// name finds an object (RelationIsVisible, TypeIsVisible, FunctionIsVisible, ...), and whether
// a name alone finds only it (what regprocout and regoperout ask before printing it bare).
import type { NamedObject, ObjectKind, OutputCatalog } from "./output-catalog.js";

const sameArgs = (a: NamedObject, b: NamedObject): boolean => (a.args ?? []).length === (b.args ?? []).length && (a.args ?? []).every((t, i) => t === b.args![i]);

/** Functions and operators are told apart by their argument types; other objects by name alone. */
const hides = (kind: ObjectKind, a: NamedObject, b: NamedObject): boolean => (kind === "proc" || kind === "operator" ? sameArgs(a, b) : true);

/** A collation of another encoding than the database's is never found (lookup_collation). */
const usable = (cat: OutputCatalog, kind: ObjectKind, o: NamedObject): boolean => kind !== "collation" || o.encoding === undefined || o.encoding === -1 || o.encoding === cat.encoding;

/** Whether looking up the object's name (and signature) along the search path finds this object. */
export function isVisible(cat: OutputCatalog, kind: ObjectKind, obj: NamedObject): boolean {
  const pos = cat.searchPath.indexOf(obj.namespace);
  if (pos < 0 || !usable(cat, kind, obj)) return false;
  for (const other of cat.objectsNamed(kind, obj.name)) {
    if (other.oid === obj.oid || !usable(cat, kind, other) || !hides(kind, obj, other)) continue;
    const p = cat.searchPath.indexOf(other.namespace);
    if (p < 0 || p > pos) continue;
    if (p < pos) return false;
    // the same schema: lookup_collation tries the database's encoding before "any encoding"
    if (kind === "collation" && obj.encoding === -1 && other.encoding !== -1) return false;
  }
  return true;
}

/**
 * Whether the name alone, with any arguments, finds exactly this object (FuncnameGetCandidates,
 * OpernameGetCandidates: one candidate per signature, the one earliest in the search path).
 */
export function isOnlyCandidate(cat: OutputCatalog, kind: ObjectKind, obj: NamedObject): boolean {
  if (!isVisible(cat, kind, obj)) return false;
  return cat.objectsNamed(kind, obj.name).every((o) => o.oid === obj.oid || !cat.searchPath.includes(o.namespace) || hides(kind, obj, o));
}
