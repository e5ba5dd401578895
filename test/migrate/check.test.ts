// Issue #15, --check: the what-if report writes nothing into the cluster (md5, owner and mode of
// every file of the data directory, its tablespace and its WAL directory unchanged, no lock left)
// and its figures, per table and index and in total, are those the real conversion then reports.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { DB, fileDigests, linkedCluster, migrateCli, pgDir, removeDirs, type LinkedCluster } from "./helpers.js";

let c: LinkedCluster;
let work = "";
before(async () => {
  c = await linkedCluster();
  work = pgDir("check");
});
after(() => removeDirs(work, `${join(work, "data")}.tblspc`, c?.srv.root));

/** The report without what differs between two runs of the same conversion: times and the paths of the files written. */
function figures(r: Record<string, unknown>): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "seconds") continue;
      out[k] = k === "forksRemoved" ? (x as string[]).map((p) => basename(p)) : strip(x);
    }
    return out;
  };
  return { databases: strip(r.databases), totals: strip(r.totals), fence: (r.control as { action: string }).action };
}

test("--check writes nothing and its figures equal the conversion's, both formats at once", () => {
  const targets = ["-d", DB, "--toast", "direct", "--btree", "prefix", "--mode", "rebuild", "--json", "-q"];
  const before = fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir);
  const check = migrateCli(["--pgdata", c.srv.pgdata, "--check", ...targets]);
  assert.equal(check.status, 0, check.stderr);
  assert.deepEqual(fileDigests(c.srv.pgdata, c.tablespaceDir, c.walDir), before, "nothing written into the cluster");
  const whatIf = JSON.parse(check.stdout) as Record<string, unknown> & { check: { newFileBytes: number }; totals: { toast: { converted: number }; btree: { leafCoded: number } } };
  assert.ok(whatIf.check.newFileBytes > 0);
  assert.ok(whatIf.totals.toast.converted > 0 && whatIf.totals.btree.leafCoded > 0);
  const real = migrateCli(["--pgdata", c.srv.pgdata, "--out", join(work, "data"), ...targets]);
  assert.equal(real.status, 0, real.stderr);
  assert.deepEqual(figures(whatIf), figures(JSON.parse(real.stdout) as Record<string, unknown>));
});
