// Durable writes: a file's bytes fsynced, a renamed or created entry made durable by fsyncing its
// directory (as pg_checksums and initdb do), files given to the cluster's owner.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ownPath, type ClusterOwner } from "./file-owner.js";

export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write bytes to a file ("w": anew, "a": at its end) and fsync it. */
export function writeSynced(path: string, flags: "w" | "a", bytes: Uint8Array, sync: boolean, mode = 0o600): void {
  const fd = openSync(path, flags, mode);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write a whole file durably (not yet under its final name), owned as the cluster's files. */
export function writeDurably(path: string, bytes: Uint8Array, owner: ClusterOwner, sync: boolean): void {
  writeSynced(path, "w", bytes, sync, owner.fileMode);
  ownPath(path, owner, "file");
}

/** Rename tmp over path, durably (the directory fsynced before and after). */
export function switchInto(tmp: string, path: string, sync: boolean): void {
  if (sync) fsyncPath(dirname(path));
  renameSync(tmp, path);
  if (sync) fsyncPath(dirname(path));
}
