// The journal that makes a writer of a data directory crash-safe, resumable and abortable
// (pgdisk migrate --in-place; the bulk loader may use it the same way). It is one file in the
// data directory, PGDATA/pgdisk_journal: one JSON record per line, each fsynced before the step
// it announces is acted on, so after a crash the journal names every change that may have begun.
//
// API (plain data; paths are absolute, stored relative to the data directory):
//   Journal.create(pgdata, plan, owner, sync?)  first record: the plan (any JSON the writer compares
//                                        on resume); sync false (--no-sync): no fsync at all, safe
//                                        against a killed process, not against a machine crash
//   Journal.open(pgdata, owner, sync?)   the journal an interrupted run left (Journal.exists() first)
//   j.fenceUp()                          pg_control renamed to pg_control.pgdisk-incomplete: no server
//                                        starts until finish(); call it before the first change
//   j.beginUnit(key) / j.endUnit(key, result)
//                                        a unit of work (one relation); a unit begun and not ended
//                                        is undone by undoUnfinished() and done again on resume;
//                                        endUnit fsyncs the directories of the unit's files first
//   j.createFile(path, bytes)            a new file: written as path.pgdisk-tmp, fsynced, renamed
//   j.replaceFile(path, bytes)           the same over an existing file, whose original is kept
//                                        (hard link path.pgdisk-orig) until commit, for undo
//   j.appendToFile(path, bytes)          data appended; the original length is recorded (undo: truncate)
//   j.appendFrom(path, source, off, len) the same from a range of a staged file (the bulk loader's
//                                        new heap pages); a missing path is created
//   j.linkFrom(path, staged)             path replaced by (or created as) a hard link of a staged
//                                        file, which stays for a redo; the original kept for undo
//   j.removeFile(path)                   renamed to path.pgdisk-orig, removed at commit
//   j.guardFork(path)                    before a writer replaces a relation fork (every segment)
//                                        itself, through RelationWriter: the originals are kept as
//                                        hard links; undo restores them and removes new segments
//   j.updateControl(edit)                pg_control fields changed (e.g. nextOid), written as a temp
//                                        file and renamed, the original bytes kept in the journal
//   j.commit(reason)                     the point of no return: null (stock formats only) or why a
//                                        stock server must still not start (pg_control.pgdisk)
//   j.finish()                           originals dropped, the fence comes down (pg_control, or
//                                        pg_control.pgdisk per the commit's reason), journal removed;
//                                        after a crash past commit, open() + finish() completes it
//   j.abort()                            every step undone, newest first, the fence down, journal
//                                        removed: the directory holds its original bytes again
// Every undo is idempotent (a crash during an undo is undone again). Fault points `journal-N`
// (PGDISK_FAULT_AT) fire right after record N is durable, for the crash tests.
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { FormatError } from "../formats/schema/errors.js";
import { CONTROL_NAMES, controlFileName, type ControlName } from "../formats/catalog/control.js";
import { decodeControlFile, encodeControlFile, PG_CONTROL_FILE_SIZE, type ControlFileFields } from "../formats/storage/control-file.js";
import { ownPath, type ClusterOwner } from "./file-owner.js";
import { faultPoint } from "./fault-point.js";
import { controlAction, unfenceOutput, type ControlNameAction } from "./control-name.js";
import { settlePgVersion, writePgVersion } from "./pg-version.js";
import { fsyncPath, switchInto, writeDurably, writeSynced } from "./fsync.js";
import { segmentPath } from "../formats/storage/relfile.js";

export const JOURNAL_FILE = "pgdisk_journal";
const ORIG = ".pgdisk-orig";
const TMP = ".pgdisk-tmp";

/** What a writer of the fork `path` left half-made: segments under the temporary name, a build's scratch file. */
export function removeWriterLeftovers(path: string): void {
  const dir = dirname(path);
  const base = basename(path);
  const leftover = (name: string): boolean => name === `${base}.pgdisk-build` || (name.startsWith(base) && name.endsWith(TMP) && /^(\.\d+)?$/.test(name.slice(base.length, -TMP.length)));
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) if (leftover(name)) rmSync(join(dir, name), { force: true });
}

