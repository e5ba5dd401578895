// archive.places: one table carrying every non-B-tree index access method shipped with core
// PostgreSQL: hash, GiST (box, inet), SP-GiST (point quad tree, text radix tree), GIN (array,
// jsonb_path_ops, tsvector) and BRIN (timestamptz, bigint). The tsvector is a stored generated column.
// The last rows arrive after VACUUM, so GIN pending lists and unsummarized BRIN ranges exist too.
import type { Field } from "../copy.js";
import type { GenContext, TableReport } from "../loader.js";
import { isoAt, pad, words, WORDS } from "./words.js";

const KINDS = ["cafe", "museum", "park", "station", "library", "harbor", "market"];

function* rows(ctx: GenContext): Generator<Field[]> {
  const r = ctx.rng;
  for (let id = 1; id <= ctx.profile.places; id++) {
    const x = (r.float() * 360 - 180).toFixed(5);
    const y = (r.float() * 170 - 85).toFixed(5);
    const bx = Number(x);
    const by = Number(y);
    const w = r.float() * 2;
    const h = r.float() * 2;
    const tags = `{${Array.from({ length: r.int(0, 5) }, () => r.pick(WORDS)).join(",")}}`;
    const doc = JSON.stringify({ kind: r.pick(KINDS), rating: r.int(1, 5), open: r.chance(0.7), floors: r.int(1, 12) });
    const ip = r.chance(0.8) ? `10.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}` : `2001:db8:${r.hex(4)}::${r.hex(3)}`;
    yield [
      String(id),
      `${r.pick(KINDS)} ${r.pick(WORDS)} ${pad(id, 6)}`,
      `${r.hex(2).toUpperCase()}-${pad(r.int(0, 99999), 5)}`,
      `(${x},${y})`,
      `((${(bx + w).toFixed(5)},${(by + h).toFixed(5)}),(${x},${y}))`,
      tags,
      doc,
      words(r, r.int(3, 12)),
      isoAt(id * 60 + r.int(0, 59)),
      r.chance(0.1) ? null : ip,
    ];
  }
}

function* take<T>(it: Iterator<T>, k: number): Generator<T> {
  for (let i = 0; i < k; i++) {
    const x = it.next();
    if (x.done) return;
    yield x.value;
  }
}

export function buildPlaces(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  db.sql(`
    CREATE TABLE archive.places (
      id bigint PRIMARY KEY,
      name text NOT NULL,
      code text NOT NULL,
      loc point NOT NULL,
      area box NOT NULL,
      tags text[] NOT NULL,
      doc jsonb NOT NULL,
      descr text NOT NULL,
      fts tsvector GENERATED ALWAYS AS (to_tsvector('simple', descr)) STORED,
      seen_at timestamptz NOT NULL,
      ip inet
    );
  `);
  const cols = ["id", "name", "code", "loc", "area", "tags", "doc", "descr", "seen_at", "ip"];
  const all = rows(ctx);
  const late = Math.min(50, Math.floor(ctx.profile.places / 10));
  let n = db.copy("archive.places", cols, take(all, ctx.profile.places - late));
  ctx.progress("archive.places: building hash/gist/spgist/gin/brin indexes");
  db.sql(`
    SET maintenance_work_mem = '256MB';
    CREATE INDEX places_code_hash_idx ON archive.places USING hash (code);
    CREATE INDEX places_area_gist_idx ON archive.places USING gist (area);
    CREATE INDEX places_ip_gist_idx ON archive.places USING gist (ip inet_ops);
    CREATE INDEX places_loc_spgist_idx ON archive.places USING spgist (loc);
    CREATE INDEX places_name_spgist_idx ON archive.places USING spgist (name);
    CREATE INDEX places_tags_gin_idx ON archive.places USING gin (tags);
    CREATE INDEX places_doc_gin_idx ON archive.places USING gin (doc jsonb_path_ops);
    CREATE INDEX places_fts_gin_idx ON archive.places USING gin (fts);
    CREATE INDEX places_seen_brin_idx ON archive.places USING brin (seen_at);
    CREATE INDEX places_id_brin_idx ON archive.places USING brin (id) WITH (pages_per_range = 16);
    VACUUM ANALYZE archive.places;
  `);
  // Rows added after VACUUM stay in the GIN pending lists (fastupdate) and in unsummarized BRIN ranges.
  n += db.copy("archive.places", cols, all);
  return [
    {
      database: db.name,
      schema: "archive",
      name: "places",
      rows: n,
      orderBy: "id",
      scanSafe: true,
      description: "hash, gist (box, inet), spgist (point, text), gin (text[], jsonb_path_ops, tsvector), brin indexes; generated column",
    },
  ];
}
