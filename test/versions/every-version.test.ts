// The differential suite on every supported release, each against its own server from npm:
// the independent cluster (catalog-heavy, TOAST, partitions, enums, ...) built by PostgreSQL
// 13 to 18, pgdisk's page_header, heap_page_items, bt_page_items, bt_metap, bt_page_stats and
// every value compared with that server's pageinspect and COPY output, catalogs included.
import { describe } from "node:test";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { differentialSuite } from "../inspect/differential.js";
import { buildIndependentCluster, INDEPENDENT_DB } from "../pg/independent.js";
import { NPM_SERVER_VERSIONS } from "../../samples/pg-server.js";

for (const version of NPM_SERVER_VERSIONS) {
  describe(`PostgreSQL ${version}`, () => {
    differentialSuite(
      async () => {
        const parent = mkdtempSync(join(tmpdir(), `pgdisk-v${version}-diff-`));
        chmodSync(parent, 0o755);
        const c = await buildIndependentCluster(join(parent, "cluster"), { version });
        return { root: parent, pgdata: c.pgdata };
      },
      { db: INDEPENDENT_DB, minHeapItems: 1000, minBtreeItems: 500, minRows: 500, minToasted: 1, ams: ["btree"], version },
    );
  });
}