export type JournalRecord =
  | { kind: "plan"; plan: unknown }
  | { kind: "fence"; from: ControlName }
  | { kind: "unit"; key: string }
  | { kind: "unit-done"; key: string; result: unknown }
  | { kind: "create"; path: string }
  | { kind: "replace"; path: string }
  | { kind: "append"; path: string; length: number }
  | { kind: "remove"; path: string }
  | { kind: "fork"; path: string; segments: number }
  | { kind: "control"; original: string }
  /** records from..here-1 were undone (skipped by later undos) */
  | { kind: "undone"; from: number }
  | { kind: "commit"; reason: string | null };

/** What a cluster's journal was written by: a load's plan record says so (writer "load"), migrate's does not. */
export function journalWriter(plan: unknown): "load" | "migrate" {
  return (plan as { writer?: unknown } | null)?.writer === "load" ? "load" : "migrate";
}

/** The commands that finish or undo the run the journal in pgdata records. */
export function journalHint(pgdata: string): string {
  let plan: unknown = null;
  try {
    plan = (JSON.parse(readFileSync(join(pgdata, JOURNAL_FILE), "utf8").split("\n")[0]!) as { plan?: unknown }).plan;
  } catch {
    // unreadable: the migrate wording, whose --abort reports the damage
  }
  return journalWriter(plan) === "load"
    ? `rerun pgdisk load --pgdata ${pgdata} to finish the interrupted load from its staged files, or undo it with pgdisk load --abort --pgdata ${pgdata}`
    : `rerun the same pgdisk migrate --in-place command to finish it, or undo it with pgdisk migrate --abort --pgdata ${pgdata}`;
}

/** Put the kept original back (a no-op rename when both names are one inode, so the link is then removed). */
function restoreOriginal(path: string): void {
  const orig = path + ORIG;
  if (!existsSync(orig)) return;
  renameSync(orig, path);
  rmSync(orig, { force: true });
}

const COPY_CHUNK = 8 << 20;

/** Copy length bytes of source from offset into fd at `at`, in large chunks; fsync fd. */
function copyRange(source: string, offset: number, length: number, fd: number, at: number, sync: boolean): void {
  const src = openSync(source, "r");
  try {
    const buf = new Uint8Array(Math.min(COPY_CHUNK, Math.max(length, 1)));
    for (let done = 0; done < length; ) {
      const n = readSync(src, buf, 0, Math.min(buf.length, length - done), offset + done);
      if (n <= 0) throw new FormatError("JOURNAL_DAMAGED", `${source} ends at ${offset + done}, before the ${length} bytes a journal step copies from it`, { file: source });
      for (let w = 0; w < n; ) w += writeSync(fd, buf, w, n - w, at + done + w);
      done += n;
    }
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(src);
  }
}

export class Journal {
  private fd: number;

  private constructor(
    readonly pgdata: string,
    readonly records: JournalRecord[],
    private readonly owner: ClusterOwner,
    /** fsync records, files and directories (false: --no-sync, safe against a kill, not a machine crash) */
    private readonly sync: boolean,
  ) {
    this.fd = openSync(join(pgdata, JOURNAL_FILE), "a");
  }

  static exists(pgdata: string): boolean {
    return existsSync(join(pgdata, JOURNAL_FILE));
  }

  static create(pgdata: string, plan: unknown, owner: ClusterOwner, sync = true): Journal {
    const file = join(pgdata, JOURNAL_FILE);
    if (existsSync(file)) throw new FormatError("JOURNAL_PRESENT", `${file} exists: an in-place run was interrupted; rerun it or abort it first`, { file });
    writeDurably(file, new Uint8Array(), owner, sync);
    if (sync) fsyncPath(pgdata);
    const j = new Journal(pgdata, [], owner, sync);
    j.append({ kind: "plan", plan });
    return j;
  }

