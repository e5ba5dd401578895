// TOAST-heavy tables.
//  toast_docs: incompressible text in a STORAGE EXTERNAL column, so a value of L characters is
//    stored out of line in exactly ceil(L / 1996) chunks. Tiers by chunk count: single (1),
//    multi (2-100), over100 (101-1000), over1000 (> 1000), plus values on every tier boundary.
//  compressed_docs: pglz and lz4 columns holding values compressed inline, compressed and
//    external (including one over 100 chunks), and incompressible (external, uncompressed).
import type { Field } from "../copy.js";
import type { GenContext, TableReport } from "../loader.js";
import { mixedText, pad, phrases } from "./words.js";

/** Stored bytes per TOAST chunk with 8 KiB blocks (TOAST_MAX_CHUNK_SIZE). */
export const TOAST_CHUNK = 1996;

export type Tier = "single" | "multi" | "over100" | "over1000";

export function tierOf(chunks: number): Tier {
  return chunks === 1 ? "single" : chunks <= 100 ? "multi" : chunks <= 1000 ? "over100" : "over1000";
}

/** Values exactly on the chunk-count boundaries (1, 2, 100/101, 1000/1001, 2500/2501 chunks). */
export const BOUNDARY_LENGTHS = [
  TOAST_CHUNK, // 1 full chunk
  TOAST_CHUNK + 1, // 2 chunks, the last holding 1 byte
  2 * TOAST_CHUNK, // 2 full chunks
  100 * TOAST_CHUNK, // 100 chunks
  100 * TOAST_CHUNK + 1, // 101 chunks
  1000 * TOAST_CHUNK + 1, // 1001 chunks
  2500 * TOAST_CHUNK, // 2500 chunks
  2500 * TOAST_CHUNK + 1, // 2501 chunks
];

function lengthsFor(ctx: GenContext): number[] {
  const r = ctx.rng.fork("toast-lengths");
  const t = ctx.profile.toast;
  const out = [...BOUNDARY_LENGTHS];
  const ranges: [number, number, number][] = [
    [t.single, 1200, TOAST_CHUNK],
    [t.multi, TOAST_CHUNK + 1, 100 * TOAST_CHUNK],
    [t.over100, 100 * TOAST_CHUNK + 1, 1000 * TOAST_CHUNK],
    [t.over1000, 1000 * TOAST_CHUNK + 1, 2200 * TOAST_CHUNK],
  ];
  // Interleave tiers so big values are spread over the table rather than at its end.
  const total = ranges.reduce((s, [n]) => s + n, 0);
  const left = ranges.map(([n]) => n);
  for (let i = 0; i < total; i++) {
    let k = r.int(0, total - i - 1);
    let tier = 0;
    while (k >= left[tier]) k -= left[tier++];
    left[tier]--;
    const [, lo, hi] = ranges[tier];
    out.push(tier === 0 ? r.int(lo, hi) : r.logInt(lo, hi));
  }
  return out;
}

function* toastRows(ctx: GenContext, lengths: number[]): Generator<Field[]> {
  const r = ctx.rng.fork("toast-values");
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i];
    const chunks = Math.ceil(len / TOAST_CHUNK);
    // A single-chunk value is too small to push its row over the TOAST threshold alone; a
    // smaller incompressible note makes the row big enough, and the toaster moves the larger
    // (body) out first.
    const note = chunks === 1 ? r.base64(r.int(900, Math.min(1100, len - 100))) : `document ${pad(i + 1, 6)}`;
    yield [String(i + 1), tierOf(chunks), String(chunks), r.base64(len), note];
  }
}

function loadToastDocs(ctx: GenContext): TableReport {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE public.toast_docs (
      id int PRIMARY KEY,
      tier text NOT NULL,
      expected_chunks int NOT NULL,
      body text NOT NULL,
      note text
    );
    ALTER TABLE public.toast_docs ALTER COLUMN body SET STORAGE EXTERNAL;
    CREATE INDEX toast_docs_tier_idx ON public.toast_docs (tier, expected_chunks);
  `);
  const lengths = lengthsFor(ctx);
  const rows = db.copy("public.toast_docs", ["id", "tier", "expected_chunks", "body", "note"], toastRows(ctx, lengths), 32 << 20);
  db.sql("VACUUM ANALYZE public.toast_docs;");
  return {
    database: db.name,
    schema: "public",
    name: "toast_docs",
    rows,
    orderBy: "id",
    scanSafe: true,
    description: "incompressible STORAGE EXTERNAL text: 1, 2-100, 101-1000 and >1000 TOAST chunks, incl. exact chunk boundaries",
  };
}

interface CompressedValue {
  label: string;
  algo: "pglz" | "lz4";
  intent: "inline" | "external" | "external-big" | "incompressible";
  text: string;
}

function* compressedValues(ctx: GenContext): Generator<CompressedValue> {
  const r = ctx.rng.fork("compressed");
  const c = ctx.profile.compressed;
  for (const algo of ctx.features.lz4 ? (["pglz", "lz4"] as const) : (["pglz"] as const)) {
    for (let i = 0; i < c.inline; i++) yield { label: `${algo}-inline-${i + 1}`, algo, intent: "inline", text: phrases(r, r.int(2500, 8000)) };
    for (let i = 0; i < c.external; i++) {
      yield { label: `${algo}-external-${i + 1}`, algo, intent: "external", text: mixedText(r, r.logInt(20_000, 400_000)) };
    }
    for (let i = 0; i < c.big; i++) {
      // ~1.5 MB of mixed text compresses to well over 100 chunks.
      yield { label: `${algo}-external-big-${i + 1}`, algo, intent: "external-big", text: mixedText(r, r.int(1_200_000, 1_600_000)) };
    }
    yield { label: `${algo}-incompressible`, algo, intent: "incompressible", text: r.base64(r.int(30_000, 60_000)) };
  }
}

function loadCompressedDocs(ctx: GenContext): TableReport {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE public.compressed_docs (
      id int PRIMARY KEY,
      label text NOT NULL UNIQUE,
      algo text NOT NULL,
      intent text NOT NULL,
      body_pglz text ${ctx.features.compressionClause ? "COMPRESSION pglz" : ""},
      body_lz4 text ${ctx.features.lz4 ? "COMPRESSION lz4" : ""}
    );
  `);
  let id = 0;
  const rows = (function* () {
    for (const v of compressedValues(ctx)) {
      id++;
      yield [String(id), v.label, v.algo, v.intent, v.algo === "pglz" ? v.text : null, v.algo === "lz4" ? v.text : null];
    }
  })();
  const n = db.copy("public.compressed_docs", ["id", "label", "algo", "intent", "body_pglz", "body_lz4"], rows);
  db.sql("VACUUM ANALYZE public.compressed_docs;");
  return {
    database: db.name,
    schema: "public",
    name: "compressed_docs",
    rows: n,
    orderBy: "id",
    scanSafe: true,
    description: `${ctx.features.lz4 ? "pglz and lz4 columns" : "pglz values (this server has no lz4; body_lz4 stays NULL)"}: compressed inline, compressed external (incl. >100 chunks), incompressible external`,
  };
}

export function buildToast(ctx: GenContext): TableReport[] {
  return [loadToastDocs(ctx), loadCompressedDocs(ctx)];
}
