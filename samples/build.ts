// Builds a sample PostgreSQL 15 cluster from a size and a seed, then shuts it down cleanly.
// Layout of `out` (PgServer's): out/data (PGDATA), out/sock (socket dir, empty when stopped),
// out/server.log, and out/sample.json (the SampleInfo below).
// Same seed and size give the same logical content; physical bytes (xids, LSNs, OIDs of the
// build's own objects, free space left by timing-independent but order-dependent activity) may differ.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { PgServer } from "./pg-server.js";
import { sqlLiteral } from "./copy.js";
import { SampleDb, type GenContext, type TableReport } from "./loader.js";
import { Rng } from "./prng.js";
import { SIZES, isSizeName, type SizeName } from "./sizes.js";
import { buildChurn } from "./data/churn.js";
import { buildEmbeddings } from "./data/embeddings.js";
import { buildEvolving } from "./data/evolving.js";
import { buildLinks } from "./data/links.js";
import { buildPlaces } from "./data/places.js";
import { buildToast } from "./data/toast.js";
import { buildTypes } from "./data/types.js";

/** Bumped whenever the same seed would start producing different content. */
export const GENERATOR_VERSION = 2;
export const SAMPLE_DB = "pgdisk_sample";
export const DEFAULT_SEED = 1;

export interface BuildOptions {
  size: SizeName;
  seed?: number;
  /** Root directory; must be absent or empty. The cluster goes to out/data. */
  out: string;
  /** initdb --data-checksums (default true) */
  checksums?: boolean;
  /** major version of an npm server (13..18); default Debian's PostgreSQL 15, which has lz4 */
  version?: number;
  onProgress?: (msg: string) => void;
}

export interface SampleTableInfo {
  database: string;
  schema: string;
  name: string;
  rows: number;
  description: string;
  orderBy: string;
  scanSafe: boolean;
}

export interface SampleInfo {
  generatorVersion: number;
  /** the server that built it: SHOW server_version */
  serverVersion: string;
  size: SizeName;
  seed: number;
  checksums: boolean;
  /** the `out` directory */
  root: string;
  /** out/data */
  pgdata: string;
  databases: string[];
  schemas: string[];
  tables: SampleTableInfo[];
  /** human-readable summary; contains no port or other per-run detail */
  description: string;
  /** wall time of the build */
  buildMs: number;
}

/**
 * Server settings of a sample build, chosen so that the same seed gives the same pages:
 * - synchronous_commit = on: hint bits (and so VACUUM's PD_ALL_VISIBLE and the VM bits) can be
 *   set only once a commit's WAL is flushed; with asynchronous commit that waits for the WAL
 *   writer and races with whatever runs next.
 * - no timed checkpoints and no autovacuum (PgServer turns it off): nothing runs in the
 *   background while the generators write.
 * - wal_recycle = off: old WAL segments are removed, not kept as spares (small pg_wal).
 */
const SAMPLE_CONF = [
  "synchronous_commit = on",
  "checkpoint_timeout = 1d",
  "min_wal_size = 32MB",
  "max_wal_size = 4GB",
  "wal_recycle = off",
  "maintenance_work_mem = 256MB",
];

type Generator = (ctx: GenContext) => TableReport[];

/** Column compression clauses came with PostgreSQL 14; lz4 needs a server built with it. */
function serverFeatures(db: SampleDb): GenContext["features"] {
  const major = Math.floor(Number(db.sql("SHOW server_version_num;").trim()) / 10000);
  if (major < 14) return { compressionClause: false, lz4: false, numericInfinity: false };
  try {
    // the GUC refuses lz4 on a build without it, and creates nothing (no OID is spent)
    db.sql("SET default_toast_compression = lz4;");
    return { compressionClause: true, lz4: true, numericInfinity: true };
  } catch {
    return { compressionClause: true, lz4: false, numericInfinity: true };
  }
}

/** Each generator gets its own random stream, keyed by this name. */
const GENERATORS: [string, Generator][] = [
  ["toast", buildToast],
  ["embeddings", buildEmbeddings],
  ["links", buildLinks],
  ["places", buildPlaces],
  ["churn", buildChurn],
  ["evolving", buildEvolving],
  ["types", buildTypes],
];

function assertEmptyDir(out: string): void {
  if (!existsSync(out)) return;
  const entries = readdirSync(out);
  if (entries.length > 0) throw new Error(`output directory ${out} exists and is not empty (${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", ..." : ""})`);
}

/**
 * As root, the server runs as `postgres`, which must be able to reach `out`: every existing
 * ancestor has to be searchable by others (mkdtemp makes 0700 directories, for one).
 */
