// `pgdisk load` held to the server: the same file goes through `pgdisk load` into one copy of a
// stopped cluster and through COPY FROM into a twin; the new heap tuples must carry the same
// data bytes (and, against COPY FREEZE into an empty table, sit at the same ctids), SELECT must
// return the same rows, every btree index must equal the server's REINDEX of the loaded table
// page for page (expression and partial indexes too, evaluated offline), the loaded cluster must start and pass pg_amcheck --heapallindexed
// --parent-check, its new pages must be all-visible and all-frozen, and later DML must work.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PgServer, writeForPg } from "../../samples/pg-server.js";
import { Rng } from "../../samples/prng.js";
import { comparePages, copyRoot, indexPath, reindexCopy, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";
import { assertAmcheckClean, heapTuples, pgdiskLoad, removeTwins, tableDigest } from "./helpers.js";
import { spawnSync } from "node:child_process";
import { ROOT } from "../toast/cluster-helpers.js";
import { HEAP_XMAX_INVALID, HEAP_XMIN_FROZEN } from "../../formats/heap/tuple-header.js";

const DB = "app";
const EXISTING = 700;
const NEW = 3000;
const INDEXES = ["t_pkey", "t_k", "t_vd", "t_lower_k", "t_part", "t_expr", "e_pkey", "e_k", "m_ts", "m_bytea", "m_name", "m_f4i2", "m_bpchar", "m_num", "m_oid", "m_char", "m_expr"];
const M_COLUMNS = "n int4, c_i2 int2, c_f4 float4, c_char \"char\", c_bpchar char(5), c_name name, c_oid oid, c_bytea bytea, c_ts timestamp, c_json json, c_time time, c_num numeric(10,3)";

const SETUP = `
create extension pageinspect;
create extension pg_visibility;
create extension pg_freespacemap;
create table t (id int primary key, k text not null, v int8, d date, n numeric, f float8, b bool, note varchar(20), c int default 7, u uuid);
create index t_k on t (k);
create index t_vd on t (v, d);
create index t_lower_k on t (lower(k));
create index t_part on t (v) where b and id > 100;
create index t_expr on t ((v + 1), (k || '-x')) where note is not null;
insert into t select g, 'key-' || (g % 97), g * 1000003, date '2020-01-01' + g, g / 7.0, g * 0.5, g % 2 = 0, 'n' || g, g, md5(g::text)::uuid from generate_series(1, ${EXISTING}) g;
create table e (id int8 primary key, k text, payload text, at timestamptz) with (fillfactor = 70);
create index e_k on e (k);
create table m (${M_COLUMNS});
insert into m select g, g - 50, g / 3.0, chr(65 + g % 26), 'b' || (g % 7), 'name' || g, g * 1000, decode(md5(g::text), 'hex'), timestamp '2024-02-29 12:00' + g * interval '1 hour', '{"g": 1}', time '00:00' + g * interval '1 minute', g * 1.5 from generate_series(1, 100) g;
create index m_ts on m (c_ts);
create index m_bytea on m (c_bytea);
create index m_name on m (c_name);
create index m_f4i2 on m (c_f4, c_i2 desc nulls last);
create index m_bpchar on m (c_bpchar);
create index m_num on m (c_num);
create index m_oid on m (c_oid);
create index m_char on m (c_char);
create index m_expr on m ((c_num * 2), date_trunc('day', c_ts), (c_bpchar::name), (c_f4::float8), (c_i2::numeric + c_num)) where c_oid > 1000 and c_name >= 'name';
`;

let srv: PgServer;
let dir = "";
let loadedRoot = "";
let twinRoot = "";
let tFile = "";
let eFile = "";
let mFile = "";
let loadT: ReturnType<typeof pgdiskLoad>;
let loadE: ReturnType<typeof pgdiskLoad>;
let loadM: ReturnType<typeof pgdiskLoad>;

function tRows(): string {
  const r = new Rng(20261202, "load-t");
  const lines: string[] = [];
  for (let i = 0; i < NEW; i++) {
    const id = EXISTING + 1 + i * 3;
    const nul = (s: string): string => (r.chance(0.1) ? "\\N" : s);
    lines.push(
      [
        String(id),
        `key-${r.int(0, 150)}${r.chance(0.05) ? "\\ttab\\\\slash" : ""}`,
        nul(String(r.int(-1e9, 1e9))),
        nul(`${r.int(1990, 2030)}-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}`),
        nul(`${r.int(-99999, 99999)}.${r.int(0, 999)}`),
        nul(r.pick(["NaN", "Infinity", "-Infinity", String(r.gaussian() * 1e3)])),
        nul(r.pick(["t", "f", "yes", "off"])),
        nul(r.base64(r.int(0, 20))),
        nul(r.uuid()),
      ].join("\t"),
    );
  }
  return lines.join("\n") + "\n";
}

function eRows(): string {
  const r = new Rng(20261202, "load-e");
  const lines = ["id,k,payload,at"];
  for (let i = 0; i < 2500; i++) {
    const payload = r.chance(0.1) ? "" : `"${r.base64(r.int(0, 300)).replace(/"/g, '""')}, with ""quotes"""`;
    lines.push([String(i * 7 - 5000), r.chance(0.2) ? "" : `k${r.int(0, 40)}`, payload, `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} 1${r.int(0, 9)}:${r.int(10, 59)}:00+0${r.int(0, 9)}`].join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

/** Many types and their edge values, NULLs everywhere but the row number. */
function mRows(): string {
  const r = new Rng(20261202, "load-m");
  const nul = (s: string): string => (r.chance(0.1) ? "\\N" : s);
  const lines: string[] = [];
  for (let i = 0; i < 1500; i++) {
    lines.push(
      [
        String(1000 + i),
        nul(String(r.pick([-32768, 32767, 0, r.int(-32768, 32767)]))),
        nul(r.pick(["NaN", "-Infinity", "Infinity", "-0", "1e-40", "3.4e38", String(r.float() * 1000 - 500)])),
        nul(r.pick(["a", "Z", "0", "x"])),
        nul(r.base64(r.int(0, 5))),
        nul(r.base64(r.int(1, 63))),
        nul(String(r.pick([0, 4294967295, 2147483648, r.int(0, 2 ** 32 - 1)]))),
        nul(r.chance(0.5) ? `\\\\x${r.hex(2 * r.int(0, 60))}` : `ab\\\\000c${r.base64(r.int(0, 10))}`),
        nul(r.pick(["infinity", "-infinity", `20${r.int(10, 30)}-0${r.int(1, 9)}-1${r.int(0, 9)} ${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(0, 999999)}`])),
        nul(JSON.stringify({ k: r.int(0, 9), s: r.base64(r.int(0, 30)) })),
        nul(`${r.int(10, 23)}:${r.int(10, 59)}:${r.int(10, 59)}.${r.int(0, 999)}`),
        nul(r.pick(["NaN", "0", "-0.0005", "9999999.999", `${r.int(-9999999, 9999999)}.${r.int(0, 999)}`])),
      ].join("\t"),
    );
  }
  return lines.join("\n") + "\n";
}

before(async () => {
  srv = await stoppedCluster(SETUP, { checksums: true, db: DB });
  dir = mkdtempSync(join(tmpdir(), "pgdisk-load-"));
  chmodSync(dir, 0o755);
  tFile = join(dir, "t.tsv");
  eFile = join(dir, "e.csv");
  writeForPg(tFile, tRows());
  writeForPg(eFile, eRows());
  mFile = join(dir, "m.tsv");
  writeForPg(mFile, mRows());
  loadedRoot = copyRoot(srv.root, "loaded");
  twinRoot = copyRoot(srv.root, "twin");
  const pgdata = join(loadedRoot, "data");
  // t and m build their indexes in parallel threads (from the first row on), e sequentially
  const parallel = { PGDISK_LOAD_PARALLEL_MIN: "1" };
  loadT = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "t", "--columns", "id,k,v,d,n,f,b,note,u", "--json", tFile], undefined, parallel);
  loadE = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "public.e", "--format", "csv", "--header", "--json", eFile]);
  loadM = pgdiskLoad(["--pgdata", pgdata, "-d", DB, "-t", "m", "--json", mFile], undefined, parallel);
});

