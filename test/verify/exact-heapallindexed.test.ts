// --exact-heapallindexed: an index entry matches a live heap tuple only with its exact TID and
// exactly its normalised bytes (the 64-bit fingerprint only picks the entries to compare). The
// pieces (the TID table's entry refs, the kept tuples) against plain references, then whole runs
// of the tiny sample: the same reports as the fingerprint comparison, clean and with a heap key
// changed behind the index's back, with one thread and with eight (nothing published then).
import { test } from "node:test";
import assert from "node:assert/strict";
import { TidFingerprints } from "../../verify/nbtree/fingerprint.js";
import { KeptTuples } from "../../verify/nbtree/heapallindexed.js";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { runVerify } from "../../verify/run.js";
import { ClusterContext } from "../../verify/cluster-context.js";
import { groupUnits, planJobs } from "../../verify/targets.js";
import type { RelationReport } from "../../verify/relation.js";
import { Damager } from "./damage.js";

let seed = 31337;
const rnd = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

test("the TID table hands back every entry with a TID and a fingerprint, with its ref", () => {
  const set = new TidFingerprints(0, undefined, true);
  const ref = new Map<string, number[]>();
  for (let i = 0; i < 20000; i++) {
    const block = rnd(50);
    const off = 1 + rnd(40);
    const fp = rnd(3); // few fingerprints: the same TID and fingerprint recur
    set.add(block, off, fp, -fp, i);
    const k = `${block}/${off}/${fp}`;
    ref.set(k, [...(ref.get(k) ?? []), i]);
  }
  set.finish(50);
  for (let block = 0; block < 50; block++) {
    for (let off = 1; off <= 41; off++) {
      const any = [0, 1, 2].some((fp) => ref.has(`${block}/${off}/${fp}`));
      for (const fp of [0, 1, 2]) {
        const want = ref.get(`${block}/${off}/${fp}`) ?? [];
        const got: number[] = [];
        let k = set.find(block, off, fp, -fp, -1);
        if (!any) assert.equal(k, -1, `(${block},${off}) has no entry`);
        for (; k >= 0; k = set.find(block, off, fp, -fp, k)) got.push(set.refAt(k));
        assert.equal(k, any ? -2 : -1);
        assert.deepEqual(got.sort((a, b) => a - b), want, `(${block},${off}) fingerprint ${fp}`);
      }
    }
  }
});

test("kept tuples compare equal only byte for byte, with the same t_info and size", () => {
  const kept = new KeptTuples();
  const tuples: { at: number; t: Uint8Array; info: number }[] = [];
  for (let i = 0; i < 3000; i++) {
    const size = 8 * (1 + rnd(40));
    const t = Uint8Array.from({ length: size }, () => rnd(256));
    const info = (rnd(4) << 14) | size;
    const page = new Uint8Array(size + 100);
    const start = rnd(90);
    page.set(t, start);
    tuples.push({ at: kept.keep(page, start, size, info), t, info });
  }
  for (const { at, t, info } of tuples) {
    assert.ok(kept.same(at, t, t.length, info));
    assert.ok(!kept.same(at, t, t.length, info ^ 0x4000), "t_info differs");
    if (t.length > 8) {
      const other = Uint8Array.from(t);
      other[8 + rnd(t.length - 8)] ^= 1 + rnd(255);
      assert.ok(!kept.same(at, other, t.length, info), "one byte differs");
      const longer = new Uint8Array(t.length + 8);
      longer.set(t);
      assert.ok(!kept.same(at, longer, longer.length, info), "size differs");
    }
    // t_tid (bytes 0-5) is not compared: the entry's TID is
    const tid = Uint8Array.from(t);
    tid[0] ^= 0xff;
    assert.ok(kept.same(at, tid, t.length, info));
  }
});

const copy = tinySampleCopyForFile();

const scope = { database: "pgdisk_sample", relations: ["web_links", "accounts", "toast_docs"] };
const comparable = (rs: RelationReport[]): unknown[] => rs.map((r) => ({ ...r, ms: 0 }));

test("exact runs report what fingerprint runs report, with one thread and with eight (nothing published)", async () => {
  const ctx = new ClusterContext(copy.pgdata);
  const units = groupUnits(planJobs({ pgdata: copy.pgdata, ...scope }, ctx), true, 8, false);
  assert.ok(units.every((u) => u.job.kind !== "group" || (!u.job.publish && u.job.stages.every((st) => !st.remote))));
  const fp = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs: 1 });
  for (const jobs of [1, 8]) {
    const exact = await runVerify({ pgdata: copy.pgdata, ...scope }, { jobs, exactHeapallindexed: true });
    assert.deepEqual(comparable(exact.reports), comparable(fp.reports), `${jobs} threads`);
    assert.equal(exact.summary.errors, 0);
  }
  const pkey = fp.reports.find((r) => r.name === "web_links_pkey")!;
  assert.ok(pkey.stats.heapTuplesProbed! > 0);
});

test("an exact run finds a heap key changed behind the index's back", async () => {
  const d = new Damager(copy.pgdata);
  try {
    d.shiftFirstInt8("web_links", 2, 100000n); // the primary key (id, int8) of a live tuple
    const run = await runVerify({ pgdata: copy.pgdata, database: "pgdisk_sample", relations: ["web_links"] }, { jobs: 2, exactHeapallindexed: true });
    const fp = await runVerify({ pgdata: copy.pgdata, database: "pgdisk_sample", relations: ["web_links"] }, { jobs: 2 });
    assert.deepEqual(comparable(run.reports), comparable(fp.reports));
    const missing = run.reports.find((r) => r.name === "web_links_pkey")!.findings.filter((f) => f.code === "BT_HEAP_TUPLE_NOT_INDEXED");
    assert.equal(missing.length, 1, JSON.stringify(missing));
    assert.equal(run.summary.exitCode, 2);
  } finally {
    d.restore();
  }
});
