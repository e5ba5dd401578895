// Relations past one segment file. A real 1 GiB segment takes gigabytes (bench/segments does
// that on a real server); here the tiny sample is re-cut into segments of 8 blocks, with
// pg_control's relseg_size saying so, and every reader must give exactly what it gives on the
// uncut cluster: dump (COPY and JSON), verify (checksums use relation-wide block numbers, so a
// segment-local number would fail every page past the first segment), value, browse, and the
// TOAST and btree conversions and the loader, whose output must be cut the same way.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { tinySample } from "../fixtures/sample.js";
import { ControlFileData } from "../../formats/storage/control-file.js";
import { crc32c } from "../../formats/storage/crc32c.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { SAMPLE_DB, type SampleInfo } from "../../samples/build.js";

const SEG_BLOCKS = 8;
const BIN = join(import.meta.dirname, "../../bin/pgdisk");
const RELFILE = /^\d+(_(fsm|vm|init))?$/;

let info: SampleInfo;
let root = "";
let whole = "";
let cut = "";

/** Cut every relation file longer than `blocks` blocks into segments; pg_control says so. */
function cutIntoSegments(pgdata: string, blocks: number): number {
  const seg = blocks * 8192;
  let cutFiles = 0;
  const dirs = [join(pgdata, "global"), ...readdirSync(join(pgdata, "base")).map((d) => join(pgdata, "base", d))];
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!RELFILE.test(name)) continue;
      const path = join(dir, name);
      const bytes = readFileSync(path);
      if (bytes.length <= seg) continue;
      for (let n = 1; n * seg < bytes.length; n++) writeFileSync(`${path}.${n}`, bytes.subarray(n * seg, (n + 1) * seg));
      truncateSync(path, seg);
      cutFiles++;
    }
  }
  const control = join(pgdata, "global", "pg_control");
  const buf = readFileSync(control);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  dv.setUint32(ControlFileData.offsets.relseg_size, blocks, true);
  dv.setUint32(ControlFileData.offsets.crc, crc32c(buf.subarray(0, ControlFileData.offsets.crc)), true);
  writeFileSync(control, buf);
  return cutFiles;
}

function pgdisk(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Relation files of a cluster, segments joined: name -> bytes. */
function joinedFiles(pgdata: string, dbOid: number): Map<string, Buffer> {
  const dir = join(pgdata, "base", String(dbOid));
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(dir).filter((n) => RELFILE.test(n))) {
    const parts = [readFileSync(join(dir, name))];
    for (let n = 1; existsSync(join(dir, `${name}.${n}`)); n++) parts.push(readFileSync(join(dir, `${name}.${n}`)));
    out.set(name, Buffer.concat(parts));
  }
  return out;
}

