// The differential suite (test/inspect/differential.ts) on PostgreSQL's own regression database:
// every page header, heap line pointer, tuple header and btree item against pageinspect, every
// value against COPY TO, on a cluster no one here wrote. Not part of the CI suite (building the
// database needs PostgreSQL's source tree and a C compiler): scripts/regression-db.sh builds it
// and runs this file with PGDISK_REGRESSION_PGDATA set to the stopped cluster (copied, never
// changed) and PGDISK_REGRESSION_FOREIGN to the OIDs of the types whose output function is in
// the regression suite's own regress.so.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { differentialSuite } from "../inspect/differential.js";

const source = process.env.PGDISK_REGRESSION_PGDATA;
if (!source) throw new Error("set PGDISK_REGRESSION_PGDATA to a stopped regression cluster (scripts/regression-db.sh does)");
const foreign = new Set((process.env.PGDISK_REGRESSION_FOREIGN ?? "").split(",").filter(Boolean).map(Number));

differentialSuite(
  async () => {
    const parent = mkdtempSync(join(tmpdir(), "pgdisk-regress-diff-"));
    chmodSync(parent, 0o755);
    execFileSync("cp", ["-a", source, join(parent, "data")]);
    return { root: parent, pgdata: join(parent, "data") };
  },
  { db: "regression", minHeapItems: 100_000, minBtreeItems: 100_000, minRows: 50_000, minToasted: 10, ams: ["btree", "hash", "gist", "gin", "spgist", "brin"], foreignOutputTypes: foreign },
);
