// One unit of a `pgdisk migrate` run converted and staged (migrate/staged.ts), nothing switched:
// the same function runs in the main thread (-j 1) and in the worker threads (unit-pool.ts), on a
// Cluster opened on the directory written. The job and its result are plain data (they cross
// threads by structured clone).
import type { Cluster } from "../formats/catalog/cluster.js";
import type { ClusterOwner } from "./file-owner.js";
import type { BtreeTarget, PlanUnit } from "./plan.js";
import type { TargetFlavour } from "./toast/plan.js";
import type { StagedSwitch } from "./staged.js";
import type { MeasurePair } from "./toast/measure.js";
import { convertTable, type TableConversion } from "./toast/table.js";
import { BtreeCatalog } from "./btree/index-info.js";
import { convertIndex, type IndexConversion } from "./btree/convert.js";
import type { ClusterContext } from "../verify/cluster-context.js";
import { assertUnitIntact } from "./unit-verify.js";

export interface UnitJob {
  unit: PlanUnit;
  /** its place in the plan, for progress lines */
  index: number;
  units: number;
  toast?: TargetFlavour;
  btree?: BtreeTarget;
  checksums: boolean;
  fsync: boolean;
  owner: ClusterOwner;
  /** values per class sampled for the pages-touched figures (read after the switch) */
  measure: number;
}

export interface StagedUnit {
  key: string;
  result: TableConversion | IndexConversion;
  staged: StagedSwitch;
  samples: MeasurePair[];
}

/** Convert one unit of the cluster `cluster` (the one written; `checks` verify's context on it), staged, after verify's checks of what it reads. */
export function stageUnit(cluster: Cluster, checks: ClusterContext, job: UnitJob, progress: (m: string) => void): StagedUnit {
  const u = job.unit;
  assertUnitIntact(checks, u);
  const cat = cluster.database(u.database);
  const rel = cat.classes.get(u.relOid)!;
  const at = `[${job.index + 1}/${job.units}] ${u.database}`;
  if (u.kind === "toast") {
    progress(`${at}: ${u.name}: TOAST to ${job.toast}`);
    const s = convertTable({ cat, inCat: cat, to: job.toast!, checksums: job.checksums, measure: job.measure, fsync: job.fsync, owner: job.owner, progress }, rel);
    const r = s.result;
    progress(`${r.table}: ${r.pointers.converted} of ${r.pointers.total} pointers converted, TOAST ${r.toastHeap.pagesBefore} -> ${r.toastHeap.pagesAfter} pages, index ${r.toastIndexSize.pagesBefore} -> ${r.toastIndexSize.pagesAfter} pages (${r.seconds.toFixed(1)} s)`);
    return { key: u.key, result: r, staged: s.staged, samples: s.samples };
  }
  const b = job.btree!;
  const info = new BtreeCatalog(cat).info(rel);
  progress(`${at}: ${info.name}: ${b.mode} to ${b.to}${b.to === "prefix" ? ` (policy ${b.policy})` : ""}`);
  const s = convertIndex(info, cat.path(rel), { to: b.to, mode: b.mode, policy: b.policy, geometry: cluster.geometry, checksums: job.checksums, owner: job.owner, fsync: job.fsync, progress });
  const r = s.result;
  progress(`${info.name}: ${r.pagesBefore} -> ${r.pagesAfter} pages, ${r.leafCoded} of ${r.leafPages} leaf pages coded (${r.seconds.toFixed(1)} s)`);
  return { key: u.key, result: r, staged: s.staged, samples: [] };
}
