// Real-server clusters for the btree tests and benches: stopped clusters made on a real server,
// the server's own REINDEX of a copy, page-by-page comparison ignoring pd_lsn and pd_checksum,
// and rebuilds of index files in a copy.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer } from "./pg-server.js";
import { Cluster } from "../formats/catalog/cluster.js";
import { RelationFork } from "../formats/storage/relfile.js";
import { leafTuples } from "../formats/nbtree/reader.js";
import { BtreeCatalog } from "../migrate/btree/index-info.js";
import { switchStaged } from "../migrate/staged.js";
import { convertIndex, type ConvertMode, type IndexConversion, type TargetFormat } from "../migrate/btree/convert.js";
import { clusterOwner } from "../migrate/file-owner.js";
import type { PrefixPolicyName } from "../formats/nbtree/prefix-policy.js";

export const BLCKSZ = 8192;
/** pd_lsn (8 bytes) and pd_checksum (2 bytes) are where REINDEX output legitimately differs. */
const IGNORED = 10;

/** Make a cluster with `sql` run in database `db`, then VACUUM, CHECKPOINT and a clean stop. */
export async function stoppedCluster(sql: string, opts: { checksums?: boolean; db?: string } = {}): Promise<PgServer> {
  const srv = await PgServer.create({ checksums: opts.checksums });
  const db = opts.db ?? "postgres";
  if (db !== "postgres") srv.sql(`create database ${db}`);
  srv.sql(sql, db);
  srv.sql("vacuum; checkpoint;", db);
  srv.stop();
  return srv;
}

/** A private copy of a stopped server's root (data/ inside); returns the new root. */
export function copyRoot(root: string, tag: string): string {
  const dst = mkdtempSync(join(tmpdir(), `pgdisk-bt-${tag}-`));
  rmSync(dst, { recursive: true });
  execFileSync("cp", ["-a", "--reflink=auto", root, dst]);
  rmSync(join(dst, "sock"), { recursive: true, force: true });
  rmSync(join(dst, "data", "postmaster.pid"), { force: true });
  return dst;
}

/** REINDEX the indexes on a copy of a stopped cluster (by npm server `version` when given); returns each index's file content. */
export function reindexCopy(root: string, db: string, indexes: string[], version?: number): { root: string; files: Map<string, Buffer> } {
  const copy = copyRoot(root, "reindex");
  const srv = PgServer.attach(copy, { version });
  srv.start();
  try {
    srv.sql(indexes.map((i) => `reindex index ${i};`).join("\n") + "\ncheckpoint;", db);
    const paths = new Map(indexes.map((i) => [i, srv.rows(`select pg_relation_filepath('${i}')`, db)[0]![0]!]));
    srv.stop();
    return { root: copy, files: new Map([...paths].map(([i, p]) => [i, readFileSync(join(copy, "data", p))])) };
  } catch (e) {
    srv.destroy();
    throw e;
  }
}

/** Pages that differ beyond pd_lsn and pd_checksum (and whether the page counts differ). */
export function comparePages(ours: Uint8Array, theirs: Uint8Array): { pages: number; theirPages: number; differing: number[] } {
  const pages = ours.length / BLCKSZ;
  const theirPages = theirs.length / BLCKSZ;
  const differing: number[] = [];
  for (let p = 0; p < Math.max(pages, theirPages); p++) {
    const a = ours.subarray(p * BLCKSZ + IGNORED, (p + 1) * BLCKSZ);
    const b = theirs.subarray(p * BLCKSZ + IGNORED, (p + 1) * BLCKSZ);
    if (a.length !== b.length || !Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))) differing.push(p);
  }
  return { pages, theirPages, differing };
}

/** Make a copy of a stopped cluster (cp -a, owners and modes kept) and return its data dir. */
export function outputCopy(pgdata: string, tag: string): string {
  const root = mkdtempSync(join(tmpdir(), `pgdisk-bt-${tag}-`));
  const out = join(root, "data");
  execFileSync("cp", ["-a", pgdata, out]);
  rmSync(join(out, "postmaster.pid"), { force: true });
  return out;
}

/** Convert indexes of a cluster directory in place (a test copy); returns their reports and paths. */
export function convertInPlace(pgdata: string, db: string, indexes: string[], o: { to: TargetFormat; mode: ConvertMode; policy?: PrefixPolicyName }): Map<string, { report: IndexConversion; path: string }> {
  const cluster = new Cluster(pgdata);
  const cat = cluster.database(db);
  const bc = new BtreeCatalog(cat);
  const out = new Map<string, { report: IndexConversion; path: string }>();
  for (const name of indexes) {
    const rel = cat.findRelation(name);
    const path = cat.path(rel);
    const { result: report, staged } = convertIndex(bc.info(rel), path, { to: o.to, mode: o.mode, policy: o.policy ?? "lead", geometry: cluster.geometry, checksums: cluster.control.dataChecksumVersion !== 0, owner: clusterOwner(pgdata) });
    switchStaged(staged);
    out.set(name, { report, path });
  }
  return out;
}

/** Path of an index's main fork in a cluster directory. */
export function indexPath(pgdata: string, db: string, name: string): string {
  const cat = new Cluster(pgdata).database(db);
  return cat.path(cat.findRelation(name));
}

/** The leaf tuples of an index file in key order (stock bytes; postings expanded if asked). */
export function leafStream(path: string, expandPostings: boolean): Uint8Array[] {
  const fork = new RelationFork(path);
  try {
    return [...leafTuples(fork, { expandPostings })].map((t) => t.tuple.slice());
  } finally {
    fork.close();
  }
}

export function removeRoot(root: string | undefined): void {
  if (root && existsSync(root)) rmSync(root, { recursive: true, force: true });
}
