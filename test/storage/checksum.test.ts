// pg_checksum_page against every page PostgreSQL wrote, and against pg_checksums' own
// computation for pages placed at chosen block numbers (fake segment files).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pgChecksumPage, setPageChecksum, storedPageChecksum } from "../../formats/page/checksum.js";
import type { PgServer } from "../../samples/pg-server.js";
import { buildCluster, DB, relationFiles } from "./fixture.js";

const RELSEG_SIZE = 131072;
let srv: PgServer;
let dbOid: string;
let heapPath: string;

before(async () => {
  srv = await buildCluster();
  dbOid = srv.rows(`SELECT oid FROM pg_database WHERE datname = '${DB}'`)[0][0]!;
  heapPath = join(srv.pgdata, srv.rows("SELECT pg_relation_filepath('t_small')", DB)[0][0]!);
  srv.stop();
});
after(() => srv?.destroy());

function emptyHeapPage(): Uint8Array {
  const p = new Uint8Array(8192);
  const dv = new DataView(p.buffer);
  dv.setUint16(12, 24, true); // pd_lower
  dv.setUint16(14, 8192, true); // pd_upper
  dv.setUint16(16, 8192, true); // pd_special
  dv.setUint16(18, 0x2004, true); // pd_pagesize_version
  return p;
}

test("facts-sheet vectors: empty heap page at blkno 0, 1, 131072; with pd_lsn 0/1000000", () => {
  const p = emptyHeapPage();
  assert.equal(pgChecksumPage(p, 0), 25952);
  assert.equal(pgChecksumPage(p, 1), 25951);
  assert.equal(pgChecksumPage(p, 131072), 25950);
  new DataView(p.buffer).setUint32(4, 0x01000000, true);
  assert.equal(pgChecksumPage(p, 0), 30941);
});

test("every initialised page under global/ and base/ carries pg_checksum_page(page, absolute blkno); counts equal pg_checksums'", () => {
  const files = relationFiles(srv.pgdata);
  let blocks = 0;
  let checked = 0;
  let nonZeroSegments = 0;
  const forks = { main: 0, fsm: 0, vm: 0, init: 0 };
  for (const { path, segno } of files) {
    const buf = readFileSync(path);
    assert.equal(buf.length % 8192, 0, path);
    if (segno > 0) nonZeroSegments++;
    const fork = /_(fsm|vm|init)/.exec(path)?.[1] as keyof typeof forks | undefined;
    for (let b = 0; b * 8192 < buf.length; b++) {
      blocks++;
      const page = buf.subarray(b * 8192, (b + 1) * 8192);
      if (new DataView(page.buffer, page.byteOffset).getUint16(14, true) === 0) continue; // PageIsNew: no checksum yet
      const blkno = segno * RELSEG_SIZE + b;
      assert.equal(pgChecksumPage(page, blkno), storedPageChecksum(page), `${path} block ${blkno}`);
      checked++;
      forks[fork ?? "main"]++;
    }
  }
  const out = srv.tool("pg_checksums", ["--check", "-D", srv.pgdata]);
  assert.match(out, /Bad checksums:\s+0\n/);
  assert.equal(Number(/Files scanned:\s+(\d+)/.exec(out)![1]), files.length, "same files as pg_checksums");
  assert.equal(Number(/Blocks scanned:\s+(\d+)/.exec(out)![1]), blocks, "same blocks as pg_checksums");
  assert.ok(forks.fsm > 0 && forks.vm > 0 && forks.main > 0, JSON.stringify(forks));
  console.log(`checksums: ${files.length} files, ${blocks} blocks, ${checked} verified (${JSON.stringify(forks)}), ${nonZeroSegments} files with segment > 0`);
});

