// Text rows to heap tuples, held to the server: the same rows go through COPY FROM into a real
// table and through pgdisk's pipeline (COPY parsing, the input functions, formHeapTuple), and
// every tuple's data bytes, null bitmap, t_hoff, natts and null/width bits must be the server's.
// Rows mix every alignment, NULLs, and varlenas on both sides of the 1-byte-header limit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { CopyParser } from "../../migrate/load/copy-parse.js";
import { INPUT_FUNCTIONS } from "../../formats/datum/input-catalog.js";
import { formHeapTuple, varlenaStored } from "../../formats/heap/form.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { HTH, SizeofHeapTupleHeader, HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_NATTS_MASK } from "../../formats/heap/tuple-header.js";

// the first column numbers the rows: COPY may place a row on an earlier page that has room
// (the free space map), so tuples are matched by it, not by position
let rowNumber = 0;
const COLUMNS: [string, (r: Rng) => string][] = [
  ["n int4", () => String(++rowNumber)],
  ["c_bool bool", (r) => r.pick(["t", "f"])],
  ["c_i2 int2", (r) => String(r.int(-32768, 32767))],
  ["c_text text", (r) => r.base64(r.pick([0, 1, 5, 125, 126, 127, 200, 400]))],
  ["c_i8 int8", (r) => String(BigInt(r.int(-(2 ** 31), 2 ** 31)) * 4294967296n + BigInt(r.int(0, 2 ** 31)))],
  ['c_char "char"', (r) => r.pick(["a", "Z", "0"])],
  ["c_f8 float8", (r) => String(r.gaussian() * 10 ** r.int(-5, 5))],
  ["c_i4 int4", (r) => String(r.int(-(2 ** 31), 2 ** 31 - 1))],
  ["c_num numeric", (r) => `${r.int(-99999, 99999)}.${r.int(0, 9999)}`],
  ["c_vc varchar(20)", (r) => r.base64(r.int(0, 20))],
  ["c_f4 float4", (r) => String(r.float() * 1000)],
  ["c_bpchar char(5)", (r) => r.base64(r.int(0, 5))],
  ["c_name name", (r) => r.base64(r.int(1, 40))],
  ["c_oid oid", (r) => String(r.int(0, 2 ** 32 - 1))],
  ["c_bytea bytea", (r) => `\\\\x${r.hex(2 * r.int(0, 150))}`],
  ["c_uuid uuid", (r) => r.uuid()],
  ["c_date date", (r) => `${r.int(1000, 2999)}-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}`],
  ["c_num2 numeric(10,3)", (r) => String(r.int(-9999999, 9999999) / 100)],
  ["c_ts timestamp", (r) => `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} ${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(0, 999999)}`],
  ["c_json json", (r) => JSON.stringify({ k: r.int(0, 9), s: r.base64(r.int(0, 30)) })],
  ["c_time time", (r) => `${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}`],
  ["c_tstz timestamptz", (r) => `20${r.int(10, 30)}-0${r.int(1, 9)}-2${r.int(0, 8)} 0${r.int(0, 9)}:1${r.int(0, 9)}:00+0${r.int(0, 9)}`],
];

const ROWS = 400;
let srv: PgServer;
let dir = "";
let input = "";
const serverTuples: { data: string; bits: string | null; hoff: number; infomask: number; infomask2: number }[] = [];

before(async () => {
  const r = new Rng(20261201, "heap-form");
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) lines.push(COLUMNS.map(([, gen]) => (r.chance(0.15) && gen !== COLUMNS[0][1] ? "\\N" : gen(r))).join("\t"));
  input = lines.join("\n") + "\n";
  srv = await PgServer.create({});
  dir = mkdtempSync(join(tmpdir(), "pgdisk-form-"));
  chmodSync(dir, 0o755);
  writeForPg(join(dir, "rows"), input);
  srv.sql(`CREATE EXTENSION pageinspect; SET TimeZone = 'UTC'; CREATE TABLE t (${COLUMNS.map(([c]) => c).join(", ")}); COPY t FROM '${join(dir, "rows")}';`);
  const nblocks = Number(srv.rows("SELECT pg_relation_size('t') / 8192")[0][0]);
  for (let b = 0; b < nblocks; b++) {
    for (const [data, bits, hoff, im, im2] of srv.rows(`SELECT encode(t_data, 'hex'), t_bits, t_hoff, t_infomask, t_infomask2 FROM heap_page_items(get_raw_page('t', ${b})) WHERE lp_flags = 1 ORDER BY lp`)) {
      serverTuples.push({ data: data!, bits, hoff: Number(hoff), infomask: Number(im), infomask2: Number(im2) });
    }
  }
  serverTuples.sort((x, y) => Buffer.from(x.data, "hex").readInt32LE(0) - Buffer.from(y.data, "hex").readInt32LE(0));
  srv.stop();
});
after(() => {
  srv?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("text rows to heap tuples: the server's data bytes, bitmap and header bits", () => {
  const cat = new Cluster(srv.pgdata).database("postgres");
  const desc = cat.descriptor(cat.findRelation("t").oid);
  const ours: typeof serverTuples = [];
  const parser = new CopyParser({ format: "text" }, (row) => {
    const datums = row.fields.map((f, i) => {
      if (f === null) return null;
      const a = desc.attrs[i];
      const bytes = INPUT_FUNCTIONS.get(a.typid)!(f, { typmod: a.typmod, timeZoneOffsetSeconds: 0 });
      return a.len === -1 ? varlenaStored(a, bytes) : bytes;
    });
    const t = formHeapTuple(desc, datums, { xmin: 2, xmax: 0, field3: 0, ctid: { block: 0, offset: 1 }, xactBits: 0 });
    const dv = new DataView(t.buffer);
    const hoff = t[HTH.t_hoff];
    const im = dv.getUint16(HTH.t_infomask, true);
    const bits = im & HEAP_HASNULL ? Array.from({ length: 8 * Math.ceil(desc.attrs.length / 8) }, (_, i) => ((t[SizeofHeapTupleHeader + (i >> 3)] >> (i & 7)) & 1 ? "1" : "0")).join("") : null;
    ours.push({ data: Buffer.from(t.subarray(hoff)).toString("hex"), bits, hoff, infomask: im, infomask2: dv.getUint16(HTH.t_infomask2, true) });
  });
  parser.push(Buffer.from(input, "utf8"));
  parser.end();
  assert.equal(ours.length, ROWS);
  assert.equal(serverTuples.length, ROWS);
  const FLAGS = HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL;
  const diffs: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const s = serverTuples[i];
    const o = ours[i];
    if (s.data !== o.data || s.bits !== o.bits || s.hoff !== o.hoff || (s.infomask & FLAGS) !== (o.infomask & FLAGS) || (s.infomask2 & HEAP_NATTS_MASK) !== (o.infomask2 & HEAP_NATTS_MASK)) {
      let at = 0;
      while (at < s.data.length && s.data[at] === o.data[at]) at++;
      diffs.push(`row ${i + 1}: data differs from byte ${at / 2} (server ${s.data.slice(at, at + 40)}..., pgdisk ${o.data.slice(at, at + 40)}...), server ${JSON.stringify({ ...s, data: s.data.length / 2 })}, pgdisk ${JSON.stringify({ ...o, data: o.data.length / 2 })}; input ${JSON.stringify(input.split("\n")[i]).slice(0, 300)}`);
    }
  }
  assert.deepEqual(diffs.slice(0, 3), []);
});
