// new-formats.md §4: a cluster holding BTP_PREFIX pages (or Direct TOAST values) must not be
// started by a stock server, so a forward conversion renames global/pg_control to
// pg_control.pgdisk; converting back restores the name once neither format remains anywhere.
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { Cluster } from "../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../formats/storage/relfile.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView, pdSpecial } from "../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpOff } from "../formats/page/item-id.js";
import { BTP_DELETED, BTP_LEAF, BTP_META, BTP_PREFIX, readBTOpaque, SizeOfBTPageOpaqueData } from "../formats/nbtree/opaque.js";
import { HEAP_HASNULL, HTH, SizeofHeapTupleHeader } from "../formats/heap/tuple-header.js";

export const CONTROL_RENAMED = "pg_control.pgdisk";

/** Does any btree index of any database (other than those in `skip`, "dbOid/filenode") hold a BTP_PREFIX page? */
export function clusterHasPrefixPages(pgdata: string, skip: ReadonlySet<string> = new Set()): { found: boolean; where?: string } {
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

/**
 * A conservative test for Direct TOAST values (new-formats.md §1.2): a live chunk in some toast
 * relation with more than three attributes or a NULL chunk_id. Stock chunks never have either.
 */
export function clusterHasDirectToast(pgdata: string): { found: boolean; where?: string } {
  const cluster = new Cluster(pgdata);
  for (const db of cluster.databases()) {
    const cat = cluster.database(db.oid);
    for (const rel of cat.classes.values()) {
      if (rel.kind !== "t" || rel.filenode === 0) continue;
      const path = cat.path(rel);
      if (!existsSync(path)) continue;
      const fork = new RelationFork(path, cluster.geometry);
      try {
        for (const [blk, page] of scanBlocks(fork)) {
          const dv = pageView(page);
          if (pageIsNew(dv)) continue;
          for (let i = 1; i <= maxOffsetNumber(dv); i++) {
            const w = itemIdWord(dv, i);
            if (lpFlags(w) !== LP_NORMAL) continue;
            const off = lpOff(w);
            if (off + SizeofHeapTupleHeader > page.length) continue;
            const natts = dv.getUint16(off + HTH.t_infomask2, true) & 0x07ff;
            const nulls = (dv.getUint16(off + HTH.t_infomask, true) & HEAP_HASNULL) !== 0;
            if (natts > 3 || (nulls && (page[off + SizeofHeapTupleHeader]! & 1) === 0)) return { found: true, where: `${db.name}: ${rel.namespaceName}.${rel.name} block ${blk}` };
          }
        }
      } finally {
        fork.close();
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

/**
 * Put global/pg_control under the name the output needs: pg_control.pgdisk while a BTP_PREFIX
 * page (or a Direct TOAST value) remains, pg_control otherwise.
 */
export function settleControlName(pgdata: string, prefixRemains: { found: boolean; where?: string }): ControlNameAction {
  const plain = join(pgdata, "global", "pg_control");
  const renamed = join(pgdata, "global", CONTROL_RENAMED);
  const isRenamed = !existsSync(plain) && existsSync(renamed);
  if (prefixRemains.found) {
    if (isRenamed) return { action: "kept-renamed", file: renamed, reason: `BTP_PREFIX pages remain (${prefixRemains.where})` };
    renameSync(plain, renamed);
    return { action: "renamed", file: renamed, reason: `the output holds BTP_PREFIX pages (${prefixRemains.where}); no stock server may start on it` };
  }
  if (!isRenamed) return { action: "unchanged", file: plain, reason: "no BTP_PREFIX page in the output" };
  const direct = clusterHasDirectToast(pgdata);
  if (direct.found) return { action: "kept-renamed", file: renamed, reason: `no BTP_PREFIX page remains, but Direct TOAST values do (${direct.where})` };
  renameSync(renamed, plain);
  return { action: "restored", file: plain, reason: "no BTP_PREFIX page and no Direct TOAST value remains" };
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
