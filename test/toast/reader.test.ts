// The TOAST reader on a real PostgreSQL 15 sample (stock TOAST): every external value of the
// TOAST-heavy tables read through a descent of the real TOAST index and through the heap-scan
// fallback equals what the server returns; the descent finds the chunks the server's TOAST table
// holds for each value, and the pages counted are the pages those chunks are on; slices equal
// the server's substr(); a damaged index is noticed and read around.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { rmSync, writeFileSync, readFileSync } from "node:fs";
import { PgServer } from "../../samples/pg-server.js";
import { tinySampleCopy } from "../fixtures/sample.js";
import { Cluster, type DatabaseCatalog } from "../../formats/catalog/cluster.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import { datumToText } from "../../formats/datum/index.js";
import { emptyStats, PageCache, Touch } from "../../formats/toast/pages.js";
import { ToastIndexScanner } from "../../formats/toast/toast-index.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { rng } from "../compression/corpus.js";
import { pointersOf, toastReaderOf } from "./cluster-helpers.js";

const DB = "pgdisk_sample";
const COLUMNS: [string, string][] = [
  ["toast_docs", "body"],
  ["compressed_docs", "body_pglz"],
  ["compressed_docs", "body_lz4"],
  ["embeddings", "embedding"],
];
const md5 = (b: Uint8Array | string): string => createHash("md5").update(b).digest("hex");

let root = "";
let cat: DatabaseCatalog;
/** table/column/ctid -> md5 of the value's text */
const want = new Map<string, string>();
/** toast relation name/chunk_id -> chunk ctids in chunk_seq order */
const chunkTids = new Map<string, string[]>();
/** toast_docs ctid -> [a, b, substr] */
const substrs: [string, number, number, string][] = [];

