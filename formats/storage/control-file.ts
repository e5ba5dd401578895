// global/pg_control in the three layouts of PostgreSQL 13 to 18 (src/include/catalog/pg_control.h,
// src/common/controldata_utils.c): PG_CONTROL_VERSION 1300 (13 to 16), 1700 (17: CheckPoint gains
// wal_level in the padding after fullPageWrites) and 1800 (18: default_char_signedness after
// data_checksum_version, which moves the nonce by one byte and the CRC from 288 to 292).
// The file is PG_CONTROL_FILE_SIZE = 8192 bytes; only the first sizeof(ControlFileData) = 296 are
// meaningful. The CRC-32C covers the bytes before `crc`. C alignment padding is declared
// explicitly so that encode(decode(x)) is byte-exact.
import {
  bool,
  bytes,
  defineStruct,
  f64,
  FormatError,
  i32,
  i64,
  nest,
  pad,
  register,
  u32,
  u64,
  type AnyStruct,
  type InferStruct,
} from "../schema/index.js";
import { crc32c } from "./crc32c.js";
import { profileByCatalogVersion, supportedReleasesText } from "../version/index.js";

const checkPointHead = [
  u64("redo", "REDO start point: WAL position where the checkpoint began (XLogRecPtr)"),
  u32("ThisTimeLineID", "current timeline"),
  u32("PrevTimeLineID", "previous timeline (differs from ThisTimeLineID only at a timeline switch)"),
  bool("fullPageWrites", "full_page_writes setting at the checkpoint"),
] as const;
const checkPointTail = [
  u64("nextXid", "next free transaction id, FullTransactionId = epoch << 32 | xid"),
  u32("nextOid", "next free OID"),
  u32("nextMulti", "next free MultiXactId"),
  u32("nextMultiOffset", "next free MultiXact member offset"),
  u32("oldestXid", "cluster-wide minimum datfrozenxid"),
  u32("oldestXidDB", "OID of a database with that datfrozenxid"),
  u32("oldestMulti", "cluster-wide minimum datminmxid"),
  u32("oldestMultiDB", "OID of a database with that datminmxid"),
  pad("_pad60", 4),
  i64("time", "time of the checkpoint (pg_time_t, seconds since 1970)"),
  u32("oldestCommitTsXid", "oldest XID with a valid commit timestamp"),
  u32("newestCommitTsXid", "newest XID with a valid commit timestamp"),
  u32("oldestActiveXid", "oldest XID still running (online checkpoints with wal_level >= replica), else 0"),
  pad("_pad84", 4),
] as const;

/** CheckPoint of PG_CONTROL_VERSION 1300 (PostgreSQL 13 to 16). */
export const CheckPoint = register(defineStruct("CheckPoint", "src/include/catalog/pg_control.h", [...checkPointHead, pad("_pad17", 7), ...checkPointTail] as const));
/** CheckPoint of 1700 and 1800 (PostgreSQL 17, 18): wal_level fills part of the padding. */
export const CheckPoint1700 = register(
  defineStruct("CheckPoint1700", "src/include/catalog/pg_control.h (PostgreSQL 17+)", [
    ...checkPointHead,
    pad("_pad17", 3),
    i32("wal_level", "wal_level at the checkpoint: 0 minimal, 1 replica, 2 logical"),
    ...checkPointTail,
  ] as const),
);

