import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { differentialSuite } from "../inspect/differential.js";

differentialSuite(
  async () => {
    const parent = mkdtempSync(join(tmpdir(), "pgdisk-regress-diff-"));
    chmodSync(parent, 0o755);
    execFileSync("cp", ["-a", "/work/regress/srv/data", join(parent, "data")]);
    return { root: parent, pgdata: join(parent, "data") };
  },
  { db: "regression", minHeapItems: 1000, minBtreeItems: 500, minRows: 500, minToasted: 1, ams: ["btree", "hash", "gist", "gin", "spgist", "brin"] },
);
