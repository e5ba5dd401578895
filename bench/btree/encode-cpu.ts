// CPU time of the BTP_PREFIX encoder alone, and a hash of every page it writes: each btree index
// of a stopped cluster has its leaf level read into memory once, then is laid out by buildBtree
// (prefix, policy lead) with the self-check convertIndex runs on every coded page, and recoded
// page by page (recodeLeafPage + self-check), N times each; no file is written. Prints per index the
// median CPU seconds (user + sys) of each and a SHA-256 over every page produced (block number and
// bytes): a change to the encoder that must not change its output keeps the hashes.
// Run: npx tsx bench/btree/encode-cpu.ts PGDATA [--runs N] [--only name,name] [--no-recode]
import { createHash } from "node:crypto";
import { Cluster } from "../../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { leafTuples } from "../../formats/nbtree/reader.js";
import { buildBtree } from "../../formats/nbtree/build.js";
import { recodeLeafPage } from "../../formats/nbtree/prefix-page.js";
import { BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, BTP_META, BTP_PREFIX, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { pageIsNew, pageView } from "../../formats/page/page.js";
import { BtreeCatalog } from "../../migrate/btree/index-info.js";
import { selfCheck } from "../../migrate/btree/convert.js";
import { planMigration } from "../../migrate/plan.js";
import { argValue } from "../common.js";

const pgdata = process.argv[2]!;
const runs = Number(argValue("--runs", "3"));
const only = argValue("--only", "").split(",").filter(Boolean);
const recode = !process.argv.includes("--no-recode");
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const cluster = new Cluster(pgdata);
const plan = planMigration(cluster, { btree: { to: "prefix", mode: "rebuild", policy: "lead" } });
const tot = { build: 0, recode: 0 };
for (const d of plan.databases) {
  const cat = cluster.database(d.database);
  const bc = new BtreeCatalog(cat);
  for (const x of d.indexes) {
    if (only.length && !only.includes(x.name)) continue;
    const rel = cat.findRelation(`${x.namespaceName}.${x.name}`);
    const info = bc.info(rel);
    const fork = new RelationFork(cat.path(rel), cluster.geometry);
    const tuples = [...leafTuples(fork, { expandPostings: true })].map((t) => t.tuple.slice());
    const pages = [...scanBlocks(fork)].map(([blk, p]) => [blk, p.slice()] as const);
    fork.close();
    const allequalimage = info.index.natts === info.index.nkeyatts && info.spec.eq.every((k) => k === "image");
    const opts = { blcksz: cluster.geometry.blockSize, spec: info.spec, leafFillfactor: info.fillfactor, deduplicate: allequalimage && !info.index.unique && info.deduplicateItems, allequalimage, prefix: { policy: "optimal" as const } };
    const bt: number[] = [];
    const rt: number[] = [];
    let hb = "";
    let hr = "";
    let coded = 0;
    let leaves = 0;
    for (let i = 0; i < runs; i++) {
      const h = createHash("sha256");
      coded = leaves = 0;
      const t0 = cpu();
      buildBtree(tuples, opts, (blk, page) => {
        if (readBTOpaque(pageView(page)).btpo_flags & BTP_PREFIX) selfCheck(page, blk, x.name);
        h.update(`${blk}:`).update(page);
      }, (s) => {
        leaves++;
        if (s.coded) coded++;
      });
      bt.push(cpu() - t0);
      hb = h.digest("hex").slice(0, 16);
      if (!recode) continue;
      const h2 = createHash("sha256");
      const t1 = cpu();
      for (const [blk, page] of pages) {
        const dv = pageView(page);
        const fl = pageIsNew(dv) ? 0 : readBTOpaque(dv).btpo_flags;
        if (blk === 0 || pageIsNew(dv) || !(fl & BTP_LEAF) || fl & (BTP_DELETED | BTP_HALF_DEAD | BTP_META)) continue;
        const rc = recodeLeafPage(page, "optimal");
        if (rc.coded) selfCheck(rc.page, blk, x.name);
        h2.update(`${blk}:`).update(rc.page);
      }
      rt.push(cpu() - t1);
      hr = h2.digest("hex").slice(0, 16);
    }
    tot.build += median(bt);
    tot.recode += recode ? median(rt) : 0;
    process.stdout.write(`${d.database}/${x.name}\t${coded}/${leaves}\tbuild ${median(bt).toFixed(3)} s ${hb}` + (recode ? `\trecode ${median(rt).toFixed(3)} s ${hr}` : "") + "\n");
  }
}
process.stdout.write(`all\tbuild ${tot.build.toFixed(3)} s\trecode ${tot.recode.toFixed(3)} s\n`);