const controlHead = [
  u64("system_identifier", "unique cluster identifier (matches WAL segment headers)"),
  u32("pg_control_version", "PG_CONTROL_VERSION: 1300 for PostgreSQL 13 to 16, 1700 for 17, 1800 for 18"),
  u32("catalog_version_no", "CATALOG_VERSION_NO (catversion.h), one per release"),
  i32("state", "DBState: 0 starting up … 1 shut down … 6 in production"),
  pad("_pad20", 4),
  i64("time", "time of the last pg_control update (pg_time_t, seconds since 1970)"),
  u64("checkPoint", "WAL position of the last checkpoint record"),
] as const;
const controlMiddle = [
  u64("unloggedLSN", "current fake LSN for unlogged relations"),
  u64("minRecoveryPoint", "WAL must be replayed to here before the cluster is consistent"),
  u32("minRecoveryPointTLI", "timeline of minRecoveryPoint"),
  pad("_pad148", 4),
  u64("backupStartPoint", "start of the base backup being recovered, else 0"),
  u64("backupEndPoint", "end of a standby backup being recovered, else 0"),
  bool("backupEndRequired", "an end-of-backup record must be seen before startup"),
  pad("_pad169", 3),
  i32("wal_level", "0 minimal, 1 replica, 2 logical"),
  bool("wal_log_hints", "wal_log_hints setting"),
  pad("_pad177", 3),
  i32("MaxConnections", "max_connections setting"),
  i32("max_worker_processes", "max_worker_processes setting"),
  i32("max_wal_senders", "max_wal_senders setting"),
  i32("max_prepared_xacts", "max_prepared_transactions setting"),
  i32("max_locks_per_xact", "max_locks_per_transaction setting"),
  bool("track_commit_timestamp", "track_commit_timestamp setting"),
  pad("_pad201", 3),
  u32("maxAlign", "MAXIMUM_ALIGNOF (8 on x86-64)"),
  f64("floatFormat", "the constant 1234567.0 (FLOATFORMAT_VALUE), checks the float format"),
  u32("blcksz", "BLCKSZ: data page size in bytes (8192)"),
  u32("relseg_size", "RELSEG_SIZE: blocks per relation segment file (131072 = 1 GiB)"),
  u32("xlog_blcksz", "XLOG_BLCKSZ: WAL page size (8192)"),
  u32("xlog_seg_size", "WAL segment size in bytes (16 MiB by default)"),
  u32("nameDataLen", "NAMEDATALEN (64)"),
  u32("indexMaxKeys", "INDEX_MAX_KEYS (32)"),
  u32("toast_max_chunk_size", "TOAST_MAX_CHUNK_SIZE (1996 for 8 KiB pages)"),
  u32("loblksize", "LOBLKSIZE: large-object chunk size (2048)"),
  bool("float8ByVal", "float8, int8 etc. passed by value (true on 64-bit)"),
  pad("_pad249", 3),
  u32("data_checksum_version", "0: data checksums off; 1: on (PG_DATA_CHECKSUM_VERSION)"),
] as const;
const nonce = bytes("mock_authentication_nonce", 32, "random nonce for SCRAM mock authentication");

/** The fields of 1300 and 1700, which differ only in the CheckPoint they nest. */
const controlFields = <C extends AnyStruct>(checkPoint: C) =>
  [
    ...controlHead,
    nest("checkPointCopy", checkPoint, "copy of the last checkpoint record"),
    ...controlMiddle,
    nonce,
    u32("crc", "CRC-32C of bytes [0, 288)"),
    pad("_pad292", 4),
  ] as const;

/** ControlFileData of PG_CONTROL_VERSION 1300 (PostgreSQL 13 to 16). */
export const ControlFileData = register(defineStruct("ControlFileData", "src/include/catalog/pg_control.h", controlFields(CheckPoint)));
/** ControlFileData of 1700 (PostgreSQL 17): only the CheckPoint copy differs. */
export const ControlFileData1700 = register(defineStruct("ControlFileData1700", "src/include/catalog/pg_control.h (PostgreSQL 17)", controlFields(CheckPoint1700)));
/** ControlFileData of 1800 (PostgreSQL 18): default_char_signedness before the nonce. */
export const ControlFileData1800 = register(
  defineStruct("ControlFileData1800", "src/include/catalog/pg_control.h (PostgreSQL 18)", [
    ...controlHead,
    nest("checkPointCopy", CheckPoint1700, "copy of the last checkpoint record"),
    ...controlMiddle,
    bool("default_char_signedness", "whether plain char was signed on the machine that ran initdb"),
    nonce,
    pad("_pad289", 3),
    u32("crc", "CRC-32C of bytes [0, 292)"),
  ] as const),
);

