// The cluster tree: databases → schemas → tables (with their TOAST relation and indexes), with
// sizes. A database's catalog is read only when its node is expanded.
import { FormatError } from "../../formats/schema/errors.js";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { bytesText } from "./format.js";
import { at, type Location } from "./navigation.js";
import type { Row, RowsView } from "./rows.js";
import type { BrowseSession } from "./session.js";

const KIND: Record<string, string> = { r: "table", i: "index", S: "sequence", t: "toast", m: "matview", p: "partitioned", f: "foreign" };
const TOP_KINDS = new Set(["r", "m", "S", "p", "f"]);
const SYSTEM_SCHEMAS = new Set(["pg_catalog", "information_schema"]);

const dbKey = (db: number): string => `db:${db}`;
const nsKey = (db: number, ns: number): string => `ns:${db}:${ns}`;
const relNodeKey = (db: number, oid: number): string => `rel:${db}:${oid}`;

/** Nodes open when the browser starts: the start database and its user schemas. */
export function defaultExpanded(session: BrowseSession): string[] {
  if (!session.cluster || session.startDb === undefined) return [];
  const out = [dbKey(session.startDb)];
  try {
    const cat = session.catalog(session.startDb);
    for (const [oid, name] of cat.namespaces) if (!SYSTEM_SCHEMAS.has(name) && name !== "pg_toast" && !name.startsWith("pg_temp") && !name.startsWith("pg_toast_temp")) out.push(nsKey(session.startDb, oid));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
  }
  return out;
}

function relRow(session: BrowseSession, cat: DatabaseCatalog, rel: RelationInfo, indent: number, role: string, expandable: boolean, expanded: boolean): Row {
  const db = cat.db.oid;
  const size = rel.filenode ? session.relationBytes(db, rel) : 0;
  const bs = session.cluster!.geometry.blockSize;
  const marker = expandable ? (expanded ? "▾ " : "▸ ") : "  ";
  const target: Location | undefined = rel.filenode ? at({ view: "relation", rel: { db, oid: rel.oid, label: `${rel.namespaceName}.${rel.name}` } }) : undefined;
  return {
    key: relNodeKey(db, rel.oid),
    label: `${marker}${role === "toast" || role === "index" ? `${role} ` : ""}${rel.name}`,
    text: rel.filenode ? `${bytesText(size).padStart(9)}  ${String(Math.floor(size / bs)).padStart(7)} blk` : "   (no storage)",
    note: `${KIND[rel.kind] ?? rel.kind}${rel.amName && rel.kind === "i" ? ` ${rel.amName}` : ""}  oid ${rel.oid}`,
    indent,
    target,
    toggle: expandable ? relNodeKey(db, rel.oid) : undefined,
    style: target ? "link" : "dim",
  };
}

export function treeView(session: BrowseSession, expandedList: string[]): RowsView {
  const expanded = new Set(expandedList);
  const rows: Row[] = [];
  let defaultCursor = -1;
  if (!session.cluster) {
    const ref = session.startRel!;
    rows.push({ key: "file", label: ref.label, text: "lone relation file (no cluster around it)", target: at({ view: "relation", rel: ref }), style: "link" });
    return { kind: "rows", title: "relation file", rows, defaultCursor: 0, labelWidth: Math.min(60, ref.label.length + 2) };
  }
  for (const d of session.databases()) {
    const open = expanded.has(dbKey(d.oid));
    rows.push({ key: dbKey(d.oid), label: `${open ? "▾" : "▸"} ${d.name}`, text: "database", note: `oid ${d.oid}${d.isTemplate ? "  template" : ""}${d.allowConnections ? "" : "  no connections"}`, toggle: dbKey(d.oid), style: "heading" });
    if (!open) continue;
    let cat: DatabaseCatalog;
    try {
      cat = session.catalog(d.oid);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      rows.push({ key: `${dbKey(d.oid)}:error`, label: "  cannot read the catalog", text: `${e.code}: ${e.message}`, style: "problem", problem: true, indent: 1 });
      continue;
    }
    const bySchema = new Map<number, RelationInfo[]>();
    for (const r of cat.classes.values()) {
      if (!TOP_KINDS.has(r.kind)) continue;
      const l = bySchema.get(r.namespace) ?? [];
      l.push(r);
      bySchema.set(r.namespace, l);
    }
    const schemas = [...bySchema.keys()].sort((a, b) => {
      const na = cat.namespaces.get(a) ?? "";
      const nb = cat.namespaces.get(b) ?? "";
      const sa = SYSTEM_SCHEMAS.has(na) ? 1 : 0;
      const sb = SYSTEM_SCHEMAS.has(nb) ? 1 : 0;
      return sa - sb || (na === "public" ? -1 : nb === "public" ? 1 : na.localeCompare(nb));
    });
    for (const ns of schemas) {
      const name = cat.namespaces.get(ns) ?? String(ns);
      const rels = bySchema.get(ns)!.sort((a, b) => a.name.localeCompare(b.name));
      const nsOpen = expanded.has(nsKey(d.oid, ns));
      rows.push({ key: nsKey(d.oid, ns), label: `${nsOpen ? "▾" : "▸"} ${name}`, text: "schema", note: `${rels.length} relations`, toggle: nsKey(d.oid, ns), indent: 1, style: "heading" });
      if (!nsOpen) continue;
      for (const r of rels) {
        const toast = r.toastRelid ? cat.classes.get(r.toastRelid) : undefined;
        const indexes = r.kind === "r" || r.kind === "m" || r.kind === "p" ? cat.indexesOf(r.oid) : [];
        const hasChildren = !!toast || indexes.length > 0;
        const open = expanded.has(relNodeKey(d.oid, r.oid));
        if (defaultCursor < 0 && d.oid === session.startDb && r.filenode) defaultCursor = rows.length;
        rows.push(relRow(session, cat, r, 2, KIND[r.kind] ?? r.kind, hasChildren, open));
        if (!open) continue;
        if (toast) {
          rows.push(relRow(session, cat, toast, 3, "toast", false, false));
          const ti = cat.toastIndexOf(toast.oid);
          const tirel = ti && cat.classes.get(ti.indexOid);
          if (tirel) rows.push(relRow(session, cat, tirel, 4, "index", false, false));
        }
        for (const i of indexes) {
          const irel = cat.classes.get(i.indexOid);
          if (irel) rows.push(relRow(session, cat, irel, 3, "index", false, false));
        }
      }
    }
  }
  const labelWidth = Math.min(44, Math.max(12, ...rows.map((r) => (r.label?.length ?? 0) + 2 * (r.indent ?? 0))));
  return { kind: "rows", title: `cluster ${session.cluster.pgdata}`, subtitle: `block size ${session.cluster.geometry.blockSize}`, rows, defaultCursor: Math.max(0, defaultCursor), labelWidth };
}
