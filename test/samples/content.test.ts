// The tiny sample holds what samples/README.md promises, checked on a server started over it.
// Dead tuples are checked first, through pageinspect only: any heap scan may prune them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, openSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SAMPLE_DB } from "../../samples/build.js";
import { EMBEDDING_DIM } from "../../samples/data/embeddings.js";
import { buildTiny, classify, rawAttrs, toastChunks, type Built } from "./helpers.js";

let b: Built;
let controlData = "";
const D = SAMPLE_DB;

before(async () => {
  b = await buildTiny(3);
  controlData = b.srv.tool("pg_controldata", [b.info.pgdata]);
  b.srv.start();
});
after(() => b?.cleanup());

const q = (sql: string) => b.srv.rows(sql, D);
const num = (sql: string) => Number(q(sql)[0][0]);

test("the cluster is cleanly shut down, checksummed, and every file opens", () => {
  assert.match(controlData, /Database cluster state:\s+shut down\n/);
  assert.match(controlData, /Data page checksum version:\s+1\n/);
  let files = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else {
        closeSync(openSync(p, "r"));
        files++;
      }
    }
  };
  walk(b.info.pgdata);
  assert.ok(files > 500, `${files} files`);
  assert.equal(q("SHOW data_checksums")[0][0], "on");
});

test("accounts keeps dead, HOT-updated and aborted tuples on disk", () => {
  const [row] = q(`
    SELECT count(*) FILTER (WHERE t_xmax <> 0 AND pg_xact_status(t_xmax::text::xid8) = 'committed'),
           count(*) FILTER (WHERE t_xmax <> 0 AND pg_xact_status(t_xmax::text::xid8) = 'aborted'),
           count(*) FILTER (WHERE lp_flags = 1 AND pg_xact_status(t_xmin::text::xid8) = 'aborted'),
           count(*) FILTER (WHERE (t_infomask2 & 16384) <> 0),
           count(*) FILTER (WHERE (t_infomask2 & 32768) <> 0),
           count(*) FILTER (WHERE lp_flags = 2),
           count(*) FILTER (WHERE lp_flags = 1 AND t_xmax <> 0 AND pg_xact_status(t_xmax::text::xid8) = 'committed'
                              AND (t_infomask2 & 16384) = 0 AND t_ctid = ('(' || b || ',' || lp || ')')::tid)
      FROM generate_series(0, pg_relation_size('public.accounts') / 8192 - 1) b,
           heap_page_items(get_raw_page('public.accounts', b::int))`);
  const [deadCommitted, xmaxAborted, xminAborted, hotUpdated, heapOnly, redirects, deleted] = row.map(Number);
  assert.ok(deadCommitted > 0, "tuples with a committed xmax (dead, unvacuumed)");
  assert.ok(deleted > 0, "deleted tuples (committed xmax, t_ctid pointing to itself)");
  assert.ok(xmaxAborted > 0, "tuples whose xmax aborted");
  assert.ok(xminAborted > 0, "tuples inserted by aborted transactions");
  assert.ok(hotUpdated > 0 && heapOnly > 0, `HOT chains (${hotUpdated} hot-updated, ${heapOnly} heap-only)`);
  assert.ok(redirects > 0, "redirect line pointers from pruned HOT chains");
  // Nothing has scanned the table yet, so the table-level view must agree.
  const dead = num("SELECT dead_tuple_count FROM pgstattuple('public.accounts')");
  assert.ok(dead > 0, `pgstattuple dead_tuple_count ${dead}`);
});

test("toast_docs values take 1, 2-100, 101-1000 and over 1000 chunks, as their tier says", () => {
  const ptrs = rawAttrs(b.srv, D, "public.toast_docs", 4);
  const chunks = toastChunks(b.srv, D, "public.toast_docs");
  const rows = q("SELECT ctid, id, tier, expected_chunks, octet_length(body) FROM public.toast_docs ORDER BY id");
  const seen = new Map<string, number[]>();
  for (const [ctid, id, tier, expected, len] of rows) {
    const raw = ptrs.get(ctid as string);
    assert.ok(raw, `row ${id} has a live tuple`);
    const s = classify(raw);
    assert.equal(s.kind, "external", `row ${id} is stored out of line`);
    if (s.kind !== "external") continue;
    assert.equal(s.compressed, false, `row ${id} is not compressed (STORAGE EXTERNAL)`);
    assert.equal(s.extsize, Number(len));
    const c = chunks.get(s.valueid);
    assert.ok(c, `chunks of value ${s.valueid}`);
    assert.equal(c.n, Number(expected), `row ${id}: chunk count`);
    assert.equal(c.n, Math.ceil(Number(len) / 1996));
    assert.ok(c.maxLen <= 1996 && (c.n === 1 || c.maxLen === 1996), `row ${id}: chunk sizes`);
    const list = seen.get(tier as string) ?? [];
    list.push(c.n);
    seen.set(tier as string, list);
  }
  const inRange = (tier: string, lo: number, hi: number) => {
    const l = seen.get(tier) ?? [];
    assert.ok(l.length > 0, `some ${tier} values`);
    for (const n of l) assert.ok(n >= lo && n <= hi, `${tier}: ${n} chunks`);
  };
  inRange("single", 1, 1);
  inRange("multi", 2, 100);
  inRange("over100", 101, 1000);
  inRange("over1000", 1001, Infinity);
  // The exact boundaries are there.
  const all = [...seen.values()].flat();
  for (const n of [1, 2, 100, 101, 1001, 2500, 2501]) assert.ok(all.includes(n), `a value of exactly ${n} chunks`);
});