/** The fields every layout has (the 1700 and 1800 extras are optional here). */
export type ControlFileFields = InferStruct<typeof ControlFileData> &
  Partial<Pick<InferStruct<typeof ControlFileData1800>, "default_char_signedness">> & {
    checkPointCopy: InferStruct<typeof CheckPoint> & Partial<Pick<InferStruct<typeof CheckPoint1700>, "wal_level">>;
  };
export type CheckPointFields = ControlFileFields["checkPointCopy"];

/** One pg_control layout: its struct and where its CRC sits. */
export interface ControlLayout {
  pg_control_version: number;
  struct: AnyStruct;
  /** offset of `crc`: the CRC covers the bytes before it */
  crcOffset: number;
  /** offset of floatFormat (for findings) */
  floatFormatOffset: number;
}

const layoutOf = (v: number, struct: AnyStruct): ControlLayout => ({ pg_control_version: v, struct, crcOffset: struct.offsets.crc!, floatFormatOffset: struct.offsets.floatFormat! });
/** Every pg_control layout pgdisk decodes, by PG_CONTROL_VERSION. */
export const CONTROL_LAYOUTS: ReadonlyMap<number, ControlLayout> = new Map([
  [1300, layoutOf(1300, ControlFileData)],
  [1700, layoutOf(1700, ControlFileData1700)],
  [1800, layoutOf(1800, ControlFileData1800)],
]);

export const PG_CONTROL_FILE_SIZE = 8192;
export const FLOATFORMAT_VALUE = 1234567.0;
const SIZE = ControlFileData.size; // 296 in every layout
const VERSION_OFF = ControlFileData.offsets.pg_control_version; // 8 in every layout
const KNOWN_LAYOUTS = `${[...CONTROL_LAYOUTS.keys()].join(", ")}`;

export const DB_STATE_NAMES = [
  "DB_STARTUP",
  "DB_SHUTDOWNED",
  "DB_SHUTDOWNED_IN_RECOVERY",
  "DB_SHUTDOWNING",
  "DB_IN_CRASH_RECOVERY",
  "DB_IN_ARCHIVE_RECOVERY",
  "DB_IN_PRODUCTION",
] as const;
/** The wording pg_controldata uses for each DBState. */
export const DB_STATE_TEXT = ["starting up", "shut down", "shut down in recovery", "shutting down", "in crash recovery", "in archive recovery", "in production"] as const;
export const WAL_LEVEL_NAMES = ["minimal", "replica", "logical"] as const;

/** Which PostgreSQL release(s) wrote a given pg_control_version. */
export function controlVersionRelease(v: number): string | null {
  if (v >= 1700 && v < 10000) return `PostgreSQL ${Math.floor(v / 100)}`; // 17+: major * 100 (+ development bumps)
  const older: Record<number, string> = {
    1300: "PostgreSQL 13 to 16",
    1201: "PostgreSQL 12",
    1100: "PostgreSQL 11",
    1002: "PostgreSQL 10",
    960: "PostgreSQL 9.6",
    942: "PostgreSQL 9.4 or 9.5",
    937: "PostgreSQL 9.3",
    922: "PostgreSQL 9.2",
    903: "PostgreSQL 9.0 or 9.1",
  };
  return older[v] ?? null;
}

export interface ControlFileVersion {
  pg_control_version: number;
  catalog_version_no: number;
  /** release named by the catalog version when it is a supported release's, e.g. 15; null otherwise (development builds, newer releases) */
  catalogRelease: number | null;
  /** releases that share this pg_control layout */
  releases: string;
}

