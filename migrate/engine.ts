// `pgdisk migrate`: the one conversion engine for a whole stopped cluster. It plans on the input
// (plan.ts: databases, relations, units), checks every page it will read, then applies the units
// in order to the cluster it writes (a new cluster beside the input, output-run.ts, or the input
// itself through the journal, in-place.ts), decides the format fence from what was written and
// what remains, and writes the SQL file for the patched server. `migrate toast` and `migrate
// btree` are this engine with one format (aliases.ts). Returns plain data; the CLI renders it.
import { Cluster } from "../formats/catalog/cluster.js";
import { FormatError } from "../formats/schema/errors.js";
import { PREFIX_POLICIES, PREFIX_POLICY_NAMES } from "../formats/nbtree/prefix-policy.js";
import { convertInCopy, finishOutput, withPreparedOutput, writeOutputFile, type OutputRunOptions } from "./output-run.js";
import { assertInputPagesIntact, catalogFiles } from "./input-check.js";
import { safePoint } from "./interrupt.js";
import { faultPoint } from "./fault-point.js";
import { fenceReason, type ControlNameAction } from "./control-name.js";
import type { ClusterOwner } from "./file-owner.js";
import { planMigration, toastRelationsOf, type MigratePlan, type MigrateTargets, type PlanUnit } from "./plan.js";
import type { Skipped } from "./select.js";
import type { TableConversion } from "./toast/table.js";
import { migrateSql } from "./toast/sql.js";
import { SAVINGS_BUCKETS, type IndexConversion } from "./btree/convert.js";
import { measureClasses } from "./toast/measure.js";
import { discardStaged, switchStaged } from "./staged.js";
import { unitStager } from "./unit-pool.js";
import type { UnitJob } from "./unit-stage.js";
import { btreeSql } from "./btree/sql.js";
import { ProgressMeter, type ProgressFigures } from "./progress.js";
import { migrateInPlace } from "./in-place.js";
import { migrateWhatIf, type WhatIfSummary } from "./what-if.js";
import { assertFreeSpaceEach, treeBytes, type CopyMode } from "./copy-mode.js";
import type { OutputPlan } from "./output-copy.js";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const MIGRATE_SQL_FILE = "pgdisk-migrate.sql";

export interface MigrateOptions extends MigrateTargets, Omit<OutputRunOptions, "out"> {
  /** a new data directory for the result (the input is only read) */
  out?: string;
  /** convert the cluster itself, through the journal (in-place.ts) */
  inPlace?: boolean;
  /** values per class read before and after for the pages-touched figures (default 200; 0: none; not measured in place) */
  measure?: number;
  /** fsync every file written (default true) */
  fsync?: boolean;
  /** the what-if report (what-if.ts): nothing is written into the cluster */
  check?: boolean;
  /** --check's scratch directory (default the system's temporary directory) */
  scratch?: string;
  /** worker threads converting relations (default 1: the main thread); the switch stays in plan order */
  jobs?: number;
  /** bytes done, rate and ETA after each unit (the CLI's -P) */
  onProgress?: (p: ProgressFigures) => void;
}

export interface ToastTotals {
  tables: number;
  pointers: number;
  converted: number;
  keptPlain: number;
  directValues: number;
  plainValues: number;
  toastBytesBefore: number;
  toastBytesAfter: number;
  indexBytesBefore: number;
  indexBytesAfter: number;
  oidsNoLongerUsed: number;
}

export interface BtreeTotals {
  indexes: number;
  pagesBefore: number;
  pagesAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  leafPages: number;
  leafCoded: number;
  leafPlain: number;
  groups: number;
  bytesShared: number;
  savingsHistogram: number[];
}

export interface DatabaseResult {
  database: string;
  tables: TableConversion[];
  indexes: IndexConversion[];
  skipped: Skipped[];
}

export interface JournalSummary {
  /** records the journal held when the run ended (every step of this run and of the runs it resumed) */
  records: number;
  /** this run continued an interrupted one */
  resumed: boolean;
  /** units an interrupted run had begun and not finished: undone, then done again */
  redone: string[];
}

