// Before a btree index is converted, its invariants are checked by verify's own checker
// (verify/relation.ts; no second copy): structure, sibling links, key order (BT_ITEM_ORDER, ...).
// The page checks the engine runs first (input-check.ts) see only single pages; a leaf whose
// keys are out of order would otherwise be rebuilt into a valid-looking index that misses rows.
// The first error stops the run with its code, file and block (exit 2); the run's failure path
// then leaves nothing written (the output removed, or in place every step undone). Checksums are
// not verified again (input-check.ts did), heapallindexed is not run. A TOAST unit needs no
// second pass: its converter reads every chunk of every value it rewrites and checks each one's
// value id, sequence number and length (TOAST_CHUNK_MISSING, TOAST_CHUNK_CHANGED,
// TOAST_VALUE_DAMAGED), and verify's heap check of the parent would add a full read for what
// the page checks already cover.
import { FormatError } from "../formats/schema/errors.js";
import type { ClusterContext } from "../verify/cluster-context.js";
import { verifyJob, type VerifyOptions } from "../verify/relation.js";
import type { PlanUnit } from "./plan.js";

const UNIT_CHECKS: VerifyOptions = { heapallindexed: false, toast: false, decompress: false, checksums: false, capPerCode: 1 };

/** Throw the first error-severity finding of verify's checks of a btree unit's index. */
export function assertUnitIntact(ctx: ClusterContext, u: PlanUnit): void {
  if (u.kind !== "btree") return;
  const cat = ctx.database(u.database);
  const report = verifyJob({ kind: "catalog", db: cat.db.oid, oid: u.relOid }, { ctx, opts: UNIT_CHECKS });
  const bad = report.findings.find((f) => f.severity === "error");
  if (bad) throw new FormatError(bad.code, `${u.name}: ${bad.message}; nothing was converted (run pgdisk verify to see all damage)`, { file: report.file, ...bad.location }, bad.detail);
}
