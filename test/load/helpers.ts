// Helpers for the `pgdisk load` tests: running the CLI, heap tuples of a table as the server
// sees them (pageinspect), and the digest of a table's rows.
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { copyLine, type Field } from "../../samples/copy.js";
import { copyRoot, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { ROOT, storedTuples } from "../toast/cluster-helpers.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { readToastPointer } from "../../formats/varlena/toast-pointer.js";
import { readTcinfo } from "../../formats/compression/index.js";

/** Run `pgdisk load ...` through cli/main.ts. */
export function pgdiskLoad(args: string[], input?: string | Buffer, env: Record<string, string> = {}): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "cli", "main.ts"), "load", ...args], { cwd: ROOT, input, maxBuffer: 1 << 30, encoding: "utf8", env: { ...process.env, ...env } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export interface ServerTuple {
  ctid: string;
  data: string;
  infomask: number;
  xmin: number;
}

/** Every stored tuple of a table (needs pageinspect): ctid, data bytes (hex), t_infomask, t_xmin. */
export function heapTuples(srv: PgServer, db: string, table: string): ServerTuple[] {
  const n = Number(srv.rows(`select pg_relation_size('${table}') / 8192`, db)[0]![0]);
  const out: ServerTuple[] = [];
  for (let b = 0; b < n; b++) {
    for (const [lp, data, im, xmin] of srv.rows(`select lp, encode(t_data, 'hex'), t_infomask, t_xmin from heap_page_items(get_raw_page('${table}', ${b})) where lp_flags = 1 order by lp`, db)) {
      out.push({ ctid: `(${b},${lp})`, data: data!, infomask: Number(im), xmin: Number(xmin) });
    }
  }
  return out;
}

/** md5 of every row's text, in `order` order, and the row count. */
export function tableDigest(srv: PgServer, db: string, table: string, order: string): { rows: number; md5: string } {
  const [n, md5] = srv.rows(`select count(*), md5(coalesce(string_agg(x::text, E'\\n' order by ${order}), '')) from ${table} x`, db)[0]!;
  return { rows: Number(n), md5: md5! };
}

/** What a twin test leaves behind: its server, the loaded and twin copies of its root, the input files' directory. */
export function removeTwins(srv: PgServer | undefined, roots: string[], dir: string): void {
  srv?.destroy();
  for (const root of roots) removeRoot(root);
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** pg_amcheck --heapallindexed --parent-check finds nothing in a database (installing amcheck first when asked). */
export function assertAmcheckClean(srv: PgServer, db: string, install = false): void {
  const r = srv.toolResult("pg_amcheck", [...srv.connArgs(db), "--heapallindexed", "--parent-check", ...(install ? ["--install-missing"] : [])]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
}

/** Every stored value of a table's tuples, by row id, as comparable strings: value OIDs and direct TIDs left out. */
export function storedValues(db: string, pgdata: string, table: string, o: { lz4Sizes?: boolean } = {}): Map<number, string[]> {
  const cat = new Cluster(pgdata).database(db);
  const rel = cat.findRelation(table);
  const desc = cat.descriptor(rel.oid);
  const out = new Map<number, string[]>();
  for (const { tuple: t } of storedTuples(cat, rel)) {
    const attrs = deformHeapTuple(t, desc).attrs;
    const vals = attrs.map((s) => {
      if (s.isnull) return "null";
      const d = t.subarray(s.off, s.off + s.len);
      if (!s.varlena) return Buffer.from(d).toString("hex");
      if (s.varlena.kind === "1b_e") {
        const p = readToastPointer(t, s.off);
        const method = p.va_extinfo >>> 30;
        return `external ${p.va_rawsize} ${o.lz4Sizes === false && method === 1 ? "lz4" : p.va_extinfo}`;
      }
      if (s.varlena.kind === "4b_c") {
        const m = readTcinfo(d.subarray(4)).method;
        return m === 1 && o.lz4Sizes === false ? "compressed lz4" : `compressed ${Buffer.from(d).toString("hex")}`;
      }
      return `${s.varlena.kind} ${Buffer.from(d).toString("hex")}`;
    });
    out.set(new DataView(t.buffer).getInt32(attrs[0]!.off, true), vals);
  }
  return out;
}

/** A stopped cluster and two copies of it: one that `pgdisk load` filled from `file`, one twin for COPY FROM of the same file. */
export interface LoadTwins {
  srv: PgServer;
  dir: string;
  file: string;
  loadedRoot: string;
  twinRoot: string;
  load: { status: number; stdout: string; stderr: string };
}

/** Make the cluster with `setup` in database `db`, write `lines` as a COPY text file, copy the cluster twice and load the file into `table` of the first copy. */
export async function loadTwins(setup: string, o: { db: string; table: string; lines: Field[][]; tag: string }): Promise<LoadTwins> {
  const srv = await stoppedCluster(setup, { db: o.db });
  const dir = mkdtempSync(join(tmpdir(), `pgdisk-load-${o.tag}-`));
  chmodSync(dir, 0o755);
  const file = join(dir, `${o.table}.tsv`);
  writeForPg(file, o.lines.map(copyLine).join(""));
  const loadedRoot = copyRoot(srv.root, "loaded");
  const twinRoot = copyRoot(srv.root, "twin");
  const load = pgdiskLoad(["--pgdata", join(loadedRoot, "data"), "-d", o.db, "-t", o.table, "--json", file]);
  return { srv, dir, file, loadedRoot, twinRoot, load };
}

/**
 * The load succeeded with `rows` rows; COPY FROM (after `twinSql`) into the twin gives the same
 * row text (in `order`) and the same stored tuple data (pageinspect); `more` compares further
 * with both servers running.
 */
export function assertTwinsAgree(t: LoadTwins, o: { db: string; table: string; rows: number; order: string; twinSql?: string; more?: (loaded: PgServer, twin: PgServer) => void }): void {
  assert.equal(t.load.status, 0, t.load.stderr);
  assert.equal(JSON.parse(t.load.stdout).rows, o.rows);
  const twin = PgServer.attach(t.twinRoot);
  twin.start();
  const loaded = PgServer.attach(t.loadedRoot);
  loaded.start();
  try {
    twin.sql(`${o.twinSql ?? ""} copy ${o.table} from '${t.file}';`, o.db);
    assert.deepEqual(tableDigest(loaded, o.db, o.table, o.order), tableDigest(twin, o.db, o.table, o.order));
    const data = (s: PgServer): string[] => heapTuples(s, o.db, o.table).map((x) => x.data).sort();
    assert.deepEqual(data(loaded), data(twin));
    o.more?.(loaded, twin);
  } finally {
    twin.stop();
    loaded.stop();
  }
}
