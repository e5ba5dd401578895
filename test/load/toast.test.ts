// `pgdisk load` of rows the server TOASTs, held to COPY FROM: the same file goes through
// `pgdisk load --toast plain` into one copy of a stopped cluster, `--toast direct` into a second
// and COPY FROM into a twin. Every stored value must get the twin's decision (inline, compressed
// inline, external; the same stored bytes, value OIDs aside), SELECT the same rows; the plain
// load's TOAST index must equal REINDEX's, its value OIDs must skip every existing chunk_id
// (pg_control's nextOid is set below them first) and pg_control's nextOid must move past them;
// pg_amcheck --heapallindexed --parent-check finds nothing and later DML works. The direct load
// passes pgdisk verify, is fenced, and `pgdisk migrate toast --to plain` brings it back to what
// the twin holds. Killed after the switch's first step, pg_control has already changed and the
// recorded plan completes the load.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { readControlFile } from "../../formats/catalog/control.js";
import { decodeControlFile, encodeControlFile } from "../../formats/storage/control-file.js";
import { comparePages, copyRoot, reindexCopy, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { assertAmcheckClean, pgdiskLoad, storedValues, tableDigest } from "./helpers.js";
import { checkDirectInvariants, pgdisk, pgdiskMigrate, pointersOf, ROOT } from "../toast/cluster-helpers.js";
import type { LoadReport } from "../../migrate/load/engine.js";
import { fileDigests } from "../migrate/helpers.js";
import { spawnSync } from "node:child_process";

const DB = "app";
const EXISTING = 30;
const SETUP = `
create extension pageinspect;
create table docs (id int primary key, x text, e text, m text, p text, b bytea, s text);
alter table docs alter column e set storage external;
alter table docs alter column m set storage main;
alter table docs alter column p set storage plain;
create index docs_s on docs (s);
create table tt (id int primary key, a text, b text) with (toast_tuple_target = 256);
create table lz (id int primary key, a text compression lz4, b text compression pglz);
insert into docs select g, repeat('existing ' || g, 500 + g * 30), case when g % 3 = 0 then repeat('e', 3000) end, null, null, null, 's' || g from generate_series(1, ${EXISTING}) g;
insert into tt select g, repeat('t', 200), md5(g::text) from generate_series(1, 5) g;
`;

let srv: PgServer;
let dir = "";
let plainRoot = "";
let directRoot = "";
let twinRoot = "";
let backRoot = "";
const files: Record<string, string> = {};
const loads: Record<string, { status: number; stdout: string; stderr: string }> = {};
let dryDocs: LoadReport;
let nextOidBefore = 0;
let existingIds: number[] = [];

/** Text-format field for a string of base64 or hex characters (nothing to escape). */
function docsRows(): string {
  const r = new Rng(20261202, "load-toast");
  const rnd = (n: number): string => r.base64(n).slice(0, n);
  const cmp = (n: number): string => `${"compressible ".repeat(Math.ceil(n / 13))}`.slice(0, n);
  const lines: string[] = [];
  let id = 1000;
  const row = (x: string | null, e: string | null, m: string | null, p: string | null, b: string | null, s: string): void => {
    lines.push([String(id++), x ?? "\\N", e ?? "\\N", m ?? "\\N", p ?? "\\N", b === null ? "\\N" : `\\\\x${b}`, s].join("\t"));
  };
  // around TOAST_TUPLE_THRESHOLD (2032) with one value, both kinds of content
  for (const n of [1900, 1990, 2000, 2004, 2010, 2020, 2030, 2040, 2100, 2500]) {
    row(rnd(n), null, null, null, null, "a");
    row(cmp(n), null, null, null, null, "b");
  }
  // many sizes of incompressible and compressible values, external up to a tree (> 100 chunks)
  for (const n of [3000, 6000, 8100, 9000, 20000, 100000, 199600, 199700, 260000]) {
    row(rnd(n), null, null, null, null, "c");
    row(cmp(n), null, null, null, null, "d");
  }
  // compressible only at the start: compressed, still out of line (a tree when over 100 chunks)
  for (const n of [1500, 2500, 5000, 30000, 250000]) row(cmp(600) + rnd(n), null, null, null, null, "f");
  // STORAGE external: never compressed, out of line when the tuple is over
  for (const n of [1000, 1800, 2100, 5000]) row(null, cmp(n), null, null, null, "e");
  // STORAGE main: compressed first, out of line only over TOAST_TUPLE_TARGET_MAIN
  for (const n of [2100, 7000, 8100, 8200, 30000]) {
    row(null, null, rnd(n), null, null, "m");
    row(null, null, cmp(n), null, null, "n");
  }
  // STORAGE plain: never touched (the tuple may stay over the threshold)
  for (const n of [1500, 2500, 4000]) row(cmp(400), null, null, rnd(n), null, "p");
  // several values in one row: largest first, x before e before m
  for (let k = 0; k < 40; k++) {
    row(r.chance(0.5) ? rnd(r.int(10, 3000)) : cmp(r.int(10, 6000)), r.chance(0.5) ? cmp(r.int(10, 2500)) : null, r.chance(0.5) ? rnd(r.int(10, 2000)) : cmp(r.int(10, 9000)), r.chance(0.3) ? cmp(r.int(10, 1200)) : null, r.chance(0.5) ? r.hex(2 * r.int(10, 3000)) : null, `k${k}`);
  }
  // small rows in between
  for (let k = 0; k < 20; k++) row(cmp(50), null, null, null, "00ff", "z");
  return lines.join("\n") + "\n";
}

function ttRows(): string {
  const r = new Rng(20261202, "load-toast-tt");
  const lines: string[] = [];
  for (let i = 0; i < 60; i++) lines.push([String(100 + i), r.chance(0.5) ? r.base64(r.int(100, 3000)) : "y".repeat(r.int(100, 4000)), r.base64(r.int(10, 1500))].join("\t"));
  return lines.join("\n") + "\n";
}

function lzRows(): string {
  const r = new Rng(20261202, "load-toast-lz");
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    // incompressible, very compressible, and half compressible (compressed, still out of line)
    const big = (k: number): string => {
      if (k % 3 === 0) return r.base64(3000 + 500 * k);
      if (k % 3 === 1) return "lz4 text ".repeat(300 + 200 * k);
      const h = r.base64(2500 + 100 * k);
      return h + h;
    };
    lines.push([String(i), big(i), big(i + 1)].join("\t"));
  }
  return lines.join("\n") + "\n";
}

