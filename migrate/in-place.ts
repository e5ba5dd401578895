// `pgdisk migrate --in-place`: the cluster itself converted through the journal (journal.ts).
// Order: the gate and the lock; on a fresh run every page to be read is checked, then the
// journal's plan record is written and the fence goes up (pg_control -> pg_control.pgdisk-
// incomplete, so no server starts on a half-converted cluster); each unit guards the forks it
// may replace (originals kept as hard links) before the converter writes new files under
// temporary names (fsynced) and renames them in, and is recorded done once its directories are
// fsynced; then the SQL file, the commit record, the originals dropped, pg_control given its
// final name (pg_control, or pg_control.pgdisk while Direct TOAST or BTP_PREFIX remain), and the
// journal removed. After a crash, the same command resumes: the unit that was under way is
// undone and done again, so the result is byte for byte that of an uninterrupted run;
// `pgdisk migrate --abort` undoes every step instead.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { Cluster } from "../formats/catalog/cluster.js";
import { CONTROL_NAMES } from "../formats/catalog/control.js";
import { FormatError } from "../formats/schema/errors.js";
import { assertClusterStopped } from "./safety.js";
import { assertCanWriteAs, clusterOwner } from "./file-owner.js";
import { lockInput } from "./input-lock.js";
import { assertFreeSpaceEach } from "./copy-mode.js";
import { Journal, JOURNAL_FILE, journalHint, journalWriter, removeWriterLeftovers } from "./journal.js";
import { planMigration, type MigratePlan, type MigrateTargets } from "./plan.js";
import { applyUnits, buildReport, checkInput, MIGRATE_SQL_FILE, resultFence, resultSql, type MigrateOptions, type MigrateReport, type UnitWriter } from "./apply-units.js";
import type { TableConversion } from "./toast/table.js";
import type { IndexConversion } from "./btree/convert.js";

/** What the journal's plan record holds: the run's targets and its units, compared on resume. */
interface InPlacePlan {
  targets: MigrateTargets;
  units: string[];
}

const targetsOf = (o: MigrateOptions): MigrateTargets => ({ toast: o.toast, btree: o.btree, databases: o.databases, tables: o.tables, indexes: o.indexes });

/**
 * Units are converted (staged under temporary names) before the journal records them, so a run
 * killed then may leave a unit's temporary files that no record names: removed on resume and on
 * --abort, for every unit not done.
 */
function removeStagedLeftovers(plan: MigratePlan, done: ReadonlySet<string>): void {
  for (const u of plan.units) if (!done.has(u.key)) for (const f of u.forks) removeWriterLeftovers(f);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The journal is an in-place conversion's (not a load's, which pgdisk load resumes or aborts). */
function assertMigrateJournal(j: Journal, pgdata: string): void {
  const file = join(pgdata, JOURNAL_FILE);
  if (journalWriter(j.plan) !== "migrate") throw new FormatError("JOURNAL_PLAN_MISMATCH", `${file} is not an in-place conversion's journal; ${journalHint(pgdata)}`, { file });
}

