// The frame every converter into a new cluster runs in: the gate and the output plan before
// anything is written, the input's pages checked, then the copy (fenced as incomplete) and the
// conversion; any failure or stop removes the output. The converter's own work is `body`.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ControlSummary } from "../formats/catalog/control.js";
import { assertClusterStopped } from "./safety.js";
import { assertCanWriteAs, ownPath } from "./file-owner.js";
import { abandonOutput, makeOutputCopy, planOutputCopy, type OutputPlan } from "./output-copy.js";
import { unfenceOutput, type ControlNameAction } from "./control-name.js";
import { lockInput } from "./input-lock.js";
import type { CopyMode } from "./copy-mode.js";

export interface OutputRunOptions {
  pgdata: string;
  out: string;
  /** tablespace OID -> the output's directory for it (default OUT.tblspc/<oid>) */
  tablespaceMap?: ReadonlyMap<number, string>;
  /** stop at the next safe point when aborted (the CLI aborts on SIGINT/SIGTERM) */
  abort?: AbortSignal;
  progress?: (message: string) => void;
  /** how the output's untouched files are made (default clone; copy-mode.ts) */
  copyMode?: CopyMode;
}

export interface PreparedOutput {
  input: string;
  output: string;
  control: ControlSummary;
  plan: OutputPlan;
}

/**
 * The frame of a conversion: everything checked before anything is written (the gate, the file
 * owner, where the output's files go), then the input locked against servers for the whole of
 * `work`, and unlocked however it ends.
 */
export async function withPreparedOutput<T>(o: OutputRunOptions, work: (p: PreparedOutput) => Promise<T>): Promise<T> {
  const control = assertClusterStopped(resolve(o.pgdata));
  const plan = planOutputCopy(o.pgdata, o.out, o.tablespaceMap, o.copyMode ?? "clone");
  assertCanWriteAs(plan.owner, plan.input);
  const lock = lockInput(plan.input);
  try {
    return await work({ input: plan.input, output: plan.output, control, plan });
  } finally {
    lock?.release();
  }
}

/** Copy the input, run the conversion in the copy; on any failure (or a stop) remove the output. */
export async function convertInCopy<T>(p: PreparedOutput, o: OutputRunOptions, body: () => Promise<T>): Promise<T> {
  for (const n of p.plan.notes) o.progress?.(n);
  o.progress?.(`${p.plan.mode === "link" ? "linking" : p.plan.mode === "clone" ? "cloning" : "copying"} ${p.input} to ${p.output}${p.plan.tablespaces.length ? ` (tablespaces to ${p.plan.tablespaces.map((t) => t.output).join(", ")})` : ""}`);
  try {
    await makeOutputCopy(p.plan, o.abort);
    return await body();
  } catch (e) {
    throw abandonOutput(p.plan, e);
  }
}

/** Write a small file of pgdisk's own (the SQL file) into the output, owned as the cluster's files are. */
export function writeOutputFile(p: PreparedOutput, name: string, text: string): string {
  const file = join(p.output, name);
  writeFileSync(file, text);
  ownPath(file, p.plan.owner, "file");
  return file;
}

/**
 * The last step: make everything written durable (the copy's files were not fsynced by cp: as
 * pg_upgrade and pg_checksums do, sync the file systems holding the output and its tablespaces),
 * then take the incomplete fence down. `reason`: why a stock server must still not start on it.
 */
export function finishOutput(p: PreparedOutput, reason: string | null, fsync = true): ControlNameAction {
  if (fsync) execFileSync("sync", ["-f", p.output, ...p.plan.tablespaces.map((t) => t.output)]);
  return unfenceOutput(p.output, p.control.renamed, reason, fsync);
}
