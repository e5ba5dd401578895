// While pgdisk reads a cluster to convert it, no server may start on it (a server started during
// the copy would change files under it). pgdisk holds the cluster's own lock file,
// postmaster.pid, as a postmaster does, for the whole run. A postmaster refuses to start while
// it names a live process it may signal; run as root, the file is root's with mode 0600, which a
// postmaster cannot even open (kill() on a root process fails with EPERM, which PostgreSQL
// takes for a dead one, so the owner alone would not keep it out). The third line says pgdisk.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../formats/schema/errors.js";

export const LOCK_TAG = "pgdisk";

export interface InputLock {
  file: string;
  release(): void;
}

/** Take the input's postmaster.pid (the gate has checked no live process holds it). null: a read-only cluster, no server can start there either. */
export function lockInput(pgdata: string): InputLock | null {
  const file = join(pgdata, "postmaster.pid");
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EROFS") return null;
    if (code !== "EEXIST") throw e;
    // a lock the gate found stale: pgdisk's own from a killed run is replaced, a server's is not
    if (readFileSync(file, "utf8").split("\n")[2] !== LOCK_TAG) {
      throw new FormatError("CLUSTER_STALE_LOCK", `${file} exists but names no live process; if no server runs on ${pgdata}, remove it (a stale lock of a crashed server) and run again`, { file });
    }
    rmSync(file);
    fd = openSync(file, "wx", 0o600);
  }
  try {
    writeSync(fd, `${process.pid}\n${pgdata}\n${LOCK_TAG}\n`);
  } finally {
    closeSync(fd);
  }
  return { file, release: () => rmSync(file, { force: true }) };
}
