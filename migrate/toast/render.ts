// Text rendering of a `pgdisk migrate toast` report (the JSON form is the report itself).
import { controlReportLines } from "../control-name.js";
import type { MigrateToastReport } from "./engine.js";
import type { ToastTotals } from "../engine.js";
import { whereLines } from "../render-where.js";
import type { PagesTouched } from "./measure.js";
import type { TableConversion } from "./table.js";
import type { TargetFlavour } from "./plan.js";

const mib = (n: number): string => `${(n / 1048576).toFixed(2)} MiB`;
const pct = (after: number, before: number): string => (before ? `${after >= before ? "+" : ""}${(((after - before) / before) * 100).toFixed(1)}%` : "n/a");
const q = (x: PagesTouched["before"]): string => (x ? `${x.median} / ${x.p99} (heap ${x.heapMedian}, index ${x.indexMedian})` : "-");

/** The lines of one table's conversion (a blank line first). */
export function toastTableLines(t: TableConversion, to: TargetFlavour): string[] {
  const out: string[] = [""];
  {
    out.push(`${t.table}  (TOAST ${t.toastRelation}, index ${t.toastIndex})`);
    const kp = t.pointers.keptPlain;
    out.push(`  pointers: ${t.pointers.total}; converted ${t.pointers.converted}; already ${to} ${t.pointers.alreadyTarget}; kept plain: ${kp["does-not-fit"]} did not fit, ${kp["chunks-missing"]} chunks missing (dead tuples)${t.pointers.brokenDirect ? `; ${t.pointers.brokenDirect} damaged direct values of dead tuples now name no chunk` : ""}`);
    for (const k of t.keptPlainList.slice(0, 10)) out.push(`    kept plain (${k.block},${k.item}) attribute ${k.attnum} value ${k.valueId}: ${k.reason}`);
    if (t.keptPlainList.length > 10) out.push(`    ... (${t.keptPlainList.length - 10} more listed in --json)`);
    const d = t.values.direct;
    out.push(`  values: direct ${d.single + d.flat + d.tree} (single ${d.single}, flat ${d.flat}, tree ${d.tree}); stock ${t.values.plain}${t.values.newOids ? ` (${t.values.newOids} under fresh OIDs)` : ""}`);
    const dp = t.chunks.droppedPlain;
    out.push(`  chunks: stock ${t.chunks.before.plain} -> ${t.chunks.after.plain}, direct ${t.chunks.before.direct} -> ${t.chunks.after.direct}; dropped stock: ${dp.converted} now direct, ${dp.unreferenced} unreferenced, ${dp.incomplete} of incomplete values, ${dp.unusable} aborted inserts, ${dp.duplicate} duplicates; ${t.chunks.droppedDirect} unreachable direct`);
    out.push(`  TOAST heap:  ${t.toastHeap.pagesBefore} -> ${t.toastHeap.pagesAfter} pages, ${mib(t.toastHeap.bytesBefore)} -> ${mib(t.toastHeap.bytesAfter)} (${pct(t.toastHeap.bytesAfter, t.toastHeap.bytesBefore)})`);
    out.push(`  TOAST index: ${t.toastIndexSize.pagesBefore} -> ${t.toastIndexSize.pagesAfter} pages, ${mib(t.toastIndexSize.bytesBefore)} -> ${mib(t.toastIndexSize.bytesAfter)} (${pct(t.toastIndexSize.bytesAfter, t.toastIndexSize.bytesBefore)})`);
    out.push(`  parent: ${t.parent.pagesRewritten} of ${t.parent.pages} pages re-laid out (line pointers unchanged)`);
    out.push(`  OIDs no longer used: ${t.oidsNoLongerUsed.count}${t.oidsNoLongerUsed.count ? ` (${t.oidsNoLongerUsed.ranges.length > 120 ? t.oidsNoLongerUsed.ranges.slice(0, 120) + "..." : t.oidsNoLongerUsed.ranges})` : ""}`);
    if (t.forksRemoved.length) out.push(`  forks removed: ${t.forksRemoved.map((f) => f.split("/").pop()).join(", ")}`);
    out.push(`  pages touched per value read, median / p99, before -> after:`);
    for (const cls of ["single", "multi", "tree"] as const) {
      const m = t.pagesTouched[cls];
      if (m.values) out.push(`    ${cls.padEnd(6)} (${m.values} values): ${q(m.before)} -> ${q(m.after)}`);
    }
    out.push(`  ${t.seconds.toFixed(1)} s`);
  }
  return out;
}

export function toastTotalLine(T: ToastTotals): string {
  return `total: ${T.tables} table(s), ${T.converted} of ${T.pointers} pointers converted, ${T.keptPlain} kept plain; TOAST ${mib(T.toastBytesBefore)} -> ${mib(T.toastBytesAfter)}, TOAST indexes ${mib(T.indexBytesBefore)} -> ${mib(T.indexBytesAfter)}; ${T.oidsNoLongerUsed} OIDs no longer used`;
}

export function renderMigrateToastText(r: MigrateToastReport): string {
  const out: string[] = [];
  out.push(`pgdisk migrate toast: to ${r.to}, database ${r.database}`);
  out.push(...whereLines(r));
  for (const t of r.tables) out.push(...toastTableLines(t, r.to));
  for (const s of r.skipped) out.push(`skipped ${s.table}: ${s.reason}`);
  out.push("");
  out.push(toastTotalLine(r.totals));
  out.push(...controlReportLines(r.control, r.sqlFile, r.seconds));
  return out.join("\n") + "\n";
}
