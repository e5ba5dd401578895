// global/pg_control decoded field by field against pg_controldata, round trips, and damaged files.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ControlFileData, decodeControlFile, encodeControlFile, type ControlFile } from "../../formats/storage/control-file.js";
import { crc32c } from "../../formats/storage/crc32c.js";
import { FormatError } from "../../formats/schema/errors.js";
import { PgServer } from "../../samples/pg-server.js";

process.env.TZ = "UTC"; // pg_controldata prints times with localtime(); the children inherit this

let srv: PgServer;
let scratch: string;

before(async () => {
  // Non-default settings, so that each field is told apart from its neighbours and defaults.
  srv = await PgServer.create({
    checksums: true,
    conf: ["wal_level = logical", "wal_log_hints = on", "track_commit_timestamp = on", "max_connections = 37", "max_worker_processes = 9", "max_wal_senders = 7", "max_prepared_transactions = 3", "max_locks_per_transaction = 71"],
  });
  srv.sql("CREATE TABLE t AS SELECT generate_series(1, 1000) g; CHECKPOINT;");
  scratch = mkdtempSync(join(tmpdir(), "pgdisk-control-"));
  chmodSync(scratch, 0o755);
});
after(() => {
  srv?.destroy();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function pgControldata(dir: string): { fields: Map<string, string>; warning: boolean } {
  const out = srv.tool("pg_controldata", ["-D", dir]);
  const fields = new Map<string, string>();
  for (const line of out.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0 && !line.startsWith("WARNING")) fields.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return { fields, warning: out.includes("Calculated CRC checksum does not match") };
}

/** A pg_control file in its own data directory for pg_controldata. */
function controlDir(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(scratch, "d-"));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "global"), { mode: 0o755 });
  chmodSync(join(dir, "global"), 0o755);
  writeFileSync(join(dir, "global", "pg_control"), bytes);
  chmodSync(join(dir, "global", "pg_control"), 0o644);
  return dir;
}