  /** The records an interrupted run left (a torn last line, from a crash while it was written, is dropped). */
  static open(pgdata: string, owner: ClusterOwner, sync = true): Journal {
    const file = join(pgdata, JOURNAL_FILE);
    const records: JournalRecord[] = [];
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    for (const [i, line] of lines.entries()) {
      if (!line) continue;
      try {
        records.push(JSON.parse(line) as JournalRecord);
      } catch {
        if (i >= lines.length - 2) break; // the last line, torn by a crash: its step never began
        throw new FormatError("JOURNAL_DAMAGED", `${file} line ${i + 1} is not a journal record`, { file });
      }
    }
    if (records[0]?.kind !== "plan") throw new FormatError("JOURNAL_DAMAGED", `${file} does not begin with a plan record`, { file });
    const j = new Journal(pgdata, records, owner, sync);
    // rewrite it whole when a torn line was dropped, so that appends start on a line of their own
    if (text.length && !text.endsWith("\n")) {
      closeSync(j.fd);
      writeDurably(file + TMP, new TextEncoder().encode(records.map((r) => JSON.stringify(r) + "\n").join("")), owner, sync);
      switchInto(file + TMP, file, sync);
      j.fd = openSync(file, "a");
    }
    return j;
  }

  private syncPath(path: string): void {
    if (this.sync) fsyncPath(path);
  }

  get plan(): unknown {
    return (this.records[0] as { plan: unknown }).plan;
  }

  /** The name pg_control had before the fence went up (undefined: the fence never went up). */
  get fencedFrom(): ControlName | undefined {
    return (this.records.find((r) => r.kind === "fence") as { from: ControlName } | undefined)?.from;
  }

  /**
   * Nothing was changed yet: no fence record, or killed between it and the rename (the last
   * record, and pg_control still under its old name). Such a journal is simply removed.
   */
  get changedNothing(): boolean {
    const at = this.records.findIndex((r) => r.kind === "fence");
    return at < 0 || (at === this.records.length - 1 && !existsSync(join(this.pgdata, "global", CONTROL_NAMES.incomplete)));
  }

  get committed(): { reason: string | null } | undefined {
    return this.records.find((r): r is Extract<JournalRecord, { kind: "commit" }> => r.kind === "commit");
  }

  /** Results of the units ended, by key. */
  results(): Map<string, unknown> {
    const m = new Map<string, unknown>();
    for (const r of this.live()) if (r.kind === "unit-done") m.set(r.key, r.result);
    return m;
  }

  private abs(p: string): string {
    return join(this.pgdata, p);
  }

  private append(r: JournalRecord): void {
    const line = JSON.stringify("path" in r ? { ...r, path: relative(this.pgdata, r.path) } : r) + "\n";
    const bytes = new TextEncoder().encode(line);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    if (this.sync) fsyncSync(this.fd);
    this.records.push(JSON.parse(line) as JournalRecord);
    faultPoint(`journal-${this.records.length}`);
  }

