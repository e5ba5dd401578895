// Files verify did not look at are not "clean": on a copy of the tiny sample, a zeroed pg_class
// page (its rows gone, the relations' files still there), stray files of the names pg_checksums'
// own tests plant (002_actions.pl: 3 bytes each), and a pg_class row whose file is missing are
// findings of a whole-database verify, with pg_checksums' verdict on the stray files' bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { tinySampleCopyForFile } from "../fixtures/sample.js";
import { PG_BIN } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { renderText } from "../../verify/report/text.js";
import { readCatalog } from "../../formats/catalog/rows.js";

import { RelationFork } from "../../formats/storage/relfile.js";
import { Damager, infomask, lpOff, lpWord, setInfomask } from "./damage.js";
import { HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID } from "../../formats/heap/tuple-header.js";

const copy = tinySampleCopyForFile();
const DB = "pgdisk_sample";

async function verifyDb() {
  const run = await runVerify({ pgdata: copy.pgdata, database: DB }, { jobs: 1 });
  const findings = run.reports.flatMap((r) => r.findings.map((f) => ({ ...f, report: r.name })));
  return { run, findings, errors: findings.filter((f) => f.severity === "error") };
}

test("a whole-database verify of the clean copy has no stray file", async () => {
  const { run, errors } = await verifyDb();
  assert.deepEqual(errors, []);
  const dir = run.reports.find((r) => r.am === "directory")!;
  assert.ok(dir.stats.files > 300, `files scanned: ${dir.stats.files}`);
  assert.equal(dir.stats.strayFiles, 0);
});

