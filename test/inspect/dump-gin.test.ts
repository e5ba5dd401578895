// GIN pages in the dump, against the server on real PostgreSQL 15 and 18 clusters: every
// (column, key, heap TID) that the entry tree's posting lists, its posting trees and the
// pending list hold, together, is exactly what the table's rows give the opclass (array_ops:
// each element, NULL elements as null keys, empty and NULL arrays as their placeholder items);
// posting tree leaves equal gin_leafpage_items, the metapage gin_metapage_info.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PgServer } from "../../samples/pg-server.js";
import { indexDumpFixture } from "./index-dumps.js";
import type { DumpPage } from "../../inspect/dump/model.js";

const ROWS = 6000;
const ROW = (from: number, to: number): string => `
  INSERT INTO docs SELECT i,
    CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN '{}' WHEN i % 31 = 0 THEN ARRAY[NULL, 5] ELSE ARRAY[1, i % 50, 100 + i % 7, 1000 + i] END,
    CASE WHEN i % 83 = 0 THEN NULL ELSE ARRAY['common', 'w' || i % 200, 'x "y" ' || i % 3] END
  FROM generate_series(${from}, ${to}) i;`;
const SETUP = `
  CREATE EXTENSION pageinspect;
  CREATE TABLE docs (id int, tags int4[], words text[]);
  ${ROW(1, ROWS)}
  CREATE INDEX docs_tags ON docs USING gin (tags);
  CREATE INDEX docs_multi ON docs USING gin (tags, words);
  ${ROW(ROWS + 1, ROWS + 300)}
  CHECKPOINT;`;
const TEXT_REL = "docs_multi";
const INDEXES = ["docs_tags", "docs_multi"];

/** "column|key-or-category|tid" of every entry the dump shows, posting trees followed from their roots. */
function dumpedEntries(pages: DumpPage[]): { entries: string[]; kinds: Set<string> } {
  const byBlock = new Map(pages.map((p) => [p.block, p]));
  const treeTids = (root: number): string[] => {
    const p = byBlock.get(root)!;
    if (p.ginData!.segments) return p.ginData!.segments.flatMap((s) => s.tids);
    return p.ginData!.postingItems!.flatMap((pi) => treeTids(pi.child));
  };
  const entries: string[] = [];
  const kinds = new Set<string>();
  for (const p of pages) {
    if (p.kind !== "entry-leaf" && p.kind !== "pending-list") continue;
    for (const it of p.items) {
      const g = it.index!.gin!;
      const key = g.category === "key" ? it.index!.keys![0]!.value! : `<${g.category}>`;
      const tids = p.kind === "pending-list" ? [it.index!.ctid] : g.postingTree !== undefined ? treeTids(g.postingTree) : g.tids!;
      kinds.add(p.kind === "pending-list" ? "pending" : g.postingTree !== undefined ? "tree" : g.compressed ? "compressed" : "plain");
      for (const t of tids) entries.push(`${g.attnum}|${key}|${t}`);
    }
  }
  return { entries: entries.sort(), kinds };
}

for (const version of [15, 18]) {
  describe(`PostgreSQL ${version}`, () => {
    let srv: PgServer;
    let dumps: Map<string, DumpPage[]>;
    let text = "";
    before(async () => {
      ({ srv, dumps, text } = await indexDumpFixture(version, SETUP, INDEXES, TEXT_REL));
    });
    after(() => srv?.destroy());

    test("the entry tree, its posting trees and the pending list hold exactly the rows' keys and TIDs", () => {
      // array_ops' extractValue: each element (NULL ones as null keys), an empty array one empty
      // item, a NULL array one null item
      const col = (c: number, name: string): string =>
        `SELECT ${c} || '|' || CASE WHEN d.${name} IS NULL THEN '<null-item>' WHEN cardinality(d.${name}) = 0 THEN '<empty-item>' ELSE coalesce(e::text, '<null-key>') END || '|' || d.ctid::text
         FROM docs d LEFT JOIN LATERAL (SELECT DISTINCT e FROM unnest(d.${name}) e) u ON true`;
      const want = (sql: string): string[] => srv.rows(sql).map((r) => r[0]!).sort();
      for (const [ix, sql] of [["docs_tags", col(1, "tags")], ["docs_multi", `${col(1, "tags")} UNION ALL ${col(2, "words")}`]] as const) {
        const { entries, kinds } = dumpedEntries(dumps.get(ix)!);
        const expected = want(sql);
        assert.equal(entries.length, expected.length, `${ix}: entries`);
        assert.deepEqual(entries, expected, ix);
        assert.deepEqual([...kinds].sort(), ["compressed", "pending", "tree"], `${ix}: posting kinds`);
      }
    });

    test("posting tree leaves equal gin_leafpage_items; the metapage gin_metapage_info", () => {
      let segments = 0;
      for (const ix of INDEXES) {
        for (const p of dumps.get(ix)!) {
          if (p.kind === "meta") {
            const [head, tail, npend, nentries] = srv.rows(`SELECT pending_head, pending_tail, n_pending_tuples, n_entries FROM gin_metapage_info(get_raw_page('${ix}', 0))`)[0]!;
            assert.deepEqual([p.meta!.head, p.meta!.tail, p.meta!.nPendingHeapTuples, p.meta!.nEntries].map(String), [head, tail, npend, nentries], `${ix} metapage`);
          }
          if (p.kind !== "data-leaf") continue;
          const rows = srv.rows(`SELECT first_tid, nbytes, tids FROM gin_leafpage_items(get_raw_page('${ix}', ${p.block}))`);
          assert.deepEqual(p.ginData!.segments!.map((s) => [s.first_tid, String(s.nbytes), `{"${s.tids.join('","')}"}`]), rows, `${ix} block ${p.block}`);
          segments += rows.length;
        }
      }
      assert.ok(segments > 0, "posting tree leaves compared");
    });

    test("the text dump shows each entry's key, column and TIDs, and a posting tree's segments", () => {
      assert.match(text, /size \d+  \d+ tids \(compressed\)  \(\d+,\d+\)/);
      assert.match(text, /size \d+  column 2  \d+ tids \(compressed\)/);
      assert.match(text, /\n {8}words text = 'x "y" \d'/);
      assert.match(text, /posting tree \d+/);
      assert.match(text, /segment 1  first_tid \(\d+,\d+\)  nbytes \d+  \d+ tids/);
      assert.match(text, /null-item|empty-item/);
    });
  });
}