test("pglz and lz4 values exist compressed inline, compressed external, and incompressible", () => {
  const rows = q(`SELECT ctid, label, algo, intent, pg_column_compression(coalesce(body_pglz, body_lz4)),
                         pg_column_size(coalesce(body_pglz, body_lz4)), octet_length(coalesce(body_pglz, body_lz4))
                    FROM public.compressed_docs ORDER BY id`);
  const pglz = rawAttrs(b.srv, D, "public.compressed_docs", 5);
  const lz4 = rawAttrs(b.srv, D, "public.compressed_docs", 6);
  const chunks = toastChunks(b.srv, D, "public.compressed_docs");
  const found = new Set<string>();
  for (const [ctid, label, algo, intent, method, stored, len] of rows) {
    const raw = (algo === "pglz" ? pglz : lz4).get(ctid as string);
    assert.ok(raw, `${label}: raw value`);
    const s = classify(raw);
    if (intent === "inline") {
      assert.equal(s.kind, "inline-compressed", `${label}`);
      assert.equal(method, algo);
      assert.ok(Number(stored) < Number(len), `${label}: ${stored} < ${len}`);
    } else if (intent === "incompressible") {
      assert.ok(s.kind === "external" && !s.compressed, `${label}: external, uncompressed`);
      assert.equal(method, null);
    } else {
      assert.ok(s.kind === "external" && s.compressed, `${label}: external, compressed`);
      if (s.kind !== "external") continue;
      assert.equal(s.method, algo === "pglz" ? 0 : 1, `${label}: compression method in va_extinfo`);
      assert.equal(method, algo);
      assert.ok(Number(stored) < Number(len));
      const n = chunks.get(s.valueid)?.n ?? 0;
      assert.equal(n, Math.ceil(s.extsize / 1996), `${label}: chunks`);
      if (intent === "external-big") assert.ok(n > 100, `${label}: ${n} chunks`);
    }
    found.add(`${algo}/${intent}`);
  }
  for (const algo of ["pglz", "lz4"]) {
    for (const intent of ["inline", "external", "external-big", "incompressible"]) assert.ok(found.has(`${algo}/${intent}`), `${algo}/${intent}`);
  }
});

test("status index has posting lists; the promised B-tree key shapes exist", () => {
  const postings = num(`SELECT count(*) FROM generate_series(1, pg_relation_size('public.web_links_status_idx') / 8192 - 1) b,
                               bt_page_items('public.web_links_status_idx', b::int) WHERE tids IS NOT NULL`);
  assert.ok(postings > 0, `${postings} posting list tuples`);
  const defs = new Map(q("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'web_links'").map(([n, d]) => [n as string, d as string]));
  assert.match(defs.get("web_links_tenant_idx")!, /\(tenant_id, region, status, name\)/);
  assert.match(defs.get("web_links_score_desc_idx")!, /score DESC NULLS LAST/);
  assert.match(defs.get("web_links_created_incl_idx")!, /INCLUDE \(status, score\)/);
  assert.match(defs.get("web_links_doc_status_idx")!, /\(\(doc ->> 'status'::text\)\)/);
  assert.match(defs.get("web_links_errors_idx")!, /WHERE/);
  assert.ok(num("SELECT count(*) FROM public.web_links WHERE score IS NULL") > 0, "NULL keys");
  assert.ok(num("SELECT count(*) FROM public.web_links WHERE url LIKE 'https://www.example-commerce-platform.com/catalog/electronics/computers/%'") > 1, "shared URL prefixes");
  // The URL index is deep enough to have internal pages.
  assert.ok(num("SELECT level FROM bt_metap('public.web_links_url_idx')") >= 1);
});