test("a zeroed pg_class page: the relations whose rows were on it are orphan files, exit 2", async () => {
  const d = new Damager(copy.pgdata, DB);
  const classPath = d.path("pg_class");
  const fork = new RelationFork(classPath, d.cluster.geometry);
  const rows = readCatalog(fork, d.cluster.profile.catalogs.pg_class, { columns: ["oid", "relname", "relfilenode"], withTid: true });
  fork.close();
  const row = rows.find((r) => r.relname === "web_links")!;
  const blk = Number(/^\((\d+),/.exec(row.ctid as string)![1]);
  const lost = rows.filter((r) => (r.ctid as string).startsWith(`(${blk},`) && (r.relfilenode as number) > 0).map((r) => String(r.relfilenode));
  const before = (await verifyDb()).run.summary.relations;
  try {
    d.patch(classPath, blk, (page) => page.fill(0), true); // an all-zero page is valid: no checksum error
    const { run, errors } = await verifyDb();
    assert.equal(run.summary.exitCode, 2);
    assert.equal(run.summary.relations, before - lost.length);
    const orphans = errors.filter((f) => f.code === "REL_FILE_ORPHAN").map((f) => basename(f.location.file!));
    assert.deepEqual(orphans.filter((n) => /^\d+$/.test(n)).sort(), [...lost].sort());
    assert.ok(orphans.includes(String(d.rel("web_links").filenode)));
    // the zeroed page itself is named (a warning: PostgreSQL accepts an all-zero page) unless it is the last one
    const zero = run.reports.flatMap((r) => r.findings).filter((f) => f.code === "CATALOG_PAGE_NEW");
    assert.deepEqual(zero.map((f) => [f.location.file, f.location.block]), blk < d.nblocks(classPath) - 1 ? [[classPath, blk]] : []);
  } finally {
    d.restore();
  }
});

test("a pg_class page with a damaged header: a finding, its relations' files orphans, the run goes on", async () => {
  const d = new Damager(copy.pgdata, DB);
  const classPath = d.path("pg_class");
  const fork = new RelationFork(classPath, d.cluster.geometry);
  const rows = readCatalog(fork, d.cluster.profile.catalogs.pg_class, { columns: ["relname"], withTid: true });
  fork.close();
  const blk = Number(/^\((\d+),/.exec(rows.find((r) => r.relname === "web_links")!.ctid as string)![1]);
  try {
    d.patch(classPath, blk, (_p, dv) => dv.setUint16(12, dv.getUint16(14, true) + 8, true)); // pd_lower beyond pd_upper, checksum recomputed
    const { run, errors } = await verifyDb();
    assert.equal(run.summary.exitCode, 2);
    const dir = run.reports.find((r) => r.am === "directory" && r.file === dirname(classPath))!;
    assert.ok(dir.findings.some((f) => f.code === "PAGE_LOWER_GT_UPPER" && f.location.block === blk && f.message.startsWith("catalog page left out: ")), JSON.stringify(dir.findings.slice(0, 3)));
    assert.ok(errors.some((f) => f.code === "REL_FILE_ORPHAN" && basename(f.location.file!) === String(d.rel("web_links").filenode)));
  } finally {
    d.restore();
  }
});

test("pg_enum's pg_class row lost: a finding, its file an orphan, the run goes on", async () => {
  const d = new Damager(copy.pgdata, DB);
  const classPath = d.path("pg_class");
  const enumFile = basename(d.path("pg_enum"));
  const fork = new RelationFork(classPath, d.cluster.geometry);
  const row = readCatalog(fork, d.cluster.profile.catalogs.pg_class, { columns: ["relname"], withTid: true }).find((r) => r.relname === "pg_enum")!;
  fork.close();
  const [blk, item] = /^\((\d+),(\d+)\)$/.exec(row.ctid as string)!.slice(1).map(Number);
  try {
    // the row's inserter aborted: the row is gone for every reader
    d.patch(classPath, blk, (_p, dv) => {
      const off = lpOff(lpWord(dv, item));
      setInfomask(dv, { blk, item, off, len: 0 }, (infomask(dv, { blk, item, off, len: 0 }) & ~HEAP_XMIN_COMMITTED) | HEAP_XMIN_INVALID);
    });
    const { run, errors } = await verifyDb();
    assert.equal(run.summary.exitCode, 2);
    assert.ok(errors.some((f) => f.code === "CATALOG_UNREADABLE" && /^pg_enum of database "pgdisk_sample" cannot be read: CATALOG_MISSING/.test(f.message)), JSON.stringify(errors.slice(0, 3)));
    assert.ok(errors.some((f) => f.code === "REL_FILE_ORPHAN" && basename(f.location.file!) === enumFile));
  } finally {
    d.restore();
  }
});

test("stray files pg_checksums rejects are findings with its read error", async () => {
  const d = new Damager(copy.pgdata, DB);
  const dir = dirname(d.path("accounts"));
  const table = String(d.rel("accounts").filenode);
  // 002_actions.pl's names, and forks and a segment of a real table that no reader reaches
  const names = ["99990", "99990.123", "99990_fsm", "99990_vm", "99990_init", "99990_init.123", "99990_fsm.123", "99990_vm.123", `${table}.123`, `${table}_foo`];
  try {
    for (const n of names) writeFileSync(join(dir, n), "foo");
    // a temporary relation's file left by a crash is no orphan (the server removes it at start), but its bytes are checked
    writeFileSync(join(dir, "t3_99991"), "foo");
    const { run, errors } = await verifyDb();
    assert.equal(run.summary.exitCode, 2);
    const by = (code: string): string[] => errors.filter((f) => f.code === code).map((f) => basename(f.location.file!)).sort();
    assert.deepEqual(by("REL_FILE_ORPHAN"), [...names].sort());
    assert.deepEqual(by("REL_PARTIAL_BLOCK"), [...names, "t3_99991"].sort());
    const partial = errors.find((f) => f.code === "REL_PARTIAL_BLOCK" && f.location.file!.endsWith("/99990.123"))!;
    assert.match(partial.message, /^could not read block 16121856 in file ".*99990\.123": read 3 of 8192$/); // 123 * RELSEG_SIZE
    // the text report heads each finding with the file it is about
    assert.match(renderText(run), new RegExp(`^file "${join(dir, "99990.123").replace(/\./g, "\\.")}", block 16121856:\n {4}\\[REL_PARTIAL_BLOCK\\] could not read block`, "m"));
    // pg_checksums, the oracle, stops at the first of them (it numbers blocks within the file; pgdisk relation-wide, as md.c)
    const pc = spawnSync(join(PG_BIN, "pg_checksums"), ["--check", "-D", copy.pgdata], { encoding: "utf8" });
    assert.equal(pc.status, 1, pc.stderr);
    const said = /could not read block (\d+) in file "([^"]+)": read 3 of 8192/.exec(pc.stderr);
    assert.ok(said, pc.stderr);
    assert.ok(errors.some((f) => f.code === "REL_PARTIAL_BLOCK" && f.location.file === said[2] && f.location.block! % 131072 === Number(said[1])), pc.stderr);
  } finally {
    for (const n of [...names, "t3_99991"]) rmSync(join(dir, n), { force: true });
  }
});

test("an init fork of 3 bytes of a real table is a partial block", async () => {
  const d = new Damager(copy.pgdata, DB);
  const init = d.path("accounts", "init");
  try {
    writeFileSync(init, "foo");
    const { errors } = await verifyDb();
    assert.deepEqual(errors.map((f) => [f.code, f.location.file]), [["REL_PARTIAL_BLOCK", init]]);
  } finally {
    rmSync(init, { force: true });
  }
});

test("a pg_class row whose file is missing is a finding", async () => {
  const d = new Damager(copy.pgdata, DB);
  const path = d.path("accounts");
  renameSync(path, `${path}.moved-away`);
  try {
    const { errors } = await verifyDb();
    const codes = new Set(errors.map((f) => f.code));
    assert.ok(codes.has("REL_FILE_MISSING"), [...codes].join(", "));
    // the moved file is itself stray
    assert.ok(errors.some((f) => f.code === "REL_FILE_ORPHAN" && f.location.file === `${path}.moved-away`));
  } finally {
    renameSync(`${path}.moved-away`, path);
  }
});
