// Issue #15, failure 3: no checksum laundering. A page with a flipped byte in any relation a
// converter reads (the table, its TOAST relation, its TOAST index, a btree index, the catalogs
// giving names and descriptors) stops the run
// with exit 2 naming the code, the file and the block, and no output is left; without data
// checksums a broken page header is caught the same way.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { PageHeaderData } from "../../formats/page/page-header.js";
import { migrateCli, pgDir, removeDirs } from "./helpers.js";

const DB = "postgres";
let withSums: PgServer;
let noSums: PgServer;
let work = "";
let n = 0;

const SQL = `create table docs (id int primary key, url text, body text);
  alter table docs alter column body set storage external;
  insert into docs select g, 'https://example.com/archive/' || lpad(g::text, 8, '0'), repeat(md5(g::text), 100) from generate_series(1, 200) g;
  create index docs_url on docs (url);
  vacuum; checkpoint;`;

before(async () => {
  withSums = await PgServer.create({ checksums: true });
  withSums.sql(SQL);
  withSums.stop();
  noSums = await PgServer.create({ checksums: false });
  noSums.sql(SQL);
  noSums.stop();
  work = pgDir("integrity");
});
after(() => {
  withSums?.destroy();
  noSums?.destroy();
  removeDirs(work);
});

/** A private copy of a stopped cluster's data directory. */
function copyOf(srv: PgServer): string {
  const root = pgDir(`copy${n++}`);
  execFileSync("cp", ["-a", srv.pgdata, join(root, "data")]);
  return join(root, "data");
}

/** Files of the relations the conversions read, by role. */
function files(pgdata: string): Record<"table" | "toast" | "toastIndex" | "index", string> {
  const cat = new Cluster(pgdata).database(DB);
  const rel = cat.findRelation("docs");
  const toast = cat.classes.get(rel.toastRelid)!;
  return {
    table: cat.path(rel),
    toast: cat.path(toast),
    toastIndex: cat.path(cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!),
    index: cat.path(cat.findRelation("docs_url")),
  };
}

function flipByte(file: string, block: number, offset: number): void {
  const fd = openSync(file, "r+");
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, block * 8192 + offset);
  b[0] ^= 0x5a;
  writeSync(fd, b, 0, 1, block * 8192 + offset);
  closeSync(fd);
}

function assertStopped(args: string[], code: RegExp, file: string, block: number): void {
  const out = join(work, `out${n++}`, "data");
  const r = migrateCli([...args.slice(0, 1), "--pgdata", args[1]!, "--out", out, ...args.slice(2), "-q"]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, code);
  assert.ok(r.stderr.includes(file) && r.stderr.includes(`block ${block}`), r.stderr);
  assert.equal(existsSync(out), false, "nothing written");
}

test("a bad checksum in the table, its TOAST relation or TOAST index stops migrate toast (exit 2, file, block, code)", () => {
  for (const role of ["table", "toast", "toastIndex"] as const) {
    const pgdata = copyOf(withSums);
    const f = files(pgdata)[role];
    flipByte(f, 1, 8000);
    assertStopped(["toast", pgdata, "-d", DB, "-t", "docs", "--to", "direct"], /PAGE_CHECKSUM_MISMATCH: .*checksum verification failed/, f, 1);
    removeDirs(join(pgdata, ".."));
  }
});

test("a bad checksum in an index stops migrate btree (exit 2, file, block, code)", () => {
  const pgdata = copyOf(withSums);
  const f = files(pgdata).index;
  flipByte(f, 1, 8000);
  assertStopped(["btree", pgdata, "-d", DB, "--index", "docs_url", "--to", "prefix"], /PAGE_CHECKSUM_MISMATCH/, f, 1);
  removeDirs(join(pgdata, ".."));
});

test("a bad checksum in a catalog the descriptors come from (pg_attribute) stops both converters", () => {
  for (const args of [["toast", "-t", "docs", "--to", "direct"], ["btree", "--index", "docs_url", "--to", "prefix"]]) {
    const pgdata = copyOf(withSums);
    const cat = new Cluster(pgdata).database(DB);
    const f = cat.path(cat.findRelation("pg_catalog.pg_attribute"));
    flipByte(f, 1, 2); // in pd_lsn: the rows read the same, only the checksum tells
    assertStopped([args[0]!, pgdata, "-d", DB, ...args.slice(1)], /PAGE_CHECKSUM_MISMATCH: pg_catalog\.pg_attribute/, f, 1);
    removeDirs(join(pgdata, ".."));
  }
});

test("without data checksums, a broken page header stops the run", () => {
  const pgdata = copyOf(noSums);
  const f = files(pgdata).toast;
  flipByte(f, 2, PageHeaderData.offsets.pd_upper + 1);
  assertStopped(["toast", pgdata, "-d", DB, "-t", "docs", "--to", "direct"], /PAGE_/, f, 2);
  removeDirs(join(pgdata, ".."));
});
