// The switch of a load, as plain data: everything new has been written beside the cluster's files
// (staging files, temporary names, all fsynced); a plan lists the few steps that make it
// current, and applyPlan() carries them out. The interface is the plan's data and three
// functions, so that a journal can record a plan before its switch and replay or undo it:
//
// - applyPlan(plan): runs every step in order. Each step is idempotent (an append first cuts the
//   file back to its original length; a rename whose temporary file is gone was done), so a
//   switch interrupted at any point completes by running applyPlan again (roll forward).
// - discardPlan(plan): before the switch has started, removes everything staged and cuts
//   appended files back to their original lengths, leaving the cluster as it was.
// - planSummary(plan): one line per step, for reports and --dry-run.
// - writePlanFile / readPlanFile: the plan recorded (fsynced, the cluster owner's) before the
//   switch, read back to finish it.
import { closeSync, existsSync, fchmodSync, fchownSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncPath } from "../fsync.js";

/** Owner and mode of files a step creates (the data directory's). */
export interface PlanOwner {
  uid: number;
  gid: number;
  fileMode: number;
}

export type PlanStep =
  /** copy `length` bytes of `source` from `sourceOffset` to `target` at its original end; `newFile`: the target did not exist (a new segment) */
  | { kind: "append-file"; target: string; originalLength: number; newFile: boolean; source: string; sourceOffset: number; length: number }
  /** rename `temp` over `target` */
  | { kind: "replace-file"; target: string; temp: string }
  /** remove `target` (a segment past a rebuilt file's end, an index's stale free space map) */
  | { kind: "remove-file"; target: string };

export interface LoadPlan {
  schema: "pgdisk.load-plan/1";
  owner: PlanOwner;
  steps: PlanStep[];
  /** staging files read by the steps, removed once the switch is done */
  staged: string[];
}

const COPY_CHUNK = 8 << 20;

function appendFile(s: Extract<PlanStep, { kind: "append-file" }>, owner: PlanOwner, buf: Uint8Array): void {
  // a switch that ran to its end has removed the staging file: the append is there already
  if (!existsSync(s.source) && existsSync(s.target) && statSync(s.target).size === s.originalLength + s.length) return;
  const created = !existsSync(s.target);
  const fd = openSync(s.target, created ? "w+" : "r+", owner.fileMode);
  const src = openSync(s.source, "r");
  try {
    if (created) {
      fchownSync(fd, owner.uid, owner.gid);
      fchmodSync(fd, owner.fileMode);
    }
    ftruncateSync(fd, s.originalLength);
    for (let done = 0; done < s.length; ) {
      const n = readSync(src, buf, 0, Math.min(buf.length, s.length - done), s.sourceOffset + done);
      if (n <= 0) throw new Error(`${s.source}: short read at ${s.sourceOffset + done}`);
      for (let w = 0; w < n; ) w += writeSync(fd, buf, w, n - w, s.originalLength + done + w);
      done += n;
    }
    fsyncSync(fd);
  } finally {
    closeSync(src);
    closeSync(fd);
  }
}

/** Run the switch (again, after an interruption: every step is idempotent); syncDirs false: the caller fsyncs the directories (or --no-sync). */
export function applyPlan(plan: LoadPlan, onStep?: (i: number, step: PlanStep) => void, syncDirs = true): void {
  const buf = new Uint8Array(COPY_CHUNK);
  const dirs = new Set<string>();
  plan.steps.forEach((s, i) => {
    onStep?.(i, s);
    dirs.add(dirname(s.target));
    if (s.kind === "append-file") appendFile(s, plan.owner, buf);
    else if (s.kind === "replace-file") {
      if (existsSync(s.temp)) renameSync(s.temp, s.target);
    } else rmSync(s.target, { force: true });
  });
  if (syncDirs) for (const d of dirs) fsyncPath(d);
  for (const f of plan.staged) rmSync(f, { force: true });
}

/** Undo a plan whose switch has not started: staged files removed, appended files cut back. */
export function discardPlan(plan: LoadPlan): void {
  for (const s of plan.steps) {
    if (s.kind === "append-file") {
      if (existsSync(s.target) && (s.newFile || statSync(s.target).size > s.originalLength)) {
        if (s.newFile) rmSync(s.target);
        else truncateSync(s.target, s.originalLength);
      }
    } else if (s.kind === "replace-file") rmSync(s.temp, { force: true });
  }
  for (const f of plan.staged) rmSync(f, { force: true });
}

/** Record a plan (owned by the cluster's owner, fsynced) before its switch starts. */
export function writePlanFile(path: string, plan: LoadPlan): void {
  const fd = openSync(path, "w", plan.owner.fileMode);
  try {
    fchownSync(fd, plan.owner.uid, plan.owner.gid);
    fchmodSync(fd, plan.owner.fileMode);
    writeSync(fd, JSON.stringify(plan, null, 1) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncPath(dirname(path));
}

/** A recorded plan, to run its switch again after an interruption. */
export function readPlanFile(path: string): LoadPlan {
  const plan = JSON.parse(readFileSync(path, "utf8")) as LoadPlan;
  if (plan.schema !== "pgdisk.load-plan/1") throw new Error(`${path} is not a pgdisk load plan (schema ${String(plan.schema)})`);
  return plan;
}

export function planSummary(plan: LoadPlan): string[] {
  return plan.steps.map((s) =>
    s.kind === "append-file" ? `append ${s.length} bytes to ${s.target} (at ${s.originalLength})` : s.kind === "replace-file" ? `replace ${s.target}` : `remove ${s.target}`,
  );
}