after(() => removeTwins(srv, [loadedRoot, twinRoot], dir));

test("pgdisk load exits 0 and reports the rows it wrote", () => {
  assert.equal(loadT.status, 0, loadT.stderr);
  assert.equal(loadE.status, 0, loadE.stderr);
  // no progress in a pipe
  assert.equal(loadT.stderr + loadE.stderr, "");
  const rt = JSON.parse(loadT.stdout);
  assert.equal(rt.rows, NEW);
  // the partial indexes' entries, counted from the input and the setup's own rule (b = g % 2 = 0)
  const rows = readFileSync(tFile, "utf8").trimEnd().split("\n").map((l) => l.split("\t"));
  const inPart = rows.filter((f) => ["t", "yes"].includes(f[6]!) && Number(f[0]) > 100).length;
  const noteSet = rows.filter((f) => f[7] !== "\\N").length;
  const existingPart = Array.from({ length: EXISTING }, (_, i) => i + 1).filter((g) => g % 2 === 0 && g > 100).length;
  assert.deepEqual(
    rt.indexes.map((i: { index: string; existingEntries: number; newEntries: number }) => [i.index, i.existingEntries, i.newEntries]),
    [["public.t_pkey", EXISTING, NEW], ["public.t_k", EXISTING, NEW], ["public.t_vd", EXISTING, NEW], ["public.t_lower_k", EXISTING, NEW], ["public.t_part", existingPart, inPart], ["public.t_expr", EXISTING, noteSet]],
  );
  assert.equal(JSON.parse(loadE.stdout).rows, 2500);
  assert.equal(loadM.status, 0, loadM.stderr);
  assert.equal(JSON.parse(loadM.stdout).rows, 1500);
});

