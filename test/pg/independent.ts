// A cluster built from hand-written SQL that shares nothing with samples/: other table shapes,
// other types, other catalog states. For differential tests (our reader vs the server) that must
// not be tuned to the sample generator's output.
//
// Database `indep` holds:
//   - schema catalog_heavy: 60 small tables (0-3 rows, some indexed), 12 views, 10 sequences
//     (some advanced), a materialized view, a range-partitioned table with a default partition
//     and a list-partitioned table, an unlogged table (init fork), a table with an identity
//     column and a stored generated column;
//   - schema shapes: a zero-column table, a 120-column table (multi-byte null bitmap), a
//     bool-only table, a STORAGE PLAIN row near the page limit, a TOASTed table rewritten by
//     VACUUM FULL (relfilenode != oid, toast too), a TRUNCATEd-and-refilled table (new
//     relfilenode), a CLUSTERed table;
//   - schema "Odd Schema": a mixed-case, space-containing table and column names;
//   - schema exotic: enum, domain, composite and range columns (readers may not decode these);
//   - a large object (pg_largeobject).
// The cluster is stopped (clean shutdown) when the promise resolves.
import { PgServer } from "../../samples/pg-server.js";

export interface IndependentRelation {
  schema: string;
  name: string;
  /** pg_class.relkind */
  kind: string;
  oid: number;
  relfilenode: number;
  /** rows for tables and matviews (count(*); a partitioned table counts its partitions), null otherwise */
  rows: number | null;
  /** the TOAST table, if any */
  toast: { oid: number; relfilenode: number } | null;
}

export interface IndependentCluster {
  /** stopped; call server.start() to query it */
  server: PgServer;
  root: string;
  pgdata: string;
  database: string;
  relations: IndependentRelation[];
}

export const INDEPENDENT_DB = "indep";

