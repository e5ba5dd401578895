// Damaged tuples in the COPY unload (which walks attributes with AttrSpans and falls back to the
// checked walk): each damaged tuple gives the finding the checked walk of the other formats
// gives, word for word, at the same location; the intact rows equal a real PostgreSQL 15 server's
// COPY TO; a value that cannot be read prints NULL. Damage: a wrong t_hoff, a short varlena
// running past the tuple, a compressed varlena shorter than its 8-byte header (which the span
// walk alone lets through), compressed data that does not decompress, a TOAST pointer with a
// vartag that cannot appear on disk.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { PgServer } from "../../samples/pg-server.js";
import { dumpContext, resolveByName } from "../../inspect/dump/target.js";
import { dumpRelation, emptySummary } from "../../inspect/dump/dump.js";
import { COPY_TEXT, CopyFieldWriter } from "../../inspect/dump/copy-rows.js";
import { ScratchOut } from "../../formats/datum/text-out.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { lpFlags, lpLen, lpOff, LP_NORMAL } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageView } from "../../formats/page/page.js";
import type { Finding } from "../../formats/schema/errors.js";

let srv: PgServer;
let serverRows: string[] = [];
const BLOCK = 8192;

before(async () => {
  srv = await PgServer.create();
  srv.sql(`CREATE TABLE t (id int, s text, c text);
    ALTER TABLE t ALTER c SET STORAGE MAIN;
    INSERT INTO t SELECT g, 'row ' || g,
      CASE WHEN g IN (4, 5) THEN repeat('abc', 1000)
           WHEN g = 6 THEN (SELECT string_agg(md5(h::text), '') FROM generate_series(1, 300) h)
           ELSE 'c' || g END
    FROM generate_series(1, 8) g;`);
  serverRows = srv.sql("COPY t TO STDOUT").split("\n").slice(0, -1);
  srv.sql("CHECKPOINT");
  srv.stop();
});
after(() => srv?.destroy());

/** Damage the tuples of block 0 by id (the first column), in the test's own cluster. */
function damage(): void {
  const r = resolveByName(srv.pgdata, "postgres", "t");
  const desc = dumpContext(r, { detoast: false, fileLabel: r.path }).desc!;
  const file = readFileSync(r.path);
  const page = new Uint8Array(file.buffer, file.byteOffset, BLOCK);
  const dv = pageView(page);
  for (let i = 1; i <= maxOffsetNumber(dv); i++) {
    const w = itemIdWord(dv, i);
    if (lpFlags(w) !== LP_NORMAL) continue;
    const at = lpOff(w);
    const tuple = page.subarray(at, at + lpLen(w));
    const layout = deformHeapTuple(tuple, desc);
    const [id, s, c] = layout.attrs;
    const idValue = new DataView(tuple.buffer, tuple.byteOffset + id!.off, 4).getInt32(0, true);
    const cdv = (): DataView => new DataView(tuple.buffer, tuple.byteOffset + c!.off, 8);
    if (idValue === 2) tuple[22] += 8; // t_hoff
    if (idValue === 3) tuple[s!.off] = 0xff; // a 1-byte header of 127 bytes
    if (idValue === 4) {
      assert.equal(c!.varlena?.kind, "4b_c");
      cdv().setUint32(0, (5 << 2) | 2, true); // compressed, 5 bytes in all
    }
    if (idValue === 5) {
      assert.equal(c!.varlena?.kind, "4b_c");
      cdv().setUint32(4, cdv().getUint32(4, true) + 7, true); // a raw size the data does not decompress to
    }
    if (idValue === 6) {
      assert.equal(c!.varlena?.kind, "1b_e");
      tuple[c!.off + 1] = 1; // VARTAG_INDIRECT: in memory only
    }
  }
  writeFileSync(r.path, file);
}

function copyDump(): { rows: string[]; findings: Finding[] } {
  const out = new ScratchOut();
  const findings: Finding[] = [];
  const r = resolveByName(srv.pgdata, "postgres", "t");
  for (const e of dumpRelation(r, { detoast: true, copyTo: new CopyFieldWriter(out, COPY_TEXT) }, emptySummary(), { records: true })) {
    if (e.type === "record") findings.push(...structuredClone(e.record.findings));
    if (e.type === "finding") findings.push(e.finding);
  }
  return { rows: new TextDecoder().decode(out.buf.subarray(0, out.pos)).split("\n").slice(0, -1), findings };
}

/** The findings of the page dump (the JSON and text formats), whose values take the checked walk. */
function pageDumpFindings(): Finding[] {
  const findings: Finding[] = [];
  const r = resolveByName(srv.pgdata, "postgres", "t");
  for (const e of dumpRelation(r, { detoast: true })) {
    if (e.type === "page") findings.push(...e.page.findings);
    if (e.type === "finding") findings.push(e.finding);
  }
  return findings;
}

test("intact: the COPY unload equals COPY TO", () => {
  assert.equal(serverRows.length, 8);
  assert.deepEqual(copyDump(), { rows: serverRows, findings: [] });
});

test("damaged tuples: the checked walk's findings, the intact rows, NULL for unreadable values", () => {
  damage();
  const { rows, findings } = copyDump();
  const expected = serverRows
    .filter((row) => !["2", "3", "4"].includes(row.split("\t")[0]!))
    .map((row) => (["5", "6"].includes(row.split("\t")[0]!) ? row.replace(/\t[^\t]*$/, "\t\\N") : row));
  assert.deepEqual(rows, expected);
  assert.deepEqual(
    findings.map((f) => [f.code, f.location.block, f.location.attnum]),
    [
      ["HEAP_BAD_T_HOFF", 0, undefined],
      ["VARLENA_TRUNCATED", 0, 2],
      ["VARLENA_BAD_LENGTH", 0, 3],
      [findings[3]!.code, 0, 3],
      ["TOAST_POINTER_BAD_TAG", 0, 3],
    ],
  );
  assert.match(findings[3]!.message, /compressed data/);
  assert.deepEqual(findings, pageDumpFindings());
});
