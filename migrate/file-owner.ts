// Who owns the files pgdisk writes into an output cluster: the data directory's owner, with the
// cluster's modes (PostgreSQL's own rule, common/file_perm.c: a data directory of mode 0750 means
// group access, files 0640; otherwise 0700 and 0600), whoever runs pgdisk. A server running as
// that owner must be able to read and write every file, and nothing may be more open than PGDATA.
import { chownSync, chmodSync, lchownSync, statSync } from "node:fs";
import { FormatError } from "../formats/schema/errors.js";

export interface ClusterOwner {
  uid: number;
  gid: number;
  /** 0o700, or 0o750 when the data directory allows group access */
  dirMode: number;
  /** 0o600, or 0o640 */
  fileMode: number;
}

/** The owner and modes of a data directory's files, read from the directory itself. */
export function clusterOwner(pgdata: string): ClusterOwner {
  const st = statSync(pgdata);
  const group = (st.mode & 0o777) === 0o750;
  return { uid: st.uid, gid: st.gid, dirMode: group ? 0o750 : 0o700, fileMode: group ? 0o640 : 0o600 };
}

/**
 * Refuse, before anything is written, a user who cannot give new files to the cluster's owner:
 * only root (or the owner itself) can.
 */
export function assertCanWriteAs(owner: ClusterOwner, pgdata: string): void {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0 || uid === owner.uid) return;
  throw new FormatError(
    "CLUSTER_OWNER_MISMATCH",
    `${pgdata} belongs to uid ${owner.uid}, but pgdisk runs as uid ${uid} and could not make the files it writes belong to that user; run it as the cluster's owner (e.g. runuser -u postgres -- pgdisk ...) or as root`,
    { file: pgdata },
  );
}

/** Give a path pgdisk created to the cluster's owner, with the cluster's mode for its kind. */
export function ownPath(path: string, owner: ClusterOwner, kind: "file" | "dir" | "link"): void {
  if (kind === "link") {
    lchownSync(path, owner.uid, owner.gid);
    return;
  }
  chownSync(path, owner.uid, owner.gid);
  chmodSync(path, kind === "dir" ? owner.dirMode : owner.fileMode);
}
