// Dump throughput: `pgdisk inspect dump` against Debian's pg_filedump -i on the same files
// (every segment of every relation of the sample database), as a ratio from one run.
//   npx tsx bench/dump-vs-pg-filedump.ts [--size large|small|tiny] [--pgdata DIR]
import { statSync, existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { argValue, benchSample, timeCommand } from "./common.js";
import { listCluster } from "../inspect/list.js";
import type { SizeName } from "../samples/sizes.js";

const pgFiledump = "/usr/bin/pg_filedump";
if (!existsSync(pgFiledump)) {
  console.error("pg_filedump is not installed: apt-get install postgresql-filedump");
  process.exit(1);
}
const size = argValue("--size", "large") as SizeName;
const pgdata = process.argv.includes("--pgdata") ? argValue("--pgdata", "") : await benchSample(size);
const db = "pgdisk_sample";
const rels = listCluster(pgdata, db).relations!;
const files: string[] = [];
for (const r of rels) for (let s = 0; existsSync(s ? `${r.path}.${s}` : r.path); s++) files.push(s ? `${r.path}.${s}` : r.path);
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
const mb = bytes / 1e6;

// pg_filedump -i: one process per file, as it takes one file at a time.
let fd = 0;
for (const f of files) fd += timeCommand(pgFiledump, ["-i", f]);

const bin = join(import.meta.dirname, "..", "bin", "pgdisk");
const jobs = availableParallelism();
const noValues = timeCommand(bin, ["inspect", "dump", "--pgdata", pgdata, "-d", db, "--no-values", "--no-color"]);
const noValues1 = timeCommand(bin, ["inspect", "dump", "--pgdata", pgdata, "-d", db, "--no-values", "--no-color", "-j", "1"]);
const values = timeCommand(bin, ["inspect", "dump", "--pgdata", pgdata, "-d", db, "--no-color"]);

const row = (name: string, s: number): string => `| ${name} | ${s.toFixed(2)} s | ${(mb / s).toFixed(0)} MB/s | ${(fd / s).toFixed(2)} |`;
console.log(`Dump of database ${db} in ${pgdata}: ${files.length} files, ${mb.toFixed(0)} MB; ${jobs} cores\n`);
console.log("| run | wall time | throughput | speed vs pg_filedump -i (>1 = faster) |");
console.log("|---|---|---|---|");
console.log(row("pg_filedump -i (14.1, one process per file)", fd));
console.log(row(`pgdisk inspect dump --no-values (-j ${jobs})`, noValues));
console.log(row("pgdisk inspect dump --no-values (-j 1)", noValues1));
console.log(row(`pgdisk inspect dump, every value decoded (-j ${jobs})`, values));
