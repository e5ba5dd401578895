// Direct TOAST benchmarks on a sample cluster (default: small), printed as markdown:
//  1. converting the sample's TOAST-heavy tables to direct and back (one run each), against VACUUM FULL of the
//     same tables on a server (which also rewrites the table and its TOAST relation and index);
//  2. full and slice detoast throughput of pgdisk's reader (stock through the TOAST index, and
//     direct by TID) against the server detoasting the same values: SELECT (length(substr(v, 1)),
//     a full detoast), COPY ... TO '/dev/null', and substr() slices (best of 5 runs each).
// Run: npx tsx bench/toast/bench.ts [--size small|large]
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster, type DatabaseCatalog } from "../../formats/catalog/cluster.js";
import { emptyStats, type ToastReadStats } from "../../formats/toast/pages.js";
import type { ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { migrateToast, type MigrateToastReport } from "../../migrate/toast/engine.js";
import { PgServer } from "../../samples/pg-server.js";
import { pointersOf, toastReaderOf } from "../../samples/toast-kit.js";
import { argValue, benchSample } from "../common.js";
import type { SizeName } from "../../samples/sizes.js";

const DB = "pgdisk_sample";
const TABLES = ["toast_docs", "compressed_docs", "embeddings"];
/** the values both sides read: external ones (compressed_docs: by intent) */
const READS: { table: string; column: string; where: string }[] = [
  { table: "toast_docs", column: "body", where: "true" },
  { table: "compressed_docs", column: "coalesce(body_pglz, body_lz4)", where: "intent <> 'inline'" },
];

/** timed repetitions of each read; the best is reported (a shared machine is noisy) */
const RUNS = 5;
const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);
const mb = (b: number): string => (b / 1e6).toFixed(1);

