// The chunk map a TOAST relation's own check builds from the pages it reads (the table + TOAST
// unit) is the map a separate scan of the relation builds: same chunks, same order, same fields,
// for every TOAST relation of the sample database; a feed that skips a block builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tinySample } from "../fixtures/sample.js";
import { ClusterContext } from "../../verify/cluster-context.js";
import { ToastRelation } from "../../verify/toast/toast-rel.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { scanPages } from "../../verify/scan.js";
import type { PlainChunkTable } from "../../verify/toast/chunk-table.js";

test("a fed chunk map equals a scanned one", async () => {
  const s = await tinySample();
  const ctx = new ClusterContext(s.pgdata);
  const cat = ctx.database(ctx.cluster.databases().find((d) => d.name === "pgdisk_sample")!.oid);
  const make = (oid: number): ToastRelation => new ToastRelation(new RelationFork(cat.path(cat.classes.get(oid)!), ctx.cluster.geometry), oid, "t", () => true, false);
  let compared = 0;
  for (const rel of cat.classes.values()) {
    if (rel.kind !== "t" || rel.filenode === 0) continue;
    const scanned = make(rel.oid);
    const fed = make(rel.oid);
    const f = fed.feeder();
    const fork = new RelationFork(cat.path(rel), ctx.cluster.geometry);
    const blocks: [number, Uint8Array][] = [];
    for (const [blk, page] of scanPages(fork)) {
      f.page(blk, page);
      blocks.push([blk, page.slice()]);
    }
    f.done();
    // every value the scan finds, the feed found identically
    assert.deepEqual(fed.directChunks(), scanned.directChunks());
    const tableOf = (r: ToastRelation): PlainChunkTable => (r as unknown as { plain: PlainChunkTable }).plain;
    const fedPlain = tableOf(fed);
    assert.ok(fedPlain, "the feed built the map");
    scanned.plainChunks(0); // makes the scanned map
    for (const id of fedPlain.valueIds()) {
      const want = tableOf(scanned).facts(id);
      assert.ok(want && want.length > 0, `value ${id} of ${rel.name} scanned`);
      assert.deepEqual(fedPlain.facts(id), want, `value ${id} of ${rel.name}`);
    }
    assert.equal(fedPlain.size, tableOf(scanned).size);
    compared += fedPlain.size;
    // a feed that misses a block leaves the map to a scan of its own
    if (blocks.length > 1) {
      const partial = make(rel.oid);
      const g = partial.feeder();
      for (const [blk, page] of blocks) if (blk !== 1) g.page(blk, page);
      g.done();
      assert.equal((partial as unknown as { plain?: unknown }).plain, undefined);
    }
    fork.close();
    scanned.fork.close();
    fed.fork.close();
  }
  assert.ok(compared > 20, `values compared: ${compared}`);
});
