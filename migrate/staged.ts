// A converted relation, staged: its new files written and fsynced under temporary names, the
// steps that make them current (renames, then the forks removed) kept as data. A converter
// stages (in a worker thread with -j, or in the main thread); the engine switches the units in
// plan order, each between its journal records, so the journal and the result are the same
// whatever thread converted what. Each step can be repeated: a rename whose temporary file is
// gone was done, a removal of a missing file is done.
import type { RelationWriter } from "../formats/storage/relwriter.js";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { faultPoint, type FaultPoint } from "./fault-point.js";

export type StagedStep =
  /** rename `temp` over `target` */
  | { kind: "replace-file"; target: string; temp: string }
  /** remove `target` (a segment past a rebuilt file's end, a fork the converter drops) */
  | { kind: "remove-file"; target: string };

export interface StagedSwitch {
  steps: StagedStep[];
  /** a crash-test point fired before step `step` (after the steps before it) */
  fault?: { step: number; point: FaultPoint };
}

/** The steps of one unit's switch, in the order they run. */
export class StagedBuilder {
  private readonly steps: StagedStep[] = [];
  private fault?: StagedSwitch["fault"];

  /** A writer's staged files (renamed in) and its stale segments (removed); returns the new fork's bytes. */
  add(st: ReturnType<RelationWriter["stage"]>): number {
    let bytes = 0;
    for (const f of st.files) {
      this.steps.push({ kind: "replace-file", target: f.final, temp: f.temp });
      bytes += statSync(f.temp).size;
    }
    for (const f of st.stale) this.steps.push({ kind: "remove-file", target: f });
    return bytes;
  }

  remove(path: string): void {
    this.steps.push({ kind: "remove-file", target: path });
  }

  faultHere(point: FaultPoint): void {
    this.fault = { step: this.steps.length, point };
  }

  done(): StagedSwitch {
    return { steps: this.steps, fault: this.fault };
  }
}

/** Make a staged unit current; the caller fsyncs the directories (the journal's endUnit, or the output's final sync). */
export function switchStaged(s: StagedSwitch): void {
  s.steps.forEach((step, i) => {
    if (s.fault && i === s.fault.step) faultPoint(s.fault.point);
    if (step.kind === "replace-file") {
      if (existsSync(step.temp)) renameSync(step.temp, step.target);
    } else rmSync(step.target, { force: true });
  });
}

/** Drop a staged unit that will not be switched: its temporary files removed. */
export function discardStaged(s: StagedSwitch): void {
  for (const step of s.steps) if (step.kind === "replace-file") rmSync(step.temp, { force: true });
}
