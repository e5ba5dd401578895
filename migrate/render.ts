// Text rendering of a `pgdisk migrate` report (the JSON form is the report itself), and the lines
// every conversion's report shares; each format's own sections are in toast/ and btree/.
import { controlReportLines } from "./control-name.js";
import type { MigrateReport } from "./engine.js";
import type { ProgressFigures } from "./progress.js";
import { toastTableLines, toastTotalLine } from "./toast/render.js";
import { btreeIndexLines, btreeTotalLines } from "./btree/render.js";
import { whereLines } from "./render-where.js";


const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;

/** One -P line: "12.0 MiB of 40.0 MiB (30%), 8.1 MiB/s, 3 s left". */
export function progressLine(p: ProgressFigures): string {
  const pct = p.bytesTotal ? Math.floor((p.bytesDone / p.bytesTotal) * 100) : 100;
  return `${mib(p.bytesDone)} of ${mib(p.bytesTotal)} (${pct}%), ${mib(p.rate)}/s${p.eta === null ? "" : `, ${Math.ceil(p.eta)} s left`}`;
}

export function renderMigrateText(r: MigrateReport): string {
  const what = [r.toast && `TOAST to ${r.toast}`, r.btree && `btree ${r.btree.mode} to ${r.btree.to}${r.btree.policy ? ` (policy ${r.btree.policy})` : ""}`].filter(Boolean).join(", ");
  const out: string[] = [`pgdisk migrate${r.check ? " --check (what-if: nothing was written)" : ""}: ${what}; ${r.databases.length} database(s)`, ...(r.check ? [`  cluster ${r.input}`] : whereLines(r))];
  if (r.copy) {
    out.push(`  untouched files: ${r.copy.mode === "link" ? "hard-linked" : r.copy.mode === "clone" ? "cloned (reflinks)" : "copied"}`);
    for (const n of r.copy.notes) out.push(`  note: ${n}`);
    if (r.copy.inputControl) out.push(`  the input shares its relation files with the output: its pg_control is now global/${r.copy.inputControl}; start it again only without the output, after renaming it back (as after pg_upgrade --link)`);
  }
  for (const d of r.databases) {
    if (!d.tables.length && !d.indexes.length && !d.skipped.length) continue;
    out.push("", `== database ${d.database}`);
    for (const t of d.tables) out.push(...toastTableLines(t, r.toast!));
    if (d.indexes.length) out.push(...btreeIndexLines(d.indexes));
    for (const s of d.skipped) out.push(`skipped ${s.relation}: ${s.reason}`);
  }
  out.push("");
  if (r.toast) out.push(toastTotalLine(r.totals.toast));
  if (r.btree) out.push(...btreeTotalLines(r.totals.btree, r.savingsBuckets));
  if (r.journal) out.push(`journal: ${r.journal.records} records${r.journal.resumed ? `; resumed an interrupted run${r.journal.redone.length ? `, ${r.journal.redone.length} unit(s) undone and done again` : ""}` : ""}`);
  if (r.check) {
    out.push(`pg_control would be ${r.control.action === "unchanged" || r.control.action === "restored" ? `named pg_control (${r.control.reason})` : `named pg_control.pgdisk: ${r.control.reason}`}.`);
    out.push(`cost: the relations convert in ${r.check.seconds.toFixed(1)} s here; their new files take ${(r.check.newFileBytes / 1048576).toFixed(1)} MiB (free beside the cluster until the commit in place; written besides the copy with --out); checked in ${r.seconds.toFixed(1)} s`);
  } else out.push(...controlReportLines(r.control, r.sqlFile, r.seconds));
  return out.join("\n") + "\n";
}
