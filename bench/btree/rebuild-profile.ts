// Where a rebuild spends its time: one index of URLs from /usr/share/doc (as bench/btree/public-keys.ts
// builds it), REINDEXed by the server, then rebuilt offline plain and as BTP_PREFIX with each policy,
// each once, with the time of every phase from a CPU profile of this process (node --cpu-prof).
// Run: node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/btree/rebuild-profile.ts [max keys]
import { chmodSync, mkdtempSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { convertInPlace, outputCopy, removeRoot } from "../../samples/cluster-kit.js";
import { PREFIX_POLICY_NAMES, type PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import { keySets } from "./public-keys-sources.js";

const MAX = Number(process.argv[2] ?? 100_000);
const urls = keySets(MAX).sets.find((s) => s.name === "urls")!;
const srv = await PgServer.create({ conf: ["max_parallel_maintenance_workers = 0"] });
const scratch = mkdtempSync(join(tmpdir(), "pgdisk-keys-"));
chmodSync(scratch, 0o755);
let out: string | undefined;
try {
  writeForPg(join(scratch, "urls.tsv"), urls.rows!.join("\n") + "\n");
  srv.sql(`create table u (id serial, url text); copy u (url) from '${join(scratch, "urls.tsv")}'; create index u_idx on u (url); vacuum u; checkpoint;`);
  const t = /Time: ([\d.]+) ms/.exec(srv.sql("\\timing on\nreindex index u_idx;"))?.[1];
  srv.sql("checkpoint");
  srv.stop();
  out = outputCopy(srv.pgdata, "profile");
  const runs: string[] = [`REINDEX ${(Number(t) / 1000).toFixed(2)} s`];
  for (const round of ["warm-up", "timed"]) {
    for (const policy of [null, ...PREFIX_POLICY_NAMES] as (PrefixPolicyName | null)[]) {
      const r = convertInPlace(out, "postgres", ["u_idx"], { to: policy ? "prefix" : "plain", mode: "rebuild", policy: policy ?? "lead" }).get("u_idx")!.report;
      if (policy) convertInPlace(out, "postgres", ["u_idx"], { to: "plain", mode: "rebuild" });
      if (round === "timed") runs.push(`${policy ? `prefix ${policy}` : "plain"} ${r.seconds.toFixed(2)} s (${r.pagesAfter} pages)`);
    }
  }
  process.stdout.write(`${urls.rows!.length} URLs: ${runs.join(", ")}\n`);
} finally {
  srv.destroy();
  if (out) removeRoot(dirname(out));
  removeRoot(scratch);
}
