// Relations past 1 GiB on a real server: `npx tsx bench/segments/big-table.ts [--rows N] [--dir D]`.
// Builds (once, in D) a PostgreSQL 15 cluster with data checksums holding `big`: a main fork of
// about 2.6 GB (three segments), a TOAST relation past 1 GiB (two segments) and an index on a
// 96-byte key past 1 GiB, then runs every pgdisk command over them and compares with the server:
// verify (clean, as pg_amcheck), dump (COPY output equal to the server's COPY TO), value (a value
// whose chunks lie in the TOAST relation's second segment), browse and dump JSON at blocks past
// each segment boundary (equal to pageinspect), and the TOAST conversion to Direct TOAST and back
// (the server starts on the result and returns the same rows; pg_amcheck clean). Prints wall time
// and peak resident set of each pgdisk command.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { PgServer, PG_BIN } from "../../samples/pg-server.js";
import { argValue } from "../common.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { BrowseSession } from "../../inspect/browse/session.js";

const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin", "pgdisk");
const DB = "big";
const SEGMENT = 131072;

const rows = Number(argValue("--rows", "9000000"));
const dir = argValue("--dir", "/tmp/pgdisk-bench-segments");

interface Measured {
  status: number;
  seconds: number;
  peakMiB: number;
  stdout: Buffer;
  stderr: string;
}