/** How many TOAST pointers of a table's tuples have each tag: 18 (stock) or 19 (direct). */
function pointerTags(pgdata: string, table: string): Map<number, number> {
  const cat = new Cluster(pgdata).database(DB);
  const tags = new Map<number, number>();
  for (const p of pointersOf(cat, cat.findRelation(table))) tags.set(p.pointer.tag, (tags.get(p.pointer.tag) ?? 0) + 1);
  return tags;
}

function setNextOid(pgdata: string, oid: number): void {
  const path = join(pgdata, "global", "pg_control");
  const bytes = readFileSync(path);
  const fields = structuredClone(decodeControlFile(bytes).fields);
  fields.checkPointCopy.nextOid = oid;
  writeFileSync(path, encodeControlFile(fields, { fileSize: bytes.length }));
}

before(async () => {
  srv = await stoppedCluster(SETUP, { checksums: true, db: DB });
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-toast-"));
  chmodSync(dir, 0o755);
  for (const [name, text] of [["docs", docsRows()], ["tt", ttRows()], ["lz", lzRows()]]) {
    files[name] = join(dir, `${name}.tsv`);
    writeForPg(files[name], text);
  }
  plainRoot = copyRoot(srv.root, "toast-plain");
  directRoot = copyRoot(srv.root, "toast-direct");
  twinRoot = copyRoot(srv.root, "toast-twin");
  const plain = join(plainRoot, "data");
  // the existing values' chunk_ids: the new OIDs must step around them
  const s = PgServer.attach(srv.root);
  s.start();
  try {
    existingIds = s.rows("select distinct chunk_id from pg_toast.pg_toast_" + s.rows("select 'docs'::regclass::oid", DB)[0]![0] + " order by 1", DB).map((r) => Number(r[0]));
  } finally {
    s.stop();
  }
  setNextOid(plain, existingIds[0]! - 3);
  nextOidBefore = readControlFile(plain).control.fields.checkPointCopy.nextOid;
  const dry = pgdiskLoad(["--pgdata", plain, "-d", DB, "-t", "docs", "--dry-run", "--json", files.docs!]);
  assert.equal(dry.status, 0, dry.stderr);
  dryDocs = JSON.parse(dry.stdout);
  for (const t of ["docs", "tt", "lz"]) {
    loads[`plain ${t}`] = pgdiskLoad(["--pgdata", plain, "-d", DB, "-t", t, "--json", files[t]!]);
    loads[`direct ${t}`] = pgdiskLoad(["--pgdata", join(directRoot, "data"), "-d", DB, "-t", t, "--toast", "direct", "--json", files[t]!]);
  }
  const twin = PgServer.attach(twinRoot);
  twin.start();
  try {
    twin.sql(["docs", "tt", "lz"].map((t) => `copy ${t} from '${files[t]}';`).join("\n") + "\ncheckpoint;", DB);
  } finally {
    twin.stop();
  }
});