test("the input page is not modified, and the stored pd_checksum does not enter the result", () => {
  const page = new Uint8Array(readFileSync(heapPath).subarray(0, 8192));
  const before = createHash("sha256").update(page).digest("hex");
  const c = pgChecksumPage(page, 0);
  assert.equal(createHash("sha256").update(page).digest("hex"), before);
  page[8] ^= 0xff;
  page[9] ^= 0x5a;
  assert.equal(pgChecksumPage(page, 0), c);
  page[100] ^= 1;
  assert.notEqual(pgChecksumPage(page, 0), c);
  assert.throws(() => pgChecksumPage(page.subarray(0, 4096), 0), /8192-byte page/);
});

/** pg_checksums --check on one filenode: block → [calculated, stored] for every failing block, and the exit status. */
function pgChecksumsOn(filenode: number): { status: number; failures: Map<number, [number, number]>; out: string } {
  const r = srv.toolResult("pg_checksums", ["--check", "-D", srv.pgdata, "--filenode", String(filenode)]);
  const failures = new Map<number, [number, number]>();
  for (const m of r.stderr.matchAll(/block (\d+): calculated checksum ([0-9A-F]+) but block contains ([0-9A-F]+)/g)) {
    failures.set(Number(m[1]), [parseInt(m[2], 16), parseInt(m[3], 16)]);
  }
  return { status: r.status, failures, out: r.stdout + r.stderr };
}

function writeRelFile(name: string, pages: Uint8Array[]): string {
  const path = join(srv.pgdata, "base", dbOid, name);
  const buf = new Uint8Array(pages.length * 8192);
  pages.forEach((p, i) => buf.set(p, i * 8192));
  writeFileSync(path, buf);
  chmodSync(path, 0o644);
  return path;
}

test("pg_checksums computes what pgChecksumPage computes for altered pages in segments 0, 1 and 32767; setPageChecksum fixes them", () => {
  const real = readFileSync(heapPath);
  const damaged = new Uint8Array(real.subarray(8192, 16384));
  damaged[5000] ^= 0x10; // a flipped data bit: the stored checksum no longer matches
  const pages = [new Uint8Array(real.subarray(0, 8192)), damaged, emptyHeapPage(), new Uint8Array(real.subarray(16384, 24576))];
  // The same pages as segment 0, 1 and 32767 of three fake relations (only those segment files exist).
  const cases = [
    { filenode: 990001, name: "990001", segno: 0 },
    { filenode: 990002, name: "990002.1", segno: 1 },
    { filenode: 990003, name: "990003.32767", segno: 32767 },
  ];
  let compared = 0;
  for (const c of cases) {
    const copies = pages.map((p) => new Uint8Array(p));
    writeRelFile(c.name, copies);
    const r = pgChecksumsOn(c.filenode);
    for (let b = 0; b < copies.length; b++) {
      const blkno = c.segno * RELSEG_SIZE + b;
      const ours = pgChecksumPage(copies[b], blkno);
      const stored = storedPageChecksum(copies[b]);
      const f = r.failures.get(b);
      if (ours === stored) {
        assert.equal(f, undefined, `${c.name} block ${b}: pg_checksums reported a failure we did not`);
      } else {
        assert.deepEqual(f, [ours, stored], `${c.name} block ${b} (absolute ${blkno})`);
        compared++;
      }
    }
    assert.equal(r.status, r.failures.size > 0 ? 1 : 0, r.out);
    // Fix every page for its absolute block number: pg_checksums must then be clean.
    copies.forEach((p, b) => setPageChecksum(p, c.segno * RELSEG_SIZE + b));
    writeRelFile(c.name, copies);
    const fixed = pgChecksumsOn(c.filenode);
    assert.equal(fixed.status, 0, fixed.out);
    assert.match(fixed.out, /Bad checksums:\s+0\n/);
    assert.match(fixed.out, new RegExp(`Blocks scanned:\\s+${copies.length}\\n`));
  }
  // Block 0 of segment 0 is the untouched real page; every other block was checked against pg_checksums' value.
  assert.ok(compared >= 3 * pages.length - 1, `compared ${compared}`);
  console.log(`pg_checksums agreed on ${compared} mismatching checksums, up to block ${32767 * RELSEG_SIZE + 3}`);
});
