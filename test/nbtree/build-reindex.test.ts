// The plain rebuild (formats/nbtree/build.ts) against PostgreSQL's own REINDEX, byte for byte on
// every page apart from pd_lsn and pd_checksum: every key shape of the proposal with duplicates
// (posting lists), NULLs, DESC columns, INCLUDE columns, fillfactor 70 and 100, no deduplication
// and unique; a three-level tree; key types whose equality is not image equality (numeric display
// scale, -0 and NaN, intervals) decided exactly; types pgdisk cannot compare (arrays, a
// nondeterministic collation) rebuilt valid (pg_amcheck) if not always identical.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { readFileSync } from "node:fs";
import { PgServer } from "../../samples/pg-server.js";
import { KEY_SHAPES, shapeIndexVariants, shapeTableSql } from "../../samples/key-shapes.js";
import { comparePages, convertInPlace, outputCopy, reindexCopy, removeRoot, stoppedCluster } from "../../samples/cluster-kit.js";

const DB = "bt";
const ROWS = 3000;
const DISTINCT = 1800; // 40% of the rows repeat a key: posting lists

const shapeIndexes = new Map<string, string[]>();
const exactTypes = ["num_idx", "num_multi", "flt_idx", "ivl_idx"];
const uncertainTypes = ["arr_idx", "ci_idx"];
const big = ["big_urls", "empty_idx", "one_idx"];
let srv: PgServer;
let reRoot: string | undefined;
let outData: string | undefined;
let files: Map<string, Buffer>;
let reports: ReturnType<typeof convertInPlace>;

before(async () => {
  const sql: string[] = [];
  for (const s of KEY_SHAPES) {
    const table = `s_${s.name}`;
    sql.push(shapeTableSql(s, table, ROWS, DISTINCT));
    const v = shapeIndexVariants(s, table);
    shapeIndexes.set(s.name, v.map((x) => x.name));
    sql.push(...v.map((x) => x.sql + ";"));
  }
  sql.push(shapeTableSql(KEY_SHAPES[0]!, "big", 60000, 60000), "create index big_urls on big (url);");
  sql.push("create table empty_t (k text); create index empty_idx on empty_t (k);", "create table one_t (k text); insert into one_t values ('only'); create index one_idx on one_t (k);");
  sql.push(`
    create table num (id int, n numeric, t text, f float8, iv interval, arr int[], s text collate ci);
    insert into num select i, round((i % 300)::numeric / 4, 2 + i % 3), 'v' || (i % 11), case i % 5 when 0 then 0.0::float8 when 1 then -0.0::float8 when 2 then 'NaN'::float8 else (i % 50)::float8 end,
      case i % 3 when 0 then interval '1 day' * (i % 20) when 1 then interval '24 hours' * (i % 20) else interval '1440 minutes' * (i % 20) end,
      array[i % 13, i % 7], case i % 3 when 0 then 'Key-' || (i % 40) when 1 then 'KEY-' || (i % 40) else 'key-' || (i % 40) end
      from generate_series(1, 4000) i;
    create index num_idx on num (n);
    create index num_multi on num (n, t);
    create index flt_idx on num (f, t);
    create index ivl_idx on num (iv, t);
    create index arr_idx on num (arr, t);
    create index ci_idx on num (s, t);`);
  srv = await stoppedCluster("create collation ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);\n" + sql.join("\n"), { checksums: true, db: DB });
  const all = [...[...shapeIndexes.values()].flat(), ...big, ...exactTypes, ...uncertainTypes];
  const re = reindexCopy(srv.root, DB, all);
  reRoot = re.root;
  files = re.files;
  outData = outputCopy(srv.pgdata, "rebuild");
  reports = convertInPlace(outData, DB, all, { to: "plain", mode: "rebuild" });
});

after(() => {
  srv?.destroy();
  removeRoot(reRoot);
  if (outData) removeRoot(dirname(outData));
});

function assertIdentical(name: string): void {
  const r = reports.get(name)!;
  const cmp = comparePages(readFileSync(r.path), files.get(name)!);
  assert.equal(cmp.pages, cmp.theirPages, `${name}: ${cmp.pages} pages, REINDEX wrote ${cmp.theirPages}`);
  assert.deepEqual(cmp.differing, [], `${name}: pages ${cmp.differing.slice(0, 10).join(", ")} differ from REINDEX`);
}