after(() => {
  srv?.destroy();
  for (const r of [plainRoot, directRoot, twinRoot, backRoot]) removeRoot(r || undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const report = (k: string): LoadReport => {
  assert.equal(loads[k]!.status, 0, `${k}: ${loads[k]!.stderr}`);
  return JSON.parse(loads[k]!.stdout);
};

test("both loads exit 0; the report counts values by tier, and --dry-run reports the same", () => {
  const p = report("plain docs");
  const d = report("direct docs");
  const v = p.toast.values;
  assert.ok(v.inlineCompressed > 10 && v.externalPlain > 20 && v.externalCompressed > 5, JSON.stringify(v));
  assert.deepEqual(v.direct, { single: 0, flat: 0, tree: 0 });
  const dv = d.toast.values;
  assert.equal(dv.externalPlain, 0);
  assert.equal(dv.direct.single + dv.direct.flat + dv.direct.tree, v.externalPlain);
  assert.ok(dv.direct.single > 0 && dv.direct.flat > 0 && dv.direct.tree > 0, JSON.stringify(dv));
  assert.equal(dv.inlineCompressed, v.inlineCompressed);
  assert.ok(p.toast.pages.added > 0 && p.toast.chunks > v.externalPlain);
  assert.equal(p.toast.index!.newEntries, p.toast.chunks);
  assert.equal(d.toast.index, null);
  assert.equal(d.toast.oids, null);
  assert.match(d.toast.fence!, /pg_control\.pgdisk/);
  // the dry run: the same figures, nothing written
  assert.deepEqual(dryDocs.toast, p.toast);
  assert.equal(report("plain tt").toast.target, 256);
  assert.ok(report("plain lz").toast.values.inlineCompressed + report("plain lz").toast.values.externalPlain > 20);
});

test("every value gets the decision COPY FROM made in the twin, with the same stored bytes", () => {
  const twin = join(twinRoot, "data");
  for (const t of ["docs", "tt"]) {
    const theirs = storedValues(DB, twin, t);
    assert.ok(theirs.size > 40);
    assert.deepEqual(storedValues(DB, join(plainRoot, "data"), t), theirs, `plain ${t}`);
    assert.deepEqual(storedValues(DB, join(directRoot, "data"), t), theirs, `direct ${t}`);
  }
  // lz4 (Debian's server has it): pgdisk's lz4 blocks are valid but not liblz4's bytes, so the decisions and methods are compared
  const lz = storedValues(DB, twin, "lz", { lz4Sizes: false });
  assert.deepEqual(storedValues(DB, join(plainRoot, "data"), "lz", { lz4Sizes: false }), lz);
  assert.ok([...lz.values()].some((v) => v[1] === "compressed lz4") && [...lz.values()].some((v) => v[1]!.startsWith("external") && v[1]!.endsWith("lz4")));
  assert.deepEqual(pointerTags(join(plainRoot, "data"), "docs").get(19), undefined);
  assert.equal(pointerTags(join(directRoot, "data"), "docs").get(18), pointerTags(twin, "docs").get(18)! - report("plain docs").toast.values.externalPlain);
});

test("value OIDs skip every existing chunk_id; pg_control's nextOid moves past the last", () => {
  const p = report("plain docs");
  const o = p.toast.oids!;
  assert.equal(o.nextOidBefore, nextOidBefore);
  assert.equal(o.first, nextOidBefore);
  const after = readControlFile(join(plainRoot, "data")).control.fields.checkPointCopy.nextOid;
  // the lz and tt loads came after docs, each moving nextOid further
  assert.equal(after, report("plain lz").toast.oids!.nextOidAfter);
  assert.ok(after > report("plain tt").toast.oids!.last && o.nextOidAfter === report("plain tt").toast.oids!.nextOidBefore);
  // on a copy: the server's own inserts would change what the other tests compare
  const copy = copyRoot(plainRoot, "toast-oids");
  const srvP = PgServer.attach(copy);
  srvP.start();
  try {
    const toast = "pg_toast.pg_toast_" + srvP.rows("select 'docs'::regclass::oid", DB)[0]![0];
    const ids = srvP.rows(`select chunk_id, count(*) filter (where chunk_seq = 0) from ${toast} group by 1 order by 1`, DB).map((r) => [Number(r[0]), Number(r[1])]);
    assert.ok(ids.every(([, n]) => n === 1), "one value per chunk_id");
    assert.equal(ids.length, existingIds.length + p.toast.values.externalPlain);
    assert.ok(existingIds.some((id) => id > o.first && id < o.last), "the new OIDs stepped around existing ones");
    for (const id of existingIds) assert.ok(ids.some(([x]) => x === id));
    // a value the server TOASTs after the load takes an OID past ours
    srvP.sql("insert into docs (id, e) values (-1, repeat('z', 5000))", DB);
    const fresh = Number(srvP.rows(`select max(chunk_id) from ${toast}`, DB)[0]![0]);
    assert.ok(fresh >= after, `${fresh} >= ${after}`);
  } finally {
    srvP.stop();
    removeRoot(copy);
  }
});

test("the TOAST index equals the server's REINDEX of it", () => {
  const pgdata = join(plainRoot, "data");
  const cat = new Cluster(pgdata).database(DB);
  for (const t of ["docs", "tt", "lz"]) {
    const toast = cat.classes.get(cat.findRelation(t).toastRelid)!;
    const ix = cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!;
    const name = `pg_toast.${ix.name}`;
    const re = reindexCopy(plainRoot, DB, [name]);
    try {
      const cmp = comparePages(readFileSync(cat.path(ix)), re.files.get(name)!);
      assert.deepEqual({ t, pages: cmp.pages, differing: cmp.differing.slice(0, 5) }, { t, pages: cmp.theirPages, differing: [] });
    } finally {
      removeRoot(re.root);
    }
  }
});

test("the plain load returns the twin's rows, passes pg_amcheck, and takes later DML", () => {
  const twin = PgServer.attach(twinRoot);
  const copy = copyRoot(plainRoot, "toast-dml");
  const loaded = PgServer.attach(copy);
  twin.start();
  loaded.start();
  try {
    for (const t of ["docs", "tt", "lz"]) {
      const cols = t === "docs" ? "pg_column_compression(x), pg_column_size(x), pg_column_size(e), pg_column_compression(m), pg_column_size(m), pg_column_size(p), pg_column_size(b)" : t === "tt" ? "pg_column_compression(a), pg_column_size(a), pg_column_size(b)" : "pg_column_compression(a), pg_column_compression(b), pg_column_size(b)";
      const q = `select id, ${cols} from ${t} order by id`;
      assert.deepEqual(loaded.rows(q, DB), twin.rows(q, DB), t);
      assert.deepEqual(tableDigest(loaded, DB, t, "id"), tableDigest(twin, DB, t, "id"), t);
    }
    assertAmcheckClean(loaded, DB, true);
    loaded.sql(
      `update docs set x = x || 'u' where id % 3 = 0; delete from docs where id % 7 = 0; insert into docs select -id - 10, x, e, m, p, b, s from docs where id > 1000 and id < 1100;
       update tt set a = a || a where id % 2 = 0; vacuum docs; vacuum tt; vacuum lz; reindex table docs;`,
      DB,
    );
    assertAmcheckClean(loaded, DB);
  } finally {
    twin.stop();
    loaded.stop();
    removeRoot(copy);
  }
});

test("the direct load: fenced, verify clean, and back to plain it holds the twin's rows", () => {
  const pgdata = join(directRoot, "data");
  assert.ok(!existsSync(join(pgdata, "global", "pg_control")) && existsSync(join(pgdata, "global", "pg_control.pgdisk")));
  const cat = new Cluster(pgdata).database(DB);
  for (const t of ["docs", "tt", "lz"]) {
    const c = checkDirectInvariants(cat, cat.findRelation(t));
    assert.deepEqual(c.findings, [], t);
    assert.ok(c.valuesWalked > 0, t);
  }
  const v = pgdisk(["verify", "-D", pgdata]);
  assert.equal(v.status, 0, v.stdout.toString() + v.stderr);
  backRoot = mkdtempSync(join(tmpdir(), "pgdisk-load-toast-back-"));
  chmodSync(backRoot, 0o755);
  const m = pgdiskMigrate(["toast", "--pgdata", pgdata, "--out", join(backRoot, "data"), "-d", DB, "--all", "--to", "plain", "--json", "-q"]);
  assert.equal(m.status, 0, m.stderr);
  assert.ok(existsSync(join(backRoot, "data", "global", "pg_control")));
  for (const t of ["docs", "tt"]) assert.deepEqual(storedValues(DB, join(backRoot, "data"), t), storedValues(DB, join(twinRoot, "data"), t), t);
  const back = PgServer.attach(backRoot);
  const twin = PgServer.attach(twinRoot);
  back.start();
  twin.start();
  try {
    for (const t of ["docs", "tt", "lz"]) assert.deepEqual(tableDigest(back, DB, t, "id"), tableDigest(twin, DB, t, "id"), t);
    assertAmcheckClean(back, DB, true);
  } finally {
    back.stop();
    twin.stop();
  }
});

test("value OIDs wrap after 4294967295 to FirstNormalObjectId, as GetNewObjectId does", () => {
  const copy = copyRoot(srv.root, "toast-wrap");
  try {
    const pgdata = join(copy, "data");
    setNextOid(pgdata, 0xfffffffe);
    const file = join(dir, "wrap.tsv");
    writeForPg(file, [1, 2, 3, 4].map((i) => `${5000 + i}\t\\N\t${"w".repeat(3000 + i)}\t\\N\t\\N\t\\N\twrap`).join("\n") + "\n");
    const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "docs", "--json", file]);
    assert.equal(r.status, 0, r.stderr);
    const want = [0xfffffffe, 0xffffffff];
    for (let oid = 16384; want.length < 4; oid++) if (!existingIds.includes(oid)) want.push(oid);
    assert.deepEqual((JSON.parse(r.stdout) as LoadReport).toast.oids, { nextOidBefore: 0xfffffffe, first: want[0], last: want[3], nextOidAfter: want[3]! + 1 });
    assert.equal(readControlFile(pgdata).control.fields.checkPointCopy.nextOid, want[3]! + 1);
    const s = PgServer.attach(copy);
    s.start();
    try {
      const toast = "pg_toast.pg_toast_" + s.rows("select 'docs'::regclass::oid", DB)[0]![0];
      const fresh = s.rows(`select chunk_id::int8 from ${toast} where chunk_seq = 0 and chunk_id not in (${existingIds.join(",")}) order by 1`, DB).map((x) => Number(x[0]));
      assert.deepEqual(fresh, [...want].sort((a, b) => a - b));
      assert.deepEqual(s.rows("select id, length(e) from docs where s = 'wrap' order by id", DB), [1, 2, 3, 4].map((i) => [String(5000 + i), String(3000 + i)]));
    } finally {
      s.stop();
    }
  } finally {
    removeRoot(copy);
  }
});

test("a bad row after TOASTed ones: exit 2, every file of the cluster as it was (TOAST staging and pg_control too)", () => {
  const copy = copyRoot(srv.root, "toast-bad");
  try {
    const pgdata = join(copy, "data");
    const before0 = fileDigests(pgdata);
    const file = join(dir, "bad.tsv");
    writeForPg(file, `6001\t${"b".repeat(9000)}\t${"e".repeat(4000)}\t\\N\t\\N\t\\N\tbad\nx6002\tx\t\\N\t\\N\t\\N\t\\N\tbad\n`);
    for (const flavour of ["plain", "direct"]) {
      const r = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "docs", "--toast", flavour, file]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /input line 2, column id/);
      assert.deepEqual(fileDigests(pgdata), before0, flavour);
    }
  } finally {
    removeRoot(copy);
  }
});