export interface CopySummary {
  /** how the untouched files were made (clone falls back to copy without reflinks) */
  mode: CopyMode;
  notes: string[];
  /** link mode: the input's pg_control now has this name (global/), as pg_upgrade --link leaves it */
  inputControl: string | null;
}

export interface MigrateReport {
  schema: "pgdisk.migrate/1";
  input: string;
  /** the cluster written: the output directory, or the input itself in place */
  output: string;
  inPlace: boolean;
  toast: MigrateTargets["toast"] | null;
  btree: { to: string; mode: string; policy: string | null } | null;
  checksums: boolean;
  savingsBuckets: readonly string[];
  databases: DatabaseResult[];
  totals: { toast: ToastTotals; btree: BtreeTotals };
  control: ControlNameAction;
  sqlFile: string;
  journal: JournalSummary | null;
  /** --out: how the output was made */
  copy: CopySummary | null;
  /** --check: the run was a what-if (nothing written), and what the conversion costs */
  check?: WhatIfSummary;
  seconds: number;
}

const usage = (m: string): FormatError => new FormatError("USAGE", m);

/** Refuse impossible requests before anything is looked at. */
export function checkTargets(o: MigrateOptions): void {
  if (o.toast !== undefined && o.toast !== "direct" && o.toast !== "plain") throw usage(`--toast must be direct or plain, not "${o.toast}"`);
  if (o.btree) {
    if (o.btree.to !== "prefix" && o.btree.to !== "plain") throw usage(`--btree must be prefix or plain, not "${o.btree.to}"`);
    if (o.btree.mode !== "recode" && o.btree.mode !== "rebuild") throw usage(`--mode must be recode or rebuild, not "${o.btree.mode}"`);
    if (!(o.btree.policy in PREFIX_POLICIES)) throw usage(`--policy must be ${PREFIX_POLICY_NAMES.join(", ")}, not "${o.btree.policy}"`);
  }
  if (!o.toast && !o.btree) throw usage("nothing to convert: give --toast direct|plain, --btree prefix|plain, or both");
  if (o.inPlace && o.out) throw usage("give --out DIR or --in-place, not both");
  if (o.check) return;
  if (!o.inPlace && !o.out) throw usage("say where the result goes: --out DIR (a new cluster) or --in-place (the cluster itself)");
}

/** Where the units are applied and what the engine learns of the cluster written. */
export interface UnitWriter {
  /** the data directory written */
  root: string;
  owner: ClusterOwner;
  checksums: boolean;
  /** fsync files before they are switched */
  fsync: boolean;
  /** the input was fenced (pg_control.pgdisk): either format may remain anywhere */
  inputFenced: boolean;
  /** before a unit changes anything (the journal records it) */
  beginUnit(u: PlanUnit): Promise<void>;
  /** after its files are switched (the journal records it done, with its result) */
  endUnit(u: PlanUnit, result: TableConversion | IndexConversion): Promise<void>;
  /** units an interrupted run finished (skipped now) */
  done: ReadonlySet<string>;
}

/**
 * Apply the plan's units, in order, to the cluster the writer writes: each is converted and
 * staged (in the main thread, or by -j worker threads, unit-pool.ts), then, in plan order, begun
 * (the journal records it), switched, measured and ended here.
 */