  /** The records not undone, oldest first, with their index. */
  private live(): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.kind === "undone") i = r.from;
      else out.push(r);
    }
    return out.reverse();
  }

  fenceUp(): void {
    const from = controlFileName(this.pgdata);
    if (!from || from === CONTROL_NAMES.incomplete) throw new FormatError("CONTROL_MISSING", `${this.pgdata}/global has no pg_control to fence`, { file: join(this.pgdata, "global") });
    this.append({ kind: "fence", from });
    const global = join(this.pgdata, "global");
    writePgVersion(this.pgdata, true, { owner: this.owner, fsync: this.sync });
    renameSync(join(global, from), join(global, CONTROL_NAMES.incomplete));
    this.syncPath(global);
  }

  beginUnit(key: string): void {
    this.append({ kind: "unit", key });
  }

  /** The unit's files are switched: fsync their directories, then record it done with its result. */
  endUnit(key: string, result: unknown): void {
    const start = this.records.map((r) => r.kind === "unit" && r.key === key).lastIndexOf(true);
    const dirs = new Set<string>();
    for (const r of this.records.slice(start)) if ("path" in r) dirs.add(dirname(this.abs(r.path)));
    for (const d of dirs) this.syncPath(d);
    this.append({ kind: "unit-done", key, result });
  }

  createFile(path: string, bytes: Uint8Array): void {
    this.append({ kind: "create", path });
    writeDurably(path + TMP, bytes, this.owner, this.sync);
    switchInto(path + TMP, path, this.sync);
  }

  replaceFile(path: string, bytes: Uint8Array): void {
    this.append({ kind: "replace", path });
    writeDurably(path + TMP, bytes, this.owner, this.sync);
    rmSync(path + ORIG, { force: true });
    linkSync(path, path + ORIG);
    switchInto(path + TMP, path, this.sync);
  }

  /**
   * Bytes [offset, offset + length) of a staged file (kept) added at the end of path; a path that
   * does not exist yet (a new segment) is created, as createFile() does.
   */
  appendFrom(path: string, source: string, offset: number, length: number): void {
    if (!existsSync(path)) {
      this.append({ kind: "create", path });
      const fd = openSync(path + TMP, "w", this.owner.fileMode);
      try {
        copyRange(source, offset, length, fd, 0, this.sync);
      } finally {
        closeSync(fd);
      }
      ownPath(path + TMP, this.owner, "file");
      switchInto(path + TMP, path, this.sync);
      return;
    }
    const at = statSync(path).size;
    this.append({ kind: "append", path, length: at });
    const fd = openSync(path, "r+");
    try {
      copyRange(source, offset, length, fd, at, this.sync);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * path gets the content of a staged file (durable already, the cluster owner's) through a hard
   * link, so the staged file stays for a redo after an undo; an existing path is kept for undo as
   * replaceFile() keeps it. The staged file must not be named path.pgdisk-tmp (undo removes that).
   */
  linkFrom(path: string, staged: string): void {
    const existed = existsSync(path);
    this.append(existed ? { kind: "replace", path } : { kind: "create", path });
    rmSync(path + TMP, { force: true });
    linkSync(staged, path + TMP);
    if (existed) {
      rmSync(path + ORIG, { force: true });
      linkSync(path, path + ORIG);
    }
    switchInto(path + TMP, path, this.sync);
  }

  appendToFile(path: string, bytes: Uint8Array): void {
    this.append({ kind: "append", path, length: statSync(path).size });
    writeSynced(path, "a", bytes, this.sync);
  }

  removeFile(path: string): void {
    this.append({ kind: "remove", path });
    renameSync(path, path + ORIG);
    this.syncPath(dirname(path));
  }

  guardFork(path: string): void {
    let segments = 0;
    while (existsSync(segmentPath(path, segments))) segments++;
    this.append({ kind: "fork", path, segments });
    for (let s = 0; s < segments; s++) {
      rmSync(segmentPath(path, s) + ORIG, { force: true });
      linkSync(segmentPath(path, s), segmentPath(path, s) + ORIG);
    }
    this.syncPath(dirname(path));
  }

  /** Change pg_control's fields (its CRC recomputed), whatever name it has now. */
  updateControl(edit: (fields: ControlFileFields) => void): void {
    const file = this.controlPath();
    const original = new Uint8Array(readFileSync(file));
    const decoded = decodeControlFile(original);
    const fields = structuredClone(decoded.fields) as ControlFileFields;
    edit(fields);
    const bytes = encodeControlFile(fields, { fileSize: original.length || PG_CONTROL_FILE_SIZE });
    this.append({ kind: "control", original: Buffer.from(original).toString("base64") });
    writeDurably(file + TMP, bytes, this.owner, this.sync);
    switchInto(file + TMP, file, this.sync);
  }

  private controlPath(): string {
    const name = controlFileName(this.pgdata);
    if (!name) throw new FormatError("CONTROL_MISSING", `${this.pgdata}/global has no pg_control`, { file: join(this.pgdata, "global") });
    return join(this.pgdata, "global", name);
  }

  commit(reason: string | null): void {
    this.append({ kind: "commit", reason });
  }

  /**
   * After commit: drop the originals kept for undo, give pg_control its final name (pg_control, or
   * pg_control.pgdisk when the commit's reason says a stock server must still not start), remove
   * the journal. Each step is idempotent: after a crash here, open() and finish() again.
   */
  finish(fsync = true): ControlNameAction {
    const committed = this.committed;
    if (!committed) throw new FormatError("JOURNAL_NOT_COMMITTED", `finish() before commit() in ${join(this.pgdata, JOURNAL_FILE)}`);
    this.dropOriginals();
    const inputWasRenamed = this.fencedFrom === CONTROL_NAMES.renamed;
    const global = join(this.pgdata, "global");
    let action: ControlNameAction;
    if (existsSync(join(global, CONTROL_NAMES.incomplete))) action = unfenceOutput(this.pgdata, inputWasRenamed, committed.reason, fsync);
    else {
      // unfenceOutput settles PG_VERSION itself; here pg_control already has its final name
      action = controlAction(join(global, committed.reason ? CONTROL_NAMES.renamed : CONTROL_NAMES.plain), inputWasRenamed, committed.reason);
      settlePgVersion(this.pgdata, fsync);
    }
    this.remove();
    return action;
  }

  private dropOriginals(): void {
    for (const r of this.live()) {
      if (r.kind === "replace" || r.kind === "remove") rmSync(this.abs(r.path) + ORIG, { force: true });
      if (r.kind === "fork") for (let s = 0; s < r.segments; s++) rmSync(segmentPath(this.abs(r.path), s) + ORIG, { force: true });
    }
  }

  /** Remove the journal itself: the last step of finishing or aborting (or of a run that changed nothing). */
  remove(): void {
    closeSync(this.fd);
    rmSync(join(this.pgdata, JOURNAL_FILE), { force: true });
    this.syncPath(this.pgdata);
  }

  /** Undo one record's step (idempotent). */
  private undoStep(r: JournalRecord): void {
    const path = "path" in r ? this.abs(r.path) : "";
    switch (r.kind) {
      case "create":
        rmSync(path + TMP, { force: true });
        rmSync(path, { force: true });
        break;
      case "replace":
        rmSync(path + TMP, { force: true });
        restoreOriginal(path);
        break;
      case "append":
        if (existsSync(path) && statSync(path).size > r.length) truncateSync(path, r.length);
        break;
      case "remove":
        restoreOriginal(path);
        break;
      case "fork": {
        for (let s = 0; s < r.segments; s++) restoreOriginal(segmentPath(path, s));
        for (let s = r.segments; existsSync(segmentPath(path, s)); s++) rmSync(segmentPath(path, s));
        removeWriterLeftovers(path);
        break;
      }
      case "control": {
        const file = this.controlPath();
        writeDurably(file + TMP, new Uint8Array(Buffer.from(r.original, "base64")), this.owner, this.sync);
        switchInto(file + TMP, file, this.sync);
        break;
      }
      case "fence": {
        const global = join(this.pgdata, "global");
        if (existsSync(join(global, CONTROL_NAMES.incomplete))) renameSync(join(global, CONTROL_NAMES.incomplete), join(global, r.from));
        this.syncPath(global);
        settlePgVersion(this.pgdata, this.sync);
        break;
      }
      default:
        return;
    }
    if (path) this.syncPath(dirname(path));
  }

  /** Undo the records from index `from` on (not those already undone), newest first, and record it. */
  private undoFrom(from: number): void {
    for (let i = this.records.length - 1; i >= from; i--) {
      const r = this.records[i]!;
      if (r.kind === "undone") {
        i = r.from;
        continue;
      }
      this.undoStep(r);
    }
  }

  /** A unit begun and not ended (a crash inside it): undo its steps. Returns its key, or null. */
  undoUnfinished(): string | null {
    const live = this.live();
    const last = [...live].reverse().find((r) => r.kind === "unit" || r.kind === "unit-done");
    if (!last || last.kind !== "unit") return null;
    const from = this.records.lastIndexOf(last);
    this.undoFrom(from);
    this.append({ kind: "undone", from });
    return last.key;
  }

  /** Every step undone, the fence down, the journal removed: the directory as it was. */
  abort(): void {
    if (this.committed) throw new FormatError("JOURNAL_COMMITTED", `the run journaled in ${join(this.pgdata, JOURNAL_FILE)} was committed; rerun the same command to finish it`, { file: join(this.pgdata, JOURNAL_FILE) });
    this.undoFrom(1);
    this.remove();
  }
}
