// Helpers for the TOAST tests on real clusters: the TOAST pointers of a table read offline, row
// digests keyed by ctid from a running server, and the CLI run as a child process.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { checkDirectPointers, type DirectCheck } from "./direct-verify.js";
import type { PgServer } from "../../samples/pg-server.js";
import { RelationFork as Fork } from "../../formats/storage/relfile.js";
import { tupleState } from "../../formats/heap/visibility.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { pointersOf, storedTuples, toastReaderOf, type PointerAt } from "../../samples/toast-kit.js";

// the offline readers live in samples/toast-kit.ts (benches use them too)
export { pointersOf, storedTuples, toastReaderOf, type PointerAt };

export const ROOT = join(import.meta.dirname, "..", "..");

/** §1.5 over every direct pointer of a table, by verify's checker; chunk liveness from pg_xact. */
export function checkDirectInvariants(cat: DatabaseCatalog, rel: RelationInfo): DirectCheck {
  const toast = cat.classes.get(rel.toastRelid)!;
  const fork = new Fork(cat.path(toast), cat.cluster.geometry);
  const clog = cat.cluster.clog;
  const isLive = (page: Uint8Array, off: number): boolean => {
    const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
    return tupleState(dv.getUint32(off + HTH.t_xmin, true), dv.getUint32(off + HTH.t_xmax, true), dv.getUint16(off + HTH.t_infomask, true), clog) === "live";
  };
  try {
    return checkDirectPointers(fork, toast.oid, pointersOf(cat, rel).map((p) => ({ pointer: p.pointer, where: { block: p.block, item: p.item, attnum: p.attnum }, dead: !p.live })), isLive);
  } finally {
    fork.close();
  }
}

/** md5 of each row's text, by ctid, for every user table of a database. */
export function rowDigests(srv: PgServer, db: string): Map<string, Map<string, string>> {
  const tables = srv.rows("SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1", db).map((r) => r[0]!);
  const out = new Map<string, Map<string, string>>();
  for (const t of tables) out.set(t, new Map(srv.rows(`SELECT ctid::text, md5(x::text) FROM ${t} x`, db).map((r) => [r[0]!, r[1]!])));
  return out;
}

/** Run bin/pgdisk; stdout as a Buffer. */
export function pgdisk(args: string[]): { status: number; stdout: Buffer; stderr: string } {
  const r = spawnSync(join(ROOT, "bin", "pgdisk"), args, { maxBuffer: 1 << 30 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** Run `pgdisk migrate ...` through cli/migrate.ts (whatever cli/main.ts registers). */
export function pgdiskMigrate(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "test", "toast", "migrate-cli.ts"), ...args], { cwd: ROOT, maxBuffer: 1 << 30, encoding: "utf8" });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