/** Best of RUNS executions of `sql` (one psql session, timed by psql). */
function serverMs(srv: PgServer, sql: string): number {
  const out = srv.sql(`\\timing on\n${Array(RUNS).fill(sql).join("\n")}\n`, DB);
  const times = [...out.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
  return Math.min(...times);
}

interface ReadFigures {
  bytes: number;
  values: number;
  fullMs: number;
  sliceMs: number;
  slices: number;
  fullPages: number[];
  slicePages: number[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
}

/** Read every external value of a table whole, then one 100-byte slice of each; best of RUNS passes. */
function ourReads(cat: DatabaseCatalog, table: string): ReadFigures {
  const rel = cat.findRelation(table);
  const ptrs: ToastPointer[] = pointersOf(cat, rel).filter((p) => p.live).map((p) => p.pointer);
  const f: ReadFigures = { bytes: 0, values: ptrs.length, fullMs: Infinity, sliceMs: Infinity, slices: ptrs.length, fullPages: [], slicePages: [] };
  for (let pass = 0; pass < RUNS; pass++) {
    const reader = toastReaderOf(cat, rel);
    f.bytes = 0;
    f.fullPages = [];
    let t = performance.now();
    for (const p of ptrs) {
      const st: ToastReadStats = emptyStats();
      f.bytes += reader.fetch(p, st).length;
      f.fullPages.push(st.heapPages + st.indexPages);
    }
    f.fullMs = Math.min(f.fullMs, performance.now() - t);
    f.slicePages = [];
    t = performance.now();
    ptrs.forEach((p, k) => {
      const raw = p.va_rawsize - 4;
      const a = ((k + 1) * 7919) % Math.max(1, raw - 100);
      const st = emptyStats();
      reader.fetchSlice(p, a, a + 100, st);
      f.slicePages.push(st.heapPages + st.indexPages);
    });
    f.sliceMs = Math.min(f.sliceMs, performance.now() - t);
    reader.close();
  }
  return f;
}

async function main(): Promise<void> {
  const size = argValue("--size", "small") as SizeName;
  const input = await benchSample(size);
  const work = mkdtempSync(join(tmpdir(), "pgdisk-toast-bench-"));
  chmodSync(work, 0o755);
  const out: string[] = [];
  try {
    // 1. conversion against VACUUM FULL
    // first a run with the measurement reads (it also warms the page cache for the timed runs)
    log("converting to direct with the pages-touched figures");
    const measured = await migrateToast({ pgdata: input, out: join(work, "measured", "data"), database: DB, tables: TABLES, to: "direct", measure: 200, fsync: false });
    rmSync(join(work, "measured"), { recursive: true, force: true });
    log("converting to direct with fsync (the default)");
    const synced = await migrateToast({ pgdata: input, out: join(work, "synced", "data"), database: DB, tables: TABLES, to: "direct", measure: 0 });
    rmSync(join(work, "synced"), { recursive: true, force: true });
    // the bench server runs with fsync = off (samples/pg-server.ts), so the compared runs do not fsync either
    log("converting to direct (timed, no fsync, no measurement reads)");
    const direct = join(work, "direct", "data");
    const fwd = await migrateToast({ pgdata: input, out: direct, database: DB, tables: TABLES, to: "direct", measure: 0, fsync: false });
    log("converting back to plain");
    const back = await migrateToast({ pgdata: direct, out: join(work, "back", "data"), database: DB, tables: TABLES, to: "plain", measure: 0, fsync: false });
    rmSync(join(work, "back"), { recursive: true, force: true });

    log("VACUUM FULL of the same tables on a server");
    mkdirSync(join(work, "vf"));
    cpSync(input, join(work, "vf", "data"), { recursive: true });
    const srv = PgServer.attach(join(work, "vf"));
    srv.start();
    const vf: Record<string, number> = {};
    const server: Record<string, { bytes: number; selectMs: number; copyMs: number; sliceMs: number; values: number }> = {};
    try {
      srv.sql("SELECT 1", DB);
      // the server's detoast reads first (on the original layout), warm: second run of each
      for (const r of READS) {
        const bytes = Number(srv.rows(`SELECT sum(octet_length(${r.column})) FROM public.${r.table} WHERE ${r.where}`, DB)[0][0]);
        const values = Number(srv.rows(`SELECT count(*) FROM public.${r.table} WHERE ${r.where}`, DB)[0][0]);
        const sel = `SELECT sum(length(substr(${r.column}, 1))) FROM public.${r.table} WHERE ${r.where};`;
        const copy = `COPY (SELECT ${r.column} FROM public.${r.table} WHERE ${r.where}) TO '/dev/null';`;
        const slice = `SELECT sum(length(substr(v, ((n * 7919) % greatest(1, octet_length(v) - 100))::int + 1, 100))) FROM (SELECT ${r.column} AS v, row_number() OVER () AS n FROM public.${r.table} WHERE ${r.where}) s;`;
        server[r.table] = { bytes, values, selectMs: serverMs(srv, sel), copyMs: serverMs(srv, copy), sliceMs: serverMs(srv, slice) };
      }
      for (const t of TABLES) vf[t] = Number(/Time: ([\d.]+) ms/.exec(srv.sql(`\\timing on\nVACUUM FULL public.${t};\n`, DB))![1]);
    } finally {
      srv.destroy();
    }

    const fwdBy = new Map(fwd.tables.map((t) => [t.table, t]));
    const backBy = new Map(back.tables.map((t) => [t.table, t]));
    out.push(`### Conversion against VACUUM FULL (${size} sample, one run, ${cpus().length} cores)`);
    out.push("");
    out.push("| table | TOAST heap | pointers (kept plain: did not fit) | direct values (single/flat/tree) | to direct | back to plain | VACUUM FULL | to direct / VACUUM FULL | to direct, with fsync |");
    out.push("|---|---|---|---|---|---|---|---|---|");
    let sumF = 0;
    let sumB = 0;
    let sumV = 0;
    let sumS = 0;
    const syncedBy = new Map(synced.tables.map((t) => [t.table, t]));
    for (const t of TABLES) {
      const f = fwdBy.get(`public.${t}`)!;
      const b = backBy.get(`public.${t}`)!;
      const v = vf[t] / 1000;
      sumF += f.seconds;
      sumB += b.seconds;
      sumV += v;
      const d = f.values.direct;
      const fs = syncedBy.get(`public.${t}`)!;
      sumS += fs.seconds;
      out.push(`| ${t} | ${mb(f.toastHeap.bytesBefore)} MB | ${f.pointers.total} (${f.pointers.keptPlain["does-not-fit"]}) | ${d.single}/${d.flat}/${d.tree} | ${f.seconds.toFixed(2)} s | ${b.seconds.toFixed(2)} s | ${v.toFixed(2)} s | ${(f.seconds / v).toFixed(2)} | ${fs.seconds.toFixed(2)} s |`);
    }
    out.push(`| **all** | | | | ${sumF.toFixed(2)} s | ${sumB.toFixed(2)} s | ${sumV.toFixed(2)} s | ${(sumF / sumV).toFixed(2)} | ${sumS.toFixed(2)} s |`);
    out.push("");
    out.push(`Whole command including the cluster copy (cp -a): to direct ${fwd.seconds.toFixed(1)} s, back ${back.seconds.toFixed(1)} s.`);
    out.push("");
    out.push(pagesTable(measured));

    // 2. read throughput
    log("read throughput: pgdisk's reader, stock and direct");
    const inCat = new Cluster(input).database(DB);
    const dirCat = new Cluster(direct).database(DB);
    out.push("");
    out.push(`### Detoast throughput (${size} sample, warm cache, best of ${RUNS} runs)`);
    out.push("");
    out.push("| values | reader | whole values | MB/s | median pages/value | 100-byte slices | slices/s | median pages/slice |");
    out.push("|---|---|---|---|---|---|---|---|");
    for (const r of READS) {
      const s = server[r.table];
      const plain = ourReads(inCat, r.table);
      const dir = ourReads(dirCat, r.table);
      const row = (who: string, f: ReadFigures): string =>
        `| ${r.table} (${f.values}, ${mb(f.bytes)} MB) | ${who} | ${f.fullMs.toFixed(0)} ms | ${(f.bytes / 1e3 / f.fullMs).toFixed(0)} | ${median(f.fullPages)} | ${f.sliceMs.toFixed(0)} ms | ${((f.slices / f.sliceMs) * 1000).toFixed(0)} | ${median(f.slicePages)} |`;
      out.push(row("pgdisk, stock (TOAST index)", plain));
      out.push(row("pgdisk, direct (by TID)", dir));
      out.push(`| ${r.table} (${s.values}, ${mb(s.bytes)} MB) | server SELECT length(substr(v, 1)) | ${s.selectMs.toFixed(0)} ms | ${(s.bytes / 1e3 / s.selectMs).toFixed(0)} | | ${s.sliceMs.toFixed(0)} ms (substr) | ${((s.values / s.sliceMs) * 1000).toFixed(0)} | |`);
      out.push(`| | server COPY ... TO '/dev/null' | ${s.copyMs.toFixed(0)} ms | ${(s.bytes / 1e3 / s.copyMs).toFixed(0)} | | | | |`);
    }
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function pagesTable(r: MigrateToastReport): string {
  const lines = ["Pages touched per whole-value read (TOAST heap + TOAST index), median / p99, stock -> direct:", "", "| table | single-chunk | multi-chunk (2-100) | tree (> 100) |", "|---|---|---|---|"];
  for (const t of r.tables) {
    const c = (k: "single" | "multi" | "tree"): string => {
      const m = t.pagesTouched[k];
      return m.values && m.before && m.after ? `${m.before.median} / ${m.before.p99} -> ${m.after.median} / ${m.after.p99} (${m.values})` : "-";
    };
    lines.push(`| ${t.table} | ${c("single")} | ${c("multi")} | ${c("tree")} |`);
  }
  return lines.join("\n");
}

await main();
