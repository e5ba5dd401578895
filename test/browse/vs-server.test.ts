// The browser's links against a real PostgreSQL 15 on a copy of the tiny sample: the TOAST
// chunks a pointer leads to (chunk_seq and ctid), the value they make (md5 of its text), and
// the heap TIDs an index search finds (ctid of the rows SELECT finds with the same predicate).
// The engine reads the copy first; the server is started on it afterwards.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { tinySampleCopy } from "../fixtures/sample.js";
import { PgServer } from "../../samples/pg-server.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { toastChunks, toastValue } from "../../inspect/browse/toast.js";
import { searchIndex } from "../../inspect/browse/search.js";
import { tidText } from "../../formats/page/item-pointer.js";
import type { RelRef } from "../../inspect/browse/navigation.js";

const DB = "pgdisk_sample";
let root = "";
let srv: PgServer | undefined;

interface ToastCase {
  table: string;
  column: string;
  id: string;
  toastTable: string;
  valueid: number;
  chunks: string[];
  md5: string;
}
interface SearchCase {
  index: string;
  table: string;
  predicate: string;
  method: string;
  tids: string[];
  /** each index entry's heap TID followed along its HOT chain to the live version (null: none) */
  live: (string | null)[];
}
const toastCases: ToastCase[] = [];
const searchCases: SearchCase[] = [];

const md5 = (s: string): string => createHash("md5").update(s, "utf8").digest("hex");
const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

before(async () => {
  const copy = await tinySampleCopy();
  root = copy.root;
  const session = new BrowseSession({ pgdata: copy.pgdata, database: DB });
  const db = session.startDb!;
  try {
    for (const [table, key] of [["toast_docs", "id"], ["compressed_docs", "id"], ["embeddings", "id"]]) {
      const t = session.findRelation(db, table);
      const h = session.relation(t);
      for (let b = 0; b < h.nblocks; b++) {
        const d = session.page(t, b);
        for (const it of d.items) {
          for (const v of it.heap?.values ?? []) {
            if (!v.toast || v.toast.tag !== "ondisk") continue;
            const list = toastChunks(session, t, b, it.lp, v.attnum);
            const val = toastValue(session, t, b, it.lp, v.attnum);
            toastCases.push({
              table,
              column: v.name,
              id: it.heap!.values!.find((x) => x.name === key)!.value!,
              toastTable: list.toastRel.label,
              valueid: v.toast.valueid!,
              chunks: list.chunks.map((c) => `${c.seq} ${tidText(c.tid)}`),
              md5: md5(val.text),
            });
          }
        }
      }
    }
    const keysOf = (ref: RelRef, max: number): string[] => {
      const h = session.relation(ref);
      const out = new Set<string>();
      for (let b = 1; b < h.nblocks && out.size < max; b += 3) {
        const d = session.page(ref, b);
        if (d.kind !== "leaf") continue;
        const k = d.items.find((i) => i.btree && i.btree.kind !== "highkey")?.btree?.keys?.[0];
        if (k && !k.isnull && k.value !== undefined) out.add(k.value);
      }
      return [...out];
    };
    for (const [index, table, column] of [
      ["web_links_pkey", "web_links", "id"],
      ["web_links_url_idx", "web_links", "url"],
      ["web_links_status_idx", "web_links", "status"],
      ["web_links_score_desc_idx", "web_links", "score"],
      ["web_links_path_idx", "web_links", "path"],
      // timestamptz: the key is encoded by formats/datum input and compared with formats/order
      ["web_links_created_incl_idx", "web_links", "created_at"],
      ["accounts_pkey", "accounts", "id"],
      ["accounts_email_idx", "accounts", "email"],
    ]) {
      const ref = session.findRelation(db, index);
      const tref = session.findRelation(db, table);
      for (const key of keysOf(ref, 4)) {
        const r = searchIndex(session, ref, key);
        assert.equal(r.truncated, false);
        const tids = r.matches.flatMap((m) => m.htids.map(tidText));
        // An index entry points at the root of a HOT chain: a redirect, or a HOT-updated
        // version whose t_ctid leads (on the same page) to the next one.
        const live = tids.map((t) => {
          let [b, o] = t.slice(1, -1).split(",").map(Number);
          for (let hops = 0; hops < 300; hops++) {
            const it = session.page(tref, b).items.find((i) => i.lp === o);
            if (!it) return null;
            if (it.flag === "REDIRECT") {
              o = it.lp_off;
              continue;
            }
            if (!it.heap) return null;
            if (it.heap.state === "live") return tidText({ block: b, offset: o });
            if (!it.heap.flags.includes("HEAP_HOT_UPDATED")) return null;
            [b, o] = it.heap.t_ctid.slice(1, -1).split(",").map(Number);
          }
          return null;
        });
        searchCases.push({ index, table, predicate: `${column} = ${q(key)}`, method: r.method, tids, live });
      }
    }
  } finally {
    session.close();
  }
  srv = PgServer.attach(root);
  srv.start();
});

after(() => {
  srv?.destroy();
});

test("TOAST chunks of every external value: the chunk_seq and ctid rows of the TOAST table", () => {
  assert.ok(toastCases.length >= 40, `${toastCases.length} TOAST values`);
  for (const c of toastCases) {
    const rows = srv!.rows(`SELECT chunk_seq, ctid FROM ${c.toastTable} WHERE chunk_id = ${c.valueid} ORDER BY chunk_seq`, DB);
    assert.deepEqual(c.chunks, rows.map(([s, t]) => `${s} ${t}`), `${c.table}.${c.column} id ${c.id}`);
  }
});

test("detoasted values: the md5 of SELECT's text", () => {
  for (const c of toastCases) {
    const [[want]] = srv!.rows(`SELECT md5(${c.column}::text) FROM ${c.table} WHERE id = ${c.id}`, DB);
    assert.equal(c.md5, want, `${c.table}.${c.column} id ${c.id}`);
  }
});

test("index search: the heap TIDs of the rows SELECT finds (HOT chains followed, dead versions left out)", () => {
  assert.ok(searchCases.length >= 20, `${searchCases.length} searches`);
  assert.ok(searchCases.every((c) => c.method === "descent"), "every sample index is searched by descent");
  for (const c of searchCases) {
    const rows = srv!.rows(`SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT ctid FROM ${c.table} WHERE ${c.predicate} ORDER BY ctid`, DB).map(([t]) => t!);
    const live = c.live.filter((t): t is string => t !== null);
    assert.deepEqual(live.sort(), rows.sort(), `${c.index}: ${c.predicate}`);
  }
  assert.ok(searchCases.some((c) => c.tids.length > 50), "a key with a posting list");
  assert.ok(searchCases.some((c) => c.live.some((t, i) => t !== null && t !== c.tids[i])), "an entry reaching its row through a HOT chain");
  assert.ok(searchCases.some((c) => c.live.includes(null)), "an entry of a dead row version");
});