// C-locale strftime("%c") in UTC, as pg_controldata prints pg_time_t values.
function cTime(t: bigint): string {
  const d = new Date(Number(t) * 1000);
  const wd = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][d.getUTCDay()];
  const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  const p2 = (n: number): string => String(n).padStart(2, "0");
  return `${wd} ${mon} ${String(d.getUTCDate()).padStart(2, " ")} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

/** Our decode rendered with pg_controldata's labels (PostgreSQL 15 wording). */
function asControldata(c: ControlFile): Map<string, string> {
  const f = c.fields;
  const cp = f.checkPointCopy;
  const lsn = (x: bigint): string => `${(x >> 32n).toString(16).toUpperCase()}/${(x & 0xffffffffn).toString(16).toUpperCase()}`;
  const onoff = (b: boolean): string => (b ? "on" : "off");
  return new Map<string, string>([
    ["pg_control version number", String(f.pg_control_version)],
    ["Catalog version number", String(f.catalog_version_no)],
    ["Database system identifier", String(f.system_identifier)],
    ["Database cluster state", c.stateText],
    ["pg_control last modified", cTime(f.time)],
    ["Latest checkpoint location", c.checkPointLsn],
    ["Latest checkpoint's REDO location", c.redoLsn],
    ["Latest checkpoint's REDO WAL file", c.redoWalFile],
    ["Latest checkpoint's TimeLineID", String(cp.ThisTimeLineID)],
    ["Latest checkpoint's PrevTimeLineID", String(cp.PrevTimeLineID)],
    ["Latest checkpoint's full_page_writes", onoff(cp.fullPageWrites)],
    ["Latest checkpoint's NextXID", `${c.nextXid.epoch}:${c.nextXid.xid}`],
    ["Latest checkpoint's NextOID", String(cp.nextOid)],
    ["Latest checkpoint's NextMultiXactId", String(cp.nextMulti)],
    ["Latest checkpoint's NextMultiOffset", String(cp.nextMultiOffset)],
    ["Latest checkpoint's oldestXID", String(cp.oldestXid)],
    ["Latest checkpoint's oldestXID's DB", String(cp.oldestXidDB)],
    ["Latest checkpoint's oldestActiveXID", String(cp.oldestActiveXid)],
    ["Latest checkpoint's oldestMultiXid", String(cp.oldestMulti)],
    ["Latest checkpoint's oldestMulti's DB", String(cp.oldestMultiDB)],
    ["Latest checkpoint's oldestCommitTsXid", String(cp.oldestCommitTsXid)],
    ["Latest checkpoint's newestCommitTsXid", String(cp.newestCommitTsXid)],
    ["Time of latest checkpoint", cTime(cp.time)],
    ["Fake LSN counter for unlogged rels", lsn(f.unloggedLSN)],
    ["Minimum recovery ending location", lsn(f.minRecoveryPoint)],
    ["Min recovery ending loc's timeline", String(f.minRecoveryPointTLI)],
    ["Backup start location", lsn(f.backupStartPoint)],
    ["Backup end location", lsn(f.backupEndPoint)],
    ["End-of-backup record required", f.backupEndRequired ? "yes" : "no"],
    ["wal_level setting", c.walLevelName],
    ["wal_log_hints setting", onoff(f.wal_log_hints)],
    ["max_connections setting", String(f.MaxConnections)],
    ["max_worker_processes setting", String(f.max_worker_processes)],
    ["max_wal_senders setting", String(f.max_wal_senders)],
    ["max_prepared_xacts setting", String(f.max_prepared_xacts)],
    ["max_locks_per_xact setting", String(f.max_locks_per_xact)],
    ["track_commit_timestamp setting", onoff(f.track_commit_timestamp)],
    ["Maximum data alignment", String(f.maxAlign)],
    ["Database block size", String(c.blcksz)],
    ["Blocks per segment of large relation", String(c.relseg_size)],
    ["WAL block size", String(c.xlog_blcksz)],
    ["Bytes per WAL segment", String(c.xlog_seg_size)],
    ["Maximum length of identifiers", String(f.nameDataLen)],
    ["Maximum columns in an index", String(f.indexMaxKeys)],
    ["Maximum size of a TOAST chunk", String(f.toast_max_chunk_size)],
    ["Size of a large-object chunk", String(f.loblksize)],
    ["Date/time type storage", "64-bit integers"],
    ["Float8 argument passing", f.float8ByVal ? "by value" : "by reference"],
    ["Data page checksum version", String(c.data_checksum_version)],
    ["Mock authentication nonce", c.mockAuthNonceHex],
  ]);
}

function assertMatchesControldata(c: ControlFile, dir: string): number {
  const theirs = pgControldata(dir);
  assert.equal(theirs.warning, false);
  const ours = asControldata(c);
  assert.deepEqual([...ours.keys()].sort(), [...theirs.fields.keys()].sort(), "same set of lines as pg_controldata");
  for (const [k, v] of ours) assert.equal(v, theirs.fields.get(k), k);
  return ours.size;
}

const readControl = (dir: string): Uint8Array => new Uint8Array(readFileSync(join(dir, "global", "pg_control")));

test("the declaration is 296 bytes with the CRC at 288 and CheckPoint at 40 (88 bytes)", () => {
  assert.equal(ControlFileData.size, 296);
  assert.equal(ControlFileData.offsets.crc, 288);
  assert.equal(ControlFileData.offsets.checkPointCopy, 40);
  assert.equal(ControlFileData.offsets.unloggedLSN, 128);
  assert.equal(ControlFileData.offsets.data_checksum_version, 252);
  const layout = ControlFileData.layout();
  assert.equal(layout.find((l) => l.path === "checkPointCopy.nextXid")?.offset, 64);
  assert.equal(layout.find((l) => l.path === "checkPointCopy.oldestActiveXid")?.offset, 120);
});

test("running cluster: every pg_controldata line matches the decode (state in production)", () => {
  const bytes = readControl(srv.pgdata);
  const c = decodeControlFile(bytes);
  assert.equal(c.crcOk, true);
  assert.equal(c.stateName, "DB_IN_PRODUCTION");
  const n = assertMatchesControldata(c, srv.pgdata);
  console.log(`pg_controldata (running): ${n} lines matched`);
});

test("stopped cluster: every line matches (shut down), CRC recomputed, byte-exact round trip of the whole 8192-byte file", () => {
  srv.stop();
  const bytes = readControl(srv.pgdata);
  assert.equal(bytes.length, 8192);
  const c = decodeControlFile(bytes);
  assert.equal(c.crcOk, true);
  assert.equal(c.computedCrc, c.storedCrc);
  assert.equal(c.stateName, "DB_SHUTDOWNED");
  assert.equal(c.version.pg_control_version, 1300);
  assert.equal(c.version.catalogRelease, 15);
  assert.equal(c.dataChecksums, true);
  assert.equal(c.floatFormatOk, true);
  const n = assertMatchesControldata(c, srv.pgdata);
  assert.deepEqual(encodeControlFile(c.fields, { tail: c.tail }), bytes);
  assert.deepEqual(encodeControlFile(c.fields), bytes, "PostgreSQL zero-fills past the struct");
  console.log(`pg_controldata (stopped): ${n} lines matched; crc ${c.storedCrc}`);
});

test("an edited file re-encoded with a new CRC is accepted by pg_controldata, with the new values", () => {
  const c = decodeControlFile(readControl(srv.pgdata));
  const fields = { ...c.fields, max_locks_per_xact: 77, checkPointCopy: { ...c.fields.checkPointCopy, nextOid: 123456, nextXid: (5n << 32n) | 4242n } };
  const bytes = encodeControlFile(fields, { tail: c.tail });
  const d = decodeControlFile(bytes);
  assert.equal(d.crcOk, true);
  assert.equal(d.nextXid.epoch, 5);
  assert.equal(d.nextXid.xid, 4242);
  const dir = controlDir(bytes);
  const theirs = pgControldata(dir);
  assert.equal(theirs.warning, false);
  assert.equal(theirs.fields.get("max_locks_per_xact setting"), "77");
  assert.equal(theirs.fields.get("Latest checkpoint's NextOID"), "123456");
  assert.equal(theirs.fields.get("Latest checkpoint's NextXID"), "5:4242");
  assertMatchesControldata(d, dir);
});

test("a flipped CRC byte or data byte: crcOk false (not thrown), and pg_controldata warns too", () => {
  const good = readControl(srv.pgdata);
  for (const off of [288, 291, 100, 0]) {
    const bad = new Uint8Array(good);
    bad[off] ^= 0x01;
    const c = decodeControlFile(bad);
    assert.equal(c.crcOk, false, `byte ${off}`);
    assert.notEqual(c.computedCrc, c.storedCrc);
    assert.equal(pgControldata(controlDir(bad)).warning, true, `pg_controldata on byte ${off}`);
  }
});

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof FormatError, String(e));
    return { code: e.code, message: e.message };
  }
  assert.fail("no error thrown");
}

test("truncated files give CONTROL_TRUNCATED", () => {
  const good = readControl(srv.pgdata);
  for (const n of [0, 4, 11, 200, 295]) assert.equal(codeOf(() => decodeControlFile(good.slice(0, n))).code, "CONTROL_TRUNCATED", `${n} bytes`);
  assert.equal(decodeControlFile(good.slice(0, 296)).crcOk, true, "296 bytes are enough");
});

test("other pg_control versions are refused with CONTROL_UNSUPPORTED_VERSION naming the release", () => {
  const good = readControl(srv.pgdata);
  const withVersion = (v: number, le = true): Uint8Array => {
    const b = new Uint8Array(good);
    new DataView(b.buffer).setUint32(8, v, le);
    // a PG18+ file keeps its CRC at 292
    if (v >= 1800) new DataView(b.buffer).setUint32(292, crc32c(b.subarray(0, 292)), true);
    return b;
  };
  const cases: [number, RegExp][] = [
    [1900, /^pg_control version 1900 is PostgreSQL 19; pgdisk reads pg_control versions 1300, 1700, 1800 \(PostgreSQL 13, 14, 15, 16, 17 and 18\)$/],
    [1201, /PostgreSQL 12;/],
    [1100, /PostgreSQL 11;/],
    [1002, /PostgreSQL 10;/],
    [1200, /1200 is not a known PostgreSQL pg_control version/],
  ];
  for (const [v, re] of cases) {
    const e = codeOf(() => decodeControlFile(withVersion(v)));
    assert.equal(e.code, "CONTROL_UNSUPPORTED_VERSION", String(v));
    assert.match(e.message, re);
  }
  const swapped = codeOf(() => decodeControlFile(withVersion(1300, false)));
  assert.equal(swapped.code, "CONTROL_UNSUPPORTED_VERSION");
  assert.match(swapped.message, /byte-swapped/);
  // Version is checked before length: a short PG19 file still says PG19.
  assert.equal(codeOf(() => decodeControlFile(withVersion(1900).slice(0, 100))).code, "CONTROL_UNSUPPORTED_VERSION");
});

test("after pg_resetwal sets epoch, xid, multixacts and OID, the decode still matches pg_controldata", () => {
  srv.tool("pg_resetwal", ["-f", "-e", "7", "-x", "3000000", "-m", "50,40", "-O", "9000", "-o", "70000", "-D", srv.pgdata]);
  const c = decodeControlFile(readControl(srv.pgdata));
  assert.equal(c.crcOk, true);
  assert.deepEqual([c.nextXid.epoch, c.nextXid.xid], [7, 3000000]);
  assert.equal(c.fields.checkPointCopy.nextMulti, 50);
  assert.equal(c.fields.checkPointCopy.oldestMulti, 40);
  assert.equal(c.fields.checkPointCopy.nextMultiOffset, 9000);
  assert.equal(c.fields.checkPointCopy.nextOid, 70000);
  assertMatchesControldata(c, srv.pgdata);
});

test("a 1300 file with random contents still decodes (crcOk false) rather than throwing", async () => {
  const { randomBytes } = await import("node:crypto");
  const good = readControl(srv.pgdata);
  for (let i = 0; i < 200; i++) {
    const bad = new Uint8Array(good);
    bad.set(randomBytes(296 - 12), 12);
    const c = decodeControlFile(bad);
    assert.equal(c.crcOk, false);
    assert.equal(typeof c.stateName, "string");
  }
});
