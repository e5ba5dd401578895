// How many blocks one unit of a parallel dump covers. A unit's output is held whole until it is
// written in order, so units are sized by the output they are expected to give, not by blocks
// alone: with TOAST values resolved, a block of a table stands for its share of the TOAST
// relation too (a TOAST-heavy table of 700 blocks gave one unit of hundreds of MiB, two of them
// at once 1.4-2 GiB). Estimated from file sizes, so the bound holds for any database size.
import { existsSync } from "node:fs";
import { RelationFork } from "../../formats/storage/relfile.js";
import type { ResolvedRelation } from "./target.js";
import type { DumpOptions } from "./dump.js";

/** Expected output of one unit at most (file bytes; compressed values expand by their ratio). */
export const UNIT_OUTPUT_BYTES = 16 << 20;
export const MAX_UNIT_BLOCKS = 1024;

/** Blocks per unit for a relation of `blocks` blocks to dump. */
export function unitBlocksFor(r: ResolvedRelation, opts: DumpOptions, blocks: number, budget = UNIT_OUTPUT_BYTES): number {
  const bs = r.geometry.blockSize;
  const perBlock = bs + (opts.detoast ? toastBytes(r) / Math.max(1, blocks) : 0);
  return Math.max(1, Math.min(MAX_UNIT_BLOCKS, Math.floor(budget / perBlock)));
}

/** Bytes of the main fork of the relation's TOAST relation (0 without one). */
function toastBytes(r: ResolvedRelation): number {
  const toast = r.rel?.toastRelid ? r.catalog?.classes.get(r.rel.toastRelid) : undefined;
  if (!toast || !r.catalog || toast.filenode === 0) return 0;
  const path = r.catalog.path(toast);
  if (!existsSync(path)) return 0;
  const fork = new RelationFork(path, r.geometry);
  try {
    return fork.nblocks * r.geometry.blockSize;
  } finally {
    fork.close();
  }
}
