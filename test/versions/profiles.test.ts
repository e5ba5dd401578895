// Each version profile against its own server from npm: the descriptor of every catalog pgdisk
// reads equals that server's pg_attribute; its catalog version, pg_control layout, relation map
// size and tablespace directory are the server's; pg_control decodes (CRC at the layout's
// offset) to the values pg_control_system/init/checkpoint/recovery() report. Then the refusals:
// PG_VERSION 19 and an unknown catalog version exit 1 naming what was found and what is supported.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster } from "../../formats/catalog/cluster.js";
import { decodeControlFile, encodeControlFile, type ControlFile } from "../../formats/storage/control-file.js";
import { decodeRelMap } from "../../formats/storage/relmap.js";
import { NEWEST_PROFILE, PROFILES, profileByMajor } from "../../formats/version/index.js";
import { NPM_SERVER_VERSIONS, PgServer } from "../../samples/pg-server.js";
import { pgdisk } from "../toast/cluster-helpers.js";

test("the profiles are the npm servers' versions, oldest first", () => {
  assert.deepEqual(
    PROFILES.map((p) => p.major),
    [...NPM_SERVER_VERSIONS],
  );
});

/** pg_control_*() as name → text, NULL as "" */
function controlFunction(srv: PgServer, fn: string): Map<string, string> {
  // json_each_text keeps the numbers' text (system_identifier does not fit a double)
  return new Map(srv.rows(`SELECT j.key, j.value FROM ${fn}() c, json_each_text(row_to_json(c)) j`).map((r) => [r[0]!, r[1] ?? ""]));
}

const lsn = (n: bigint): string => `${(n >> 32n).toString(16).toUpperCase()}/${(n & 0xffffffffn).toString(16).toUpperCase()}`;