const SQL = String.raw`
CREATE SCHEMA catalog_heavy;
CREATE SCHEMA shapes;
CREATE SCHEMA exotic;
CREATE SCHEMA "Odd Schema";

-- Many small tables: t_01..t_60, i % 4 rows each, every third one indexed.
DO $$
BEGIN
  FOR i IN 1..60 LOOP
    EXECUTE format('CREATE TABLE catalog_heavy.t_%s (k int PRIMARY KEY, v text, w numeric(8,2))', lpad(i::text, 2, '0'));
    EXECUTE format('INSERT INTO catalog_heavy.t_%s SELECT g, repeat(chr(64 + g), g), g * 1.25 FROM generate_series(1, %s) g',
                   lpad(i::text, 2, '0'), i % 4);
    IF i % 3 = 0 THEN
      EXECUTE format('CREATE INDEX t_%s_v_idx ON catalog_heavy.t_%s (v)', lpad(i::text, 2, '0'), lpad(i::text, 2, '0'));
    END IF;
  END LOOP;
  FOR i IN 1..12 LOOP
    EXECUTE format('CREATE VIEW catalog_heavy.v_%s AS SELECT k, v FROM catalog_heavy.t_%s WHERE k > 0',
                   lpad(i::text, 2, '0'), lpad(i::text, 2, '0'));
  END LOOP;
  FOR i IN 1..10 LOOP
    EXECUTE format('CREATE SEQUENCE catalog_heavy.seq_%s START %s INCREMENT %s', i, i * 100, i);
    IF i % 2 = 0 THEN
      EXECUTE format('SELECT nextval(''catalog_heavy.seq_%s'') FROM generate_series(1, %s)', i, i);
    END IF;
  END LOOP;
END $$;

CREATE TABLE catalog_heavy.ledger (
  entry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
  amount_eur numeric GENERATED ALWAYS AS (amount_cents / 100.0) STORED,
  memo varchar(80)
);
INSERT INTO catalog_heavy.ledger (amount_cents, memo)
  SELECT (g * 7919) % 100003 - 50000, CASE WHEN g % 5 = 0 THEN NULL ELSE 'memo ' || g END
  FROM generate_series(1, 400) g WHERE (g * 7919) % 100003 <> 50000;

CREATE MATERIALIZED VIEW catalog_heavy.ledger_summary AS
  SELECT (entry_id % 10) AS bucket, count(*) AS n, sum(amount_cents) AS total
  FROM catalog_heavy.ledger GROUP BY 1;
CREATE UNIQUE INDEX ledger_summary_bucket ON catalog_heavy.ledger_summary (bucket);
REFRESH MATERIALIZED VIEW catalog_heavy.ledger_summary;

CREATE TABLE catalog_heavy.readings (
  sensor int NOT NULL,
  taken date NOT NULL,
  value double precision
) PARTITION BY RANGE (taken);
CREATE TABLE catalog_heavy.readings_2022 PARTITION OF catalog_heavy.readings FOR VALUES FROM ('2022-01-01') TO ('2023-01-01');
CREATE TABLE catalog_heavy.readings_2023 PARTITION OF catalog_heavy.readings FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE catalog_heavy.readings_2024 PARTITION OF catalog_heavy.readings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE catalog_heavy.readings_other PARTITION OF catalog_heavy.readings DEFAULT;
CREATE INDEX readings_sensor_idx ON catalog_heavy.readings (sensor, taken);
INSERT INTO catalog_heavy.readings
  SELECT g % 17, date '2021-11-01' + (g % 1300), sin(g) * 100 FROM generate_series(1, 3000) g;

CREATE TABLE catalog_heavy.tickets (id int, region char(2) NOT NULL, title text) PARTITION BY LIST (region);
CREATE TABLE catalog_heavy.tickets_eu PARTITION OF catalog_heavy.tickets FOR VALUES IN ('de', 'fr', 'nl');
CREATE TABLE catalog_heavy.tickets_us PARTITION OF catalog_heavy.tickets FOR VALUES IN ('us');
INSERT INTO catalog_heavy.tickets
  SELECT g, (ARRAY['de','fr','nl','us'])[1 + g % 4], 'ticket #' || g FROM generate_series(1, 200) g;

CREATE UNLOGGED TABLE catalog_heavy.scratch (id int PRIMARY KEY, payload text);
INSERT INTO catalog_heavy.scratch SELECT g, md5(g::text) FROM generate_series(1, 500) g;

-- Zero columns: tuples with natts = 0.
CREATE TABLE shapes.no_columns ();
INSERT INTO shapes.no_columns SELECT FROM generate_series(1, 25);

-- 120 columns, mostly NULL: a 15-byte null bitmap.
DO $$
DECLARE cols text := '';
BEGIN
  FOR i IN 1..120 LOOP
    cols := cols || format(', c%s %s', i, CASE i % 3 WHEN 0 THEN 'int' WHEN 1 THEN 'text' ELSE 'smallint' END);
  END LOOP;
  EXECUTE 'CREATE TABLE shapes.wide (id int PRIMARY KEY' || cols || ')';
END $$;
INSERT INTO shapes.wide (id, c1, c2, c3, c60, c118, c119, c120)
  SELECT g, 'first ' || g, g::smallint, g * 3, CASE WHEN g % 2 = 0 THEN g END, 'near end', NULL, g
  FROM generate_series(1, 300) g;

CREATE TABLE shapes.flags (a bool, b bool, c bool, d bool, e bool, f bool, g bool, h bool, i bool);
INSERT INTO shapes.flags
  SELECT g % 2 = 0, g % 3 = 0, NULL, g % 5 = 0, true, false, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 7 = 1 END, g > 50, g % 11 = 0
  FROM generate_series(1, 100) g;

-- Near the page limit, never toasted.
CREATE TABLE shapes.plain_big (id int, body text);
ALTER TABLE shapes.plain_big ALTER COLUMN body SET STORAGE PLAIN;
INSERT INTO shapes.plain_big SELECT g, repeat(chr(65 + g), 8000) FROM generate_series(1, 6) g;

-- TOASTed, then deleted from, then rewritten: relfilenode != oid for the table and its toast.
CREATE TABLE shapes.blobs (id int PRIMARY KEY, kind text, body text, data bytea);
INSERT INTO shapes.blobs
  SELECT g, 'compressible', repeat('abcdefghij', 500 * g), NULL FROM generate_series(1, 20) g;
INSERT INTO shapes.blobs
  SELECT 100 + g, 'random', (SELECT string_agg(md5(g::text || ':' || h), '') FROM generate_series(1, 40 * g) h),
         decode((SELECT string_agg(md5(h::text || '/' || g), '') FROM generate_series(1, 20 * g) h), 'hex')
  FROM generate_series(1, 30) g;
DELETE FROM shapes.blobs WHERE id % 3 = 0;
VACUUM FULL shapes.blobs;

CREATE TABLE shapes.refilled (id int, note text);
INSERT INTO shapes.refilled SELECT g, 'old ' || g FROM generate_series(1, 50) g;
TRUNCATE shapes.refilled;
INSERT INTO shapes.refilled SELECT g, 'new ' || g FROM generate_series(1, 70) g;

CREATE TABLE shapes.clustered (id int, grp int, label text);
INSERT INTO shapes.clustered SELECT g, (g * 37) % 13, 'row ' || g FROM generate_series(1, 1000) g;
CREATE INDEX clustered_grp_idx ON shapes.clustered (grp, id);
CLUSTER shapes.clustered USING clustered_grp_idx;

CREATE TABLE "Odd Schema"."Mixed Case Table" ("Key" int PRIMARY KEY, "Value With Space" text);
INSERT INTO "Odd Schema"."Mixed Case Table" VALUES (1, 'one'), (2, 'two'), (3, NULL);

CREATE TYPE exotic.mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN exotic.percent AS numeric(5,2) CHECK (VALUE BETWEEN 0 AND 100);
CREATE TYPE exotic.pair AS (x int, label text);
CREATE TABLE exotic.things (
  id int PRIMARY KEY,
  mood exotic.mood,
  pct exotic.percent,
  pair exotic.pair,
  span int4range,
  period tstzrange
);
INSERT INTO exotic.things
  SELECT g, (ARRAY['sad','ok','happy']::exotic.mood[])[1 + g % 3], (g % 101)::numeric,
         ROW(g, 'p' || g)::exotic.pair, int4range(g, g + g % 7), tstzrange('2024-01-01'::timestamptz + g * interval '1 hour', NULL)
  FROM generate_series(1, 60) g;

SELECT lo_from_bytea(424242, decode(repeat('00ff', 3000), 'hex'));

ANALYZE;
CHECKPOINT;
`;

