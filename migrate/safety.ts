// The offline-safety gate every writer passes before it reads a cluster to write a new one, as
// strict as pg_upgrade's: no server (nor a single-user backend) may be running on it, it must have
// been shut down cleanly as a primary (DB_SHUTDOWNED; a standby's in-recovery shutdown is not
// consistent without the WAL it has yet to replay), and nothing may be set up to start it in
// recovery (backup_label, standby.signal, recovery.signal): a server started on the output would
// replay WAL over pages pgdisk laid out anew.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import { CONTROL_NAMES, readControlFile, type ControlSummary } from "../formats/catalog/control.js";
import { xlogRecPtrText } from "../formats/storage/control-file.js";
import { LOCK_TAG } from "./input-lock.js";
import { journalHint, JOURNAL_FILE } from "./journal.js";

/** Every code the gate throws: an operational refusal (exit 1), not damage. */
export const GATE_CODES = [
  "CLUSTER_RUNNING", "CLUSTER_SINGLE_USER_RUNNING", "CLUSTER_NOT_CLEAN", "CLUSTER_IN_RECOVERY", "CLUSTER_BACKUP_LABEL",
  "CLUSTER_STANDBY_SIGNAL", "CLUSTER_RECOVERY_SIGNAL", "CLUSTER_INCOMPLETE_OUTPUT", "CLUSTER_OWNER_MISMATCH", "CLUSTER_LOCKED_BY_PGDISK", "CLUSTER_STALE_LOCK",
  "CLUSTER_JOURNAL_PRESENT",
] as const;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** postmaster.pid: a postmaster writes its PID, a single-user backend the negative of its PID. */
function assertNoLiveServer(pgdata: string): void {
  const pidFile = join(pgdata, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const lines = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid === 0 || !processAlive(Math.abs(pid))) return;
  if (lines[2] === LOCK_TAG) {
    throw new FormatError("CLUSTER_LOCKED_BY_PGDISK", `another pgdisk run (pid ${pid}) is converting ${pgdata}; wait for it to end`, { file: pidFile });
  }
  if (pid < 0) {
    throw new FormatError(
      "CLUSTER_SINGLE_USER_RUNNING",
      `a single-user backend (postgres --single, pid ${-pid}) is running on ${pgdata}; end its session (Ctrl-D) and wait for it to exit`,
      { file: pidFile },
    );
  }
  throw new FormatError("CLUSTER_RUNNING", `a server (pid ${pid}) is running on ${pgdata}; stop it first (pg_ctl -D ${pgdata} stop -m fast)`, { file: pidFile });
}

/** Files that make a server start in recovery: each refused with its own code and what to do. */
const RECOVERY_FILES = [
  {
    file: "backup_label",
    code: "CLUSTER_BACKUP_LABEL",
    what: "is a base backup that was never started (backup_label is present)",
    todo: "start it once so that it recovers to a consistent state, then stop it (pg_ctl stop -m fast)",
  },
  {
    file: "standby.signal",
    code: "CLUSTER_STANDBY_SIGNAL",
    what: "is set up as a standby (standby.signal is present)",
    todo: "promote it (pg_ctl promote) and stop it cleanly, or convert its primary instead",
  },
  {
    file: "recovery.signal",
    code: "CLUSTER_RECOVERY_SIGNAL",
    what: "is set up for targeted recovery (recovery.signal is present)",
    todo: "let the recovery finish (start it, wait for it to leave recovery, stop it with pg_ctl stop -m fast)",
  },
] as const;

/**
 * Throws one of GATE_CODES (with what to do) unless the cluster is safe to read offline for a
 * conversion. `journaled`: the caller resumes or aborts an in-place run, so its journal and the
 * pg_control it fenced are expected; any other caller is refused a cluster with a journal.
 */
export function assertClusterStopped(pgdata: string, opts: { journaled?: boolean } = {}): ControlSummary {
  assertNoLiveServer(pgdata);
  const journal = join(pgdata, JOURNAL_FILE);
  const hasJournal = existsSync(journal);
  if (hasJournal && !opts.journaled) {
    throw new FormatError(
      "CLUSTER_JOURNAL_PRESENT",
      `${pgdata} holds the journal of an interrupted run that writes in place (${JOURNAL_FILE}); ${journalHint(pgdata)}`,
      { file: journal },
    );
  }
  for (const r of RECOVERY_FILES) {
    const path = join(pgdata, r.file);
    if (existsSync(path)) throw new FormatError(r.code, `${pgdata} ${r.what}; pgdisk converts only a cluster shut down cleanly as a primary: ${r.todo}`, { file: path });
  }
  const control = readControlFile(pgdata);
  if (control.name === CONTROL_NAMES.incomplete && !hasJournal) {
    throw new FormatError(
      "CLUSTER_INCOMPLETE_OUTPUT",
      `${pgdata} is an output pgdisk did not finish writing (global/${CONTROL_NAMES.incomplete}); it is not a usable cluster: remove it and convert again from the input`,
      { file: control.file },
    );
  }
  const state = control.control.stateName;
  if (state === "DB_SHUTDOWNED_IN_RECOVERY") {
    throw new FormatError(
      "CLUSTER_IN_RECOVERY",
      `${pgdata} was shut down while in recovery (pg_control state: ${control.control.stateText}, minRecoveryPoint ${xlogRecPtrText(control.control.fields.minRecoveryPoint)}); its files are consistent only with WAL it has not replayed: promote it and stop it cleanly first (pg_ctl promote, then pg_ctl stop -m fast)`,
      { file: control.file },
    );
  }
  if (state !== "DB_SHUTDOWNED" || control.control.fields.backupEndRequired) {
    throw new FormatError(
      "CLUSTER_NOT_CLEAN",
      `${pgdata} was not shut down cleanly (pg_control state: ${control.control.stateText}); start and stop the server once (pg_ctl start, then pg_ctl stop -m fast) so that WAL is replayed and a shutdown checkpoint is written`,
      { file: control.file },
    );
  }
  return control;
}
