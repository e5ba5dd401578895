// PG_VERSION's half of the format fence (formats/catalog/control.ts has the texts): fenced while
// global/pg_control has a pgdisk name, stock once it has its own name back.
import { chmodSync, chownSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CONTROL_NAMES, controlFileName, parsePgVersion, pgVersionFenceText, pgVersionPlainText } from "../formats/catalog/control.js";
import { fsyncPath } from "./fsync.js";

const PG_VERSION_TMP = "PG_VERSION.pgdisk-tmp";

/**
 * Give PG_VERSION the fence text (`fenced`) or the stock one, durably: written whole under a
 * temporary name with the old file's owner and mode, fsynced, renamed over it, the directory
 * fsynced. A no-op when it already says so, or when the directory has no PG_VERSION.
 */
export function writePgVersion(pgdata: string, fenced: boolean, fsync = true): void {
  const file = join(pgdata, "PG_VERSION");
  if (!existsSync(file)) return;
  const old = readFileSync(file, "utf8");
  const { major } = parsePgVersion(old);
  const text = fenced ? pgVersionFenceText(Number(major)) : pgVersionPlainText(Number(major));
  if (old === text) return;
  const st = statSync(file);
  const tmp = join(pgdata, PG_VERSION_TMP);
  const fd = openSync(tmp, "w", st.mode & 0o777);
  try {
    const b = Buffer.from(text, "utf8");
    for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, st.mode & 0o777);
  if (process.getuid?.() === 0) chownSync(tmp, st.uid, st.gid);
  renameSync(tmp, file);
  if (fsync) fsyncPath(pgdata);
}

/** PG_VERSION as pg_control's name says: fenced unless pg_control has its stock name (idempotent). */
export function settlePgVersion(pgdata: string, fsync = true): void {
  rmSync(join(pgdata, PG_VERSION_TMP), { force: true });
  writePgVersion(pgdata, controlFileName(pgdata) !== CONTROL_NAMES.plain, fsync);
}
