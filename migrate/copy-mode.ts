// How `--out` makes the new cluster's untouched files (--copy-mode): `clone` shares their blocks
// with the input (FICLONE reflinks: cp --reflink=always, after a probe with fs.copyFile's
// COPYFILE_FICLONE_FORCE; a filesystem without reflinks is said and copied), `copy` copies them,
// `link` hard-links relation files as pg_upgrade --link does (the input is then fenced: its
// pg_control renamed pg_control.old, because a server started on the output writes into files
// the input shares). The converted relations are always written anew (temporary file, rename),
// never through a shared inode. And: the free space is checked before anything is written.
import { constants, copyFileSync, existsSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FormatError } from "../formats/schema/errors.js";

export type CopyMode = "clone" | "copy" | "link";
export const COPY_MODES: readonly CopyMode[] = ["clone", "copy", "link"];

/** Whether files in `dir` can be cloned (a probe file, removed). */
export function reflinksWork(dir: string): boolean {
  const a = join(dir, `.pgdisk-reflink-probe-${process.pid}`);
  const b = `${a}-clone`;
  try {
    writeFileSync(a, "pgdisk");
    copyFileSync(a, b, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(a, { force: true });
    rmSync(b, { force: true });
  }
}

/** cp flags for one entry: relation data (base/, global/ relation files, tablespaces) or anything else (WAL, SLRUs, configuration). */
export function cpFlags(mode: CopyMode, kind: "data" | "other"): string[] {
  if (mode === "link" && kind === "data") return ["-a", "-l"];
  return ["-a", mode === "clone" ? "--reflink=always" : "--reflink=never"];
}

/** The nearest existing directory of a path (the one whose filesystem a new directory lands on). */
export function existingAncestor(p: string): string {
  let d = p;
  while (!existsSync(d)) d = dirname(d);
  return d;
}

/** Bytes of every file under a directory (links not followed). */
export function treeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += treeBytes(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** Refuse before anything is written when the filesystem holding `dir` has less than `need` bytes free. */
export function assertFreeSpace(dir: string, need: number, what: string): void {
  const at = existingAncestor(dir);
  const st = statfsSync(at);
  const free = Number(st.bavail) * Number(st.bsize);
  if (free < need) {
    throw new FormatError("OUTPUT_NO_SPACE", `${what} needs about ${(need / 1048576).toFixed(1)} MiB on the filesystem of ${at}, which has ${(free / 1048576).toFixed(1)} MiB free; nothing was written`, { file: at });
  }
}

/**
 * The same for bytes spread over several filesystems (in place: PGDATA and each tablespace): the
 * needs of the directories on one filesystem add up, and each filesystem is checked on its own.
 */
export function assertFreeSpaceEach(needs: readonly { dir: string; bytes: number }[], what: string): void {
  const byFilesystem = new Map<number, { dir: string; bytes: number }>();
  for (const n of needs) {
    const at = existingAncestor(n.dir);
    const dev = statSync(at).dev;
    const had = byFilesystem.get(dev);
    if (had) had.bytes += n.bytes;
    else byFilesystem.set(dev, { dir: at, bytes: n.bytes });
  }
  for (const f of byFilesystem.values()) assertFreeSpace(f.dir, f.bytes, what);
}

/** Hard links need one filesystem: refuse --copy-mode link across two. */
export function assertSameFilesystem(input: string, output: string): void {
  const at = existingAncestor(output);
  if (statSync(input).dev !== statSync(at).dev) {
    throw new FormatError("LINK_CROSS_DEVICE", `--copy-mode link hard-links files of ${input} into ${output}, which is on another filesystem (${at}); use --copy-mode clone or copy, or an output on the input's filesystem`, { file: output });
  }
}
