// The same differential check on a cluster built independently of the samples generator
// (catalog-heavy: views, sequences, partitions, an unlogged table, VACUUM FULL rewrites,
// enums, domains, composites, mixed-case names).
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { differentialSuite } from "./differential.js";
import { buildIndependentCluster, INDEPENDENT_DB } from "../pg/independent.js";

differentialSuite(
  async () => {
    const parent = mkdtempSync(join(tmpdir(), "pgdisk-indep-diff-"));
    chmodSync(parent, 0o755);
    const c = await buildIndependentCluster(join(parent, "cluster"));
    return { root: parent, pgdata: c.pgdata };
  },
  { db: INDEPENDENT_DB, minHeapItems: 1000, minBtreeItems: 500, minRows: 500, minToasted: 1, ams: ["btree"] },
);
