// pg_filenode.map decoded against the server's own mapping (pg_relation_filenode of mapped
// catalogs), round trips, a re-encoded map the server then uses, and damaged files.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../../formats/schema/errors.js";
import { crc32c } from "../../formats/storage/crc32c.js";
import { decodeRelMap, encodeRelMap, encodeRelMapFields, RelMapFile, RelMapFile64, relMapLookup } from "../../formats/storage/relmap.js";
import type { PgServer } from "../../samples/pg-server.js";
import { buildCluster, DB } from "./fixture.js";

let srv: PgServer;
/** database name → oid, for every database */
let dbs: Map<string, string>;
/** the server's mapped relations: "global" or database name → oid → filenode */
const expected = new Map<string, Map<number, number>>();

const mappedQuery = (shared: boolean): string =>
  `SELECT oid, pg_relation_filenode(oid) FROM pg_class WHERE relfilenode = 0 AND pg_relation_filenode(oid) IS NOT NULL AND relisshared = ${shared}`;
const toMap = (rows: (string | null)[][]): Map<number, number> => new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));

before(async () => {
  srv = await buildCluster();
  dbs = new Map(srv.rows("SELECT datname, oid FROM pg_database").map((r) => [r[0]!, r[1]!]));
  expected.set("global", toMap(srv.rows(mappedQuery(true))));
  for (const [name, oid] of srv.rows("SELECT datname, oid FROM pg_database WHERE datallowconn")) {
    expected.set(name!, toMap(srv.rows(mappedQuery(false), name!)));
    assert.ok(oid);
  }
  srv.stop();
});
after(() => srv?.destroy());

const mapPath = (db: string): string => (db === "global" ? join(srv.pgdata, "global", "pg_filenode.map") : join(srv.pgdata, "base", dbs.get(db)!, "pg_filenode.map"));
const readMap = (db: string): Uint8Array => new Uint8Array(readFileSync(mapPath(db)));

test("the declarations: 512 bytes with 62 entries, CRC at 504, pad (13 to 15); 524 bytes with 64 entries, CRC at 520 (16+)", () => {
  assert.equal(RelMapFile.size, 512);
  assert.equal(RelMapFile.offsets.crc, 504);
  assert.equal(RelMapFile64.size, 524);
  assert.equal(RelMapFile64.offsets.crc, 520);
});

test("global and every connectable database's map equal the server's mapped relations, CRC valid", () => {
  const summary: string[] = [];
  for (const [db, want] of expected) {
    const bytes = readMap(db);
    const m = decodeRelMap(bytes, mapPath(db));
    assert.equal(m.crcOk, true, db);
    assert.equal(m.fields.num_mappings, want.size, db);
    const got = new Map(m.mappings.map((e) => [e.mapoid, e.mapfilenode]));
    assert.deepEqual(got, want, db);
    summary.push(`${db} ${m.mappings.length}`);
  }
  const g = decodeRelMap(readMap("global"));
  const local = decodeRelMap(readMap(DB));
  for (const oid of [1262, 1260, 1213]) assert.ok(relMapLookup(g, oid), `shared catalog ${oid}`);
  for (const oid of [1259, 1249, 1255, 1247]) assert.ok(relMapLookup(local, oid), `local catalog ${oid}`);
  // VACUUM FULL moved pg_class in the test database and pg_database globally.
  assert.notEqual(relMapLookup(local, 1259), 1259);
  assert.notEqual(relMapLookup(g, 1262), 1262);
  assert.equal(relMapLookup(local, 1259), expected.get(DB)!.get(1259));
  console.log(`relmap entries matched: ${summary.join(", ")}`);
});

test("template0 (not connectable) has a valid map with template1's OIDs", () => {
  const t0 = decodeRelMap(readMap("template0"));
  assert.equal(t0.crcOk, true);
  assert.deepEqual(t0.mappings.map((e) => e.mapoid).sort(), [...expected.get("template1")!.keys()].sort());
});

test("encode(decode(x)) is byte-exact for every map, both from the raw fields and from the entries alone", () => {
  for (const db of ["global", ...dbs.keys()]) {
    const bytes = readMap(db);
    const m = decodeRelMap(bytes);
    assert.deepEqual(encodeRelMapFields(m.fields), bytes, db);
    assert.deepEqual(encodeRelMap(m.mappings), bytes, `${db}: unused entries and pad are zero`);
  }
});

test("a map re-encoded in another entry order is used by the server; a bad CRC is refused by both", () => {
  const original = readMap(DB);
  const m = decodeRelMap(original);
  const reordered = encodeRelMap([...m.mappings].reverse());
  assert.notDeepEqual(reordered, original);
  writeFileSync(mapPath(DB), reordered);
  srv.start();
  try {
    const rows = srv.rows(`SELECT pg_relation_filenode('pg_class'), count(*) FROM pg_class WHERE relname = 't_small'`, DB);
    assert.deepEqual(rows, [[String(expected.get(DB)!.get(1259)), "1"]]);
    srv.stop();
    const bad = new Uint8Array(original);
    bad[504] ^= 0x80;
    assert.equal(decodeRelMap(bad).crcOk, false);
    writeFileSync(mapPath(DB), bad);
    srv.start();
    assert.throws(() => srv.sql("SELECT 1", DB), /relation mapping file .* contains incorrect checksum/);
  } finally {
    srv.stop();
    writeFileSync(mapPath(DB), original);
  }
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof FormatError, String(e));
    return e.code;
  }
  assert.fail("no error thrown");
}

test("damaged maps: truncated, bad magic, bad count, PostgreSQL 16+ size, flipped entry byte", () => {
  const good = readMap(DB);
  for (const n of [0, 3, 100, 511]) assert.equal(codeOf(() => decodeRelMap(good.slice(0, n))), "RELMAP_TRUNCATED", `${n} bytes`);
  const magic = new Uint8Array(good);
  magic[0] ^= 1;
  assert.equal(codeOf(() => decodeRelMap(magic)), "RELMAP_BAD_MAGIC");
  const count = new Uint8Array(good);
  new DataView(count.buffer).setInt32(4, 63, true);
  assert.equal(codeOf(() => decodeRelMap(count)), "RELMAP_BAD_COUNT");
  // A PG16+ map (64 entries, CRC at 520, 524 bytes, same magic) where the cluster's release uses 62.
  const pg16 = new Uint8Array(524);
  pg16.set(good.subarray(0, 8 + 8 * 62), 0);
  new DataView(pg16.buffer).setUint32(520, crc32c(pg16.subarray(0, 520)), true);
  assert.equal(decodeRelMap(pg16).layout.maxMappings, 64, "a bare 524-byte file is the 64-entry layout");
  let err: FormatError | undefined;
  try {
    decodeRelMap(pg16, "pg_filenode.map", 62);
  } catch (e) {
    err = e as FormatError;
  }
  assert.equal(err?.code, "RELMAP_UNSUPPORTED_VERSION");
  assert.match(err!.message, /64-entry layout; this cluster's release uses 512 bytes, 62 entries/);
  assert.match(err!.detail ?? "", /is valid/);
  const flipped = new Uint8Array(good);
  flipped[12] ^= 0x04;
  const d = decodeRelMap(flipped);
  assert.equal(d.crcOk, false);
  assert.notEqual(d.computedCrc, d.storedCrc);
});
