// Converters write into a copy of the input cluster, never into the input. The copy keeps
// ownership and modes (cp -a, reflinks where the filesystem has them); then only the relations
// being converted are rewritten in it. Rules:
//  - never through a link into the input: each tablespace (pg_tblspc/<oid>, a symlink) is copied
//    to a directory of the output's own (--tablespace-map OID=DIR, default OUT.tblspc/<oid>) and
//    the output's pg_tblspc link points there; a symlinked pg_wal (initdb -X) becomes a directory
//    of the output; any other symbolic link in the input is refused;
//  - fenced from the first write: OUT/PGDISK_INCOMPLETE is written first and pg_control is
//    copied as global/pg_control.pgdisk-incomplete, so no server starts on an output that was
//    interrupted (even by kill -9); unfenceOutput() gives pg_control its final name last.
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import { CONTROL_NAMES } from "../formats/catalog/control.js";
import { clusterOwner, ownPath, type ClusterOwner } from "./file-owner.js";
import { runCommand } from "./interrupt.js";
import { faultPoint } from "./fault-point.js";
import { writePgVersion } from "./pg-version.js";
import { assertSameFilesystem, cpFlags, existingAncestor, reflinksWork, type CopyMode } from "./copy-mode.js";

/** The name the input's pg_control gets while a --copy-mode link output shares its files (pg_upgrade's). */
export const LINKED_INPUT_CONTROL = "pg_control.old";

/** The marker an unfinished output carries (with pg_control under CONTROL_NAMES.incomplete). */
export const INCOMPLETE_MARKER = "PGDISK_INCOMPLETE";

export interface TablespaceCopy {
  oid: number;
  /** the input's tablespace directory (the link's target) */
  input: string;
  /** the output's own directory */
  output: string;
}

export interface OutputPlan {
  input: string;
  output: string;
  owner: ClusterOwner;
  tablespaces: TablespaceCopy[];
  /** the target of the input's pg_wal link, copied into OUT/pg_wal (null: pg_wal is a directory) */
  walLink: string | null;
  /** directories created outside OUT (removed with it when the conversion fails) */
  outside: string[];
  /** how untouched files are made (clone downgraded to copy where reflinks do not work) */
  mode: CopyMode;
  notes: string[];
  /** link mode: the input's pg_control was renamed (from, to), undone when the conversion fails */
  inputFence: { from: string; to: string } | null;
}

const isInside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir + "/");

/** A path that may not exist yet, with the links of its existing part resolved (so a link into the input is seen). */
function realPath(p: string): string {
  const abs = resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  return parent === abs ? abs : join(realPath(parent), abs.slice(parent.length + (parent.endsWith("/") ? 0 : 1)));
}

/** Parse --tablespace-map values "OID=DIR". */
export function parseTablespaceMap(values: readonly string[] | undefined): Map<number, string> {
  const map = new Map<number, string>();
  for (const v of values ?? []) {
    const m = /^(\d+)=(.+)$/.exec(v);
    if (!m) throw new FormatError("USAGE", `--tablespace-map takes OID=DIR (the tablespace's OID, as in pg_tblspc/OID), not "${v}"`);
    map.set(Number(m[1]), realPath(m[2]!));
  }
  return map;
}

function refuseLink(path: string): never {
  throw new FormatError(
    "INPUT_SYMLINK_UNSUPPORTED",
    `${path} is a symbolic link; only pg_wal and pg_tblspc/<oid> may be links in a data directory, and pgdisk would copy any other one as a link and write through it into files outside the output`,
    { file: path },
  );
}

/** Refuse a symbolic link anywhere under dir (the links pgdisk handles are checked before this). */
function assertNoLinks(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) refuseLink(p);
    if (e.isDirectory()) assertNoLinks(p);
  }
}

function assertFreshDir(dir: string, what: string): void {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new FormatError("OUTPUT_EXISTS", `${what} ${dir} exists and is not an empty directory; name a new directory`, { file: dir });
  }
}