function assertReachable(out: string): void {
  if (process.getuid?.() !== 0) return;
  for (let d = dirname(out); ; d = dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) {
      throw new Error(`${d} is not searchable by the postgres user (mode ${(statSync(d).mode & 0o777).toString(8)}); pick another output directory or chmod o+x it`);
    }
    if (d === dirname(d)) return;
  }
}

export function describeSample(info: Omit<SampleInfo, "description" | "buildMs">): string {
  const lines = [
    `pgdisk sample cluster: PostgreSQL ${info.serverVersion}, size ${info.size}, seed ${info.seed}, data checksums ${info.checksums ? "on" : "off"}, generator v${info.generatorVersion}`,
    `PGDATA ${info.pgdata} (cleanly shut down)`,
    `databases: ${info.databases.join(", ")}; schemas in ${SAMPLE_DB}: ${info.schemas.join(", ")}`,
  ];
  for (const t of info.tables) lines.push(`  ${t.database}.${t.schema}.${t.name}: ${t.rows} rows: ${t.description}`);
  return lines.join("\n");
}

export async function buildSample(opts: BuildOptions): Promise<SampleInfo> {
  if (!isSizeName(opts.size)) throw new Error(`unknown size ${String(opts.size)} (tiny, small, large)`);
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
  const checksums = opts.checksums ?? true;
  const root = resolve(opts.out);
  const progress = opts.onProgress ?? (() => {});
  const profile = SIZES[opts.size];
  const started = Date.now();

  assertEmptyDir(root);
  assertReachable(root);
  mkdirSync(root, { recursive: true });
  progress(`initdb ${join(root, "data")} (checksums ${checksums ? "on" : "off"})`);
  const srv = await PgServer.create({
    dir: root,
    checksums,
    version: opts.version,
    conf: SAMPLE_CONF,
  });
  try {
    srv.sql(`CREATE DATABASE ${SAMPLE_DB};`);
    srv.sql(`
      CREATE TABLE public.sample_meta (key text PRIMARY KEY, value text NOT NULL);
      INSERT INTO public.sample_meta VALUES
        ('generator_version', ${sqlLiteral(String(GENERATOR_VERSION))}),
        ('size', ${sqlLiteral(opts.size)}),
        ('seed', ${sqlLiteral(String(seed))}),
        ('sample_database', ${sqlLiteral(SAMPLE_DB)});
      VACUUM ANALYZE public.sample_meta;
    `);
    const tables: TableReport[] = [
      { database: "postgres", schema: "public", name: "sample_meta", rows: 4, description: "how the sample was made", orderBy: "key", scanSafe: true },
    ];
    const db = new SampleDb(srv, SAMPLE_DB, progress);
    const features = serverFeatures(db);
    const serverVersion = db.sql("SHOW server_version;").trim();
    db.sql(`
      CREATE SCHEMA archive;
      -- For inspecting the sample on a running server; creates functions only, no relations.
      CREATE EXTENSION pageinspect;
      CREATE EXTENSION pgstattuple;
    `);
    for (const [key, gen] of GENERATORS) {
      progress(`generating ${key}`);
      const t0 = Date.now();
      const made = gen({ db, rng: new Rng(seed, `pgdisk-sample/${key}`), profile, progress, features });
      tables.push(...made);
      progress(`${key}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    progress("checking row counts");
    for (const t of tables) {
      if (t.database !== SAMPLE_DB || !t.scanSafe) continue;
      // Row counts are checked against what the generators sent; tables with kept dead tuples are
      // not scanned (a scan would prune them).
      const [[count]] = db.rows(`SELECT count(*) FROM ${t.schema}.${t.name}`);
      if (Number(count) !== t.rows) throw new Error(`${t.schema}.${t.name}: ${count} rows, generator sent ${t.rows}`);
    }
    srv.sql("CHECKPOINT;");
    progress("stopping the server (fast, clean shutdown)");
    srv.stop();
    const base = {
      generatorVersion: GENERATOR_VERSION,
      serverVersion,
      size: opts.size,
      seed,
      checksums,
      root,
      pgdata: srv.pgdata,
      databases: ["postgres", SAMPLE_DB],
      schemas: ["public", "archive"],
      tables: tables.map((t) => ({ ...t })),
    };
    const info: SampleInfo = { ...base, description: describeSample(base), buildMs: Date.now() - started };
    writeFileSync(join(root, "sample.json"), JSON.stringify(info, null, 2) + "\n");
    return info;
  } catch (e) {
    try {
      srv.stop();
    } catch {
      srv.tool("pg_ctl", ["-D", srv.pgdata, "-m", "immediate", "-w", "stop"], true);
    }
    throw e;
  }
}
