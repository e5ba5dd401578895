// `pgdisk load` of a TOAST-heavy table: N rows (int8 primary key, a text value of 3-12 kB that
// the server moves out of line: half of them incompressible, half compressible only at their
// start, so every value is external), loaded (1) by pgdisk load --toast plain (stock chunks, new
// value OIDs, the TOAST index rebuilt), (2) by pgdisk load --toast direct (Direct TOAST values:
// no OID, no TOAST index entry), (3) by COPY FROM into the table, (4) by COPY FREEZE into it
// truncated in the same transaction. Server times are psql's \timing of the statements (the
// test server runs with fsync = off); pgdisk's are the whole command, process start-up and fsyncs
// included, as bin/pgdisk runs it (the bundle when `npm run build` made it current). Prints the
// times and the ratios, and plain against direct (the Direct TOAST
// proposal's write-speed claim).
// Run: npx tsx bench/load/toast.ts [rows]   (default 20 000)
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { copyRoot, removeRoot } from "../../samples/cluster-kit.js";
import { Rng } from "../../samples/prng.js";
import { sqlSeconds } from "../common.js";

const ROWS = Number(process.argv[2] ?? 20_000);
const DB = "bench";
const ROOT = join(import.meta.dirname, "..", "..");
const TABLE = "create table d (id int8 primary key, doc text);";
const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);

const timed = (srv: PgServer, sql: string): number => sqlSeconds(srv, sql, DB);

function pgdiskLoad(root: string, file: string, flavour: string): { seconds: number; report: { seconds: number; phases: Record<string, number>; toast: { chunks: number; pages: { added: number } } } } {
  const t0 = performance.now();
  const p = spawnSync(join(ROOT, "bin", "pgdisk"), ["load", "--pgdata", join(root, "data"), "-d", DB, "-t", "d", "--toast", flavour, "--json", file], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  if (p.status !== 0) throw new Error(`pgdisk load --toast ${flavour} failed: ${p.stderr}`);
  return { seconds, report: JSON.parse(p.stdout) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pgdisk-bench-load-toast-"));
  chmodSync(dir, 0o755);
  const file = join(dir, "docs.tsv");
  const r = new Rng(20261202, "bench-load-toast");
  const lines: string[] = [];
  for (let i = 1; i <= ROWS; i++) {
    const n = r.int(3000, 12000);
    lines.push(`${i}\t${i % 2 ? r.base64(n) : "header ".repeat(100) + r.base64(n)}`);
  }
  const text = lines.join("\n") + "\n";
  writeFileSync(file, text);
  chmodSync(file, 0o644);
  log(`${ROWS} rows, ${(text.length / 1048576).toFixed(1)} MiB of input`);

  const srv = await PgServer.create({});
  const roots: string[] = [];
  try {
    srv.sql(`create database ${DB}`);
    srv.sql(TABLE + " checkpoint;", DB);
    srv.stop();
    const plainRoot = copyRoot(srv.root, "load-toast-plain");
    const directRoot = copyRoot(srv.root, "load-toast-direct");
    roots.push(plainRoot, directRoot);
    srv.start();
    log("COPY FROM");
    const copyFrom = timed(srv, `copy d from '${file}';`);
    const toastSize = Number(srv.rows("select pg_relation_size(reltoastrelid) from pg_class where relname = 'd'", DB)[0]![0]);
    srv.sql("drop table d; checkpoint;", DB);
    log("COPY FREEZE");
    srv.sql(TABLE + " checkpoint;", DB);
    const copyFreeze = timed(srv, `begin; truncate d; copy d from '${file}' with (freeze); commit;`);
    srv.stop();

    log("pgdisk load --toast plain");
    const plain = pgdiskLoad(plainRoot, file, "plain");
    log("pgdisk load --toast direct");
    const direct = pgdiskLoad(directRoot, file, "direct");
    const check = PgServer.attach(plainRoot);
    check.start();
    const count = check.rows("select count(*) from d", DB)[0]![0];
    check.stop();
    if (Number(count) !== ROWS) throw new Error(`loaded cluster has ${count} rows`);

    const f = (s: number): string => `${s.toFixed(2)} s`;
    const phases = (x: typeof plain): string => `engine ${f(x.report.seconds)}: rows ${f(x.report.phases.rows)}, indexes ${f(x.report.phases.indexes)}, maps ${f(x.report.phases.maps)}, toast ${f(x.report.phases.toast)}, switch ${f(x.report.phases.switch)}; ${x.report.toast.chunks} chunks on ${x.report.toast.pages.added} pages`;
    const out = [
      `rows: ${ROWS} (a primary key; every value out of line, ${(toastSize / 1048576).toFixed(1)} MiB of TOAST relation after COPY), one run`,
      `pgdisk load --toast plain:   ${f(plain.seconds)} (${phases(plain)})`,
      `pgdisk load --toast direct:  ${f(direct.seconds)} (${phases(direct)})`,
      `COPY FROM:                   ${f(copyFrom)}   plain/COPY = ${(plain.seconds / copyFrom).toFixed(2)}, direct/COPY = ${(direct.seconds / copyFrom).toFixed(2)}`,
      `COPY FREEZE:                 ${f(copyFreeze)}   plain/COPY FREEZE = ${(plain.seconds / copyFreeze).toFixed(2)}, direct/COPY FREEZE = ${(direct.seconds / copyFreeze).toFixed(2)}`,
      `direct / plain:              ${(direct.seconds / plain.seconds).toFixed(2)} (engine ${(direct.report.seconds / plain.report.seconds).toFixed(2)})`,
    ];
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    srv.destroy();
    for (const root of roots) removeRoot(root);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