/** `version`: the major version of an npm server (default Debian's PostgreSQL 15). */
export async function buildIndependentCluster(dir: string, opts: { checksums?: boolean; version?: number } = {}): Promise<IndependentCluster> {
  const server = await PgServer.create({ dir, checksums: opts.checksums ?? true, version: opts.version });
  try {
    server.sql(`CREATE DATABASE ${INDEPENDENT_DB};`);
    server.sql(SQL, INDEPENDENT_DB);
    const rels = server.rows(
      `SELECT n.nspname, c.relname, c.relkind, c.oid, c.relfilenode, nullif(c.reltoastrelid, 0), t.relfilenode
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_class t ON t.oid = c.reltoastrelid
        WHERE n.nspname IN ('catalog_heavy', 'shapes', 'exotic', 'Odd Schema')
        ORDER BY 1, 2`,
      INDEPENDENT_DB,
    );
    const relations: IndependentRelation[] = rels.map(([schema, name, kind, oid, relfilenode, toastOid, toastNode]) => ({
      schema: schema as string,
      name: name as string,
      kind: kind as string,
      oid: Number(oid),
      relfilenode: Number(relfilenode),
      rows: null,
      toast: toastOid === null ? null : { oid: Number(toastOid), relfilenode: Number(toastNode) },
    }));
    const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
    for (const r of relations) {
      if (r.kind === "r" || r.kind === "m" || r.kind === "p") {
        const [[n]] = server.rows(`SELECT count(*) FROM ${quote(r.schema)}.${quote(r.name)}`, INDEPENDENT_DB);
        r.rows = Number(n);
      }
    }
    server.stop();
    return { server, root: dir, pgdata: server.pgdata, database: INDEPENDENT_DB, relations };
  } catch (e) {
    try {
      server.stop();
    } catch {
      server.tool("pg_ctl", ["-D", server.pgdata, "-m", "immediate", "-w", "stop"], true);
    }
    throw e;
  }
}
