// `pgdisk migrate --check`: the what-if report, with no write into the cluster. The conversion is
// run for real, by the same code, on a shadow of the cluster in a scratch directory: a tree of
// directories whose files are symbolic links to the input's (tablespaces included, as shadow
// trees of their own). A converter writes its new files beside the link (temporary name) and
// renames them over it, and removing a fork removes only the link, so the input is only read;
// the scratch directory ends up holding only the converted relations' new files, and is removed.
// So every figure of the report (bytes before and after, pointers kept plain and why, OIDs no
// longer used, TOAST index bytes, leaf pages coded, bytes shared, pages touched per value read)
// is the one the real conversion reports, and the run's time and the new files' bytes are what
// it would cost beyond the copy.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "../formats/catalog/cluster.js";
import { assertClusterStopped } from "./safety.js";
import { clusterOwner } from "./file-owner.js";
import { assertFreeSpace, treeBytes } from "./copy-mode.js";
import { controlAction } from "./control-name.js";
import { CONTROL_NAMES } from "../formats/catalog/control.js";
import { planMigration } from "./plan.js";
import { applyUnits, buildReport, checkInput, resultFence, type MigrateOptions, type MigrateReport, type UnitWriter } from "./apply-units.js";

/** A shadow of `src` in `dst`: directories made, files linked; a link to a directory (a tablespace) shadowed in turn. */
function shadowTree(src: string, dst: string): void {
  mkdirSync(dst, { recursive: true });
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const s = join(src, e.name);
    const d = join(dst, e.name);
    if (e.name === "postmaster.pid") continue;
    if (e.isDirectory()) shadowTree(s, d);
    else if (e.isSymbolicLink() && statSync(s).isDirectory()) shadowTree(realpathSync(s), d);
    else symlinkSync(realpathSync(s), d);
  }
}

export interface WhatIfSummary {
  /** seconds the conversion of the relations took here (the real run adds the copy with --out) */
  seconds: number;
  /** bytes of the new relation files (what --in-place needs free until the commit; what --out writes besides its copy) */
  newFileBytes: number;
}

export async function migrateWhatIf(o: MigrateOptions, t0: number): Promise<MigrateReport> {
  const input = realpathSync(o.pgdata);
  const progress = o.progress ?? (() => {});
  // no lock either: --check writes nothing in the cluster (a server started meanwhile only makes the report stale)
  const control = assertClusterStopped(input);
  const owner = clusterOwner(input);
  const scratch = mkdtempSync(join(o.scratch ?? tmpdir(), "pgdisk-check-"));
  try {
    const cluster = new Cluster(input);
    const plan = planMigration(cluster, o);
    const checksums = control.dataChecksumVersion !== 0;
    checkInput(cluster, plan, plan.units, checksums, progress);
    assertFreeSpace(scratch, plan.bytes, "--check (the converted relations' new files, in the scratch directory)");
    const shadow = join(scratch, "data");
    shadowTree(input, shadow);
    const t1 = performance.now();
    const writer: UnitWriter = { root: shadow, owner, checksums, fsync: false, inputFenced: control.renamed, done: new Set(), beginUnit: async () => {}, endUnit: async () => {} };
    const results = await applyUnits(plan, { ...o, progress }, writer, new Map(), cluster);
    const reason = resultFence(plan, o, writer, results);
    const seconds = (performance.now() - t1) / 1000;
    const newFileBytes = treeBytes(shadow);
    const file = join(input, "global", reason ? CONTROL_NAMES.renamed : CONTROL_NAMES.plain);
    const report = buildReport(plan, o, { input, output: input, checksums, results, control: controlAction(file, control.renamed, reason), sqlFile: "", journal: null, copy: null, t0 });
    return { ...report, check: { seconds, newFileBytes } };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