export async function migrateInPlace(o: MigrateOptions, t0: number): Promise<MigrateReport> {
  const pgdata = realpathSync(o.pgdata);
  const progress = o.progress ?? (() => {});
  const fsync = o.fsync ?? true;
  const control = assertClusterStopped(pgdata, { journaled: true });
  const owner = clusterOwner(pgdata);
  assertCanWriteAs(owner, pgdata);
  const lock = lockInput(pgdata);
  try {
    let j: Journal | null = Journal.exists(pgdata) ? Journal.open(pgdata, owner, fsync) : null;
    if (j) assertMigrateJournal(j, pgdata);
    if (j?.changedNothing) {
      // killed before the fence went up: nothing was changed, start again
      j.remove();
      j = null;
    }
    const cluster = new Cluster(pgdata);
    const plan = planMigration(cluster, o);
    const wanted: InPlacePlan = { targets: targetsOf(o), units: plan.units.map((u) => u.key) };
    const checksums = control.dataChecksumVersion !== 0;
    let resumed = false;
    const redone: string[] = [];
    if (!j) {
      checkInput(cluster, plan, plan.units, checksums, progress);
      // the new files of each unit stand beside the originals until commit, on the filesystem
      // of the unit's own directory (a tablespace's may not be PGDATA's)
      assertFreeSpaceEach(plan.units.map((u) => ({ dir: dirname(u.forks[0]!), bytes: u.bytes })), "converting in place");
      j = Journal.create(pgdata, wanted, owner, fsync);
      j.fenceUp();
    } else {
      if (!sameJson(j.plan, wanted)) {
        throw new FormatError("JOURNAL_PLAN_MISMATCH", `${join(pgdata, JOURNAL_FILE)} records another run (${JSON.stringify((j.plan as InPlacePlan).targets)}); rerun that same command to finish it, or pgdisk migrate --abort --pgdata ${pgdata}`, { file: join(pgdata, JOURNAL_FILE) });
      }
      resumed = true;
      progress(`resuming the interrupted in-place run (${j.records.length} journal records)`);
      if (!j.committed) {
        const undone = j.undoUnfinished();
        if (undone) {
          redone.push(undone);
          progress(`undid the unfinished unit ${undone}`);
        }
        const done = j.results();
        removeStagedLeftovers(plan, new Set(done.keys()));
        checkInput(cluster, plan, plan.units.filter((u) => !done.has(u.key)), checksums, progress);
      }
    }
    const journal = j;
    const prior = journal.results() as Map<string, TableConversion | IndexConversion>;
    if (!journal.committed) {
      const writer: UnitWriter = {
        root: pgdata,
        owner,
        checksums,
        fsync,
        inputFenced: journal.fencedFrom === CONTROL_NAMES.renamed,
        done: new Set(prior.keys()),
        beginUnit: async (u) => {
          journal.beginUnit(u.key);
          for (const f of u.forks) journal.guardFork(f);
        },
        endUnit: async (u, result) => journal.endUnit(u.key, result),
      };
      let results: Map<string, TableConversion | IndexConversion>;
      try {
        results = await applyUnits(plan, o, writer, prior);
      } catch (e) {
        // a stop (SIGINT/SIGTERM) leaves the journal for a resume; any other failure undoes the run
        if (e instanceof FormatError && e.code === "INTERRUPTED") {
          throw new FormatError(e.code, e.message, e.location, `the cluster stays fenced; rerun the same command to resume, or undo it with pgdisk migrate --abort --pgdata ${pgdata}`);
        }
        journal.abort();
        if (!(e instanceof FormatError)) throw e;
        throw new FormatError(e.code, e.message, e.location, `${e.detail ? e.detail + "; " : ""}every change was undone: ${pgdata} holds its original files`);
      }
      const reason = resultFence(plan, o, writer, results);
      const sqlPath = join(pgdata, MIGRATE_SQL_FILE);
      const sql = new TextEncoder().encode(resultSql(plan, o, pgdata));
      if (existsSync(sqlPath)) journal.replaceFile(sqlPath, sql);
      else journal.createFile(sqlPath, sql);
      journal.commit(reason);
    }
    const records = journal.records.length;
    const action = journal.finish(fsync);
    return buildReport(plan, o, {
      input: pgdata,
      output: pgdata,
      checksums,
      results: journal.results() as Map<string, TableConversion | IndexConversion>,
      control: action,
      sqlFile: join(pgdata, MIGRATE_SQL_FILE),
      journal: { records, resumed, redone },
      copy: null,
      t0,
    });
  } finally {
    lock?.release();
  }
}

export interface AbortReport {
  schema: "pgdisk.migrate-abort/1";
  pgdata: string;
  /** journal records whose steps were undone */
  records: number;
}

/** `pgdisk migrate --abort`: undo an interrupted in-place run; the cluster holds its original bytes again. */
export function abortInPlace(pgdataArg: string): AbortReport {
  const pgdata = realpathSync(pgdataArg);
  assertClusterStopped(pgdata, { journaled: true });
  if (!Journal.exists(pgdata)) throw new FormatError("JOURNAL_MISSING", `${pgdata} has no ${JOURNAL_FILE}: no in-place conversion to undo`, { file: join(pgdata, JOURNAL_FILE) });
  const owner = clusterOwner(pgdata);
  assertCanWriteAs(owner, pgdata);
  const lock = lockInput(pgdata);
  try {
    const j = Journal.open(pgdata, owner);
    assertMigrateJournal(j, pgdata);
    const records = j.records.length;
    if (!j.committed) removeStagedLeftovers(planMigration(new Cluster(pgdata), (j.plan as InPlacePlan).targets), new Set());
    j.abort();
    return { schema: "pgdisk.migrate-abort/1", pgdata, records };
  } finally {
    lock?.release();
  }
}