/** Check everything the copy needs, write nothing: where each tablespace and pg_wal goes. */
export function planOutputCopy(srcPgdata: string, outPgdata: string, tablespaceMap: ReadonlyMap<number, string> = new Map(), wantMode: CopyMode = "clone"): OutputPlan {
  const input = realpathSync(srcPgdata);
  const output = realPath(outPgdata);
  if (isInside(output, input)) throw new FormatError("OUTPUT_INSIDE_INPUT", `the output ${output} must not be the input cluster or inside it`, { file: output });
  assertFreshDir(output, "output directory");
  const owner = clusterOwner(input);
  let walLink: string | null = null;
  const tablespaces: TablespaceCopy[] = [];
  const inputDirs = [input];
  for (const e of readdirSync(input, { withFileTypes: true })) {
    const p = join(input, e.name);
    if (e.name === "pg_wal" && e.isSymbolicLink()) {
      walLink = realpathSync(p);
      assertNoLinks(walLink);
      inputDirs.push(walLink);
    } else if (e.name === "pg_tblspc" && e.isDirectory()) {
      for (const t of readdirSync(p, { withFileTypes: true })) {
        const tp = join(p, t.name);
        if (!t.isSymbolicLink()) {
          if (t.isDirectory()) assertNoLinks(tp); // an in-place tablespace: copied with pg_tblspc
          continue;
        }
        if (!/^\d+$/.test(t.name)) refuseLink(tp);
        const target = realpathSync(tp);
        assertNoLinks(target);
        const oid = Number(t.name);
        tablespaces.push({ oid, input: target, output: tablespaceMap.get(oid) ?? realPath(`${output}.tblspc/${oid}`) });
        inputDirs.push(target);
      }
    } else if (e.isSymbolicLink()) refuseLink(p);
    else if (e.isDirectory()) assertNoLinks(p);
  }
  for (const oid of tablespaceMap.keys()) {
    if (!tablespaces.some((t) => t.oid === oid)) throw new FormatError("USAGE", `--tablespace-map names tablespace ${oid}, but ${input}/pg_tblspc has no link ${oid}`);
  }
  for (const t of tablespaces) {
    for (const d of inputDirs) {
      if (isInside(t.output, d) || isInside(d, t.output)) throw new FormatError("OUTPUT_INSIDE_INPUT", `the output directory ${t.output} for tablespace ${t.oid} overlaps the input's ${d}`, { file: t.output });
    }
    if (isInside(t.output, output)) throw new FormatError("USAGE", `the directory ${t.output} for tablespace ${t.oid} must be outside the output data directory ${output}`, { file: t.output });
    assertFreshDir(t.output, `the directory for tablespace ${t.oid}`);
  }
  let mode = wantMode;
  const notes: string[] = [];
  if (mode === "link") {
    assertSameFilesystem(input, output);
    for (const t of tablespaces) assertSameFilesystem(t.input, t.output);
  }
  if (mode === "clone" && !reflinksWork(existingAncestor(dirname(output)))) {
    mode = "copy";
    notes.push(`the filesystem of ${existingAncestor(dirname(output))} has no reflinks (FICLONE): files are copied`);
  }
  return { input, output, owner, tablespaces, walLink, outside: [], mode, notes, inputFence: null };
}

/** Make parent directories of an outside directory (recorded for removal), owned by the cluster's owner. */
function makeParents(dir: string, plan: OutputPlan): void {
  const parent = dirname(dir);
  if (existsSync(parent)) return;
  makeParents(parent, plan);
  mkdirSync(parent);
  ownPath(parent, plan.owner, "dir");
  plan.outside.push(parent);
}

const cp = (args: string[], abort: AbortSignal | undefined, flags: string[] = ["-a", "--reflink=auto"]): Promise<void> => runCommand("cp", [...flags, ...args], abort);

/** Relation files of global/ (a filenode, a fork, a segment): linked in link mode; the rest is copied. */
const isRelationFile = (name: string): boolean => /^\d+(_[a-z]+)?(\.\d+)?$/.test(name);

/** Link mode: the input's pg_control renamed as pg_upgrade --link does, so the input is not started while the output shares its files. */
function fenceLinkedInput(plan: OutputPlan, control: string): void {
  const global = join(plan.input, "global");
  renameSync(join(global, control), join(global, LINKED_INPUT_CONTROL));
  plan.inputFence = { from: control, to: LINKED_INPUT_CONTROL };
}

