// `pgdisk load` against the server's ways of filling a table: N narrow rows (int8 key, int4,
// short text) into a table with two btree indexes (primary key and one on the int4), loaded
// (1) by pgdisk load into the stopped cluster, (2) by COPY FROM into the indexed table, (3) by
// COPY into the bare table followed by CREATE INDEX for both indexes, (4) by COPY FREEZE into the
// indexed table truncated in the same transaction. Server times are psql's \timing of the
// statements (the test server runs with fsync = off); pgdisk's is the whole command, process
// start-up and fsyncs included, as bin/pgdisk runs it (the bundle when `npm run build` made
// it current). Prints the times and the ratios, and beside them the CPU seconds
// (user + system) of the server backend that ran the statements (its /proc stat, so parallel
// CREATE INDEX workers are not counted) and of the pgdisk process (all its threads, from
// /usr/bin/time): on a shared machine the wall times follow the other load, the CPU less so.
// Run: npx tsx bench/load/narrow.ts [rows]   (default 1 000 000)
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { Rng } from "../../samples/prng.js";
import { cpuOfStat, psqlTimingSeconds } from "../common.js";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const DB = "bench";
const ROOT = join(import.meta.dirname, "..", "..");
const TABLE = "create table n (id int8 primary key, k int4, label text); create index n_k on n (k);";
const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);

interface Timed {
  /** seconds of the statements (psql \\timing) */
  wall: number;
  /** CPU seconds of the backend that ran them */
  cpu: number;
}

function timed(srv: PgServer, sql: string): Timed {
  const out = srv.sql(`select pg_backend_pid() as bpid \\gset\n\\setenv BPID :bpid\n\\! cat /proc/$BPID/stat\n\\timing on\n${sql}\n\\timing off\n\\! cat /proc/$BPID/stat`, DB);
  const stats = out.split("\n").filter((l) => /^\d+ \(postgres\)/.test(l));
  if (stats.length !== 2) throw new Error(`no backend stat lines in: ${out}`);
  return { wall: psqlTimingSeconds(out), cpu: cpuOfStat(stats[1]!) - cpuOfStat(stats[0]!) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-bench-load-"));
  chmodSync(dir, 0o755);
  const file = join(dir, "rows.tsv");
  const r = new Rng(20261202, "bench-load");
  const lines: string[] = [];
  for (let i = 1; i <= ROWS; i++) lines.push(`${i}\t${r.int(0, 1_000_000)}\tlabel-${i % 1000}`);
  writeFileSync(file, lines.join("\n") + "\n");
  chmodSync(file, 0o644);
  log(`${ROWS} rows, ${(lines.join("\n").length / 1048576).toFixed(1)} MiB of input`);

  const srv = await PgServer.create({});
  let loadRoot = "";
  try {
    srv.sql(`create database ${DB}`);
    srv.sql(TABLE + " checkpoint;", DB);
    srv.stop();
    loadRoot = copyRoot(srv.root, "load");
    srv.start();

    log("COPY FROM into the indexed table");
    const copyIndexed = timed(srv, `copy n from '${file}';`);
    srv.sql("drop table n; checkpoint;", DB);

    log("COPY into the bare table, then CREATE INDEX");
    srv.sql("create table n (id int8, k int4, label text); checkpoint;", DB);
    const copyBare = timed(srv, `copy n from '${file}';`);
    const createIndexes = timed(srv, "alter table n add primary key (id); create index n_k on n (k);");
    srv.sql("drop table n; checkpoint;", DB);

    log("COPY FREEZE into the indexed table, truncated in the same transaction");
    srv.sql(TABLE + " checkpoint;", DB);
    const copyFreeze = timed(srv, `begin; truncate n; copy n from '${file}' with (freeze); commit;`);
    srv.stop();

    log("pgdisk load");
    const t0 = performance.now();
    const p = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", join(ROOT, "bin", "pgdisk"), "load", "--pgdata", join(loadRoot, "data"), "-d", DB, "-t", "n", "--json", file], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
    const pgdiskSeconds = (performance.now() - t0) / 1000;
    if (p.status !== 0) throw new Error(`pgdisk load failed: ${p.stderr}`);
    const cpuLine = /cpu ([\d.]+) ([\d.]+)/.exec(p.stderr);
    const pgdiskCpu = cpuLine ? Number(cpuLine[1]) + Number(cpuLine[2]) : NaN;
    const rep = JSON.parse(p.stdout);
    const check = PgServer.attach(loadRoot);
    check.start();
    const count = check.rows("select count(*) from n", DB)[0]![0];
    check.stop();
    if (Number(count) !== ROWS) throw new Error(`loaded cluster has ${count} rows`);

    const f = (s: number): string => `${s.toFixed(2)} s`;
    const ratio = (t: Timed): string => `${(pgdiskSeconds / t.wall).toFixed(2)}, CPU ${(pgdiskCpu / t.cpu).toFixed(2)}`;
    const both = (t: Timed): string => `${f(t.wall)} (CPU ${f(t.cpu)})`;
    const bare = { wall: copyBare.wall + createIndexes.wall, cpu: copyBare.cpu + createIndexes.cpu };
    const out = [
      `rows: ${ROWS} (two btree indexes), one run`,
      `pgdisk load:                         ${f(pgdiskSeconds)} (CPU ${f(pgdiskCpu)}; engine ${f(rep.seconds)}: rows ${f(rep.phases.rows)}, indexes ${f(rep.phases.indexes)}, maps ${f(rep.phases.maps)}, switch ${f(rep.phases.switch)})`,
      `COPY FROM into the indexed table:    ${both(copyIndexed)}   pgdisk/COPY = ${ratio(copyIndexed)}`,
      `COPY into bare table + CREATE INDEX: ${both(bare)} (${f(copyBare.wall)} + ${f(createIndexes.wall)})   pgdisk/that = ${ratio(bare)}`,
      `COPY FREEZE into the indexed table:  ${both(copyFreeze)}   pgdisk/COPY FREEZE = ${ratio(copyFreeze)}`,
    ];
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    srv.destroy();
    removeRoot(loadRoot);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