for (const shape of KEY_SHAPES) {
  test(`plain rebuild = REINDEX, page by page: ${shape.label} (7 variants)`, (t) => {
    for (const name of shapeIndexes.get(shape.name)!) assertIdentical(name);
    const base = reports.get(`s_${shape.name}_base`)!.report;
    const nodedup = reports.get(`s_${shape.name}_nodedup`)!.report;
    t.diagnostic(`${shape.name}: base ${base.pagesAfter} pages (${base.heapTids} heap TIDs), without dedup ${nodedup.pagesAfter}`);
    assert.equal(base.heapTids, ROWS);
  });
}

test("posting lists, INCLUDE, fillfactor and unique variants really differ in layout", () => {
  const pages = (n: string) => reports.get(n)!.report.pagesAfter;
  assert.ok(pages("s_urls_base") < pages("s_urls_nodedup"), "deduplication packs duplicates into posting lists");
  assert.ok(pages("s_urls_ff70") > pages("s_urls_base"), "fillfactor 70 leaves more room");
  assert.ok(pages("s_urls_ff100") < pages("s_urls_nodedup"), "fillfactor 100 packs pages full");
  assert.ok(pages("s_urls_incl") >= pages("s_urls_nodedup"), "INCLUDE indexes never deduplicate");
});

test("a three-level tree (upper-level splits, the root written last) is identical to REINDEX", () => {
  assertIdentical("big_urls");
  assert.ok(reports.get("big_urls")!.report.pagesAfter > 300);
  const f = files.get("big_urls")!;
  const btmLevel = new DataView(f.buffer, f.byteOffset).getUint32(24 + 12, true);
  assert.equal(btmLevel, 2, "btm_level 2: leaves, one internal level, the root");
  assert.equal(reports.get("big_urls")!.report.pagesAfter, files.get("big_urls")!.length / 8192);
});

test("an empty index (metapage only) and a one-row index (a root leaf) are identical to REINDEX", () => {
  assertIdentical("empty_idx");
  assertIdentical("one_idx");
  assert.equal(reports.get("empty_idx")!.report.pagesAfter, 1);
  assert.equal(reports.get("one_idx")!.report.pagesAfter, 2);
});

test("numeric display scale, float -0/NaN and interval spans: truncation decided exactly, identical to REINDEX", () => {
  for (const name of exactTypes) {
    assertIdentical(name);
    assert.equal(reports.get(name)!.report.uncertainPivots, 0, name);
  }
});

test("arrays and a nondeterministic collation (compared by image only): the rebuild is valid for pg_amcheck", (t) => {
  for (const name of uncertainTypes) {
    const r = reports.get(name)!;
    const cmp = comparePages(readFileSync(r.path), files.get(name)!);
    t.diagnostic(`${name}: ${r.report.uncertainPivots} uncertain high keys, ${cmp.differing.length} of ${cmp.theirPages} pages differ from REINDEX`);
    assert.deepEqual(r.report.uncertainColumns.length > 0, true);
  }
  const check = PgServer.attach(dirname(outData!));
  check.start();
  try {
    const res = check.toolResult("pg_amcheck", [...check.connArgs(DB), "--install-missing", "--heapallindexed", "--parent-check", "--no-strict-names", ...[...uncertainTypes, ...exactTypes, "big_urls"].flatMap((i) => ["-i", i])]);
    assert.equal(res.status, 0, `pg_amcheck failed:\n${res.stdout}${res.stderr}`);
    check.sql("set enable_seqscan = off; set enable_bitmapscan = off;", DB);
    const viaIndex = check.rows("set enable_seqscan = off; set enable_bitmapscan = off; select count(*) from num where s = 'key-7' and t >= '';", DB);
    const viaHeap = check.rows("set enable_indexscan = off; set enable_bitmapscan = off; set enable_indexonlyscan = off; select count(*) from num where s = 'key-7' and t >= '';", DB);
    assert.deepEqual(viaIndex, viaHeap);
  } finally {
    check.destroy();
  }
});