/** Copy the input as the plan says, fenced as incomplete from the first file written. */
export async function makeOutputCopy(plan: OutputPlan, abort?: AbortSignal): Promise<void> {
  const { input, output, owner } = plan;
  mkdirSync(dirname(output), { recursive: true });
  if (existsSync(output)) rmdirSync(output);
  ownedDirLike(input, output, owner);
  const marker = join(output, INCOMPLETE_MARKER);
  writeFileSync(marker, `pgdisk is writing (or was interrupted writing) this cluster from ${input}, pid ${process.pid}, started ${new Date().toISOString()}.\nIt is not a usable cluster: remove it and run the conversion again.\n`);
  ownPath(marker, owner, "file");
  faultPoint("copy-started");
  const flags = (kind: "data" | "other"): string[] => cpFlags(plan.mode, kind);
  // PG_VERSION before pg_control, fenced at once (control-name.ts): the output never holds a
  // pgdisk-named pg_control beside a stock PG_VERSION
  writePgVersion(output, true, { from: input, owner });
  // global/ first: pg_control arrives under the incomplete name, then (link mode) the input is fenced
  ownedDirLike(join(input, "global"), join(output, "global"), owner);
  const control = (Object.values(CONTROL_NAMES) as string[]).find((n) => existsSync(join(input, "global", n)));
  if (control) await cp([join(input, "global", control), join(output, "global", CONTROL_NAMES.incomplete)], abort, flags("other"));
  if (plan.mode === "link" && control) fenceLinkedInput(plan, control);
  const globals = readdirSync(join(input, "global")).filter((n) => !(Object.values(CONTROL_NAMES) as string[]).includes(n) && n !== LINKED_INPUT_CONTROL);
  const [globalData, globalOther] = [globals.filter(isRelationFile), globals.filter((n) => !isRelationFile(n))];
  if (globalData.length) await cp([...globalData.map((n) => join(input, "global", n)), join(output, "global") + "/"], abort, flags("data"));
  if (globalOther.length) await cp([...globalOther.map((n) => join(input, "global", n)), join(output, "global") + "/"], abort, flags("other"));
  const plain: string[] = [];
  for (const name of readdirSync(input).sort()) {
    if (name === "postmaster.pid" || name === "PG_VERSION" || name === "global" || name === "pg_tblspc" || name === "pg_wal" || name === "base") continue;
    plain.push(join(input, name));
  }
  if (existsSync(join(input, "base"))) await cp([join(input, "base"), output + "/"], abort, flags("data"));
  if (plain.length) await cp([...plain, output + "/"], abort, flags("other"));
  // pg_wal: a directory of the output's own, whether or not the input's is a link
  if (plan.walLink) {
    ownedDirLike(plan.walLink, join(output, "pg_wal"), owner);
    await cp([plan.walLink + "/.", join(output, "pg_wal")], abort, flags("other"));
  } else if (existsSync(join(input, "pg_wal"))) await cp([join(input, "pg_wal"), output + "/"], abort, flags("other"));
  // pg_tblspc/: in-place tablespaces copied, linked ones copied to their own directories
  if (existsSync(join(input, "pg_tblspc"))) {
    ownedDirLike(join(input, "pg_tblspc"), join(output, "pg_tblspc"), owner);
    for (const name of readdirSync(join(input, "pg_tblspc"))) {
      const t = plan.tablespaces.find((x) => String(x.oid) === name);
      if (!t) {
        await cp([join(input, "pg_tblspc", name), join(output, "pg_tblspc") + "/"], abort, flags("data"));
        continue;
      }
      makeParents(t.output, plan);
      if (existsSync(t.output)) rmdirSync(t.output);
      plan.outside.push(t.output);
      await cp([t.input, t.output], abort, flags("data"));
      const link = join(output, "pg_tblspc", name);
      symlinkSync(t.output, link);
      ownPath(link, owner, "link");
    }
  }
  faultPoint("copied");
}

/** mkdir dst with src's mode, owned by the cluster's owner. */
function ownedDirLike(src: string, dst: string, owner: ClusterOwner): void {
  mkdirSync(dst);
  ownPath(dst, { ...owner, dirMode: statSync(src).mode & 0o777 }, "dir");
}

/**
 * A conversion failed (or was stopped) after the output copy was begun: remove the output and its
 * outside directories (it must never look usable) and say so in the error's detail. Returns the
 * error to throw.
 */
export function abandonOutput(plan: OutputPlan, e: unknown): unknown {
  rmSync(plan.output, { recursive: true, force: true });
  if (plan.inputFence) {
    const global = join(plan.input, "global");
    if (existsSync(join(global, plan.inputFence.to))) renameSync(join(global, plan.inputFence.to), join(global, plan.inputFence.from));
    plan.inputFence = null;
  }
  for (const d of [...plan.outside].reverse()) {
    if (lstatSync(d, { throwIfNoEntry: false })) rmSync(d, { recursive: true, force: true });
  }
  if (!(e instanceof FormatError)) return e;
  const moved = new FormatError(e.code, e.message, e.location, `${e.detail ? e.detail + "; " : ""}the output ${plan.output} was removed; the input was not changed`);
  moved.stack = e.stack;
  return moved;
}
