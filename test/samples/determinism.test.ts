// Same seed and size give the same rows; another seed gives other rows.
// Three tiny builds: A and B with seed 7 (checksums on), C with seed 8 and checksums off.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildTiny, tableMd5, type Built } from "./helpers.js";
import { resolveDatabase } from "../../inspect/dump/target.js";
import { SAMPLE_DB } from "../../samples/build.js";
import { PageHeaderData } from "../../formats/page/page-header.js";

let a: Built;
let b: Built;
let c: Built;
const fp = new Map<Built, Map<string, string>>();

/** md5 of every table's rows plus the user schema's definitions, keyed by db.schema.table. */
function fingerprint(x: Built): Map<string, string> {
  x.srv.start();
  try {
    const m = new Map<string, string>();
    for (const t of x.info.tables) m.set(`${t.database}.${t.schema}.${t.name}`, tableMd5(x.srv, t.database, t.schema, t.name, t.orderBy));
    const [[defs]] = x.srv.rows(
      `SELECT md5(string_agg(schemaname || '.' || tablename || ':' || indexname || ':' || indexdef, ',' ORDER BY schemaname, indexname))
         FROM pg_indexes WHERE schemaname IN ('public', 'archive')`,
      "pgdisk_sample",
    );
    m.set("index definitions", defs as string);
    return m;
  } finally {
    x.srv.stop();
  }
}

before(async () => {
  a = await buildTiny(7);
  b = await buildTiny(7);
  c = await buildTiny(8, false);
  for (const x of [a, b, c]) {
    assert.match(x.srv.tool("pg_controldata", [x.info.pgdata]), /Database cluster state:\s+shut down\n/);
    fp.set(x, fingerprint(x));
  }
});
after(() => {
  for (const x of [a, b, c]) x?.cleanup();
});

test("same seed: every table has the same rows", () => {
  const fa = fp.get(a)!;
  const fb = fp.get(b)!;
  assert.ok(fa.size >= 10, `${fa.size} fingerprints`);
  assert.deepEqual([...fb.entries()], [...fa.entries()]);
  assert.deepEqual(
    b.info.tables.map((t) => [t.name, t.rows]),
    a.info.tables.map((t) => [t.name, t.rows]),
  );
});

test("different seed: every generated table has other rows; same definitions", () => {
  const fa = fp.get(a)!;
  const fc = fp.get(c)!;
  assert.deepEqual([...fc.keys()], [...fa.keys()]);
  for (const [k, v] of fa) {
    if (k === "index definitions") assert.equal(fc.get(k), v);
    else assert.notEqual(fc.get(k), v, `${k} differs between seeds 7 and 8`);
  }
});

/**
 * Every page of every user relation (main fork, VM and FSM), with its LSN and checksum blanked:
 * those two record when WAL was written, the rest is what the generators and VACUUM made.
 */
function pageImages(x: Built): Map<string, Buffer> {
  const lsnEnd = PageHeaderData.offsets.pd_checksum + 2;
  const out = new Map<string, Buffer>();
  for (const r of resolveDatabase(x.info.pgdata, SAMPLE_DB)) {
    for (const fork of ["", "_vm", "_fsm"]) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(r.path + fork);
      } catch {
        continue;
      }
      for (let off = 0; off < bytes.length; off += 8192) bytes.fill(0, off, off + lsnEnd);
      out.set(`${r.rel!.name}${fork}`, bytes);
    }
  }
  return out;
}

test("same seed: every page of every user relation has the same bytes (but LSN and checksum)", () => {
  const pa = pageImages(a);
  const pb = pageImages(b);
  assert.ok(pa.size >= 30, `${pa.size} relation forks`);
  assert.deepEqual([...pb.keys()].sort(), [...pa.keys()].sort());
  const differ: string[] = [];
  for (const [k, v] of pa) {
    const w = pb.get(k)!;
    if (w.length !== v.length) differ.push(`${k}: ${v.length} / ${w.length} bytes`);
    else if (!v.equals(w)) {
      const blocks = [];
      for (let off = 0; off < v.length; off += 8192) if (!v.subarray(off, off + 8192).equals(w.subarray(off, off + 8192))) blocks.push(off / 8192);
      differ.push(`${k}: blocks ${blocks.join(",")}`);
    }
  }
  assert.deepEqual(differ, []);
});

test("checksums follow the option", () => {
  assert.match(a.srv.tool("pg_controldata", [a.info.pgdata]), /Data page checksum version:\s+1\n/);
  assert.match(c.srv.tool("pg_controldata", [c.info.pgdata]), /Data page checksum version:\s+0\n/);
  assert.equal(a.info.checksums, true);
  assert.equal(c.info.checksums, false);
});
