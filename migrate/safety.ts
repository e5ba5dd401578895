// The offline-safety gate every converter passes before it reads a cluster to write a new one:
// no server may be running on it, and it must have been shut down cleanly (otherwise the files
// are not consistent without WAL replay, which pgdisk does not do).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import { readControlFile, type ControlSummary } from "../formats/catalog/control.js";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Throws CLUSTER_RUNNING or CLUSTER_NOT_CLEAN (with what to do) unless the cluster is safe to read offline. */
export function assertClusterStopped(pgdata: string): ControlSummary {
  const pidFile = join(pgdata, "postmaster.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
      throw new FormatError("CLUSTER_RUNNING", `a server (pid ${pid}) is running on ${pgdata}; stop it first (pg_ctl -D ${pgdata} stop -m fast)`, { file: pidFile });
    }
  }
  const control = readControlFile(pgdata);
  if (!control.cleanShutdown) {
    throw new FormatError(
      "CLUSTER_NOT_CLEAN",
      `${pgdata} was not shut down cleanly (pg_control state: ${control.control.stateText}); start and stop the server once (pg_ctl start, then pg_ctl stop -m fast) so that WAL is replayed and a shutdown checkpoint is written`,
      { file: control.file },
    );
  }
  return control;
}
