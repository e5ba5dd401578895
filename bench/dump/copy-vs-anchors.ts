// Table unload speed: `pgdisk inspect dump --format copy|csv` of one table against the anchors on
// the same files, output to /dev/null, one run each (the machine is shared):
//   - `cat` of the table's files (the floor: reading the bytes);
//   - `pg_filedump -D <types>` of each file (decodes and prints every value; one thread);
//   - the server's own `COPY t TO '/dev/null'` (server running, cache warm);
//   - pgdisk's process start to the first page read: the dump of one block.
// Before timing, pgdisk's COPY output is compared with the server's COPY TO of the same table.
// Each run reports wall time and CPU time (user + system; the server's backend read from
// /proc): on a shared machine the CPU seconds are the figures to compare.
//   npx tsx bench/dump/copy-vs-anchors.ts [--rows 1400000] [--dir /tmp/pgdisk-bench-wide]
// (1.4 million rows make a table of about 330 MB; the cluster is built once and kept in --dir.)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, createReadStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Cluster } from "../../formats/catalog/cluster.js";
import { argValue, cpuOfStat } from "../common.js";
import { WIDE_DB, WIDE_FILEDUMP_TYPES, WIDE_TABLE, wideTable } from "./table.js";

const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin", "pgdisk");
const PG_FILEDUMP = "/usr/bin/pg_filedump";

const rows = Number(argValue("--rows", "1400000"));
const dir = argValue("--dir", "/tmp/pgdisk-bench-wide");

interface Timed {
  wall: number;
  cpu: number;
}

/** A command with stdout to /dev/null under /usr/bin/time: wall and CPU seconds. */
function timed(cmd: string, args: string[]): Timed {
  const r = spawnSync("/usr/bin/time", ["-f", "TIMED %e %U %S", "sh", "-c", `"$0" "$@" > /dev/null`, cmd, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  const m = /TIMED ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]) };
}

async function md5Of(path: string): Promise<string> {
  const h = createHash("md5");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

function segmentFiles(base: string): string[] {
  const files = [base];
  while (existsSync(`${base}.${files.length}`)) files.push(`${base}.${files.length}`);
  return files;
}

async function main(): Promise<void> {
  if (!existsSync(PG_FILEDUMP)) throw new Error("pg_filedump is not installed: apt-get install postgresql-filedump");
  const srv = await wideTable(dir, rows);
  const pgdata = srv.pgdata;
  const cat = new Cluster(pgdata).database(WIDE_DB);
  const files = segmentFiles(cat.path(cat.findRelation(WIDE_TABLE)));
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const mb = bytes / 1e6;
  const dump = (format: string, jobs: number, extra: string[] = []): string[] => ["inspect", "dump", "--pgdata", pgdata, "-d", WIDE_DB, "-t", WIDE_TABLE, "--format", format, "-j", String(jobs), ...extra];

  // Same rows as the server's COPY TO, byte for byte (the server writes as postgres: a directory of its own).
  const outDir = join(dir, "copies");
  mkdirSync(outDir, { recursive: true });
  const pgUid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
  chownSync(outDir, pgUid, pgUid);
  const ours = join(outDir, "pgdisk.copy");
  const theirs = join(outDir, "server.copy");
  const r = spawnSync("sh", ["-c", `"$0" "$@" > '${ours}'`, BIN, ...dump("copy", 1)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`pgdisk failed: ${r.stderr}`);
  srv.start();
  let serverCopy: Timed;
  try {
    srv.sql(`COPY ${WIDE_TABLE} TO '${theirs}'`, WIDE_DB);
    // warm, then timed: the server reads its shared buffers and the page cache; its backend's
    // CPU time from /proc before and after
    srv.sql(`COPY ${WIDE_TABLE} TO '/dev/null'`, WIDE_DB);
    const t = process.hrtime.bigint();
    // (the first read of /proc/self/stat in a backend can come back empty: read twice)
    const stat = "SELECT pg_read_file('/proc/self/stat');";
    const out = srv.sql(`${stat}\n${stat}\nCOPY ${WIDE_TABLE} TO '/dev/null';\n${stat}\n`, WIDE_DB);
    const wall = Number(process.hrtime.bigint() - t) / 1e9;
    const stats = out.split("\n").filter((l) => /^\d+ \(postgres\)/.test(l));
    if (stats.length < 2) throw new Error(`no /proc stat of the backend in: ${out}`);
    serverCopy = { wall, cpu: cpuOfStat(stats.at(-1)!) - cpuOfStat(stats.at(-2)!) };
  } finally {
    srv.stop();
  }
  const same = (await md5Of(ours)) === (await md5Of(theirs));
  const copyBytes = statSync(ours).size;
  rmSync(outDir, { recursive: true, force: true });
  if (!same) throw new Error("pgdisk's COPY output differs from the server's COPY TO");

  timed("cat", files); // warm the page cache
  const cat2 = timed("cat", files);
  const filedump: Timed = { wall: 0, cpu: 0 };
  for (const f of files) {
    const t = timed(PG_FILEDUMP, ["-D", WIDE_FILEDUMP_TYPES, f]);
    filedump.wall += t.wall;
    filedump.cpu += t.cpu;
  }
  const jobs = availableParallelism();
  const copy1 = timed(BIN, dump("copy", 1));
  const copyN = timed(BIN, dump("copy", jobs));
  const csv1 = timed(BIN, dump("csv", 1));
  const start = timed(BIN, dump("copy", 1, ["--blocks", "0"]));

  console.log(`Table ${WIDE_TABLE} (${rows} rows of int, bigint, text, numeric, timestamptz, float8, bool, uuid, jsonb) in ${pgdata}: ${files.length} file(s), ${mb.toFixed(0)} MB; COPY output ${(copyBytes / 1e6).toFixed(0)} MB, equal to the server's COPY TO; ${jobs} cores\n`);
  console.log("| run | wall | CPU (user+sys) | CPU vs cat | CPU vs pg_filedump -D | CPU vs server COPY TO |");
  console.log("|---|---|---|---|---|---|");
  const row = (name: string, t: Timed): void =>
    console.log(`| ${name} | ${t.wall.toFixed(2)} s | ${t.cpu.toFixed(2)} s | ${(t.cpu / cat2.cpu).toFixed(1)}x | ${(t.cpu / filedump.cpu).toFixed(2)}x | ${(t.cpu / serverCopy.cpu).toFixed(2)}x |`);
  row("cat of the files", cat2);
  row(`pg_filedump -D ${WIDE_FILEDUMP_TYPES} (one thread)`, filedump);
  row(`server COPY ${WIDE_TABLE} TO '/dev/null' (warm; backend CPU)`, serverCopy);
  row("pgdisk --format copy -j 1", copy1);
  row(`pgdisk --format copy -j ${jobs}`, copyN);
  row("pgdisk --format csv -j 1", csv1);
  console.log(`\nProcess start to the first page read (pgdisk --format copy --blocks 0: start, catalog, one block, exit): ${(start.wall * 1000).toFixed(0)} ms wall, ${(start.cpu * 1000).toFixed(0)} ms CPU`);
}

await main();
