// BRIN pages in the dump, against pageinspect on real PostgreSQL 15 and 18 clusters: every range
// summary of minmax, inclusion, bloom and minmax-multi opclasses (integers, text, timestamps, numeric, box, inet,
// ranges; all-null and has-null columns; several columns in one index) equals brin_page_items,
// every revmap page brin_revmap_data; the text dump shows them.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PgServer } from "../../samples/pg-server.js";
import { indexDumpFixture } from "./index-dumps.js";
import type { DumpPage } from "../../inspect/dump/model.js";

const SETUP = `
  CREATE EXTENSION pageinspect;
  CREATE TABLE r (n int, t text, ts timestamptz, x numeric, b box, ip inet, rg int4range, sparse int);
  INSERT INTO r SELECT i, 'v' || (i * 7919 % 5000), '2024-01-01'::timestamptz + i * interval '17 minutes', (i * 1.5)::numeric,
    box(point(i % 100, i % 37), point(i % 100 + 3, i % 37 + 2)),
    ('10.' || i % 200 || '.' || i % 7 || '.1')::inet, int4range(i, i + i % 20),
    CASE WHEN i > 2000 AND i < 4000 THEN NULL WHEN i % 11 = 0 THEN NULL ELSE i END
  FROM generate_series(1, 8000) i;
  CREATE INDEX r_minmax ON r USING brin (n, t, ts, x, sparse) WITH (pages_per_range = 2);
  CREATE INDEX r_incl ON r USING brin (b, ip inet_inclusion_ops, rg) WITH (pages_per_range = 4);
  CREATE INDEX r_bloom ON r USING brin (n int4_bloom_ops, t text_bloom_ops) WITH (pages_per_range = 4);
  CREATE INDEX r_multi ON r USING brin (n int4_minmax_multi_ops, ts timestamptz_minmax_multi_ops, x numeric_minmax_multi_ops, t text_minmax_ops) WITH (pages_per_range = 8);
  CHECKPOINT;`;
const TEXT_REL = "r_minmax";
const INDEXES = ["r_minmax", "r_incl", "r_bloom", "r_multi"];

for (const version of [15, 18]) {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer;
    let dumps: Map<string, DumpPage[]>;
    let text = "";
    before(async () => {
      ({ srv, dumps, text } = await indexDumpFixture(version, SETUP, INDEXES, TEXT_REL));
    });
    after(() => srv?.destroy());

    test("range summaries equal brin_page_items: block, null bits, placeholder and stored values", () => {
      let rows = 0;
      const seen = new Set<string>();
      for (const ix of INDEXES) {
        for (const p of dumps.get(ix)!) {
          if (p.kind !== "regular") continue;
          assert.deepEqual(p.findings, [], `${ix} block ${p.block}`);
          const want = srv.rows(`SELECT itemoffset, blknum, attnum, allnulls, hasnulls, placeholder, value FROM brin_page_items(get_raw_page('${ix}', ${p.block}), '${ix}'::regclass) ORDER BY 1, 3`);
          const got = p.items.filter((it) => it.brin).flatMap((it) => it.brin!.columns.map((c) => [String(it.lp), String(it.brin!.blknum), String(c.attnum), c.allnulls ? "t" : "f", c.hasnulls ? "t" : "f", it.brin!.placeholder ? "t" : "f", c.value]));
          const bad = got.findIndex((g, k) => JSON.stringify(g) !== JSON.stringify(want[k]));
          assert.deepEqual(got, want, `${ix} block ${p.block}: first difference at row ${bad}: pgdisk ${JSON.stringify(got[bad])}, server ${JSON.stringify(want[bad])}`);
          rows += want.length;
          for (const it of p.items) for (const c of it.brin?.columns ?? []) seen.add(c.allnulls ? "allnulls" : c.hasnulls ? "hasnulls" : "values");
        }
      }
      assert.ok(rows > 300, `${rows} summary columns compared`);
      assert.deepEqual([...seen].sort(), ["allnulls", "hasnulls", "values"]);
    });

    test("revmap pages equal brin_revmap_data up to the last summarised range", () => {
      let pages = 0;
      for (const ix of INDEXES) {
        for (const p of dumps.get(ix)!) {
          if (p.kind !== "revmap") continue;
          const all = srv.rows(`SELECT pages FROM brin_revmap_data(get_raw_page('${ix}', ${p.block}))`).map((r) => r[0]!);
          let last = all.length - 1;
          while (last >= 0 && all[last] === "(0,0)") last--;
          assert.deepEqual(p.revmap, all.slice(0, last + 1), `${ix} block ${p.block}`);
          assert.ok(p.revmap!.length > 0);
          pages++;
        }
      }
      assert.equal(pages, INDEXES.length);
    });

    test("the text dump shows each summary's block and columns", () => {
      assert.match(text, /blknum \d+\n {8}column 1  \{\d+ \.\. \d+\}\n {8}column 2  \{v\d+ \.\. v\d+\}/);
      assert.match(text, /column 5  allnulls/);
      assert.match(text, /revmap  \d+ entries  \(\d+,\d+\)/);
    });
  });
}