test("a TOAST load killed inside its switch resumes to the full load: nextOid advanced, or the cluster fenced", () => {
  const file = join(dir, "kill.tsv");
  writeForPg(file, [1, 2, 3].map((i) => `${7000 + i}\t${"k".repeat(100)}\t${"x".repeat(4000 * i)}\t\\N\t\\N\t\\N\tkill`).join("\n") + "\n");
  for (const flavour of ["plain", "direct"]) {
    const copy = copyRoot(srv.root, `toast-kill-${flavour}`);
    try {
      const pgdata = join(copy, "data");
      const nextOid = readControlFile(pgdata).control.fields.checkPointCopy.nextOid;
      // killed after the fourth journal record: the fence is up, the switch under way
      const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "cli", "main.ts"), "load", "--pgdata", pgdata, "-d", DB, "-t", "docs", "--toast", flavour, "-q", file], { cwd: ROOT, encoding: "utf8", env: { ...process.env, PGDISK_FAULT_AT: "journal-4" } });
      assert.equal(r.signal, "SIGKILL", r.stderr);
      assert.ok(!existsSync(join(pgdata, "global", "pg_control")), `${flavour}: no stock server starts while the switch is under way`);
      const resumed = pgdiskLoad(["--pgdata", pgdata, "-q"]);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.deepEqual([...fileDigests(pgdata).keys()].filter((p) => /\.pgdisk-|pgdisk_journal/.test(p)), []);
      const after = new Cluster(pgdata).database(DB);
      if (flavour === "direct") {
        assert.ok(!existsSync(join(pgdata, "global", "pg_control")) && existsSync(join(pgdata, "global", "pg_control.pgdisk")), "Direct TOAST values keep the cluster fenced");
        const c = checkDirectInvariants(after, after.findRelation("docs"));
        assert.deepEqual([c.findings, c.valuesWalked], [[], 3]);
        continue;
      }
      assert.equal(readControlFile(pgdata).control.fields.checkPointCopy.nextOid, nextOid + 3, "nextOid past the three new value OIDs");
      rmSync(join(pgdata, "postmaster.pid"), { force: true });
      const s = PgServer.attach(copy);
      s.start();
      try {
        assert.deepEqual(s.rows("select id, length(x), length(e) from docs where s = 'kill' order by id", DB), [1, 2, 3].map((i) => [String(7000 + i), "100", String(4000 * i)]));
        assertAmcheckClean(s, DB, true);
      } finally {
        s.stop();
      }
    } finally {
      removeRoot(copy);
    }
  }
});