before(async () => {
  info = await tinySample();
  root = mkdtempSync(join(tmpdir(), "pgdisk-segments-"));
  whole = join(root, "whole");
  cut = join(root, "cut");
  cpSync(info.pgdata, whole, { recursive: true });
  cpSync(info.pgdata, cut, { recursive: true });
  assert.ok(cutIntoSegments(cut, SEG_BLOCKS) >= 10, "several relations span segments");
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

test("segments: the cut cluster reads relation-wide block numbers", () => {
  assert.equal(new Cluster(cut).geometry.segmentBlocks, SEG_BLOCKS);
  const db = new Cluster(cut).database(SAMPLE_DB);
  const docs = db.findRelation("toast_docs");
  const toast = db.classes.get(docs.toastRelid)!;
  assert.ok(existsSync(`${db.path(toast)}.2`), "the TOAST relation spans three or more segments");
  assert.ok(existsSync(`${db.path(db.findRelation("web_links_url_idx"))}.1`), "an index spans segments");
});

test("segments: COPY and JSON dumps equal the uncut cluster's", () => {
  for (const t of info.tables.filter((x) => x.database === SAMPLE_DB)) {
    const name = `${t.schema}.${t.name}`;
    const a = pgdisk("inspect", "dump", "--pgdata", whole, "-d", SAMPLE_DB, "-t", name, "--format", "copy", "--jobs", "1");
    const b = pgdisk("inspect", "dump", "--pgdata", cut, "-d", SAMPLE_DB, "-t", name, "--format", "copy", "--jobs", "1");
    assert.equal(a.status, 0, a.stderr);
    assert.equal(b.status, a.status, `${name}: ${b.stderr}`);
    assert.ok(a.stdout.length > 0);
    assert.equal(b.stdout, a.stdout, name);
  }
  // pages: the same headers, items and values; only file names and in-file offsets differ
  const norm = (s: string): string => s.replaceAll(whole, "D").replaceAll(cut, "D").replace(/"file":"[^"]*"/g, '"file":"F"').replace(/"fileOffset":\d+/g, '"fileOffset":0');
  const ja = pgdisk("inspect", "dump", "--pgdata", whole, "-d", SAMPLE_DB, "--format", "json", "--detoast", "--jobs", "1");
  const jb = pgdisk("inspect", "dump", "--pgdata", cut, "-d", SAMPLE_DB, "--format", "json", "--detoast", "--jobs", "1");
  assert.equal(ja.status, 0, ja.stderr);
  assert.equal(jb.status, 0, jb.stderr);
  assert.equal(norm(jb.stdout), norm(ja.stdout));
});

test("segments: verify is clean, with the same checks and block counts", () => {
  const summary = (pgdata: string) => {
    const r = pgdisk("verify", "--pgdata", pgdata, "-d", SAMPLE_DB, "--format", "json", "--jobs", "2");
    assert.equal(r.status, 0, r.stderr + r.stdout.slice(0, 2000));
    const doc = JSON.parse(r.stdout);
    return doc.relations.map((x: any) => `${x.name.replace(pgdata, "PGDATA")} ${x.blocks} ${x.checks.join(",")} ${x.findings.length}`).sort();
  };
  assert.deepEqual(summary(cut), summary(whole));
});

test("segments: browse shows the same pages past segment boundaries", () => {
  const pages = (pgdata: string) => {
    const s = new BrowseSession({ pgdata, database: SAMPLE_DB });
    try {
      const out: string[] = [];
      for (const name of ["web_links", "web_links_url_idx", "toast_docs"]) {
        const ref = s.findRelation(s.startDb!, name);
        const h = s.relation(ref);
        for (let b = SEG_BLOCKS - 2; b < Math.min(h.nblocks, 3 * SEG_BLOCKS + 2); b++) {
          const p = s.page(ref, b);
          out.push(JSON.stringify({ ...p, file: undefined, fileOffset: undefined }));
          out.push(JSON.stringify(s.summary(ref, b)));
        }
      }
      return out;
    } finally {
      s.close();
    }
  };
  const a = pages(whole);
  assert.ok(a.length > 40);
  assert.deepEqual(pages(cut), a);
});

test("segments: a TOASTed value whose chunks lie in a later segment reads the same", () => {
  const docs = new Cluster(whole).database(SAMPLE_DB);
  const rel = docs.findRelation("toast_docs");
  const nblocks = statSync(docs.path(rel)).size / 8192;
  // the last block's first item: its chunks were written last, far into the TOAST relation
  const tid = `(${nblocks - 1},1)`;
  const a = pgdisk("inspect", "value", "--pgdata", whole, "-d", SAMPLE_DB, "-t", "toast_docs", "--tid", tid, "--column", "body", "--json");
  const b = pgdisk("inspect", "value", "--pgdata", cut, "-d", SAMPLE_DB, "-t", "toast_docs", "--tid", tid, "--column", "body", "--json");
  assert.equal(a.status, 0, a.stderr);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(b.stdout, a.stdout);
  assert.match(a.stdout, /"flavour": "plain"/);
});

/** The writers' outputs hold the same relation files, segments joined, and the cut one's segments but the last are 8 blocks. */
function assertSameWhenJoined(outs: { whole: string; cut: string }): void {
  const dbOid = new Cluster(whole).database(SAMPLE_DB).db.oid;
  const a = joinedFiles(outs.whole, dbOid);
  const b = joinedFiles(outs.cut, dbOid);
  assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
  for (const [file, bytes] of a) assert.ok(b.get(file)!.equals(bytes), `${file}: same bytes, segments joined`);
  const dir = join(outs.cut, "base", String(dbOid));
  for (const seg of readdirSync(dir).filter((n) => /^\d+(_\w+)?\.\d+$/.test(n))) {
    const base = seg.replace(/\.\d+$/, "");
    assert.equal(statSync(join(dir, base)).size, SEG_BLOCKS * 8192, `${base} before ${seg}`);
  }
}

/**
 * Run one conversion on the uncut and the cut cluster; both outputs must hold the same relation
 * files, segments joined, and every segment of the cut output but the last is 8 blocks.
 */
function convertBoth(name: string, args: string[]): string {
  const outs = { whole: join(root, `whole-${name}`), cut: join(root, `cut-${name}`) };
  for (const [k, src] of [["whole", whole], ["cut", cut]] as const) {
    const r = pgdisk("migrate", ...args.slice(0, 1), "--pgdata", src, "--out", outs[k], "-d", SAMPLE_DB, ...args.slice(1));
    assert.equal(r.status, 0, r.stderr + r.stdout);
  }
  assertSameWhenJoined(outs);
  return outs.cut;
}

test("segments: the TOAST conversion writes segments of the cluster's size, same bytes", () => {
  const out = convertBoth("direct", ["toast", "-t", "toast_docs", "--to", "direct"]);
  const v = pgdisk("verify", "--pgdata", out, "-d", SAMPLE_DB, "--jobs", "1");
  assert.equal(v.status, 0, v.stdout + v.stderr);
});

test("segments: the btree conversion reads and writes across segments, same bytes", () => {
  const out = convertBoth("prefix", ["btree", "--index", "web_links_url_idx", "--to", "prefix"]);
  const v = pgdisk("verify", "--pgdata", out, "-d", SAMPLE_DB, "-i", "web_links_url_idx", "--jobs", "1");
  assert.equal(v.status, 0, v.stdout + v.stderr);
});

test("segments: the loader appends across segment boundaries, same bytes", () => {
  // 1000 rows take about 17 new heap pages: more than two 8-block segments
  const rows = Array.from({ length: 1000 }, (_, i) => [10_000_000 + i, `https://example.org/seg/${i}`, `/srv/seg/${i}`, i % 50, "eu", i % 7 ? "active" : "error", `name-${i}`, i, "2026-01-01 00:00:00+00"].join("\t")).join("\n") + "\n";
  const input = join(root, "seg-rows.tsv");
  writeFileSync(input, rows);
  const outs = { whole: join(root, "whole-load"), cut: join(root, "cut-load") };
  for (const [k, src] of [["whole", whole], ["cut", cut]] as const) {
    cpSync(src, outs[k], { recursive: true });
    const r = pgdisk("load", "--pgdata", outs[k], "-d", SAMPLE_DB, "-t", "web_links", "--columns", "id,url,path,tenant_id,region,status,name,score,created_at", input);
    assert.equal(r.status, 0, r.stderr + r.stdout);
  }
  assertSameWhenJoined(outs);
  const v = pgdisk("verify", "--pgdata", outs.cut, "-d", SAMPLE_DB, "-t", "web_links", "--jobs", "1");
  assert.equal(v.status, 0, v.stdout + v.stderr);
});
