// The CLI side of every `pgdisk migrate` conversion: SIGINT/SIGTERM become an AbortSignal the
// engine stops at (its output removed), and errors map to exit statuses: 1 for a refusal or an
// impossible request, 2 for damage in the input, 128 + the signal's number when stopped.
import { constants } from "node:os";
import { FormatError } from "../formats/schema/errors.js";
import { reportError } from "../cli/exit.js";

/** The safety rules every converter's --help states (docs/migrate-safety.md has the whole list). */
export const SAFETY_HELP = `Safety (docs/migrate-safety.md): the input must be stopped, shut down cleanly as a primary, with
no backup_label, standby.signal or recovery.signal; every page read from a converted relation
is checked first (checksum, header), and damage stops the run with exit 2 before anything is
written. The output gets its own copy of each tablespace (OUT.tblspc/OID, or --tablespace-map)
and its own pg_wal; nothing is written through a link into the input. New files belong to the
data directory's owner with its modes. Until the run ends the output carries PGDISK_INCOMPLETE
and global/pg_control.pgdisk-incomplete, so no server starts on an interrupted output; SIGINT
and SIGTERM stop at the next safe point and remove it (exit 130, 143). For the whole run pgdisk
holds the input's postmaster.pid, so no server starts on the input while it is read. In place
(--in-place), every step is journaled first (PGDATA/pgdisk_journal) and pg_control is named
pg_control.pgdisk-incomplete until the end: after a crash or a stop, rerun the same command to
resume, or undo everything with pgdisk migrate --abort --pgdata DIR.`;

/** Run a writer with signal handling; the exit status is the error code's class (cli/exit.ts). */
export async function runMigrateAction(run: (abort: AbortSignal) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  const stop = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) return;
    process.stderr.write(`pgdisk: ${sig} received: stopping at the next safe point (an output is removed; a cluster converted in place stays fenced, to resume or --abort)\n`);
    ac.abort(sig);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    await run(ac.signal);
  } catch (e) {
    const code = reportError(e);
    if (e instanceof FormatError && e.code === "INTERRUPTED") process.exitCode = 128 + constants.signals[ac.signal.reason as NodeJS.Signals];
    else process.exitCode = code;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