export interface ControlFile {
  /** every struct field of its layout, as stored (the crc field is the stored CRC) */
  fields: ControlFileFields;
  layout: ControlLayout;
  /** bytes after the struct, up to the end of the file (zero in files PostgreSQL wrote), kept for encode */
  tail: Uint8Array;
  fileSize: number;
  crcOk: boolean;
  storedCrc: number;
  computedCrc: number;
  version: ControlFileVersion;
  state: number;
  /** DBState name, e.g. "DB_SHUTDOWNED"; "unknown (n)" when out of range */
  stateName: string;
  /** pg_controldata's wording, e.g. "shut down" */
  stateText: string;
  blcksz: number;
  relseg_size: number;
  xlog_blcksz: number;
  xlog_seg_size: number;
  data_checksum_version: number;
  dataChecksums: boolean;
  walLevelName: string;
  floatFormatOk: boolean;
  /** checkPointCopy.nextXid split as pg_controldata prints it (epoch:xid) */
  nextXid: { epoch: number; xid: number; full: bigint };
  /** LSNs as "X/Y" text */
  checkPointLsn: string;
  redoLsn: string;
  /** WAL segment file holding the checkpoint's REDO point ("" when xlog_seg_size is not a valid size) */
  redoWalFile: string;
  /** times as ISO-8601 UTC text ("invalid (n)" when out of range) */
  lastModified: string;
  checkPointTime: string;
  mockAuthNonceHex: string;
}

