// Damaged copies of real relation files: the CLI names each problem (code, file, block, offset)
// and exits 2; a clean file exits 0; usage errors exit 1.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, truncateSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tinySampleCopy } from "../fixtures/sample.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { lpOff, lpFlags, LP_NORMAL } from "../../formats/page/item-id.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
let root = "";
let pgdata = "";
const files: Record<string, string> = {};

function pgdisk(...args: string[]): { status: number; json?: any; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status ?? -1, json, stdout: r.stdout, stderr: r.stderr };
}

function findings(json: any): any[] {
  return json.relations.flatMap((r: any) => [...r.findings, ...r.pages.flatMap((p: any) => p.findings)]);
}

/** Patch bytes of block `blk` of `file` in place (the test's own copy). */
function patch(file: string, blk: number, f: (page: Uint8Array, dv: DataView) => void): void {
  const buf = new Uint8Array(readFileSync(file));
  const page = buf.subarray(blk * 8192, (blk + 1) * 8192);
  f(page, new DataView(page.buffer, page.byteOffset, 8192));
  writeFileSync(file, buf);
}

function firstNormalLp(dv: DataView): number {
  for (let i = 1; ; i++) if (lpFlags(dv.getUint32(24 + (i - 1) * 4, true)) === LP_NORMAL) return i;
}

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
  const cat = new Cluster(pgdata).database("pgdisk_sample");
  // One table per damage kind, so each file carries exactly one problem.
  const tables = ["archive.places", "web_links", "accounts", "archive.evolving", "all_types", "embeddings"];
  const found = tables.map((t) => {
    try {
      return cat.findRelation(t);
    } catch {
      return undefined;
    }
  });
  const heaps = found.filter((r) => r && statSync(cat.path(r)).size >= 2 * 8192);
  assert.ok(heaps.length >= 5, "five multi-page sample tables to damage");
  const [a, b, c2, d, e] = heaps.map((r) => cat.path(r!));
  files.truncated = a;
  files.lower = b;
  files.lpoff = c2;
  files.hoff = d;
  files.special = e;
  files.clean = cat.path(cat.findRelation("pg_class"));
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

test("a clean relation dumps with exit 0 and no findings", () => {
  const r = pgdisk("inspect", "dump", files.clean, "--format", "json");
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(findings(r.json), []);
  assert.ok(r.json.relations[0].pages.length > 0);
  assert.equal(r.json.relations[0].target.relation, "pg_catalog.pg_class");
});

test("a truncated file: REL_PARTIAL_BLOCK at the partial block, exit 2", () => {
  const size = statSync(files.truncated).size;
  truncateSync(files.truncated, size - 5000);
  const r = pgdisk("inspect", "dump", files.truncated, "--format", "json");
  assert.equal(r.status, 2);
  const f = findings(r.json);
  assert.deepEqual(f.map((x) => x.code), ["REL_PARTIAL_BLOCK"]);
  assert.equal(f[0].location.block, Math.floor((size - 5000) / 8192));
  assert.equal(f[0].location.file, files.truncated);
  assert.equal(f[0].location.offset, Math.floor((size - 5000) / 8192) * 8192);
});

test("pd_lower beyond pd_upper: PAGE_LOWER_GT_UPPER at block 1 offset 12, exit 2", () => {
  patch(files.lower, 1, (_p, dv) => dv.setUint16(12, dv.getUint16(14, true) + 8, true));
  const r = pgdisk("inspect", "dump", files.lower, "--format", "json", "--no-checksums");
  assert.equal(r.status, 2);
  const f = findings(r.json);
  assert.deepEqual(f.map((x) => [x.code, x.location.block, x.location.offset]), [["PAGE_LOWER_GT_UPPER", 1, 12]]);
});

test("a line pointer past the page: LP_OUTSIDE_ITEM_AREA naming the item, exit 2", () => {
  let item = 0;
  patch(files.lpoff, 1, (_p, dv) => {
    item = firstNormalLp(dv);
    const w = dv.getUint32(24 + (item - 1) * 4, true);
    dv.setUint32(24 + (item - 1) * 4, ((w & ~0x7fff) | 8184) >>> 0, true);
  });
  const r = pgdisk("inspect", "dump", files.lpoff, "--format", "json", "--no-checksums");
  assert.equal(r.status, 2);
  const f = findings(r.json);
  assert.deepEqual(f.map((x) => [x.code, x.location.block, x.location.item]), [["LP_OUTSIDE_ITEM_AREA", 1, item]]);
});

test("a wrong t_hoff: HEAP_BAD_T_HOFF naming block and item, exit 2", () => {
  let item = 0;
  patch(files.hoff, 1, (p, dv) => {
    item = firstNormalLp(dv);
    const off = lpOff(dv.getUint32(24 + (item - 1) * 4, true));
    p[off + 22] = p[off + 22] + 8;
  });
  const r = pgdisk("inspect", "dump", files.hoff, "--format", "json", "--no-checksums");
  assert.equal(r.status, 2);
  const f = findings(r.json);
  assert.deepEqual(f.map((x) => [x.code, x.location.block, x.location.item]), [["HEAP_BAD_T_HOFF", 1, item]]);
});

test("a heap page with a btree-sized special space: PAGE_BAD_SPECIAL_SIZE, exit 2", () => {
  patch(files.special, 0, (_p, dv) => dv.setUint16(16, 8176, true));
  const r = pgdisk("inspect", "dump", files.special, "--format", "json", "--no-checksums");
  assert.equal(r.status, 2);
  const f = findings(r.json);
  assert.deepEqual(f.map((x) => [x.code, x.location.block, x.location.offset]), [["PAGE_BAD_SPECIAL_SIZE", 0, 16]]);
});

test("damage is also caught by checksums when the cluster has them", () => {
  const r = pgdisk("inspect", "dump", files.lower, "--format", "json");
  assert.equal(r.status, 2);
  const codes = findings(r.json).map((x) => x.code);
  assert.ok(codes.includes("PAGE_CHECKSUM_MISMATCH"), codes.join(","));
  assert.ok(codes.includes("PAGE_LOWER_GT_UPPER"));
});

test("usage errors exit 1 with a message on stderr", () => {
  const missing = pgdisk("inspect", "dump", join(root, "nope"));
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /does not exist/);
  const noRel = pgdisk("inspect", "dump", "--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "no_such_table");
  assert.equal(noRel.status, 1);
  assert.match(noRel.stderr, /relation "no_such_table" does not exist/);
  const badRange = pgdisk("inspect", "dump", files.clean, "--blocks", "5:2");
  assert.equal(badRange.status, 1);
  const beyond = pgdisk("inspect", "dump", files.clean, "--blocks", "100000");
  assert.equal(beyond.status, 1);
  assert.match(beyond.stderr, /outside/);
  const nothing = pgdisk("inspect", "dump");
  assert.equal(nothing.status, 1);
});