test("archive.places has hash, gist, gin, spgist and brin indexes, and a GIN pending list", () => {
  const ams = q(`SELECT DISTINCT am.amname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam
                  WHERE x.indrelid = 'archive.places'::regclass`).map(([a]) => a);
  for (const am of ["btree", "hash", "gist", "gin", "spgist", "brin"]) assert.ok(ams.includes(am), am);
  assert.ok(num("SELECT n_pending_tuples FROM gin_metapage_info(get_raw_page('archive.places_tags_gin_idx', 0))") > 0);
});

test("a 1536-dimensional real[] embedding", () => {
  const [[dims, ndims, type]] = q("SELECT array_length(embedding, 1), array_ndims(embedding), pg_typeof(embedding) FROM public.embeddings WHERE embedding IS NOT NULL LIMIT 1");
  assert.equal(Number(dims), EMBEDDING_DIM);
  assert.equal(Number(ndims), 1);
  assert.equal(type, "real[]");
});

test("archive.evolving has a dropped column and fast-default columns", () => {
  const atts = q(`SELECT attnum, attisdropped, atthasmissing, attmissingval::text FROM pg_attribute
                   WHERE attrelid = 'archive.evolving'::regclass AND attnum > 0 ORDER BY attnum`);
  assert.ok(atts.some(([, dropped]) => dropped === "t"), "a dropped column");
  assert.deepEqual(atts.filter(([, , miss]) => miss === "t").map(([, , , v]) => v), ["{42}", "{fresh}", '{"2021-06-01 12:00:00+00"}']);
  // Old rows read their added columns from attmissingval.
  assert.equal(num("SELECT count(*) FROM archive.evolving WHERE added_int = 42 AND added_txt = 'fresh' AND id <= (SELECT max(id) / 2 FROM archive.evolving)"), num("SELECT max(id) / 2 FROM archive.evolving"));
});

test("all_types covers the promised types, each with NULLs and values", () => {
  const types = q(`SELECT format_type(atttypid, atttypmod) FROM pg_attribute
                    WHERE attrelid = 'public.all_types'::regclass AND attnum > 0 AND NOT attisdropped`).map(([t]) => t as string);
  for (const t of ["boolean", "smallint", "integer", "bigint", "oid", "real", "double precision", "numeric", "text", "character varying(40)",
    "character(8)", "name", '"char"', "bytea", "date", "time without time zone", "time with time zone", "timestamp without time zone",
    "timestamp with time zone", "interval", "uuid", "json", "jsonb", "inet", "cidr", "integer[]", "text[]", "double precision[]"]) {
    assert.ok(types.includes(t), `type ${t}`);
  }
  const cols = q(`SELECT attname FROM pg_attribute WHERE attrelid = 'public.all_types'::regclass AND attnum > 1 AND NOT attisdropped`).map(([c]) => c as string);
  const [counts] = q(`SELECT ${cols.map((c) => `count(*) FILTER (WHERE ${c} IS NULL), count(${c})`).join(", ")} FROM public.all_types`);
  cols.forEach((c, i) => {
    assert.ok(Number(counts[2 * i]) > 0, `${c} has NULLs`);
    assert.ok(Number(counts[2 * i + 1]) > 0, `${c} has values`);
  });
  assert.ok(num("SELECT count(*) FROM public.all_types WHERE array_ndims(c_int4_2d) = 2 AND c_int4_2d::text LIKE '%NULL%'") > 0, "2-D arrays with NULL elements");
  assert.ok(num("SELECT count(*) FROM public.all_types WHERE c_text_arr::text LIKE '%NULL%'") > 0, "text arrays with NULL elements");
});

test("databases, schemas and row counts match SampleInfo", () => {
  const dbs = b.srv.rows("SELECT datname FROM pg_database ORDER BY 1").map(([d]) => d);
  for (const d of b.info.databases) assert.ok(dbs.includes(d), d);
  const schemas = q("SELECT nspname FROM pg_namespace").map(([n]) => n);
  for (const s of b.info.schemas) assert.ok(schemas.includes(s), s);
  assert.ok(b.info.tables.some((t) => t.schema === "public") && b.info.tables.some((t) => t.schema === "archive"));
  for (const t of b.info.tables) {
    const [[n]] = b.srv.rows(`SELECT count(*) FROM ${t.schema}.${t.name}`, t.database);
    assert.equal(Number(n), t.rows, `${t.database}.${t.schema}.${t.name}`);
  }
});
