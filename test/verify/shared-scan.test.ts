// A table whose B-tree indexes are split over several scheduling units is read once for all their
// heapallindexed probes: the index units publish their entry tables (shared memory, handed from
// worker threads to the main thread) and the table's unit probes them all. With 8 threads the
// tiny sample's web_links is split that way; the reports must be those of a single-thread run,
// clean and with a heap key changed behind the indexes' back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { renameSync } from "node:fs";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";
import { ClusterContext } from "../../verify/cluster-context.js";
import { groupUnits, planJobs } from "../../verify/targets.js";
import type { GroupJob, RelationReport } from "../../verify/relation.js";
import { Damager } from "./damage.js";

const copy = tinySampleCopyForFile();

const scope = { database: "pgdisk_sample", relations: ["web_links"] };

/** What must not depend on the arrangement: everything but the timings. */
const comparable = (rs: RelationReport[]): unknown[] => rs.map((r) => ({ ...r, ms: 0 }));

test("with 8 threads, web_links's index units publish their entries and the table's unit probes them all", () => {
  const ctx = new ClusterContext(copy.pgdata);
  const planned = planJobs({ pgdata: copy.pgdata, ...scope }, ctx);
  const units = groupUnits(planned, true, 8);
  const groups = units.map((u) => u.job).filter((j): j is GroupJob => j.kind === "group");
  const publishing = groups.filter((j) => j.publish);
  const scans = groups.filter((j) => j.stages.some((st) => st.remote?.length));
  assert.ok(publishing.length >= 2, `index units that publish: ${publishing.length}`);
  assert.equal(scans.length, 1);
  const published = publishing.flatMap((j) => j.stages.flatMap((st) => st.indexes)).sort();
  assert.deepEqual(scans[0].stages.flatMap((st) => st.remote ?? []).sort(), published);
  // with one thread nothing is split
  assert.ok(groupUnits(planned, true, 1).every((u) => u.job.kind !== "group" || (!u.job.publish && u.job.stages.every((st) => !st.remote))));
});

test("clean: the split run reports exactly what a one-thread run reports", async () => {
  const one = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 1 });
  const eight = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 8 });
  assert.equal(eight.summary.workers, 8);
  assert.deepEqual(comparable(eight.reports), comparable(one.reports));
  const pkey = eight.reports.find((r) => r.name === "web_links_pkey")!;
  assert.ok(pkey.checks.includes("heapallindexed"));
  assert.ok(pkey.stats.heapTuplesProbed! > 0 && pkey.stats.indexEntries! > 0, JSON.stringify(pkey.stats));
});

test("a heap key changed behind the index's back is found by the split run too", async () => {
  const d = new Damager(copy.pgdata);
  try {
    d.shiftFirstInt8("web_links", 2, 100000n); // the primary key (id, int8) of a live tuple
    const one = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 1 });
    const eight = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 8 });
    assert.deepEqual(comparable(eight.reports), comparable(one.reports));
    const missing = eight.reports.flatMap((r) => r.findings.filter((f) => f.code === "BT_HEAP_TUPLE_NOT_INDEXED").map(() => r.name));
    assert.ok(missing.includes("web_links_pkey"), missing.join(", "));
    assert.equal(eight.summary.exitCode, 2);
    assert.equal(eight.reports.find((r) => r.name === "web_links_pkey")!.status, "corrupt");
  } finally {
    d.restore();
  }
});

test("an index unit that cannot give entries (its file is gone) does not hold the table's unit up", async () => {
  const d = new Damager(copy.pgdata);
  const path = d.path("web_links_url_idx");
  renameSync(path, `${path}.away`);
  try {
    const one = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 1 });
    const eight = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 8 });
    assert.deepEqual(comparable(eight.reports), comparable(one.reports));
    assert.deepEqual(eight.reports.find((r) => r.name === "web_links_url_idx")!.findings.map((f) => f.code), ["REL_FILE_MISSING"]);
    assert.ok(eight.reports.find((r) => r.name === "web_links_pkey")!.stats.heapTuplesProbed! > 0);
  } finally {
    renameSync(`${path}.away`, path);
  }
});
