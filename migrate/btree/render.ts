// Text rendering of a `pgdisk migrate btree` report (the JSON form is the report itself).
import { controlReportLines } from "../control-name.js";
import type { MigrateBtreeReport } from "./engine.js";
import type { BtreeTotals } from "../engine.js";
import type { IndexConversion } from "./convert.js";
import { whereLines } from "../render-where.js";

const mib = (n: number): string => `${(n / 1048576).toFixed(2)} MiB`;
const pct = (after: number, before: number): string => (before ? `${after >= before ? "+" : ""}${(((after - before) / before) * 100).toFixed(1)}%` : "n/a");

/** The table of indexes converted (a blank line first). */
export function btreeIndexLines(indexes: readonly IndexConversion[]): string[] {
  const out: string[] = [""];
  out.push(`${"index".padEnd(40)} ${"pages".padStart(15)} ${"size".padStart(9)} ${"leaf coded/plain".padStart(17)} ${"groups/pg".padStart(9)} ${"shared".padStart(11)}`);
  for (const x of indexes) {
    const gpp = x.leafCoded ? (x.groups / x.leafCoded).toFixed(1) : "-";
    out.push(
      `${x.index.padEnd(40)} ${`${x.pagesBefore} -> ${x.pagesAfter}`.padStart(15)} ${pct(x.bytesAfter, x.bytesBefore).padStart(9)} ${`${x.leafCoded}/${x.leafPlain}`.padStart(17)} ${gpp.padStart(9)} ${`${x.bytesShared} B`.padStart(11)}`,
    );
    for (const n of x.notes) out.push(`  note: ${n}`);
    if (x.fsmRemoved) out.push(`  FSM fork removed`);
  }
  return out;
}

/** Totals, leaf pages and the savings histogram. */
export function btreeTotalLines(t: BtreeTotals, savingsBuckets: readonly string[]): string[] {
  const out: string[] = [];
  out.push(`total: ${t.indexes} index(es), ${t.pagesBefore} -> ${t.pagesAfter} pages, ${mib(t.bytesBefore)} -> ${mib(t.bytesAfter)} (${pct(t.bytesAfter, t.bytesBefore)})`);
  out.push(`leaf pages: ${t.leafPages}, coded ${t.leafCoded}, left plain ${t.leafPlain}; ${t.groups} groups${t.leafCoded ? ` (${(t.groups / t.leafCoded).toFixed(1)} per coded page)` : ""}; ${t.bytesShared} bytes shared`);
  if (t.leafPages) {
    out.push("per-page savings (1 - C/T):");
    const max = Math.max(...t.savingsHistogram, 1);
    savingsBuckets.forEach((b, i) => {
      const n = t.savingsHistogram[i]!;
      if (n) out.push(`  ${b.padStart(8)} ${String(n).padStart(8)} ${"#".repeat(Math.max(1, Math.round((n / max) * 40)))}`);
    });
  }
  return out;
}

export function renderMigrateBtreeText(r: MigrateBtreeReport): string {
  const out: string[] = [];
  out.push(`pgdisk migrate btree: ${r.mode} to ${r.to}${r.policy ? ` (policy ${r.policy})` : ""}, database ${r.database}`);
  out.push(...whereLines(r));
  out.push(...btreeIndexLines(r.indexes));
  for (const s of r.skipped) out.push(`skipped ${s.index}: ${s.reason}`);
  out.push("");
  out.push(...btreeTotalLines(r.totals, r.savingsBuckets));
  out.push("");
  out.push(...controlReportLines(r.control, r.sqlFile, r.seconds));
  return out.join("\n") + "\n";
}