/** "X/Y" text of an XLogRecPtr, as pg_lsn and pg_controldata print it. */
export function xlogRecPtrText(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** XLogFileName: the WAL segment file name holding `lsn`. */
export function walFileName(tli: number, lsn: bigint, segSize: number): string {
  const seg = lsn / BigInt(segSize);
  const perId = 0x100000000n / BigInt(segSize);
  const hex = (n: bigint | number): string => n.toString(16).toUpperCase().padStart(8, "0");
  return hex(tli) + hex(seg / perId) + hex(seg % perId);
}

// A damaged file (reported via crcOk) must still decode: out-of-range values give text, not a throw.
const MAX_DATE_SECONDS = 8.64e12;
const isoTime = (t: bigint): string => (t >= -MAX_DATE_SECONDS && t <= MAX_DATE_SECONDS ? new Date(Number(t) * 1000).toISOString() : `invalid (${t})`);
const validSegSize = (n: number): boolean => n >= 1 << 20 && n <= 1 << 30 && (n & (n - 1)) === 0;
const hexBytes = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Read pg_control_version and refuse any layout but those of CONTROL_LAYOUTS. */
function checkVersion(buf: Uint8Array): ControlLayout {
  if (buf.length < VERSION_OFF + 4) {
    throw new FormatError("CONTROL_TRUNCATED", `pg_control is ${buf.length} bytes; it needs at least ${SIZE} (sizeof(ControlFileData))`, { file: "global/pg_control", offset: buf.length });
  }
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const v = dv.getUint32(VERSION_OFF, true);
  const layout = CONTROL_LAYOUTS.get(v);
  if (layout) return layout;
  const loc = { file: "global/pg_control", offset: VERSION_OFF, path: "ControlFileData.pg_control_version" };
  // The same test PostgreSQL makes for a file written on a machine of the other byte order.
  if (v % 65536 === 0 && v / 65536 !== 0) {
    const swapped = dv.getUint32(VERSION_OFF, false);
    throw new FormatError(
      "CONTROL_UNSUPPORTED_VERSION",
      `pg_control version ${v} (0x${v.toString(16).padStart(8, "0")}) looks byte-swapped (${swapped} read big-endian): the cluster was written on a big-endian machine; pgdisk reads little-endian pg_control versions ${KNOWN_LAYOUTS}`,
      loc,
    );
  }
  const release = controlVersionRelease(v);
  const what = release ? `is ${release}` : "is not a known PostgreSQL pg_control version";
  throw new FormatError("CONTROL_UNSUPPORTED_VERSION", `pg_control version ${v} ${what}; pgdisk reads pg_control versions ${KNOWN_LAYOUTS} (${supportedReleasesText()})`, loc);
}

/**
 * Decode global/pg_control in the layout its pg_control_version names. Throws
 * CONTROL_UNSUPPORTED_VERSION for other layouts and CONTROL_TRUNCATED for short files; a CRC
 * mismatch is reported (crcOk false), not thrown.
 */
export function decodeControlFile(buf: Uint8Array): ControlFile {
  const layout = checkVersion(buf);
  if (buf.length < SIZE) {
    throw new FormatError("CONTROL_TRUNCATED", `pg_control is ${buf.length} bytes; it needs at least ${SIZE} (sizeof(ControlFileData))`, { file: "global/pg_control", offset: buf.length });
  }
  const fields = layout.struct.decode(buf, 0) as unknown as ControlFileFields;
  const computedCrc = crc32c(buf.subarray(0, layout.crcOffset));
  const cp = fields.checkPointCopy;
  const cat = fields.catalog_version_no;
  return {
    fields,
    layout,
    tail: buf.slice(SIZE),
    fileSize: buf.length,
    crcOk: computedCrc === fields.crc,
    storedCrc: fields.crc,
    computedCrc,
    version: {
      pg_control_version: fields.pg_control_version,
      catalog_version_no: cat,
      catalogRelease: profileByCatalogVersion(cat)?.major ?? null,
      releases: controlVersionRelease(fields.pg_control_version) ?? "",
    },
    state: fields.state,
    stateName: DB_STATE_NAMES[fields.state] ?? `unknown (${fields.state})`,
    stateText: DB_STATE_TEXT[fields.state] ?? "unrecognized status code",
    blcksz: fields.blcksz,
    relseg_size: fields.relseg_size,
    xlog_blcksz: fields.xlog_blcksz,
    xlog_seg_size: fields.xlog_seg_size,
    data_checksum_version: fields.data_checksum_version,
    dataChecksums: fields.data_checksum_version !== 0,
    walLevelName: WAL_LEVEL_NAMES[fields.wal_level] ?? "unrecognized wal_level",
    floatFormatOk: fields.floatFormat === FLOATFORMAT_VALUE,
    nextXid: { epoch: Number(cp.nextXid >> 32n), xid: Number(cp.nextXid & 0xffffffffn), full: cp.nextXid },
    checkPointLsn: xlogRecPtrText(fields.checkPoint),
    redoLsn: xlogRecPtrText(cp.redo),
    redoWalFile: validSegSize(fields.xlog_seg_size) ? walFileName(cp.ThisTimeLineID, cp.redo, fields.xlog_seg_size) : "",
    lastModified: isoTime(fields.time),
    checkPointTime: isoTime(cp.time),
    mockAuthNonceHex: hexBytes(fields.mock_authentication_nonce),
  };
}

/**
 * Encode a pg_control in the layout of its pg_control_version: the struct with a freshly computed
 * CRC (the `crc` field is ignored), followed by `tail` (default zeros) up to `fileSize` (default 8192) bytes.
 */
export function encodeControlFile(fields: ControlFileFields, opts: { tail?: Uint8Array; fileSize?: number } = {}): Uint8Array {
  const fileSize = opts.fileSize ?? (opts.tail ? SIZE + opts.tail.length : PG_CONTROL_FILE_SIZE);
  if (fileSize < SIZE) throw new RangeError(`pg_control needs at least ${SIZE} bytes, asked for ${fileSize}`);
  const layout = CONTROL_LAYOUTS.get(fields.pg_control_version);
  if (!layout) throw new RangeError(`no pg_control layout for version ${fields.pg_control_version} (known: ${KNOWN_LAYOUTS})`);
  const out = new Uint8Array(fileSize);
  layout.struct.encodeInto(fields as never, out, 0);
  if (opts.tail) out.set(opts.tail.subarray(0, fileSize - SIZE), SIZE);
  const crc = crc32c(out.subarray(0, layout.crcOffset));
  new DataView(out.buffer).setUint32(layout.crcOffset, crc, true);
  return out;
}
