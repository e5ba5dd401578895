// A converted relation, staged: its new files written and fsynced under temporary names, the
// steps that make them current (renames, then the forks removed) kept as data. A converter
// stages (in a worker thread with -j, or in the main thread); the engine switches the units in
// plan order, each between its journal records, so the journal and the result are the same
// whatever thread converted what. The steps are those of the bulk loader's switch (load/plan.ts).
import { applyPlan, discardPlan, type LoadPlan, type PlanOwner } from "./load/plan.js";
import type { RelationWriter } from "../formats/storage/relwriter.js";
import { existsSync, statSync } from "node:fs";
import { faultPoint, type FaultPoint } from "./fault-point.js";

/** The segments of a fork that exist (segment 0 first). */
export function forkSegments(path: string): string[] {
  const out: string[] = [];
  for (let s = 0; existsSync(s === 0 ? path : `${path}.${s}`); s++) out.push(s === 0 ? path : `${path}.${s}`);
  return out;
}

export interface StagedSwitch {
  plan: LoadPlan;
  /** a crash-test point fired before step `step` (after the steps before it) */
  fault?: { step: number; point: FaultPoint };
}

/** The steps of one unit's switch, in the order they run. */
export class StagedBuilder {
  private readonly plan: LoadPlan;
  private fault?: StagedSwitch["fault"];

  constructor(owner: PlanOwner) {
    this.plan = { schema: "pgdisk.load-plan/1", owner: { uid: owner.uid, gid: owner.gid, fileMode: owner.fileMode }, steps: [], staged: [] };
  }

  /** A writer's staged files (renamed in) and its stale segments (removed); returns the new fork's bytes. */
  add(st: ReturnType<RelationWriter["stage"]>): number {
    let bytes = 0;
    for (const f of st.files) {
      this.plan.steps.push({ kind: "replace-file", target: f.final, temp: f.temp });
      bytes += statSync(f.temp).size;
    }
    for (const f of st.stale) this.plan.steps.push({ kind: "remove-file", target: f });
    return bytes;
  }

  remove(path: string): void {
    this.plan.steps.push({ kind: "remove-file", target: path });
  }

  faultHere(point: FaultPoint): void {
    this.fault = { step: this.plan.steps.length, point };
  }

  done(): StagedSwitch {
    return { plan: this.plan, fault: this.fault };
  }
}

/** Make a staged unit current; the caller fsyncs the directories (the journal's endUnit, or the output's final sync). */
export function switchStaged(s: StagedSwitch): void {
  applyPlan(s.plan, (i) => s.fault && i === s.fault.step && faultPoint(s.fault.point), false);
}

/** Drop a staged unit that will not be switched: its temporary files removed. */
export function discardStaged(s: StagedSwitch): void {
  discardPlan(s.plan);
}
