// Before a unit is converted, the invariants of what it reads are checked by verify's own checkers
// (verify/relation.ts; no second copy): a btree index's structure and key order (BT_ITEM_ORDER,
// ...), a table's heap and every TOAST value its pointers name. The page checks the engine runs
// first (input-check.ts) see only single pages; damage they cannot see (keys out of order, a
// chunk missing) would otherwise be rewritten into a valid-looking file. The first error stops
// the run with its code, file and block (exit 2); the run's failure path then leaves nothing
// written (the output removed, or in place every step undone). Checksums are not verified again
// (input-check.ts did), values are not decompressed, heapallindexed is not run.
import { FormatError } from "../formats/schema/errors.js";
import type { ClusterContext } from "../verify/cluster-context.js";
import { verifyJob, type VerifyOptions } from "../verify/relation.js";
import type { PlanUnit } from "./plan.js";

const UNIT_CHECKS: VerifyOptions = { heapallindexed: false, toast: true, decompress: false, checksums: false, capPerCode: 1 };

/** Throw the first error-severity finding of verify's checks of the unit's relation. */
export function assertUnitIntact(ctx: ClusterContext, u: PlanUnit): void {
  const cat = ctx.database(u.database);
  const report = verifyJob({ kind: "catalog", db: cat.db.oid, oid: u.relOid }, { ctx, opts: UNIT_CHECKS });
  const bad = report.findings.find((f) => f.severity === "error");
  if (bad) throw new FormatError(bad.code, `${u.name}: ${bad.message}; nothing was converted (run pgdisk verify to see all damage)`, { file: report.file, ...bad.location }, bad.detail);
}
