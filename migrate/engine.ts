// `pgdisk migrate`: the one conversion engine for a whole stopped cluster. It plans on the input
// (plan.ts: databases, relations, units), checks every page it will read, then applies the units
// in order to the cluster it writes (a new cluster beside the input, output-run.ts, or the input
// itself through the journal, in-place.ts), decides the format fence from what was written and
// what remains, and writes the SQL file for the patched server. `migrate toast` and `migrate
// btree` are this engine with one format (aliases.ts). Returns plain data; the CLI renders it.
import { Cluster } from "../formats/catalog/cluster.js";
import { convertInCopy, finishOutput, withPreparedOutput, writeOutputFile } from "./output-run.js";
import { planMigration, type MigratePlan } from "./plan.js";
import { migrateInPlace } from "./in-place.js";
import { migrateWhatIf } from "./what-if.js";
import { assertFreeSpaceEach, treeBytes } from "./copy-mode.js";
import type { OutputPlan } from "./output-copy.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { applyUnits, buildReport, checkInput, checkTargets, MIGRATE_SQL_FILE, resultFence, resultSql, type CopySummary, type MigrateOptions, type MigrateReport, type UnitWriter } from "./apply-units.js";

export { MIGRATE_SQL_FILE, checkTargets } from "./apply-units.js";
export type { BtreeTotals, CopySummary, DatabaseResult, JournalSummary, MigrateOptions, MigrateReport, ToastTotals, UnitWriter } from "./apply-units.js";

/**
 * Bytes the output needs, by the directory they land in (each filesystem is checked on its own: a
 * tablespace's directory may be on another one): the converted relations written anew, in OUT or
 * in their tablespace's output directory, plus the untouched files copied (all of them in copy
 * mode; in link mode what is not relation data; nothing when cloned).
 */
function outputBytesNeeded(out: OutputPlan, plan: MigratePlan): { dir: string; bytes: number }[] {
  const home = (fork: string): string => out.tablespaces.find((t) => fork.startsWith(join(out.input, "pg_tblspc", String(t.oid)) + "/"))?.output ?? out.output;
  const needs = plan.units.map((u) => ({ dir: home(u.forks[0]!), bytes: u.bytes }));
  if (out.mode === "clone") return needs;
  const base = existsSync(join(out.input, "base")) ? treeBytes(join(out.input, "base")) : 0;
  // treeBytes does not follow links: the linked tablespaces and pg_wal are counted on their own
  const rest = treeBytes(out.input) + (out.walLink ? treeBytes(out.walLink) : 0) - (out.mode === "link" ? base : 0);
  needs.push({ dir: out.output, bytes: rest });
  if (out.mode === "copy") for (const t of out.tablespaces) needs.push({ dir: t.output, bytes: treeBytes(t.input) });
  return needs;
}

/** Convert into a new cluster beside the input (--out): the input is only read (in link mode, fenced). */
async function migrateToOutput(o: MigrateOptions & { out: string }, t0: number): Promise<MigrateReport> {
  const progress = o.progress ?? (() => {});
  return withPreparedOutput({ ...o, out: o.out }, async (prep) => {
    const { input, output, control } = prep;
    // plan on the input first, so that a wrong name fails before anything is copied
    const inCluster = new Cluster(input);
    const plan = planMigration(inCluster, o);
    const checksums = control.dataChecksumVersion !== 0;
    checkInput(inCluster, plan, plan.units, checksums, progress);
    assertFreeSpaceEach(outputBytesNeeded(prep.plan, plan), "the output");
    return convertInCopy(prep, { ...o, out: o.out }, async () => {
      const fsync = o.fsync ?? true;
      const writer: UnitWriter = { root: output, owner: prep.plan.owner, checksums, fsync, inputFenced: control.renamed, beginUnit: async () => {}, endUnit: async () => {}, done: new Set() };
      const results = await applyUnits(plan, o, writer, new Map(), inCluster);
      const reason = resultFence(plan, o, writer, results);
      const sqlFile = writeOutputFile(prep, MIGRATE_SQL_FILE, resultSql(plan, o, output));
      const controlAction = finishOutput(prep, reason, fsync);
      const copy: CopySummary = { mode: prep.plan.mode, notes: prep.plan.notes, inputControl: prep.plan.inputFence?.to ?? null };
      return buildReport(plan, o, { input, output, checksums, results, control: controlAction, sqlFile, journal: null, copy, t0 });
    });
  });
}

export async function migrate(o: MigrateOptions): Promise<MigrateReport> {
  const t0 = performance.now();
  checkTargets(o);
  if (o.check) return migrateWhatIf(o, t0);
  if (o.inPlace) return migrateInPlace(o, t0);
  return migrateToOutput(o as MigrateOptions & { out: string }, t0);
}
