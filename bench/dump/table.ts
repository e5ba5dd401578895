// The table the dump benchmarks measure: `wide` of (int, bigint, text, numeric, timestamptz,
// float8, bool, uuid, jsonb), built once by a real PostgreSQL 15 server in `dir` and reused.
// Every 50th row has NULLs, every 97th text needs COPY escaping (tab, newline, backslash),
// numbers and floats are negative now and then. The server is left stopped.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";

export const WIDE_DB = "bench";
export const WIDE_TABLE = "wide";
/** the types in pg_filedump -D's spelling (jsonb it does not decode: `~` skips the rest) */
export const WIDE_FILEDUMP_TYPES = "int,bigint,text,numeric,timestamptz,float8,bool,uuid,~";

export async function wideTable(dir: string, rows: number): Promise<PgServer> {
  if (existsSync(join(dir, "data", "PG_VERSION"))) return PgServer.attach(dir);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const srv = await PgServer.create({ dir, conf: ["checkpoint_timeout = 1d", "max_wal_size = 8GB"] });
  srv.sql(`CREATE DATABASE ${WIDE_DB}`);
  srv.sql(
    `CREATE TABLE ${WIDE_TABLE} (i int, b bigint, s text, n numeric, ts timestamptz, f float8, ok bool, u uuid, j jsonb);
     INSERT INTO ${WIDE_TABLE}
       SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g::bigint * 7919) % 2000003 - 1000000)::int END,
              g::bigint * 1000000007,
              CASE WHEN g % 97 = 0 THEN E'tab\\there\\nnew \\\\ line ' || g ELSE 'row ' || md5(g::text) END,
              CASE WHEN g % 50 = 1 THEN NULL ELSE round((g * 3.14159 - 2e6)::numeric, g % 5) END,
              timestamptz '2001-02-03 04:05:06+00' + g * interval '17.123457 seconds',
              CASE WHEN g % 11 = 0 THEN -g / 7.0 ELSE g * 1.1 / 3 END,
              g % 3 = 0,
              md5(g::text)::uuid,
              jsonb_build_object('id', g, 'name', 'n' || g, 'tags', jsonb_build_array(g % 7, 'x'), 'r', g / 8.0)
         FROM generate_series(1, ${rows}) g;
     VACUUM (FREEZE, ANALYZE) ${WIDE_TABLE};
     CHECKPOINT;`,
    WIDE_DB,
  );
  srv.stop();
  return srv;
}