for (const version of NPM_SERVER_VERSIONS) {
  describe(`PostgreSQL ${version}`, () => {
    const profile = profileByMajor(version)!;
    let srv: PgServer;
    let spcDir = "";
    let control: ControlFile;
    let controlBytes: Uint8Array;
    before(async () => {
      srv = await PgServer.create({ version, checksums: true });
      spcDir = join(srv.root, "spc");
      mkdirSync(spcDir);
      if (process.getuid?.() === 0) execFileSync("chown", ["postgres:postgres", spcDir]);
      srv.sql(`CREATE TABLESPACE spc LOCATION '${spcDir}'; CREATE DATABASE vt; `);
      srv.sql("CREATE TABLE moved (id int PRIMARY KEY, t text) TABLESPACE spc; INSERT INTO moved SELECT g, 'row ' || g FROM generate_series(1, 100) g;", "vt");
      // relacl long enough for a 4-byte varlena header (aligned as aclitem[] is), then reloptions
      const roles = Array.from({ length: 12 }, (_, i) => `reader_${i}`);
      srv.sql(roles.map((r) => `CREATE ROLE ${r};`).join(""));
      srv.sql(`${roles.map((r) => `GRANT SELECT ON moved TO ${r};`).join("")} ALTER TABLE moved SET (fillfactor = 70, autovacuum_enabled = off);`, "vt");
      srv.stop();
      controlBytes = new Uint8Array(readFileSync(join(srv.pgdata, "global", "pg_control")));
      control = decodeControlFile(controlBytes);
      srv.start();
    });
    after(() => srv?.destroy());

    test("every catalog descriptor equals the server's pg_attribute (names, types, lengths, by-value, alignment, storage)", () => {
      for (const [name, desc] of Object.entries(profile.catalogs)) {
        const theirs = srv.rows(`SELECT attname, atttypid, attlen, attbyval, attalign, attstorage FROM pg_attribute WHERE attrelid = 'pg_catalog.${name}'::regclass AND attnum > 0 ORDER BY attnum`);
        const ours = desc.attrs.map((a) => [a.name, String(a.typid), String(a.len), a.byval ? "t" : "f", a.align, a.storage]);
        assert.deepEqual(ours, theirs, name);
      }
    });

    test("catalog version, pg_control version, relation map size and tablespace directory are the server's", () => {
      const sys = controlFunction(srv, "pg_control_system");
      assert.equal(sys.get("catalog_version_no"), String(profile.catalogVersionNo));
      assert.equal(sys.get("pg_control_version"), String(profile.pgControlVersion));
      assert.equal(readFileSync(join(srv.pgdata, "PG_VERSION"), "utf8").trim(), String(profile.major));
      const mapBytes = new Uint8Array(readFileSync(join(srv.pgdata, "global", "pg_filenode.map")));
      const map = decodeRelMap(mapBytes, "global/pg_filenode.map", profile.relmapMappings);
      assert.equal(map.crcOk, true);
      assert.equal(mapBytes.length, map.layout.size);
      assert.deepEqual(readdirSync(spcDir), [profile.tablespaceDir]);
      assert.match(srv.sql("SELECT version()"), new RegExp(`^PostgreSQL ${profile.testedRelease.replace(".", "\\.")} `));
    });

    test("pg_control decodes in its layout (CRC valid) to the server's pg_control_*() values", () => {
      assert.equal(control.crcOk, true);
      assert.equal(control.layout.pg_control_version, profile.pgControlVersion);
      assert.equal(control.version.catalogRelease, version);
      const f = control.fields;
      const cp = f.checkPointCopy;
      const sys = controlFunction(srv, "pg_control_system");
      const init = controlFunction(srv, "pg_control_init");
      const ckpt = controlFunction(srv, "pg_control_checkpoint");
      const rec = controlFunction(srv, "pg_control_recovery");
      const ours: [string, Map<string, string>, string, string][] = [
        ["system_identifier", sys, "system_identifier", String(f.system_identifier)],
        ["checkPoint", ckpt, "checkpoint_lsn", lsn(f.checkPoint)],
        ["redo", ckpt, "redo_lsn", lsn(cp.redo)],
        ["ThisTimeLineID", ckpt, "timeline_id", String(cp.ThisTimeLineID)],
        ["PrevTimeLineID", ckpt, "prev_timeline_id", String(cp.PrevTimeLineID)],
        ["fullPageWrites", ckpt, "full_page_writes", String(cp.fullPageWrites)],
        ["nextXid", ckpt, "next_xid", `${control.nextXid.epoch}:${control.nextXid.xid}`],
        ["nextOid", ckpt, "next_oid", String(cp.nextOid)],
        ["nextMulti", ckpt, "next_multixact_id", String(cp.nextMulti)],
        ["nextMultiOffset", ckpt, "next_multi_offset", String(cp.nextMultiOffset)],
        ["oldestXid", ckpt, "oldest_xid", String(cp.oldestXid)],
        ["oldestXidDB", ckpt, "oldest_xid_dbid", String(cp.oldestXidDB)],
        ["oldestActiveXid", ckpt, "oldest_active_xid", String(cp.oldestActiveXid)],
        ["oldestMulti", ckpt, "oldest_multi_xid", String(cp.oldestMulti)],
        ["oldestMultiDB", ckpt, "oldest_multi_dbid", String(cp.oldestMultiDB)],
        ["oldestCommitTsXid", ckpt, "oldest_commit_ts_xid", String(cp.oldestCommitTsXid)],
        ["newestCommitTsXid", ckpt, "newest_commit_ts_xid", String(cp.newestCommitTsXid)],
        ["minRecoveryPoint", rec, "min_recovery_end_lsn", lsn(f.minRecoveryPoint)],
        ["minRecoveryPointTLI", rec, "min_recovery_end_timeline", String(f.minRecoveryPointTLI)],
        ["backupStartPoint", rec, "backup_start_lsn", lsn(f.backupStartPoint)],
        ["backupEndPoint", rec, "backup_end_lsn", lsn(f.backupEndPoint)],
        ["backupEndRequired", rec, "end_of_backup_record_required", String(f.backupEndRequired)],
        ["maxAlign", init, "max_data_alignment", String(f.maxAlign)],
        ["blcksz", init, "database_block_size", String(f.blcksz)],
        ["relseg_size", init, "blocks_per_segment", String(f.relseg_size)],
        ["xlog_blcksz", init, "wal_block_size", String(f.xlog_blcksz)],
        ["xlog_seg_size", init, "bytes_per_wal_segment", String(f.xlog_seg_size)],
        ["nameDataLen", init, "max_identifier_length", String(f.nameDataLen)],
        ["indexMaxKeys", init, "max_index_columns", String(f.indexMaxKeys)],
        ["toast_max_chunk_size", init, "max_toast_chunk_size", String(f.toast_max_chunk_size)],
        ["loblksize", init, "large_object_chunk_size", String(f.loblksize)],
        ["float8ByVal", init, "float8_pass_by_value", String(f.float8ByVal)],
        ["data_checksum_version", init, "data_page_checksum_version", String(f.data_checksum_version)],
      ];
      // 18 adds default_char_signedness
      if (init.has("default_char_signedness")) ours.push(["default_char_signedness", init, "default_char_signedness", String(f.default_char_signedness)]);
      else assert.equal(f.default_char_signedness, undefined);
      for (const [field, fn, column, value] of ours) assert.equal(value, fn.get(column), `${field} = ${column}`);
      assert.equal(new Date(Number(cp.time) * 1000).toISOString().slice(0, 19), new Date(ckpt.get("checkpoint_time")!).toISOString().slice(0, 19));
      // 17+: the checkpoint's own copy of wal_level, the same as the control file's
      if (profile.pgControlVersion >= 1700) assert.equal(cp.wal_level, f.wal_level);
      else assert.equal(cp.wal_level, undefined);
      assert.deepEqual(encodeControlFile(control.fields, { tail: control.tail }), controlBytes, "byte-exact round trip");
    });

    test("a table in a tablespace is found under the profile's directory, its reloptions and rows are read", () => {
      srv.stop();
      const cluster = new Cluster(srv.pgdata);
      assert.equal(cluster.profile, profile);
      const cat = cluster.database("vt");
      const rel = cat.findRelation("public.moved");
      assert.ok(cat.path(rel).includes(`/${profile.tablespaceDir}/`));
      assert.deepEqual(rel.options, ["fillfactor=70", "autovacuum_enabled=off"], "reloptions after a 12-entry relacl");
      const r = pgdisk(["inspect", "dump", "--pgdata", srv.pgdata, "-d", "vt", "-t", "public.moved", "-f", "copy"]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.toString().trim().split("\n").length, 100);
      srv.start();
    });
  });
}

