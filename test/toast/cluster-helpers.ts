// Helpers for the TOAST tests on real clusters: the TOAST pointers of a table read offline, row
// digests keyed by ctid from a running server, and the CLI run as a child process.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { tupleState } from "../../formats/heap/visibility.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { readToastPointer, type ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { RelationFork as Fork } from "../../formats/storage/relfile.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { checkDirectPointers, type DirectCheck } from "./direct-verify.js";
import type { PgServer } from "../../samples/pg-server.js";

export const ROOT = join(import.meta.dirname, "..", "..");

export interface PointerAt {
  block: number;
  item: number;
  attnum: number;
  pointer: ToastPointer;
  live: boolean;
  /** the raw bytes of the datum */
  bytes: Uint8Array;
}

/** Every LP_NORMAL tuple of a table, read offline, with its place. */
export function* storedTuples(cat: DatabaseCatalog, rel: RelationInfo): Generator<{ block: number; item: number; tuple: Uint8Array }> {
  const fork = new RelationFork(cat.path(rel), cat.cluster.geometry);
  try {
    for (const [block, page] of scanBlocks(fork)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      for (let item = 1; item <= maxOffsetNumber(dv); item++) {
        const w = itemIdWord(dv, item);
        if (lpFlags(w) !== LP_NORMAL) continue;
        yield { block, item, tuple: page.slice(lpOff(w), lpOff(w) + lpLen(w)) };
      }
    }
  } finally {
    fork.close();
  }
}

/** Every TOAST pointer of a table's tuples, in line pointer and attribute order. */
export function pointersOf(cat: DatabaseCatalog, rel: RelationInfo): PointerAt[] {
  const desc = cat.descriptor(rel.oid);
  const out: PointerAt[] = [];
  for (const { block, item, tuple: t } of storedTuples(cat, rel)) {
    const tv = new DataView(t.buffer);
    const live = tupleState(tv.getUint32(HTH.t_xmin, true), tv.getUint32(HTH.t_xmax, true), tv.getUint16(HTH.t_infomask, true), cat.cluster.clog) === "live";
    deformHeapTuple(t, desc).attrs.forEach((s, k) => {
      if (s.isnull || s.missing || s.varlena?.kind !== "1b_e") return;
      out.push({ block, item, attnum: k + 1, pointer: readToastPointer(t, s.off), live, bytes: t.slice(s.off, s.off + s.len) });
    });
  }
  return out;
}

/** A TOAST reader of a table (its TOAST relation and index). */
export function toastReaderOf(cat: DatabaseCatalog, rel: RelationInfo, withIndex = true): ToastReader {
  const toast = cat.classes.get(rel.toastRelid)!;
  const ix = cat.toastIndexOf(toast.oid);
  const ixRel = ix ? cat.classes.get(ix.indexOid) : undefined;
  const g = cat.cluster.geometry;
  return new ToastReader({ heap: new Fork(cat.path(toast), g), index: withIndex && ixRel ? new Fork(cat.path(ixRel), g) : null, clog: cat.cluster.clog, toastRelid: toast.oid });
}

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
