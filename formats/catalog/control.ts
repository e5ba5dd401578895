// pg_control and PG_VERSION of a data directory, and the version profile they choose. A forward
// conversion renames pg_control to pg_control.pgdisk so no stock server starts on the output
// (new-formats.md §4), and an output still being written keeps it as
// pg_control.pgdisk-incomplete until the end; pgdisk reads any of the three names. While
// pg_control has either pgdisk name, PG_VERSION holds the fence text (pgVersionFenceText): the
// server and pg_resetwal both check PG_VERSION before pg_control, so neither a stock server nor
// `pg_resetwal -f` after recreating pg_control can make the cluster startable unnoticed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../schema/errors.js";
import { decodeControlFile, type ControlFile } from "../storage/control-file.js";
import { profileForCluster, profileByMajor, supportedReleasesText, type VersionProfile } from "../version/index.js";

/** The names global/pg_control has: stock, fenced (a converted cluster), and being written by pgdisk. */
export const CONTROL_NAMES = { plain: "pg_control", renamed: "pg_control.pgdisk", incomplete: "pg_control.pgdisk-incomplete" } as const;
export type ControlName = (typeof CONTROL_NAMES)[keyof typeof CONTROL_NAMES];

/** BLCKSZ values configure accepts (--with-blocksize 1, 2, 4, 8, 16, 32). */
const VALID_BLOCK_SIZES: readonly number[] = [1024, 2048, 4096, 8192, 16384, 32768];

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
  /** the release the cluster's files name */
  profile: VersionProfile;
}

/**
 * The first line of a fenced PG_VERSION. The server reads its first word as a version number
 * (strtol: 0, so "database files are incompatible with server", naming the word) and pg_resetwal
 * compares the whole line with its major (so it refuses, even with -f). The word names pgdisk,
 * the major to restore and the way back; at most 63 characters, all the server prints of it.
 */
const FENCE_PREFIX = "0-pgdisk-fenced:";
const FENCE_WAY_BACK = "pgdisk-migrate--toast=plain--btree=plain";
const FENCE_LINE = /^0-pgdisk-fenced:(\d+):/;

/** PG_VERSION's bytes while the cluster is fenced: the fence line, then why, for a person reading it. */
export function pgVersionFenceText(major: number): string {
  return (
    `${FENCE_PREFIX}${major}:${FENCE_WAY_BACK}\n` +
    `This PostgreSQL ${major} cluster holds (or is being converted to) formats no released server reads:\n` +
    `Direct TOAST values or BTP_PREFIX btree pages (pgdisk, new-formats.md). Its pg_control is named\n` +
    `global/pg_control.pgdisk. Convert it back with\n` +
    `  pgdisk migrate --pgdata DIR --in-place --toast plain --btree plain\n` +
    `which restores this file and pg_control. Do not run pg_resetwal on it.\n`
  );
}

/** PG_VERSION's bytes on a stock cluster (initdb writes the major and a newline). */
export const pgVersionPlainText = (major: number): string => `${major}\n`;

/** PG_VERSION's text read: the major it names, and whether it is pgdisk's fence. */
export function parsePgVersion(text: string): { major: string; fenced: boolean } {
  const m = FENCE_LINE.exec(text);
  return m ? { major: m[1]!, fenced: true } : { major: text.trim(), fenced: false };
}

/** PG_VERSION's major (the fence's own when fenced), refused early when it names no supported release; undefined when absent. */
function readPgVersion(pgdata: string): string | undefined {
  const versionFile = join(pgdata, "PG_VERSION");
  if (!existsSync(versionFile)) return undefined;
  const v = parsePgVersion(readFileSync(versionFile, "utf8")).major;
  if (!/^\d+$/.test(v) || !profileByMajor(Number(v))) {
    throw new FormatError("CLUSTER_UNSUPPORTED_VERSION", `${versionFile} says PostgreSQL ${v}; pgdisk reads ${supportedReleasesText()}`, { file: versionFile });
  }
  return v;
}

export function readControlFile(pgdata: string): ControlSummary {
  const pgVersion = readPgVersion(pgdata);
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
  const profile = profileForCluster({
    pgVersion,
    pgControlVersion: control.version.pg_control_version,
    catalogVersionNo: control.version.catalog_version_no,
    versionFile: join(pgdata, "PG_VERSION"),
    controlFile: file,
  });
  if (!control.crcOk) {
    throw new FormatError("CONTROL_BAD_CRC", `${file}: CRC mismatch (stored ${control.storedCrc}, computed ${control.computedCrc}); the control file is damaged`, { file, offset: control.layout.crcOffset });
  }
  // every file offset pgdisk computes comes from these two: configure allows BLCKSZ of 1 to 32
  // KiB in powers of two, and a segment of at least one block
  if (!VALID_BLOCK_SIZES.includes(control.blcksz) || control.relseg_size < 1) {
    throw new FormatError(
      "CONTROL_BAD_GEOMETRY",
      `${file}: block size ${control.blcksz} and segment size ${control.relseg_size} blocks are not a build PostgreSQL can have (block size 1024 to 32768, a power of two; at least one block per segment)`,
      { file },
    );
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
    profile,
  };
}
