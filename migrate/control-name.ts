// new-formats.md §4: a cluster holding BTP_PREFIX pages (or Direct TOAST values) must not be
// started by a stock server, so its global/pg_control is named pg_control.pgdisk; converting back
// restores the name once neither format remains anywhere. An output being written carries
// pg_control.pgdisk-incomplete (output-copy.ts); unfenceOutput() gives it its final name, last.
// PG_VERSION is fenced whenever pg_control has a pgdisk name (formats/catalog/control.ts): it is
// fenced before pg_control is renamed and restored after pg_control has its stock name back, so
// at no instant does a cluster with a renamed pg_control have a stock PG_VERSION.
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Cluster } from "../formats/catalog/cluster.js";
import { CONTROL_NAMES } from "../formats/catalog/control.js";
import { RelationFork, scanBlocks } from "../formats/storage/relfile.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView, pdSpecial } from "../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../formats/page/item-id.js";
import { BTP_DELETED, BTP_LEAF, BTP_META, BTP_PREFIX, readBTOpaque, SizeOfBTPageOpaqueData } from "../formats/nbtree/opaque.js";
import { deformHeapTuple } from "../formats/heap/deform.js";
import { decodeChunk } from "../formats/toast/chunk.js";
import { VARTAG_DIRECT } from "../formats/varlena/varlena.js";
import { INCOMPLETE_MARKER } from "./output-copy.js";
import { faultPoint } from "./fault-point.js";
import { fsyncPath } from "./fsync.js";
import { settlePgVersion } from "./pg-version.js";

type Found = { found: boolean; where?: string };

/** Every live-or-dead LP_NORMAL tuple of a relation fork, with its block. */
function* tuplesOf(path: string, cluster: Cluster): Generator<{ blk: number; tuple: Uint8Array }> {
  const fork = new RelationFork(path, cluster.geometry);
  try {
    for (const [blk, page] of scanBlocks(fork)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = itemIdWord(dv, i);
        if (lpFlags(w) !== LP_NORMAL || lpOff(w) + lpLen(w) > page.length) continue;
        yield { blk, tuple: page.subarray(lpOff(w), lpOff(w) + lpLen(w)) };
      }
    }
  } finally {
    fork.close();
  }
}

/** Does any btree index of any database (other than those in `skip`, "dbOid/filenode") hold a BTP_PREFIX page? */
export function clusterHasPrefixPages(pgdata: string, skip: ReadonlySet<string> = new Set()): Found {
  const cluster = new Cluster(pgdata);
  for (const db of cluster.databases()) {
    const cat = cluster.database(db.oid);
    for (const rel of cat.classes.values()) {
      if (rel.kind !== "i" || rel.amName !== "btree" || rel.filenode === 0) continue;
      if (skip.has(`${rel.shared ? 0 : db.oid}/${rel.filenode}`)) continue;
      const path = cat.path(rel);
      if (!existsSync(path)) continue;
      const fork = new RelationFork(path, cluster.geometry);
      try {
        for (const [blk, page] of scanBlocks(fork)) {
          if (blk === 0) continue;
          const dv = pageView(page);
          if (pageIsNew(dv) || page.length - pdSpecial(dv) !== SizeOfBTPageOpaqueData) continue;
          const f = readBTOpaque(dv).btpo_flags;
          if (f & BTP_PREFIX && f & BTP_LEAF && !(f & (BTP_META | BTP_DELETED))) return { found: true, where: `${db.name}: ${rel.namespaceName}.${rel.name} block ${blk}` };
        }
      } finally {
        fork.close();
      }
    }
  }
  return { found: false };
}

/** A chunk only a Direct TOAST writer makes (§1.2): more than three attributes, or a NULL or 0 chunk_id (v1). */
function directChunk(tuple: Uint8Array): boolean {
  try {
    const c = decodeChunk(tuple);
    return c.id === null || c.id === 0;
  } catch {
    return false; // not a chunk of any kind: not ours to judge here (verify reports it)
  }
}

/**
 * A conservative test for Direct TOAST values (new-formats.md §1.2): a parent tuple holding a
 * direct pointer (vartag 19), or a chunk in some toast relation that stock PostgreSQL never
 * writes (more than three attributes, a NULL or 0 chunk_id).
 */
