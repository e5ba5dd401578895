// `pgdisk migrate` over a whole sample cluster (both formats: --toast direct --btree prefix, every
// database), against what a server does to rewrite the same relations: VACUUM FULL of every table
// converted plus REINDEX of every index converted, on a copy of the same cluster on the same
// machine. One run each, printed as markdown with the ratios:
//  - --check (the what-if report), against one read of the same relation files (cat > /dev/null);
//  - --in-place, forward and back (on a private copy);
//  - --out with --copy-mode clone (copy where the filesystem has no reflinks) and copy;
//  - with -j N worker threads (--jobs N, default 2): in place forward and back, --out copy, --check.
// No fsync on either side (the bench server runs with fsync = off, samples/pg-server.ts).
// Run: npx tsx bench/migrate/bench.ts [--size tiny|small|large] [--dir DIR] [--jobs N]
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, type MigrateOptions, type MigrateReport } from "../../migrate/engine.js";
import { planMigration } from "../../migrate/plan.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { PgServer } from "../../samples/pg-server.js";
import { argValue, benchSample, timeCommand } from "../common.js";
import type { SizeName } from "../../samples/sizes.js";

const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);
const mb = (b: number): string => (b / 1e6).toFixed(1);
const FORWARD = { toast: "direct", btree: { to: "prefix", mode: "rebuild", policy: "lead" } } as const;
const BACK = { toast: "plain", btree: { to: "plain", mode: "rebuild", policy: "lead" } } as const;

/** A private copy of a sample's root (data/ inside), as cp -a makes it. */
function copyRoot(src: string, dst: string): string {
  execFileSync("cp", ["-a", src, dst]);
  rmSync(join(dst, "data", "postmaster.pid"), { force: true });
  return join(dst, "data");
}

async function timed(o: MigrateOptions): Promise<{ r: MigrateReport; s: number }> {
  const t = performance.now();
  const r = await migrate({ ...o, fsync: false, measure: 0 });
  return { r, s: (performance.now() - t) / 1000 };
}

async function main(): Promise<void> {
  const size = argValue("--size", "small") as SizeName;
  const jobs = Number(argValue("--jobs", "2"));
  const work = mkdtempSync(join(argValue("--dir", tmpdir()), "pgdisk-migrate-bench-"));
  chmodSync(work, 0o755);
  try {
    const sampleRoot = join(work, "sample");
    const input = await benchSample(size, sampleRoot);
    const plan = planMigration(new Cluster(input), FORWARD);
    const files = plan.units.flatMap((u) => u.reads.map((f) => f.path));
    const out: string[] = [];

    log("--check");
    const check = await timed({ pgdata: input, check: true, ...FORWARD });
    execFileSync("sh", ["-c", `cat ${files.join(" ")} > /dev/null`]); // warm, as the check left them
    const readS = timeCommand("sh", ["-c", `cat ${files.join(" ")} > /dev/null`]);

    log("--in-place, forward and back, on a private copy");
    mkdirSync(join(work, "inplace"));
    const inPlace = copyRoot(sampleRoot, join(work, "inplace", "root"));
    const fwdIn = await timed({ pgdata: inPlace, inPlace: true, ...FORWARD });
    const backIn = await timed({ pgdata: inPlace, inPlace: true, ...BACK });
    log(`--in-place -j ${jobs}, forward and back`);
    const fwdInJ = await timed({ pgdata: inPlace, inPlace: true, jobs, ...FORWARD });
    const backInJ = await timed({ pgdata: inPlace, inPlace: true, jobs, ...BACK });
    log(`--check -j ${jobs}`);
    const checkJ = await timed({ pgdata: input, check: true, jobs, ...FORWARD });

    const outs: { mode: string; jobs: number; r: MigrateReport; s: number }[] = [];
    for (const [mode, j] of [["clone", 1], ["copy", 1], ["copy", jobs]] as const) {
      log(`--out --copy-mode ${mode} -j ${j}`);
      const t = await timed({ pgdata: input, out: join(work, mode, "data"), copyMode: mode, jobs: j, ...FORWARD });
      outs.push({ mode, jobs: j, ...t });
      rmSync(join(work, mode), { recursive: true, force: true });
    }

    log("VACUUM FULL of the tables and REINDEX of the indexes on a server");
    const vfRoot = join(work, "vf");
    copyRoot(sampleRoot, vfRoot);
    const srv = PgServer.attach(vfRoot);
    srv.start();
    let serverMs = 0;
    try {
      for (const d of plan.databases) {
        const stmts = [...d.tables.map((t) => `VACUUM FULL "${t.namespaceName}"."${t.name}";`), ...d.indexes.map((x) => `REINDEX INDEX "${x.namespaceName}"."${x.name}";`)];
        if (!stmts.length) continue;
        const res = srv.sql(`\\timing on\n${stmts.join("\n")}\n`, d.database);
        serverMs += [...res.matchAll(/Time: ([\d.]+) ms/g)].reduce((n, m) => n + Number(m[1]), 0);
      }
    } finally {
      srv.destroy();
    }
    const server = serverMs / 1000;

    const t = check.r.totals;
    out.push(`### pgdisk migrate against VACUUM FULL + REINDEX (${size} sample, one run, ${cpus().length} cores)`);
    out.push("");
    out.push(`${plan.units.length} relations in ${plan.databases.filter((d) => d.tables.length + d.indexes.length).length} database(s): ${t.toast.tables} tables (TOAST ${mb(t.toast.toastBytesBefore)} MB), ${t.btree.indexes} btree indexes (${mb(t.btree.bytesBefore)} MB); ${mb(plan.bytes)} MB of relation files read.`);
    out.push("");
    out.push("| run | seconds | / (VACUUM FULL + REINDEX) |");
    out.push("|---|---|---|");
    const row = (what: string, s: number): void => void out.push(`| ${what} | ${s.toFixed(2)} | ${(s / server).toFixed(2)} |`);
    out.push(`| VACUUM FULL of the ${t.toast.tables} tables + REINDEX of the ${t.btree.indexes} indexes (server) | ${server.toFixed(2)} | 1.00 |`);
    row("pgdisk migrate --in-place, to direct + prefix", fwdIn.s);
    row("pgdisk migrate --in-place, back to plain", backIn.s);
    row(`pgdisk migrate --in-place -j ${jobs}, to direct + prefix`, fwdInJ.s);
    row(`pgdisk migrate --in-place -j ${jobs}, back to plain`, backInJ.s);
    for (const o of outs) row(`pgdisk migrate --out --copy-mode ${o.mode}${o.jobs > 1 ? ` -j ${o.jobs}` : ""}${o.r.copy?.mode !== o.mode ? ` (done as ${o.r.copy?.mode}: no reflinks here)` : ""}`, o.s);
    row("pgdisk migrate --check (what-if, nothing written)", check.s);
    row(`pgdisk migrate --check -j ${jobs}`, checkJ.s);
    out.push("");
    out.push(`--check took ${check.s.toFixed(2)} s against ${readS.toFixed(2)} s for one read (cat, warm) of the same ${mb(plan.bytes)} MB: ${(check.s / readS).toFixed(1)}x. Its figures: ${t.toast.converted} of ${t.toast.pointers} pointers to direct, ${t.btree.leafCoded} of ${t.btree.leafPages} leaf pages coded, TOAST ${mb(t.toast.toastBytesBefore)} -> ${mb(t.toast.toastBytesAfter)} MB, indexes ${mb(t.btree.bytesBefore)} -> ${mb(t.btree.bytesAfter)} MB.`);
    out.push(`In place the journal held ${fwdIn.r.journal?.records} records forward.`);
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
