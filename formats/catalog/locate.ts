// Finding the data directory that holds a relation file (the folder with global/pg_control,
// or global/pg_control.pgdisk in a converted cluster).
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Walk up from a file to the data directory that holds it. */
export function findPgdata(file: string): string | undefined {
  let d = dirname(resolve(file));
  for (let i = 0; i < 6; i++) {
    if (existsSync(`${d}/global/pg_control`) || existsSync(`${d}/global/pg_control.pgdisk`)) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return undefined;
}
