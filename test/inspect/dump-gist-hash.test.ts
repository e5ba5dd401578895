// GiST and hash index items in the dump, against pageinspect on the same pages: every item's
// ctid, size and dead flag, and its keys as gist_page_items prints them (leaf pages with INCLUDE
// columns, internal pages with the key columns only) or its hash code as hash_page_items does,
// on real PostgreSQL 15 and 18 clusters; the text dump shows each item's header and keys.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { PgServer } from "../../samples/pg-server.js";
import { dumpIndexJson, dumpRelationText } from "./index-dumps.js";
import type { DumpItem, DumpPage, DumpValue } from "../../inspect/dump/model.js";


const SETUP = `
  CREATE TABLE shapes (id int, b box, p point, r int4range, t tsrange, c circle, label text, n int, ip inet, doc tsvector);
  INSERT INTO shapes SELECT i,
    CASE WHEN i % 19 = 0 THEN NULL ELSE box(point(i % 97, i % 89), point(i % 97 + i % 7, i % 89 - i % 5)) END,
    point(i * 0.37, -i * 1.5e-3),
    CASE WHEN i % 23 = 0 THEN 'empty'::int4range WHEN i % 29 = 0 THEN NULL ELSE int4range(i % 500, i % 500 + i % 40, '[]') END,
    tsrange('2020-01-01'::timestamp + i * interval '37 minutes', CASE WHEN i % 31 = 0 THEN NULL ELSE '2020-01-01'::timestamp + i * interval '41 minutes' END),
    circle(point(i % 61, i % 67), 1 + i % 9),
    CASE WHEN i % 13 = 0 THEN NULL WHEN i % 5 = 0 THEN '' ELSE 'label "' || i || '", (x)\\\\y ' || repeat('z', i % 30) END,
    i % 1000,
    CASE WHEN i % 3 = 0 THEN ('10.' || i % 256 || '.' || i % 7 || '.0/' || (16 + i % 17))::inet ELSE ('2001:db8:' || to_hex(i) || '::1')::inet END,
    to_tsvector('simple', 'word' || i % 100 || ' other' || i % 37 || ' third')
  FROM generate_series(1, 6000) i;
  CREATE INDEX shapes_b ON shapes USING gist (b);
  CREATE INDEX shapes_p ON shapes USING gist (p);
  CREATE INDEX shapes_r_inc ON shapes USING gist (r) INCLUDE (label, id);
  CREATE INDEX shapes_bt ON shapes USING gist (b, t);
  CREATE INDEX shapes_c ON shapes USING gist (c);
  CREATE INDEX shapes_doc ON shapes USING gist (doc);
  CREATE INDEX shapes_ip ON shapes USING gist (ip inet_ops);
  CREATE INDEX shapes_n_hash ON shapes USING hash (n);
  CREATE INDEX shapes_label_hash ON shapes USING hash (label);
  DELETE FROM shapes WHERE id % 11 = 0;
  SET enable_seqscan = off; SET enable_bitmapscan = off;
  SELECT count(*) FROM shapes WHERE b && box '((0,0),(50,50))';
  SELECT count(*) FROM shapes WHERE n = 7;
  CHECKPOINT;`;
// pg_trgm in a database whose LC_CTYPE makes non-ASCII letters word characters, so that
// multi-byte trigrams (stored as a 3-byte hash) occur
const WORDS_DB = "words";
const WORDS_SETUP = `
  CREATE EXTENSION pg_trgm;
  CREATE TABLE words (id int, w text);
  INSERT INTO words SELECT i, CASE WHEN i % 17 = 0 THEN NULL WHEN i % 5 = 0 THEN 'ünï ☃ ' || i ELSE 'word' || i % 300 || ' "q" \\\\b{' || repeat('x', i % 4) END
    FROM generate_series(1, 5000) i;
  CREATE INDEX words_trgm ON words USING gist (w gist_trgm_ops);
  CHECKPOINT;`;
const GIST = ["shapes_b", "shapes_p", "shapes_r_inc", "shapes_bt", "shapes_c", "shapes_doc"];
const HASH = ["shapes_n_hash", "shapes_label_hash"];

