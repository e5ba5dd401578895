// A load's switch through the journal (migrate/journal.ts), as `pgdisk migrate --in-place` runs
// its units: the plan record, the fence (pg_control -> pg_control.pgdisk-incomplete: no stock
// server starts while the switch is under way), the switch unit (plan.ts), the commit, then
// finish() (originals dropped, pg_control given back its name, the journal removed) and the
// staging files removed. After a kill at any point, `pgdisk load --pgdata DIR` resumes from the
// staged files (resumeLoad) and `pgdisk load --abort --pgdata DIR` undoes it (abortLoad).
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { CONTROL_NAMES } from "../../formats/catalog/control.js";
import { FormatError } from "../../formats/schema/errors.js";
import { Journal, JOURNAL_FILE, journalHint, journalWriter } from "../journal.js";
import { assertClusterStopped } from "../safety.js";
import { assertCanWriteAs, clusterOwner, type ClusterOwner } from "../file-owner.js";
import { lockInput } from "../input-lock.js";
import type { ControlNameAction } from "../control-name.js";
import { assertStaged, LOAD_PLAN_SCHEMA, removeStaged, SWITCH_UNIT, switchThroughJournal, type LoadPlan } from "./plan.js";

export interface SwitchResult {
  /** journal records written (the last run's, with those of an interrupted one it resumed) */
  records: number;
  resumed: boolean;
  control: ControlNameAction;
}

/** Why pg_control keeps the name pg_control.pgdisk after the load (null: it gets back its plain name). */
function fenceReason(j: Journal): string | null {
  // a cluster fenced before the load (BTP_PREFIX pages, Direct TOAST values) stays fenced; so does one the load gave Direct TOAST values
  if (j.fencedFrom === CONTROL_NAMES.renamed) return "the cluster held BTP_PREFIX pages or Direct TOAST values before the load";
  return (j.plan as LoadPlan).fence ?? null;
}

/** From a journal whose switch may have begun: the unfinished unit undone and done again, then commit and finish. */
function completeSwitch(j: Journal, pgdata: string, plan: LoadPlan, fsync: boolean): ControlNameAction {
  if (!j.committed) {
    try {
      j.undoUnfinished();
      if (!j.results().has(SWITCH_UNIT)) {
        assertStaged(pgdata, plan);
        switchThroughJournal(j, pgdata, plan);
      }
    } catch (e) {
      // a failure that is not a kill (no space, an I/O error): every step undone, nothing changed
      j.abort();
      removeStaged(pgdata, plan);
      if (!(e instanceof FormatError)) throw e;
      throw new FormatError(e.code, e.message, e.location, `${e.detail ? e.detail + "; " : ""}every change was undone: ${pgdata} holds its original files`);
    }
    j.commit(fenceReason(j));
  }
  removeStaged(pgdata, plan);
  return j.finish(fsync);
}

/** The switch of a freshly staged load: journal created, fence up, switched, committed, finished. */
export function switchLoad(pgdata: string, owner: ClusterOwner, plan: LoadPlan, fsync = true): SwitchResult {
  const j = Journal.create(pgdata, plan, owner, fsync);
  j.fenceUp();
  const control = completeSwitch(j, pgdata, plan, fsync);
  return { records: j.records.length, resumed: false, control };
}

/** The load an interrupted run journaled (the gate passed, the lock held): finished from its staged files. */
export function resumeLoad(pgdata: string, owner: ClusterOwner, want: { database?: string; table?: string }, fsync = true): { plan: LoadPlan; result: SwitchResult } {
  let j = Journal.open(pgdata, owner, fsync);
  const plan = j.plan as LoadPlan;
  const file = join(pgdata, JOURNAL_FILE);
  if (journalWriter(plan) !== "load" || plan.schema !== LOAD_PLAN_SCHEMA) {
    throw new FormatError("JOURNAL_PLAN_MISMATCH", `${file} is not a load's journal; ${journalHint(pgdata)}`, { file });
  }
  if ((want.database !== undefined && want.database !== plan.database) || (want.table !== undefined && want.table !== plan.table)) {
    throw new FormatError(
      "JOURNAL_PLAN_MISMATCH",
      `${file} records an interrupted load into ${plan.table} (database ${plan.database}); finish it first with pgdisk load --pgdata ${pgdata}, or undo it with pgdisk load --abort --pgdata ${pgdata}`,
      { file },
    );
  }
  if (j.changedNothing) {
    // killed before the fence went up: nothing was changed; the staged files are durable, switch anew
    j.remove();
    assertStaged(pgdata, plan);
    j = Journal.create(pgdata, plan, owner, fsync);
    j.fenceUp();
  }
  const control = completeSwitch(j, pgdata, plan, fsync);
  return { plan, result: { records: j.records.length, resumed: true, control } };
}

export interface LoadAbortReport {
  schema: "pgdisk.load-abort/1";
  pgdata: string;
  database: string;
  table: string;
  /** journal records whose steps were undone */
  records: number;
}

/** `pgdisk load --abort`: an interrupted load undone; every file of the cluster has its original bytes. */
export function abortLoad(pgdataArg: string): LoadAbortReport {
  const pgdata = realpathSync(pgdataArg);
  assertClusterStopped(pgdata, { journaled: true });
  const file = join(pgdata, JOURNAL_FILE);
  if (!Journal.exists(pgdata)) throw new FormatError("JOURNAL_MISSING", `${pgdata} has no ${JOURNAL_FILE}: no interrupted load to undo`, { file });
  const owner = clusterOwner(pgdata);
  assertCanWriteAs(owner, pgdata);
  const lock = lockInput(pgdata);
  try {
    const j = Journal.open(pgdata, owner);
    const plan = j.plan as LoadPlan;
    if (journalWriter(plan) !== "load") throw new FormatError("JOURNAL_PLAN_MISMATCH", `${file} is not a load's journal; ${journalHint(pgdata)}`, { file });
    const records = j.records.length;
    j.abort();
    removeStaged(pgdata, plan);
    return { schema: "pgdisk.load-abort/1", pgdata, database: plan.database, table: plan.table, records };
  } finally {
    lock?.release();
  }
}
