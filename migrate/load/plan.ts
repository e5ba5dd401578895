// The switch of a load, as plain data: everything new has been written beside the cluster's files
// (staging files named *.pgdisk-load, all fsynced); the plan lists the few steps that make it
// current, and the journal (migrate/journal.ts, the one home of crash-safe switching) records
// it as its plan record and carries the steps out, each mapped onto a journal step:
//
//   append          -> j.appendFrom   new heap pages at the end of a segment (or a new segment)
//   link            -> j.linkFrom     a rebuilt fork file (index, VM, FSM) in place of the old one
//   remove          -> j.removeFile   a segment past a rebuilt file's end, an index's old FSM
//   update-control  -> j.updateControl pg_control fields advanced (nextOid, for OIDs a load took)
//
// The steps form one journal unit, "switch": a kill inside it is undone on resume and the unit
// done again from the staged files (the journal's links keep them), so a resumed load gives the
// bytes of an uninterrupted one; `pgdisk load --abort` undoes every step. Paths are relative
// to the data directory, so a plan stays valid if the cluster is moved while interrupted.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../../formats/schema/errors.js";
import type { Journal } from "../journal.js";

export const LOAD_PLAN_SCHEMA = "pgdisk.load-plan/2";
/** Suffix of the staging files (not .pgdisk-tmp, which the journal's undo removes). */
export const STAGE_SUFFIX = ".pgdisk-load";
/** The journal unit of a load's switch. */
export const SWITCH_UNIT = "switch";

export type SwitchStep =
  /** `length` bytes of `source` from `sourceOffset` appended to `target` (created when it is a new segment) */
  | { kind: "append"; target: string; source: string; sourceOffset: number; length: number }
  /** `target` replaced by (or created as) the staged file `staged` */
  | { kind: "link"; target: string; staged: string }
  /** `target` removed */
  | { kind: "remove"; target: string }
  /** pg_control's nextOid set (a load that took OIDs advances it past them) */
  | { kind: "update-control"; nextOid: number };

export interface LoadPlan<Report = unknown> {
  schema: typeof LOAD_PLAN_SCHEMA;
  /** tells the journal's readers which command wrote it (journalWriter) */
  writer: "load";
  database: string;
  table: string;
  steps: SwitchStep[];
  /** staging files the steps read, removed once the switch is committed */
  staged: string[];
  /** why pg_control must keep the name pg_control.pgdisk afterwards (Direct TOAST values loaded), or null */
  fence: string | null;
  /** what the finished load reports (printed again by a resumed run) */
  report: Report;
}

/** A step with its paths made relative to the data directory (stages build them absolute). */
export function relativeStep(s: SwitchStep, rel: (p: string) => string): SwitchStep {
  if (s.kind === "append") return { ...s, target: rel(s.target), source: rel(s.source) };
  if (s.kind === "link") return { ...s, target: rel(s.target), staged: rel(s.staged) };
  if (s.kind === "remove") return { ...s, target: rel(s.target) };
  return s;
}

/** Every staged file a step reads exists (a resume needs them); else what to run instead. */
export function assertStaged(pgdata: string, plan: LoadPlan): void {
  for (const s of plan.steps) {
    const f = s.kind === "append" ? s.source : s.kind === "link" ? s.staged : null;
    if (f && !existsSync(join(pgdata, f))) {
      throw new FormatError("JOURNAL_DAMAGED", `${join(pgdata, f)}, staged by the interrupted load, is missing: the load cannot be finished; undo it with pgdisk load --abort --pgdata ${pgdata}`, { file: join(pgdata, f) });
    }
  }
}

/** Carry out the switch as one journal unit (heap appends first: every index entry then points at a tuple that exists). */
export function switchThroughJournal(j: Journal, pgdata: string, plan: LoadPlan): void {
  const abs = (p: string): string => join(pgdata, p);
  j.beginUnit(SWITCH_UNIT);
  for (const s of plan.steps) {
    if (s.kind === "append") j.appendFrom(abs(s.target), abs(s.source), s.sourceOffset, s.length);
    else if (s.kind === "link") j.linkFrom(abs(s.target), abs(s.staged));
    else if (s.kind === "remove") j.removeFile(abs(s.target));
    else j.updateControl((f) => (f.checkPointCopy.nextOid = s.nextOid));
  }
  j.endUnit(SWITCH_UNIT, null);
}

/** Remove the staging files (before a switch, after its commit, or after an abort). */
export function removeStaged(pgdata: string, plan: Pick<LoadPlan, "staged">): void {
  for (const f of plan.staged) rmSync(join(pgdata, f), { force: true });
}