export async function applyUnits(
  plan: MigratePlan,
  o: MigrateOptions,
  w: UnitWriter,
  prior: Map<string, TableConversion | IndexConversion> = new Map(),
  /** the input, opened before the output was made (its pg_control may have been renamed since, in link mode) */
  input?: Cluster,
): Promise<Map<string, TableConversion | IndexConversion>> {
  const progress = o.progress ?? (() => {});
  const cluster = new Cluster(w.root);
  const inCluster = input ?? cluster;
  const meter = new ProgressMeter(plan.bytes, o.onProgress);
  const results = new Map(prior);
  const measure = o.inPlace ? 0 : (o.measure ?? 200);
  const jobs: UnitJob[] = [];
  plan.units.forEach((unit, index) => {
    if (w.done.has(unit.key)) meter.add(unit.bytes);
    else jobs.push({ unit, index, units: plan.units.length, toast: o.toast, btree: o.btree, checksums: w.checksums, fsync: w.fsync, owner: w.owner, measure });
  });
  await safePoint(o.abort);
  const stager = unitStager(o.jobs ?? 1, cluster, jobs, progress);
  try {
    for (const job of jobs) {
      const u = job.unit;
      await safePoint(o.abort);
      const s = await stager.next().catch((e) => Promise.reject(onInput(e, w.root, inCluster.pgdata)));
      try {
        await safePoint(o.abort);
      } catch (e) {
        discardStaged(s.staged);
        throw e;
      }
      await w.beginUnit(u);
      switchStaged(s.staged);
      if (s.samples.length && isTable(s.result)) {
        const cat = cluster.database(u.database);
        const { toast, index } = toastRelationsOf(cat, cat.classes.get(u.relOid)!);
        progress(`${s.result.table}: reading ${s.samples.length} values before and after to count pages touched`);
        s.result.pagesTouched = measureClasses({ cat, inCat: inCluster.database(u.database) }, s.samples, { toast: toast!, ixRel: index! });
      }
      results.set(u.key, s.result);
      await w.endUnit(u, s.result);
      faultPoint("relation-done");
      meter.add(u.bytes);
    }
  } finally {
    await stager.close();
  }
  await safePoint(o.abort);
  return results;
}

/**
 * An error met converting a copy (--out, --check's shadow) names the input's file: the copy's
 * relation files are the input's bytes, and every relation path is built from the data directory.
 */
function onInput(e: unknown, root: string, input: string): unknown {
  const file = e instanceof FormatError ? e.location.file : undefined;
  if (root === input || !file?.startsWith(root + "/")) return e;
  return new FormatError((e as FormatError).code, (e as FormatError).message, { ...(e as FormatError).location, file: input + file.slice(root.length) }, (e as FormatError).detail);
}

const isTable = (r: TableConversion | IndexConversion): r is TableConversion => "toastRelation" in r;

/** Why a stock server must not start on the result (null: stock formats only). */
export function resultFence(plan: MigratePlan, o: MigrateOptions, w: UnitWriter, results: Map<string, TableConversion | IndexConversion>): string | null {
  const all = [...results.values()];
  const direct = all.filter(isTable).find((r) => r.values.direct.single + r.values.direct.flat + r.values.direct.tree > 0);
  const prefix = all.filter((r): r is IndexConversion => !isTable(r)).find((r) => r.to === "prefix" && r.leafCoded > 0);
  const converted = new Set<string>();
  const cluster = new Cluster(w.root);
  for (const u of plan.units) {
    if (u.kind !== "btree") continue;
    const cat = cluster.database(u.database);
    const rel = cat.classes.get(u.relOid)!;
    converted.add(`${rel.shared ? 0 : cat.db.oid}/${rel.filenode}`);
  }
  if (!prefix && o.btree) o.progress?.("checking the other btree indexes for BTP_PREFIX pages");
  return fenceReason(w.root, { directWritten: direct?.table, prefixWritten: prefix?.index, scanDirect: w.inputFenced, scanPrefix: !!o.btree || w.inputFenced, prefixSkip: converted });
}

/** The SQL file's text: per database, the TOAST section, then the btree one. */
export function resultSql(plan: MigratePlan, o: MigrateOptions, root: string): string {
  const cluster = new Cluster(root);
  const parts: string[] = [];
  for (const d of plan.databases) {
    const cat = cluster.database(d.database);
    const rels = (list: typeof d.tables) => list.map((r) => cat.classes.get(r.oid)!);
    if (o.toast && d.tables.length) parts.push(migrateSql(o.toast, d.database, rels(d.tables), cat));
    if (o.btree && d.indexes.length) parts.push(btreeSql(o.btree, d.database, rels(d.indexes)));
  }
  return parts.join("\n");
}