export function clusterHasDirectToast(pgdata: string): Found {
  const cluster = new Cluster(pgdata);
  for (const db of cluster.databases()) {
    const cat = cluster.database(db.oid);
    for (const rel of cat.classes.values()) {
      if (rel.filenode === 0 || !existsSync(cat.path(rel))) continue;
      const where = (blk: number): Found => ({ found: true, where: `${db.name}: ${rel.namespaceName}.${rel.name} block ${blk}` });
      if (rel.kind === "t") {
        for (const { blk, tuple } of tuplesOf(cat.path(rel), cluster)) if (directChunk(tuple)) return where(blk);
      } else if ((rel.kind === "r" || rel.kind === "m") && rel.toastRelid) {
        const desc = cat.descriptor(rel.oid);
        for (const { blk, tuple } of tuplesOf(cat.path(rel), cluster)) {
          let attrs;
          try {
            attrs = deformHeapTuple(tuple, desc).attrs;
          } catch {
            continue;
          }
          if (attrs.some((s) => !s.isnull && !s.missing && s.varlena?.tag === VARTAG_DIRECT)) return where(blk);
        }
      }
    }
  }
  return { found: false };
}

export interface ControlNameAction {
  action: "renamed" | "restored" | "kept-renamed" | "unchanged";
  file: string;
  reason: string;
}

/** What an engine knows about the formats its output holds, and what must still be looked for. */
export interface FenceFacts {
  /** where a Direct TOAST value was written, if one was */
  directWritten?: string;
  /** where a BTP_PREFIX page was written, if one was */
  prefixWritten?: string;
  /** look through the output for Direct TOAST values */
  scanDirect: boolean;
  /** look through the output's btree indexes (but these "dbOid/filenode") for BTP_PREFIX pages */
  scanPrefix: boolean;
  prefixSkip?: ReadonlySet<string>;
}

/** Why a stock server must not start on the output (null: it holds stock formats only). */
export function fenceReason(out: string, f: FenceFacts): string | null {
  if (f.directWritten) return `the output holds Direct TOAST values (${f.directWritten})`;
  if (f.prefixWritten) return `the output holds BTP_PREFIX pages (${f.prefixWritten})`;
  if (f.scanDirect) {
    const d = clusterHasDirectToast(out);
    if (d.found) return `Direct TOAST values remain (${d.where})`;
  }
  if (f.scanPrefix) {
    const p = clusterHasPrefixPages(out, f.prefixSkip);
    if (p.found) return `BTP_PREFIX pages remain (${p.where})`;
  }
  return null;
}

/**
 * The last step of every conversion: the output's files are complete (and fsynced), so give
 * pg_control its final name (pg_control.pgdisk while `reason` says a stock server must not start
 * on it, pg_control otherwise), fsync global/, and remove the incomplete marker.
 */
export function unfenceOutput(out: string, inputWasRenamed: boolean, reason: string | null, fsync = true): ControlNameAction {
  faultPoint("before-unfence");
  const global = join(out, "global");
  const name = reason ? CONTROL_NAMES.renamed : CONTROL_NAMES.plain;
  const file = join(global, name);
  renameSync(join(global, CONTROL_NAMES.incomplete), file);
  if (fsync) fsyncPath(global);
  settlePgVersion(out, fsync);
  rmSync(join(out, INCOMPLETE_MARKER), { force: true });
  if (fsync) fsyncPath(out);
  return controlAction(file, inputWasRenamed, reason);
}

/** What giving pg_control its final name (`file`) did, for the report. */
export function controlAction(file: string, inputWasRenamed: boolean, reason: string | null): ControlNameAction {
  if (reason) {
    return inputWasRenamed
      ? { action: "kept-renamed", file, reason }
      : { action: "renamed", file, reason: `${reason}; no stock server may start on it` };
  }
  return inputWasRenamed
    ? { action: "restored", file, reason: "no Direct TOAST value and no BTP_PREFIX page remains" }
    : { action: "unchanged", file, reason: "no Direct TOAST value and no BTP_PREFIX page in the output" };
}

/** The closing lines both converters print: what happened to pg_control, the SQL file, the time. */
export function controlReportLines(c: ControlNameAction, sqlFile: string, seconds: number): string[] {
  const first =
    c.action === "renamed"
      ? `pg_control renamed to ${c.file}: ${c.reason}. A stock PostgreSQL will not start on the output; a patched server's user renames it back deliberately.`
      : c.action === "restored"
        ? `pg_control restored (${c.file}): ${c.reason}.`
        : c.action === "kept-renamed"
          ? `pg_control stays renamed (${c.file}): ${c.reason}.`
          : `pg_control unchanged: ${c.reason}.`;
  return [first, `SQL for the catalogs written to ${sqlFile}`, `done in ${seconds.toFixed(1)} s`];
}
