// Text rendering of a verify run, in pg_amcheck's shape: a header line naming the relation kind,
// "db.schema.name" and the location, then the message indented, with the finding's code.
import type { Finding, Location } from "../../formats/schema/errors.js";
import type { RelationReport } from "../relation.js";
import type { VerifyRun } from "../run.js";
import { isNotChecked } from "../../formats/codes/checks.js";

export interface TextOptions {
  /** also list the other info findings (not-checked notes are always listed) */
  verbose?: boolean;
}

function kindOf(r: RelationReport): string {
  if (r.am === "directory") return "directory";
  if (r.am === "heap") return r.relkind === "t" ? "toast table" : "heap table";
  if (r.relkind === "i" || r.am === "btree") return `${r.am} index`;
  return r.am === "unknown" ? "file" : r.am;
}

export function relationLabel(r: RelationReport): string {
  return r.database && r.am !== "directory" ? `${r.database}.${r.schema}.${r.name}` : r.name;
}

function where(l: Location): string {
  const parts: string[] = [];
  if (l.block !== undefined) parts.push(`block ${l.block}`);
  if (l.item !== undefined) parts.push(`offset ${l.item}`);
  if (l.attnum !== undefined) parts.push(`attnum ${l.attnum}`);
  return parts.length ? `, ${parts.join(", ")}` : "";
}

/** The tag before a finding's code: none for errors, NOT CHECKED for a check that could not run. */
const tag = (f: Finding): string => (f.severity === "error" ? "" : isNotChecked(f.code) ? "NOT CHECKED: " : `${f.severity.toUpperCase()}: `);

export function findingText(r: RelationReport, f: Finding): string {
  // a directory's findings are about one of its files: that file heads them
  const ofFile = r.am === "directory" && f.location.file !== undefined && f.location.file !== r.file;
  const head = `${ofFile ? `file "${f.location.file}"` : `${kindOf(r)} "${relationLabel(r)}"`}${where(f.location)}:`;
  const lines = [head, `    ${tag(f)}[${f.code}] ${f.message}`];
  if (f.detail) lines.push(`    DETAIL: ${f.detail}`);
  if (f.location.file && f.location.file !== r.file && !ofFile) lines.push(`    FILE: ${f.location.file}${f.location.offset !== undefined ? ` (page offset ${f.location.offset})` : ""}`);
  return lines.join("\n");
}

export function renderText(run: VerifyRun, o: TextOptions = {}): string {
  const out: string[] = [];
  for (const r of run.reports) {
    for (const f of r.findings) {
      if (f.severity === "info" && !o.verbose && !isNotChecked(f.code)) continue;
      out.push(findingText(r, f));
    }
  }
  const s = run.summary;
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? "" : "s"}`;
  out.push(
    `pgdisk verify: ${plural(s.relations, "relation")}, ${plural(s.pages, "page")}: ${plural(s.errors, "error")}, ${plural(s.warnings, "warning")}` +
      `${s.corruptRelations ? ` (${plural(s.corruptRelations, "relation")} corrupt)` : ""}, notes: ${s.notChecked} not checked, ${(s.ms / 1000).toFixed(1)} s with ${plural(s.workers, "worker")}`,
  );
  return out.join("\n") + "\n";
}
