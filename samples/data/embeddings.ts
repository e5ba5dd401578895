// embeddings: real[] vectors of dimension 1536 (6 KiB of float4 each). Dense unit vectors do not
// compress and go out of line uncompressed (4 chunks); every tenth vector is sparse (mostly zeros)
// and compresses, some inline; a few are NULL.
import type { Field } from "../copy.js";
import type { GenContext, TableReport } from "../loader.js";
import { pad } from "./words.js";

export const EMBEDDING_DIM = 1536;
const MODELS = ["text-embedding-3-small", "text-embedding-ada-002", "e5-large-v2"];

function vector(ctx: GenContext, sparse: boolean): string {
  const r = ctx.rng;
  const v = new Float64Array(EMBEDDING_DIM);
  let norm = 0;
  for (let i = 0; i < EMBEDDING_DIM; i++) {
    const x = sparse && !r.chance(0.05) ? 0 : r.gaussian();
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  const parts = new Array<string>(EMBEDDING_DIM);
  // Six decimals are exact enough for float4 and keep the text (hence the stored value) stable.
  for (let i = 0; i < EMBEDDING_DIM; i++) parts[i] = v[i] === 0 ? "0" : (v[i] / norm).toFixed(6);
  return `{${parts.join(",")}}`;
}

function* rows(ctx: GenContext): Generator<Field[]> {
  const r = ctx.rng;
  for (let id = 1; id <= ctx.profile.embeddings; id++) {
    const kind = id % 25 === 0 ? "null" : id % 10 === 0 ? "sparse" : "dense";
    const emb = kind === "null" ? null : vector(ctx, kind === "sparse");
    yield [String(id), String(r.int(1, Math.max(1, ctx.profile.embeddings * 2))), r.pick(MODELS), `chunk-${pad(id, 7)}`, emb];
  }
}

export function buildEmbeddings(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE public.embeddings (
      id int PRIMARY KEY,
      doc_id int NOT NULL,
      model text NOT NULL,
      chunk_label text NOT NULL,
      embedding real[] CHECK (embedding IS NULL OR array_length(embedding, 1) = ${EMBEDDING_DIM})
    );
    CREATE INDEX embeddings_doc_idx ON public.embeddings (doc_id);
  `);
  const n = db.copy("public.embeddings", ["id", "doc_id", "model", "chunk_label", "embedding"], rows(ctx));
  db.sql("VACUUM ANALYZE public.embeddings;");
  return [
    {
      database: db.name,
      schema: "public",
      name: "embeddings",
      rows: n,
      orderBy: "id",
      scanSafe: true,
      description: `real[${EMBEDDING_DIM}] vectors: dense (external, uncompressed), sparse (compressed), NULL`,
    },
  ];
}