describe("refusals", () => {
  let root = "";
  let srv: PgServer;
  before(async () => {
    srv = await PgServer.create({ version: NEWEST_PROFILE.major });
    srv.stop();
    root = mkdtempSync(join(tmpdir(), "pgdisk-refuse-"));
  });
  after(() => {
    srv?.destroy();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  const copy = (name: string): string => {
    const d = join(root, name);
    cpSync(srv.pgdata, d, { recursive: true });
    return d;
  };
  const supported = /PostgreSQL 13, 14, 15, 16, 17 and 18/;

  test("PG_VERSION 19: exit 1, naming 19 and the supported versions", () => {
    const d = copy("v19");
    writeFileSync(join(d, "PG_VERSION"), "19\n");
    const r = pgdisk(["inspect", "list", "--pgdata", d]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /CLUSTER_UNSUPPORTED_VERSION/);
    assert.match(r.stderr, /says PostgreSQL 19; pgdisk reads PostgreSQL 13, 14, 15, 16, 17 and 18/);
  });

  test("an unknown catalog version (a development build or newer release): exit 1, naming it and the supported ones", () => {
    const d = copy("catver");
    const file = join(d, "global", "pg_control");
    const c = decodeControlFile(new Uint8Array(readFileSync(file)));
    writeFileSync(file, encodeControlFile({ ...c.fields, catalog_version_no: 202612011 }, { tail: c.tail }));
    const r = pgdisk(["verify", "-D", d]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /catalog version 202612011 is no supported release's/);
    assert.match(r.stderr, supported);
  });

  test("a pg_control layout of 19 (1900): exit 1, naming PostgreSQL 19 and the supported layouts", () => {
    const d = copy("ctl19");
    rmSync(join(d, "PG_VERSION"));
    const file = join(d, "global", "pg_control");
    const b = new Uint8Array(readFileSync(file));
    new DataView(b.buffer).setUint32(8, 1900, true);
    writeFileSync(file, b);
    const r = pgdisk(["inspect", "list", "--pgdata", d]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /pg_control version 1900 is PostgreSQL 19; pgdisk reads pg_control versions 1300, 1700, 1800/);
    assert.match(r.stderr, supported);
  });
});
