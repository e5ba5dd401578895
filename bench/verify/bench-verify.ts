// pgdisk verify vs the real anchors on the same data: `pg_amcheck --heapallindexed --parent-check`
// (a server started on a copy of the sample, every database that accepts connections) plus
// `pg_checksums --check` (stopped), against one `pgdisk verify --pgdata` run (all databases,
// shared catalogs, TOAST, heapallindexed, checksums). Wall time, with the file cache warmed
// before each tool, in rounds of the three tools in turn (--rounds, default 3); prints each tool's best and
// every run, the ratio of the bests and of the medians, and pgdisk's worker count.
//
//   npx tsx bench/verify/bench-verify.ts [--size small] [--jobs N] [--rounds N] [--sample DIR]
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, PG_BIN } from "../../samples/pg-server.js";
import { spawnSync } from "node:child_process";
import { argValue, benchSample } from "../common.js";
import type { SizeName } from "../../samples/sizes.js";

const size = argValue("--size", "small") as SizeName;
// pgdisk picks its worker count itself unless --jobs is given; pg_amcheck gets the cores
const jobsArg = argValue("--jobs", "");
const jobs = Number(jobsArg || availableParallelism());
// each tool runs this many times, in turn; the best and the median are reported (this VM's speed
// drifts by 10-30 % for minutes at a time)
const rounds = Math.max(1, Number(argValue("--rounds", "3")));
const sampleRoot = argValue("--sample", "");
const ROOT = join(import.meta.dirname, "../..");

function warm(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) bytes += warm(p);
    else if (e.isFile()) {
      bytes += statSync(p).size;
      readFileSync(p);
    }
  }
  return bytes;
}

const src = sampleRoot ? join(sampleRoot, "data") : await benchSample(size);
const root = mkdtempSync(join(tmpdir(), "pgdisk-bench-verify-"));
try {
  cpSync(join(src, ".."), root, { recursive: true });
  rmSync(join(root, "sock"), { recursive: true, force: true });
  const pgdata = join(root, "data");
  const srv = PgServer.attach(root); // fixes ownership for the postgres user
  // the copy's dirty pages are written back before anything is timed (writeback competes for
  // the CPU with whichever tool runs first), then every file is read once more: the first
  // reads of freshly written pages were slower, and only the first tool timed paid for them
  spawnSync("sync");
  const mb = warm(pgdata) / 2 ** 20;
  const hasChecksums = srv.toolResult("pg_checksums", ["--check", "-D", pgdata]).status === 0;
  srv.start();
  for (const db of srv.rows("SELECT datname FROM pg_database WHERE datallowconn").map((r) => r[0]!)) srv.sql("CREATE EXTENSION IF NOT EXISTS amcheck", db);
  srv.stop();
  const amArgs = (s: PgServer): string[] => ["-h", s.socketDir, "-p", String(s.port), "-U", "postgres", "-a", "--heapallindexed", "--parent-check", "-j", String(jobs)];

  // rounds of the three tools in turn, each in the state it needs (pg_checksums: stopped;
  // pg_amcheck: a running server), so that no tool is always the first after the others
  const tPgdisk: number[] = [];
  const tChecksums: number[] = [];
  const tAmcheck: number[] = [];
  let workers = NaN;
  for (let r = 0; r < rounds; r++) {
    // each tool starts on a file cache just read (untimed): this host's DAMON reclaim evicts
    // page-cache pages idle for about 6 s, so without this the first tool of a round read part of
    // the cluster from disk (docs/verify-performance.md)
    warm(pgdata);
    // pgdisk, as a user runs it: bin/pgdisk (the bundle or compiled dist/ when current, else the sources)
    const t0 = process.hrtime.bigint();
    const run = spawnSync(join(ROOT, "bin", "pgdisk"), ["verify", "--pgdata", pgdata, ...(jobsArg ? ["--jobs", jobsArg] : [])], { encoding: "utf8", maxBuffer: 1 << 26 });
    tPgdisk.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (run.status !== 0) throw new Error(`pgdisk verify exited ${run.status}: ${run.stderr}`);
    workers = Number(/with (\d+) workers?$/m.exec(run.stdout)?.[1] ?? NaN);
    warm(pgdata);
    tChecksums.push(hasChecksums ? timeTool(srv, "pg_checksums", ["--check", "-D", pgdata]) : NaN);
    srv.start();
    warm(pgdata);
    tAmcheck.push(timeTool(srv, "pg_amcheck", amArgs(srv)));
    srv.stop();
    // the server's shutdown checkpoint writes the buffers amcheck's scans dirtied (hint bits):
    // written back now, not under the next round's first tool
    spawnSync("sync");
  }

  const best = (xs: number[]): number => Math.min(...xs);
  const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  const runs = (xs: number[]): string => (xs.length > 1 ? `  (${xs.map((x) => x.toFixed(2)).join(", ")})` : "");
  const line = (name: string, xs: number[]): string => `${name.padEnd(58)} ${best(xs).toFixed(2).padStart(7)} s${runs(xs)}`;
  const anchors = tAmcheck.map((t, i) => t + tChecksums[i]);
  process.stdout.write(
    [
      `sample: ${sampleRoot || size}, ${mb.toFixed(0)} MiB data directory, ${availableParallelism()} cores, ${rounds} round${rounds === 1 ? "" : "s"} (best, then every run)`,
      line(`pgdisk verify --pgdata (${workers} thread${workers === 1 ? "" : "s"}${jobsArg ? "" : ", automatic"}, all checks)`, tPgdisk),
      line(`pg_amcheck -a --heapallindexed --parent-check -j ${jobs}`, tAmcheck),
      line("pg_checksums --check", tChecksums),
      line("anchors together", anchors),
      `ratio pgdisk / (pg_amcheck + pg_checksums) = ${(best(tPgdisk) / best(anchors)).toFixed(2)} (best of each; medians: ${(median(tPgdisk) / median(anchors)).toFixed(2)}; warm file cache)`,
      "",
    ].join("\n"),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** A PostgreSQL client binary run as the postgres user, timed. */
function timeTool(srv: PgServer, bin: string, args: string[]): number {
  const t = process.hrtime.bigint();
  const r = srv.toolResult(bin, args);
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0) throw new Error(`${bin} exited ${r.status}: ${r.stderr}`);
  return s;
}
void PG_BIN;