test("progress on a terminal, phase by phase", () => {
  // script(1) gives the command a terminal; a dry run writes nothing
  const cmd = [process.execPath, "--import", "tsx", join(ROOT, "cli", "main.ts"), "load", "--dry-run", "--pgdata", join(loadedRoot, "data"), "-d", DB, "-t", "t", "--columns", "id,k,v,d,n,f,b,note,u", tFile].map((a) => `'${a}'`).join(" ");
  const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 2, r.stdout); // the rows are in the table already: duplicate keys
  assert.match(r.stdout, /\rpgdisk: index 1\/6 public\.t_pkey: 3000 rows, 0\.\d MiB, \d+ rows\/s/);
});

test("every btree index equals the server's REINDEX of the loaded table", () => {
  const pgdata = join(loadedRoot, "data");
  const re = reindexCopy(loadedRoot, DB, INDEXES);
  try {
    for (const name of INDEXES) {
      const ours = readFileSync(indexPath(pgdata, DB, name));
      const cmp = comparePages(ours, re.files.get(name)!);
      assert.deepEqual({ name, pages: cmp.pages, differing: cmp.differing.slice(0, 5) }, { name, pages: cmp.theirPages, differing: [] });
    }
  } finally {
    removeRoot(re.root);
  }
});

test("the loaded cluster returns what COPY FROM stored in the twin, tuple for tuple", () => {
  const twin = PgServer.attach(twinRoot);
  twin.start();
  twin.sql(`copy t (id, k, v, d, n, f, b, note, u) from '${tFile}'; begin; truncate e; copy e from '${eFile}' (format csv, header, freeze); commit; copy m from '${mFile}';`, DB);
  const loaded = PgServer.attach(loadedRoot);
  loaded.start();
  try {
    for (const [table, order] of [["t", "id"], ["e", "id"], ["m", "n"]]) {
      assert.deepEqual(tableDigest(loaded, DB, table, order), tableDigest(twin, DB, table, order), table);
    }
    // t had rows: the new tuples' data bytes are the twin's (COPY may place them elsewhere)
    const mine = heapTuples(loaded, DB, "t");
    const theirs = heapTuples(twin, DB, "t");
    const data = (ts: typeof mine): string[] => ts.map((x) => x.data).sort();
    assert.deepEqual(data(mine), data(theirs));
    assert.deepEqual(data(heapTuples(loaded, DB, "m")), data(heapTuples(twin, DB, "m")));
    // e was empty, and COPY FREEZE into a table truncated in its transaction skips the free space
    // map as pgdisk does: the same tuples at the same ctids (heap_multi_insert's fillfactor-70 fill)
    const em = heapTuples(loaded, DB, "e");
    const et = heapTuples(twin, DB, "e");
    assert.equal(em.length, 2500);
    assert.deepEqual(em.map((x) => `${x.ctid} ${x.data}`), et.map((x) => `${x.ctid} ${x.data}`));
    // frozen as COPY FREEZE leaves them
    const fresh = [...em, ...mine.slice(EXISTING)];
    assert.deepEqual(new Set(fresh.map((x) => `${x.xmin} ${x.infomask & (HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID)}`)), new Set([`2 ${HEAP_XMIN_FROZEN | HEAP_XMAX_INVALID}`]));
    // the visibility map: every new page all-visible and all-frozen, and nothing contradicts it
    assert.deepEqual(loaded.rows("select count(*) filter (where not all_visible or not all_frozen), count(*) from pg_visibility_map('e')", DB), [["0", em.length ? loaded.rows("select pg_relation_size('e') / 8192", DB)[0]![0] : "0"]]);
    assert.deepEqual(loaded.rows("select count(*) from pg_check_frozen('t') union all select count(*) from pg_check_visible('e')", DB), [["0"], ["0"]]);
    // the free space map: each new page's PageGetHeapFreeSpace, in 32-byte categories
    const fsm = loaded.rows("select f.avail, h.upper - h.lower - 4 from pg_freespace('e') f, page_header(get_raw_page('e', f.blkno::int)) h order by f.blkno", DB);
    assert.ok(fsm.length > 3);
    assert.deepEqual(fsm.map(([avail]) => Number(avail)), fsm.map(([, free]) => Math.floor(Number(free) / 32) * 32));
    assertAmcheckClean(loaded, DB, true);
    // later DML, VACUUM and REINDEX work on the loaded tables
    loaded.sql(
      `insert into t (id, k) values (-1, 'new'); update t set v = v + 1 where id % 5 = 0; delete from t where id % 11 = 0;
       insert into e select -id, k, payload, at from e where id > 0 and id < 300; update e set k = 'z' where id % 3 = 0; delete from e where id % 13 = 0;
       vacuum t; vacuum e; reindex table t; reindex table e;`,
      DB,
    );
    assertAmcheckClean(loaded, DB);
  } finally {
    twin.stop();
    loaded.stop();
  }
});
