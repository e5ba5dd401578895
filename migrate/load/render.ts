// The text form of a `pgdisk load` report.
import type { LoadReport } from "./engine.js";

const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;

function toastLines(t: LoadReport["toast"]): string[] {
  if (t.rowsToasted === 0) return [];
  const v = t.values;
  const lines = [
    `toast (${t.flavour}, target ${t.target}, default compression ${t.defaultCompression}): ${t.rowsToasted} rows over the threshold; values: ${v.inlineCompressed} compressed inline, ${v.externalPlain} external plain, direct ${v.direct.single} single / ${v.direct.flat} flat / ${v.direct.tree} tree (${v.externalCompressed} of the external ones compressed)`,
  ];
  if (t.relation) lines.push(`toast relation ${t.relation}: ${t.chunks} chunks on ${t.pages.added} new pages after ${t.pages.before}, ${t.maps.vmPages} VM / ${t.maps.fsmPages} FSM page(s)`);
  if (t.oids) lines.push(`value OIDs ${t.oids.first}..${t.oids.last}; pg_control nextOid ${t.oids.nextOidBefore} -> ${t.oids.nextOidAfter}`);
  if (t.index) lines.push(`toast index ${t.index.index}: ${t.index.existingEntries} existing + ${t.index.newEntries} new entries, ${t.index.pagesBefore} -> ${t.index.pagesAfter} pages`);
  if (t.fence) lines.push(t.fence);
  return lines;
}

export function renderLoadText(r: LoadReport): string {
  const rate = r.phases.rows > 0 ? Math.round(r.rows / r.phases.rows) : r.rows;
  const lines = [
    ...(r.journal?.resumed ? [`finished the interrupted load (${r.journal.records} journal records); its report:`] : []),
    `${r.dryRun ? "would load" : "loaded"} ${r.rows} rows into ${r.table} (database ${r.database}) from ${r.input} (${mib(r.inputBytes)})`,
    `heap: ${r.heap.pagesAdded} new pages (${mib(r.heap.bytesAdded)}) after ${r.heap.pagesBefore}, fillfactor ${r.heap.fillfactor}, tuples frozen, all-visible and all-frozen${r.checksums ? ", checksummed" : ""}`,
    ...r.indexes.map((i) => `index ${i.index}${i.unique ? " (unique)" : ""}${i.prefix ? " (BTP_PREFIX)" : ""}: ${i.existingEntries} existing + ${i.newEntries} new entries, ${i.pagesBefore} -> ${i.pagesAfter} pages`),
    ...toastLines(r.toast),
    `maps: ${r.maps.vmPages} visibility map page(s), ${r.maps.fsmPages} free space map page(s)`,
    `time: rows ${r.phases.rows.toFixed(2)} s (${rate} rows/s), indexes ${r.phases.indexes.toFixed(2)} s, maps ${r.phases.maps.toFixed(2)} s, toast ${r.phases.toast.toFixed(2)} s, switch ${r.phases.switch.toFixed(2)} s (${r.switchSteps} steps), total ${r.seconds.toFixed(2)} s`,
  ];
  return lines.join("\n") + "\n";
}
