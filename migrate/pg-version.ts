// PG_VERSION's half of the format fence (formats/catalog/control.ts has the texts): fenced while
// global/pg_control has a pgdisk name, stock once it has its own name back.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CONTROL_NAMES, controlFileName, parsePgVersion, pgVersionFenceText, pgVersionPlainText } from "../formats/catalog/control.js";
import { clusterOwner, type ClusterOwner } from "./file-owner.js";
import { switchInto, writeDurably } from "./fsync.js";

const PG_VERSION_TMP = "PG_VERSION.pgdisk-tmp";

export interface PgVersionWrite {
  /** the data directory whose PG_VERSION gives the major version (default: pgdata itself) */
  from?: string;
  /** who gets the file (default: pgdata's owner and modes) */
  owner?: ClusterOwner;
  fsync?: boolean;
}

/**
 * Give pgdata's PG_VERSION the fence text (`fenced`) or the stock one, durably: written whole
 * under a temporary name as the cluster's owner, fsynced, renamed over it, the directory fsynced.
 * A no-op when it already says so, or when the source directory has no PG_VERSION.
 */
export function writePgVersion(pgdata: string, fenced: boolean, w: PgVersionWrite = {}): void {
  const source = join(w.from ?? pgdata, "PG_VERSION");
  if (!existsSync(source)) return;
  const old = readFileSync(source, "utf8");
  const major = Number(parsePgVersion(old).major);
  const text = fenced ? pgVersionFenceText(major) : pgVersionPlainText(major);
  const file = join(pgdata, "PG_VERSION");
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  const sync = w.fsync ?? true;
  const tmp = join(pgdata, PG_VERSION_TMP);
  writeDurably(tmp, new TextEncoder().encode(text), w.owner ?? clusterOwner(pgdata), sync);
  switchInto(tmp, file, sync);
}

/** PG_VERSION as pg_control's name says: fenced unless pg_control has its stock name (idempotent). */
export function settlePgVersion(pgdata: string, fsync = true): void {
  rmSync(join(pgdata, PG_VERSION_TMP), { force: true });
  writePgVersion(pgdata, controlFileName(pgdata) !== CONTROL_NAMES.plain, { fsync });
}
