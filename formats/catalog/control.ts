// pg_control of a data directory. A forward conversion renames it to pg_control.pgdisk so no
// stock server starts on the output (new-formats.md §4), and an output still being written keeps
// it as pg_control.pgdisk-incomplete until the end; pgdisk reads any of the three names.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../schema/errors.js";
import { decodeControlFile, type ControlFile } from "../storage/control-file.js";

/** The names global/pg_control has: stock, fenced (a converted cluster), and being written by pgdisk. */
export const CONTROL_NAMES = { plain: "pg_control", renamed: "pg_control.pgdisk", incomplete: "pg_control.pgdisk-incomplete" } as const;
export type ControlName = (typeof CONTROL_NAMES)[keyof typeof CONTROL_NAMES];

/** Which name global/pg_control has in a data directory, if any. */
export function controlFileName(pgdata: string): ControlName | undefined {
  return Object.values(CONTROL_NAMES).find((n) => existsSync(join(pgdata, "global", n)));
}

export interface ControlSummary {
  file: string;
  /** pg_control was found as pg_control.pgdisk (a converted cluster) */
  renamed: boolean;
  /** the name it was found under */
  name: ControlName;
  blcksz: number;
  relsegSize: number;
  dataChecksumVersion: number;
  /** DBState name, e.g. DB_SHUTDOWNED */
  stateName: string;
  /** cleanly shut down (DB_SHUTDOWNED, or DB_SHUTDOWNED_IN_RECOVERY for a standby; the migrate gate takes only the first) */
  cleanShutdown: boolean;
  control: ControlFile;
}

export function readControlFile(pgdata: string): ControlSummary {
  const plain = join(pgdata, "global", CONTROL_NAMES.plain);
  const name = controlFileName(pgdata);
  const file = name && join(pgdata, "global", name);
  if (!file || !name) throw new FormatError("CONTROL_MISSING", `${plain} does not exist: not a PostgreSQL data directory`, { file: plain });
  let control: ControlFile;
  try {
    control = decodeControlFile(new Uint8Array(readFileSync(file)));
  } catch (e) {
    throw e instanceof FormatError ? e.at({ file }) : e;
  }
  if (!control.version.isPg15) {
    throw new FormatError("CLUSTER_UNSUPPORTED_VERSION", `${file}: catalog version ${control.version.catalog_version_no} is ${control.version.releases}, not PostgreSQL 15 (202209061); pgdisk reads PostgreSQL 15 clusters`, { file });
  }
  if (!control.crcOk) {
    throw new FormatError("CONTROL_BAD_CRC", `${file}: CRC mismatch (stored ${control.storedCrc}, computed ${control.computedCrc}); the control file is damaged`, { file, offset: 288 });
  }
  return {
    file,
    renamed: name === CONTROL_NAMES.renamed,
    name,
    blcksz: control.blcksz,
    relsegSize: control.relseg_size,
    dataChecksumVersion: control.data_checksum_version,
    stateName: control.stateName,
    cleanShutdown: control.state === 1 || control.state === 2,
    control,
  };
}
