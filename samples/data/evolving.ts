// archive.evolving: a table whose shape changed after rows were written. legacy_code (the third
// column) is dropped, so old tuples still carry its bytes and pg_attribute keeps it as
// "........pg.dropped.3........"; columns added later with constant defaults are filled from
// attmissingval for old tuples (atthasmissing), and one is added without a default.
// Rows written after the change, and old rows updated after it, carry every column physically.
import type { Field } from "../copy.js";
import type { GenContext, TableReport } from "../loader.js";
import { isoAt, pad, words } from "./words.js";

export function buildEvolving(ctx: GenContext): TableReport[] {
  const { db } = ctx;
  const r = ctx.rng;
  const n = ctx.profile.evolving;
  const half = Math.floor(n / 2);
  db.sql(`
    CREATE TABLE archive.evolving (
      id int PRIMARY KEY,
      label text NOT NULL,
      legacy_code char(6),
      qty int,
      payload text
    );
  `);
  const before = function* (): Generator<Field[]> {
    for (let id = 1; id <= half; id++) {
      yield [String(id), `item-${pad(id, 6)}`, r.chance(0.8) ? r.hex(6).toUpperCase() : null, r.chance(0.9) ? String(r.int(0, 500)) : null, words(r, r.int(1, 6))];
    }
  };
  db.copy("archive.evolving", ["id", "label", "legacy_code", "qty", "payload"], before());
  db.sql(`
    ALTER TABLE archive.evolving DROP COLUMN legacy_code;
    ALTER TABLE archive.evolving ADD COLUMN added_int int NOT NULL DEFAULT 42;
    ALTER TABLE archive.evolving ADD COLUMN added_txt text DEFAULT 'fresh';
    ALTER TABLE archive.evolving ADD COLUMN added_ts timestamptz DEFAULT '2021-06-01 12:00:00+00';
    ALTER TABLE archive.evolving ADD COLUMN added_plain int;
  `);
  const after = function* (): Generator<Field[]> {
    for (let id = half + 1; id <= n; id++) {
      yield [
        String(id),
        `item-${pad(id, 6)}`,
        r.chance(0.9) ? String(r.int(0, 500)) : null,
        words(r, r.int(1, 6)),
        String(r.int(0, 100)),
        r.chance(0.2) ? null : words(r, 1),
        isoAt(r.int(0, 1e8)),
        r.chance(0.5) ? null : String(r.int(-10, 10)),
      ];
    }
  };
  db.copy("archive.evolving", ["id", "label", "qty", "payload", "added_int", "added_txt", "added_ts", "added_plain"], after());
  db.sql(`
    UPDATE archive.evolving SET qty = coalesce(qty, 0) + 1 WHERE id <= ${half} AND id % 50 = 0;
    VACUUM ANALYZE archive.evolving;
  `);
  return [
    {
      database: db.name,
      schema: "archive",
      name: "evolving",
      rows: n,
      orderBy: "id",
      scanSafe: true,
      description: "dropped column (3rd) and columns added with fast defaults (attmissingval), old and new tuple shapes",
    },
  ];
}