export function toastTotals(tables: readonly TableConversion[]): ToastTotals {
  const t: ToastTotals = { tables: 0, pointers: 0, converted: 0, keptPlain: 0, directValues: 0, plainValues: 0, toastBytesBefore: 0, toastBytesAfter: 0, indexBytesBefore: 0, indexBytesAfter: 0, oidsNoLongerUsed: 0 };
  for (const r of tables) {
    t.tables++;
    t.pointers += r.pointers.total;
    t.converted += r.pointers.converted;
    t.keptPlain += r.pointers.keptPlain["does-not-fit"] + r.pointers.keptPlain["chunks-missing"];
    t.directValues += r.values.direct.single + r.values.direct.flat + r.values.direct.tree;
    t.plainValues += r.values.plain;
    t.toastBytesBefore += r.toastHeap.bytesBefore;
    t.toastBytesAfter += r.toastHeap.bytesAfter;
    t.indexBytesBefore += r.toastIndexSize.bytesBefore;
    t.indexBytesAfter += r.toastIndexSize.bytesAfter;
    t.oidsNoLongerUsed += r.oidsNoLongerUsed.count;
  }
  return t;
}

export function btreeTotals(indexes: readonly IndexConversion[]): BtreeTotals {
  const t: BtreeTotals = { indexes: 0, pagesBefore: 0, pagesAfter: 0, bytesBefore: 0, bytesAfter: 0, leafPages: 0, leafCoded: 0, leafPlain: 0, groups: 0, bytesShared: 0, savingsHistogram: SAVINGS_BUCKETS.map(() => 0) };
  for (const r of indexes) {
    t.indexes++;
    t.pagesBefore += r.pagesBefore;
    t.pagesAfter += r.pagesAfter;
    t.bytesBefore += r.bytesBefore;
    t.bytesAfter += r.bytesAfter;
    t.leafPages += r.leafPages;
    t.leafCoded += r.leafCoded;
    t.leafPlain += r.leafPlain;
    t.groups += r.groups;
    t.bytesShared += r.bytesShared;
    r.savingsHistogram.forEach((n, k) => (t.savingsHistogram[k]! += n));
  }
  return t;
}

/** The report of a finished run. */
export function buildReport(
  plan: MigratePlan,
  o: MigrateOptions,
  f: { input: string; output: string; checksums: boolean; results: Map<string, TableConversion | IndexConversion>; control: ControlNameAction; sqlFile: string; journal: JournalSummary | null; copy: CopySummary | null; t0: number },
): MigrateReport {
  const databases: DatabaseResult[] = plan.databases.map((d) => ({
    database: d.database,
    tables: plan.units.filter((u) => u.kind === "toast" && u.database === d.database).map((u) => f.results.get(u.key) as TableConversion),
    indexes: plan.units.filter((u) => u.kind === "btree" && u.database === d.database).map((u) => f.results.get(u.key) as IndexConversion),
    skipped: d.skipped,
  }));
  return {
    schema: "pgdisk.migrate/1",
    input: f.input,
    output: f.output,
    inPlace: !!o.inPlace,
    toast: o.toast ?? null,
    btree: o.btree ? { to: o.btree.to, mode: o.btree.mode, policy: o.btree.to === "prefix" ? o.btree.policy : null } : null,
    checksums: f.checksums,
    savingsBuckets: SAVINGS_BUCKETS,
    databases,
    totals: { toast: toastTotals(databases.flatMap((d) => d.tables)), btree: btreeTotals(databases.flatMap((d) => d.indexes)) },
    control: f.control,
    sqlFile: f.sqlFile,
    journal: f.journal,
    copy: f.copy,
    seconds: (performance.now() - f.t0) / 1000,
  };
}

/** The input's pages every unit (and the catalogs of each database planned) reads, checked before anything is written. */
export function checkInput(cluster: Cluster, plan: MigratePlan, units: readonly PlanUnit[], checksums: boolean, progress: (m: string) => void): void {
  progress(`checking the input's pages${checksums ? " and checksums" : ""}`);
  const catalogs = plan.databases.flatMap((d) => catalogFiles(cluster.database(d.database)));
  assertInputPagesIntact([...catalogs, ...units.flatMap((u) => u.reads)], cluster.geometry, checksums);
}

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
