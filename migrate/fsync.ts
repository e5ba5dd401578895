// fsync of a file or a directory by path: a renamed or created entry is durable only once its
// directory is synced (as pg_checksums and initdb do).
import { closeSync, fsyncSync, openSync } from "node:fs";

export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