/** pageinspect's quoting of one key value (record_out's rule, gistfuncs.c). */
function quoteKey(v: DumpValue): string {
  if (v.isnull) return "null";
  const s = v.value!;
  if (s !== "" && !/["\\(),\s]/.test(s)) return s;
  return `"${s.replace(/["\\]/g, "$&$&")}"`;
}

/** The values part of gist_page_items' keys, "(cols)=(values)", from pgdisk's keys. */
function keyValues(keys: DumpValue[], nkey: number): string {
  const k = keys.slice(0, nkey).map(quoteKey).join(", ");
  return keys.length > nkey ? `${k}) INCLUDE (${keys.slice(nkey).map(quoteKey).join(", ")}` : k;
}


for (const version of [15, 18]) {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer;
    const dumps = new Map<string, DumpPage[]>();
    let text = "";
    before(async () => {
      srv = await PgServer.create(version === 15 ? {} : { version });
      srv.sql(SETUP);
      srv.sql(`CREATE DATABASE ${WORDS_DB} TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`);
      srv.sql(WORDS_SETUP, WORDS_DB);
      srv.stop();
      for (const ix of [...GIST, ...HASH, "shapes_ip"]) dumps.set(ix, dumpIndexJson(srv.pgdata, ix));
      dumps.set("words_trgm", dumpIndexJson(srv.pgdata, "words_trgm", WORDS_DB));
      text = dumpRelationText(srv.pgdata, "shapes_r_inc", ["--blocks", "0:3"]);
      srv.start();
      srv.sql("CREATE EXTENSION pageinspect");
    });
    after(() => srv?.destroy());

    test("GiST items equal gist_page_items: ctid, size, dead and keys, leaf and internal", () => {
      let compared = 0;
      let internal = 0;
      for (const ix of GIST) {
        const nkey = Number(srv.sql(`SELECT indnkeyatts FROM pg_index WHERE indexrelid = '${ix}'::regclass`).trim());
        const pages = dumps.get(ix)!;
        for (const p of pages) {
          if (p.am !== "gist" || (p.kind !== "leaf" && p.kind !== "internal")) continue;
          const rows = srv.rows(`SELECT itemoffset, ctid, itemlen, dead, keys FROM gist_page_items(get_raw_page('${ix}', ${p.block}), '${ix}'::regclass) ORDER BY 1`);
          const items = p.items.filter((it: DumpItem) => it.lp_len > 0);
          assert.equal(items.length, rows.length, `${ix} block ${p.block}: items`);
          items.forEach((it, k) => {
            const [off, ctid, len, dead, keys] = rows[k]!;
            assert.ok(it.index, `${ix} block ${p.block} item ${it.lp} decoded`);
            const ours = [String(it.lp), it.index.ctid, String(it.index.size), it.lp_flags === 3 ? "t" : "f", keyValues(it.index.keys!, nkey)];
            assert.deepEqual(ours, [off, ctid, len, dead, keys!.slice(keys!.indexOf(")=(") + 3, -1)], `${ix} block ${p.block} item ${it.lp}`);
            compared++;
          });
          if (p.kind === "internal") internal++;
        }
      }
      assert.ok(compared > 5000 && internal >= GIST.length, `${compared} items, ${internal} internal pages`);
    });

    test("hash items equal hash_page_items: ctid and hash code, bucket and overflow pages", () => {
      let compared = 0;
      const kinds = new Set<string>();
      for (const ix of HASH) {
        for (const p of dumps.get(ix)!) {
          if (p.kind !== "bucket" && p.kind !== "overflow") continue;
          kinds.add(p.kind);
          const rows = srv.rows(`SELECT itemoffset, ctid, data FROM hash_page_items(get_raw_page('${ix}', ${p.block})) ORDER BY 1`);
          const items = p.items.filter((it) => it.lp_len > 0);
          assert.equal(items.length, rows.length, `${ix} block ${p.block}: items`);
          items.forEach((it, k) => {
            const code = it.index!.keys![0]!;
            assert.equal(code.type, "int4");
            assert.deepEqual([String(it.lp), it.index!.ctid, String(Number(code.value) >>> 0)], rows[k], `${ix} block ${p.block} item ${it.lp}`);
            compared++;
          });
        }
      }
      assert.ok(compared > 5000, `${compared} items`);
      assert.deepEqual([...kinds].sort(), ["bucket", "overflow"]);
    });

    test("a GiST inet_ops key is read as the GistInetKey it is; headers equal gist_page_items", () => {
      let keys = 0;
      for (const p of dumps.get("shapes_ip")!) {
        if (p.kind !== "leaf" && p.kind !== "internal") continue;
        assert.deepEqual(p.findings, [], `block ${p.block}`);
        const rows = srv.rows(`SELECT ctid, itemlen FROM gist_page_items(get_raw_page('shapes_ip', ${p.block}), 'shapes_ip'::regclass) ORDER BY itemoffset`);
        assert.deepEqual(p.items.map((it) => [it.index!.ctid, String(it.index!.size)]), rows);
        for (const it of p.items) {
          const v = it.index!.keys![0]!.value!;
          assert.match(v, /^\{family [23], minbits \d+, commonbits \d+, ipaddr [0-9a-f.:]+\}$/);
          if (p.kind === "leaf" && v.startsWith("{family 2")) assert.match(v, /minbits (1[6-9]|2\d|3[0-2]), commonbits 32, ipaddr 10\.\d+\.\d\.0\}/);
          keys++;
        }
      }
      assert.ok(keys > 3000, `${keys} keys`);
    });

    test("a pg_trgm key prints a leaf's trigrams as show_trgm prints its value's, an internal one's bits", () => {
      const want = new Map(srv.rows("SELECT ctid, show_trgm(w) FROM words WHERE w IS NOT NULL", WORDS_DB).map(([c, t]) => [c!, t!]));
      let leaves = 0;
      let signatures = 0;
      for (const p of dumps.get("words_trgm")!) {
        if (p.kind !== "leaf" && p.kind !== "internal") continue;
        assert.deepEqual(p.findings, [], `block ${p.block}`);
        for (const it of p.items) {
          const key = it.index!.keys![0]!;
          if (key.isnull) continue; // a subtree of NULL keys only
          if (p.kind === "internal") {
            assert.match(key.value!, /^(\d+ true bits, \d+ false bits|all true bits)$/, `block ${p.block} item ${it.lp}`);
            signatures++;
          } else {
            assert.equal(key.value, want.get(it.index!.ctid), `block ${p.block} item ${it.lp} (${it.index!.ctid})`);
            leaves++;
          }
        }
      }
      assert.ok(leaves === want.size && signatures > 0, `${leaves} leaf keys of ${want.size} rows, ${signatures} signatures`);
      assert.ok([...want.values()].some((t) => t.includes("0x")), "multi-byte trigrams printed as codes");
    });

    test("the text dump shows each GiST item's header and keys, INCLUDE columns on leaves", () => {
      assert.match(text, /lp +1 +NORMAL +off +\d+ +len +\d+ +ctid \(\d+,\d+\) +size \d+/);
      assert.match(text, /\n {8}r int4range = '(empty|[[(]\d+,\d+[\])])'/);
      assert.match(text, /\n {8}label text = 'label "\d+", \(x\)/);
    });
  });
}