/** A pgdisk command under /usr/bin/time: wall time and peak RSS (maximum resident set). */
function pgdisk(args: string[], stdoutFile?: string): Measured {
  const t0 = process.hrtime.bigint();
  const cmd = stdoutFile ? ["sh", "-c", `"$0" "$@" > '${stdoutFile}'`, BIN, ...args] : [BIN, ...args];
  const r = spawnSync("/usr/bin/time", ["-f", "PEAK_KB %M", ...cmd], { maxBuffer: 1 << 30 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const stderr = r.stderr.toString();
  const peak = Number(/PEAK_KB (\d+)/.exec(stderr)?.[1] ?? 0);
  return { status: r.status ?? -1, seconds, peakMiB: peak / 1024, stdout: r.stdout, stderr: stderr.replace(/PEAK_KB \d+\n?/, "") };
}

const results: string[] = [];
function report(what: string, m: Measured, ok: boolean, detail = ""): void {
  const line = `${ok ? "ok  " : "FAIL"} ${what}: ${m.seconds.toFixed(1)} s, peak RSS ${m.peakMiB.toFixed(0)} MiB${detail ? `; ${detail}` : ""}`;
  results.push(line);
  console.log(line);
  if (!ok) console.log(m.stderr.slice(0, 2000));
}

function md5File(path: string): string {
  const r = spawnSync("md5sum", [path], { encoding: "utf8" });
  return r.stdout.split(" ")[0];
}

async function build(): Promise<PgServer> {
  if (existsSync(join(dir, "data", "PG_VERSION"))) return PgServer.attach(dir);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const srv = await PgServer.create({ dir, checksums: true, conf: ["synchronous_commit = on", "checkpoint_timeout = 1d", "max_wal_size = 8GB", "maintenance_work_mem = 1GB"] });
  srv.sql(`CREATE DATABASE ${DB}`);
  console.log(`building big (${rows} rows) in ${dir} ...`);
  const t0 = Date.now();
  // k: 96 hex characters (index key); pad: 120; doc: 3,200 incompressible characters on every
  // 25th row, stored out of line without compression (STORAGE EXTERNAL).
  srv.sql(
    `CREATE EXTENSION pageinspect;
     CREATE EXTENSION amcheck;
     CREATE TABLE big (id bigint PRIMARY KEY, k text NOT NULL, pad text NOT NULL, doc text);
     ALTER TABLE big ALTER doc SET STORAGE EXTERNAL;
     INSERT INTO big
       SELECT i, md5(i::text) || md5((i * 7)::text) || md5((i * 13)::text),
              substr(repeat(md5((i * 3)::text), 4), 1, 120),
              CASE WHEN i % 25 = 0 THEN (SELECT string_agg(md5((i * 100 + j)::text), '') FROM generate_series(1, 100) j) END
         FROM generate_series(1, ${rows}) i;
     CREATE INDEX big_k_idx ON big (k);
     VACUUM (FREEZE, ANALYZE) big;
     CHECKPOINT;`,
    DB,
  );
  console.log(`built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  srv.stop();
  return srv;
}

async function main(): Promise<void> {
  const srv = await build();
  const pgdata = srv.pgdata;
  const cat = new Cluster(pgdata).database(DB);
  const big = cat.findRelation("big");
  const toast = cat.classes.get(big.toastRelid)!;
  const idx = cat.findRelation("big_k_idx");
  const segs = (p: string): number => {
    let n = 1;
    while (existsSync(`${p}.${n}`)) n++;
    return n;
  };
  const size = (p: string): number => Array.from({ length: segs(p) }, (_, n) => statSync(n ? `${p}.${n}` : p).size).reduce((a, b) => a + b, 0);
  for (const [name, rel] of [["big", big], ["TOAST", toast], ["big_k_idx", idx]] as const) {
    const p = cat.path(rel);
    console.log(`${name}: ${(size(p) / 2 ** 30).toFixed(2)} GiB in ${segs(p)} segment files`);
  }
  if (segs(cat.path(big)) < 3 || segs(cat.path(toast)) < 2 || segs(cat.path(idx)) < 2) throw new Error("the table, its TOAST relation and its index must each span segments: raise --rows");

  // verify: clean, and pg_amcheck agrees
  const v = pgdisk(["verify", "--pgdata", pgdata, "-d", DB, "--format", "json"]);
  const vdoc = v.status === 0 ? JSON.parse(v.stdout.toString()) : null;
  report("verify (whole database, checksums, heapallindexed)", v, v.status === 0, vdoc ? `${vdoc.summary.relations} relations, ${vdoc.summary.errors ?? 0} errors` : "");

  srv.start();
  try {
    const amcheck = spawnSync("runuser", ["-u", "postgres", "--", join(PG_BIN, "pg_amcheck"), "-h", srv.socketDir, "-p", String(srv.port), "-U", "postgres", "-d", DB, "--heapallindexed", "--parent-check"], { encoding: "utf8" });
    results.push(`${amcheck.status === 0 ? "ok  " : "FAIL"} pg_amcheck --heapallindexed --parent-check: exit ${amcheck.status}`);
    console.log(results.at(-1));

    // dump: COPY output equal to the server's
    // the server writes its COPY as postgres: into a directory of its own
    const outDir = join(dir, "copies");
    mkdirSync(outDir, { recursive: true });
    spawnSync("chown", ["postgres:postgres", outDir]);
    const copyFile = join(outDir, "big.copy");
    const d = pgdisk(["inspect", "dump", "--pgdata", pgdata, "-d", DB, "-t", "big", "--format", "copy"], copyFile);
    const serverCopy = join(outDir, "big.server.copy");
    srv.sql(`COPY (SELECT * FROM big ORDER BY ctid) TO '${serverCopy}'`, DB);
    const same = d.status === 0 && md5File(copyFile) === md5File(serverCopy);
    report("dump --format copy of big (values detoasted)", d, same, `${(statSync(copyFile).size / 2 ** 30).toFixed(2)} GiB, md5 ${same ? "equal to" : "DIFFERENT from"} the server's COPY`);
    rmSync(copyFile, { force: true });
    rmSync(serverCopy, { force: true });

    // value: a row whose chunks lie in the TOAST relation's second segment
    const [[tid, digest]] = srv.rows(
      `SELECT b.ctid::text, md5(b.doc) FROM big b WHERE b.id = (SELECT max(id) FROM big WHERE doc IS NOT NULL)`,
      DB,
    );
    const val = pgdisk(["inspect", "value", "--pgdata", pgdata, "-d", DB, "-t", "big", "--tid", tid!, "--column", "doc", "--format", "raw"]);
    const valDigest = createHash("md5").update(val.stdout).digest("hex");
    report(`value of big.doc at ${tid} (chunks in TOAST segment ${segs(cat.path(toast)) - 1})`, val, val.status === 0 && valDigest === digest, `md5 ${valDigest === digest ? "equal to" : "DIFFERENT from"} SELECT md5(doc)`);

    // browse and dump JSON at blocks past each boundary, against pageinspect
    const session = new BrowseSession({ pgdata, database: DB });
    let compared = 0;
    let mismatches = 0;
    const t0 = Date.now();
    for (const [name, rel] of [["big", big], [toast.name, toast], ["big_k_idx", idx]] as const) {
      const ref = session.findRelation(session.startDb!, name);
      for (let s = 1; s < segs(cat.path(rel)); s++) {
        for (const b of [s * SEGMENT - 1, s * SEGMENT, s * SEGMENT + 1]) {
          const page = session.page(ref, b);
          const qual = rel.kind === "t" ? `pg_toast.${name}` : name;
          const [[lsn, lower, upper]] = srv.rows(`SELECT lsn::text, lower, upper FROM page_header(get_raw_page('${qual}', ${b}))`, DB);
          const h = page.header!;
          compared++;
          if (`${h.pd_lower}` !== lower || `${h.pd_upper}` !== upper || h.lsn !== lsn) mismatches++;
          const items = rel.kind === "i" ? srv.rows(`SELECT itemoffset, ctid::text FROM bt_page_items('${qual}', ${b})`, DB) : srv.rows(`SELECT lp, t_ctid::text FROM heap_page_items(get_raw_page('${qual}', ${b})) WHERE lp_flags = 1`, DB);
          const ours = page.items.filter((it) => rel.kind === "i" || it.lp_flags === 1).map((it) => [String(it.lp), it.heap?.t_ctid ?? it.btree?.ctid ?? ""]);
          if (JSON.stringify(ours) !== JSON.stringify(items)) mismatches++;
        }
      }
    }
    session.close();
    results.push(`${mismatches === 0 ? "ok  " : "FAIL"} browse pages past every segment boundary: ${compared} pages against pageinspect's page_header and item lists, ${mismatches} mismatches (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    console.log(results.at(-1));
  } finally {
    srv.stop();
  }

  // conversion to Direct TOAST and back; the server starts on the result
  // converter outputs are data directories; PgServer.attach wants their parent
  const directRoot = join(dir, "direct");
  const plainRoot = join(dir, "plain");
  rmSync(directRoot, { recursive: true, force: true });
  rmSync(plainRoot, { recursive: true, force: true });
  mkdirSync(directRoot, { mode: 0o755 });
  mkdirSync(plainRoot, { mode: 0o755 });
  const direct = join(directRoot, "data");
  const plain = join(plainRoot, "data");
  const c1 = pgdisk(["migrate", "toast", "--pgdata", pgdata, "--out", direct, "-d", DB, "-t", "big", "--to", "direct"]);
  report("migrate toast --to direct (big)", c1, c1.status === 0);
  const c2 = pgdisk(["migrate", "toast", "--pgdata", direct, "--out", plain, "-d", DB, "-t", "big", "--to", "plain"]);
  report("migrate toast --to plain (back)", c2, c2.status === 0);
  const v2 = pgdisk(["verify", "--pgdata", direct, "-d", DB, "-t", "big"]);
  report("verify of the Direct TOAST copy", v2, v2.status === 0);
  const back = PgServer.attach(plainRoot);
  back.start();
  try {
    const [[a]] = back.rows("SELECT md5(string_agg(md5(b::text), '' ORDER BY id)) FROM big b", DB);
    srv.start();
    const [[o]] = srv.rows("SELECT md5(string_agg(md5(b::text), '' ORDER BY id)) FROM big b", DB);
    srv.stop();
    results.push(`${a === o ? "ok  " : "FAIL"} the server on the round-tripped cluster returns the same rows (md5 over every row ${a === o ? "equal" : "DIFFERENT"})`);
    console.log(results.at(-1));
    const am = spawnSync("runuser", ["-u", "postgres", "--", join(PG_BIN, "pg_amcheck"), "-h", back.socketDir, "-p", String(back.port), "-U", "postgres", "-d", DB, "--heapallindexed", "--parent-check"], { encoding: "utf8" });
    results.push(`${am.status === 0 ? "ok  " : "FAIL"} pg_amcheck on the round-tripped cluster: exit ${am.status}`);
    console.log(results.at(-1));
  } finally {
    back.stop();
  }
  rmSync(directRoot, { recursive: true, force: true });
  rmSync(plainRoot, { recursive: true, force: true });
  console.log(`\n${results.filter((r) => r.startsWith("FAIL")).length} failures of ${results.length} checks`);
  process.exitCode = results.some((r) => r.startsWith("FAIL")) ? 1 : 0;
}

await main();