before(async () => {
  const copy = await tinySampleCopy();
  root = copy.root;
  const srv = PgServer.attach(root);
  srv.start();
  try {
    for (const [t, c] of COLUMNS) {
      for (const [ctid, h] of srv.rows(`SELECT ctid::text, md5(${c}::text) FROM public.${t} WHERE ${c} IS NOT NULL`, DB)) want.set(`${t}/${c}/${ctid}`, h!);
    }
    for (const t of ["toast_docs", "compressed_docs", "embeddings"]) {
      const toast = srv.rows(`SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'public.${t}'::regclass`, DB)[0][0]!;
      for (const [id, tids] of srv.rows(`SELECT chunk_id, string_agg(ctid::text, ' ' ORDER BY chunk_seq) FROM ${toast} GROUP BY chunk_id`, DB)) chunkTids.set(`${toast}/${id}`, tids!.split(" "));
    }
    const r = rng(11);
    for (const [ctid, len] of srv.rows("SELECT ctid::text, length(body) FROM public.toast_docs", DB)) {
      for (let k = 0; k < 3; k++) {
        const a = Math.floor(r() * Number(len));
        const b = Math.min(Number(len), a + 1 + Math.floor(r() * 9000));
        substrs.push([ctid!, a, b, srv.rows(`SELECT substr(body, ${a + 1}, ${b - a}) FROM public.toast_docs WHERE ctid = '${ctid}'`, DB)[0][0]!]);
      }
    }
  } finally {
    srv.stop();
  }
  cat = new Cluster(copy.pgdata).database(DB);
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const textOf = (raw: Uint8Array, table: string): string => {
  if (table !== "embeddings") return Buffer.from(raw).toString("utf8");
  const { types } = typeLookupFor(cat);
  return datumToText(raw, 1021, -1, types);
};

test("every external value read through the TOAST index equals SELECT, and so does the heap-scan fallback", () => {
  let compared = 0;
  for (const [t, c] of COLUMNS) {
    const rel = cat.findRelation(t);
    const attnum = cat.descriptor(rel.oid).attrs.find((a) => a.name === c)!.attnum;
    const viaIndex = toastReaderOf(cat, rel, true);
    const viaHeap = toastReaderOf(cat, rel, false);
    for (const p of pointersOf(cat, rel).filter((x) => x.attnum === attnum && x.live)) {
      const key = `${t}/${c}/(${p.block},${p.item})`;
      const st = emptyStats();
      const raw = viaIndex.fetch(p.pointer, st);
      assert.equal(md5(textOf(raw, t)), want.get(key), key);
      assert.deepEqual(st.via, ["index"]);
      assert.deepEqual(viaHeap.fetch(p.pointer), raw, `${key} via heap scan`);
      compared++;
    }
    viaIndex.close();
    viaHeap.close();
  }
  // every external value SELECT returned was compared (inline ones are not TOAST reads)
  assert.ok(compared >= 50, `${compared} external values`);
});

test("the descent finds the server's chunks in chunk_seq order; pages touched are the pages they are on", () => {
  let values = 0;
  for (const t of ["toast_docs", "compressed_docs", "embeddings"]) {
    const rel = cat.findRelation(t);
    const toast = cat.classes.get(rel.toastRelid)!;
    const ixRel = cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!;
    const scanner = new ToastIndexScanner(new PageCache(new RelationFork(cat.path(ixRel), cat.cluster.geometry)));
    const reader = toastReaderOf(cat, rel);
    for (const p of pointersOf(cat, rel)) {
      if (p.pointer.tag !== 18) continue;
      const server = chunkTids.get(`${toast.namespaceName}.${toast.name}/${p.pointer.va_valueid}`)!;
      const found = [...scanner.scan(p.pointer.va_valueid, 0, 0x7fffffff, new Touch(emptyStats()))].map((e) => `(${e.tid.block},${e.tid.offset})`);
      assert.deepEqual(found, server, `${t} value ${p.pointer.va_valueid}`);
      const st = emptyStats();
      reader.fetchStored(p.pointer, st);
      assert.equal(st.heapPages, new Set(server.map((s) => s.split(",")[0])).size, "distinct heap pages");
      assert.equal(st.chunksRead, server.length);
      assert.ok(st.indexPages >= 2, "metapage and a leaf at least");
      values++;
    }
    reader.close();
  }
  assert.ok(values >= 50);
});

test("slices equal the server's substr(); they read only the chunks they cover", () => {
  const rel = cat.findRelation("toast_docs");
  const reader = toastReaderOf(cat, rel);
  const byTid = new Map(pointersOf(cat, rel).map((p) => [`(${p.block},${p.item})`, p.pointer]));
  for (const [ctid, a, b, text] of substrs) {
    const st = emptyStats();
    const got = reader.fetchSlice(byTid.get(ctid)!, a, b, st);
    assert.equal(Buffer.from(got).toString("utf8"), text, `${ctid} [${a}, ${b})`);
    assert.equal(st.chunksRead, Math.floor((b - 1) / 1996) - Math.floor(a / 1996) + 1);
  }
  reader.close();
  assert.ok(substrs.length >= 50);
});

test("compressed values: slices and the iterator equal whole reads; a slice decompresses only a prefix", () => {
  const rel = cat.findRelation("compressed_docs");
  const reader = toastReaderOf(cat, rel);
  const r = rng(5);
  let big = 0;
  for (const p of pointersOf(cat, rel)) {
    const whole = reader.fetch(p.pointer);
    for (let k = 0; k < 5; k++) {
      const a = Math.floor(r() * whole.length);
      const b = Math.min(whole.length, a + 1 + Math.floor(r() * 5000));
      assert.deepEqual(reader.fetchSlice(p.pointer, a, b), whole.subarray(a, b));
    }
    assert.deepEqual(Buffer.concat([...reader.iterate(p.pointer)]), Buffer.from(whole));
    if (p.pointer.compressed && whole.length > 500_000) {
      const st = emptyStats();
      reader.fetchSlice(p.pointer, 0, 1000, st);
      assert.ok(st.chunksRead <= 3 && st.bytesDecompressed < 20_000, JSON.stringify(st));
      big++;
    }
  }
  reader.close();
  assert.ok(big >= 2, "the external-big values");
});

test("a damaged TOAST index is reported and read around through the heap", () => {
  const rel = cat.findRelation("toast_docs");
  const toast = cat.classes.get(rel.toastRelid)!;
  const ixRel = cat.classes.get(cat.toastIndexOf(toast.oid)!.indexOid)!;
  const path = cat.path(ixRel);
  const f = readFileSync(path);
  // a root page that claims to be a leaf of another level
  const meta = f.readUInt32LE(24 + 8);
  f.writeUInt32LE(7, meta * 8192 + 8192 - 16 + 8);
  writeFileSync(`${path}.damaged`, f);
  const reader = new ToastReader({ heap: new RelationFork(cat.path(toast), cat.cluster.geometry), index: new RelationFork(`${path}.damaged`, cat.cluster.geometry), clog: cat.cluster.clog, toastRelid: toast.oid });
  const good = toastReaderOf(cat, rel);
  for (const p of pointersOf(cat, rel)) assert.deepEqual(reader.fetch(p.pointer), good.fetch(p.pointer));
  assert.match(reader.indexProblem?.code ?? "", /^TOAST_INDEX_/);
  reader.close();
  good.close();
});
