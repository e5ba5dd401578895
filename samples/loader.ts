// Talks to the build server for the generators: plain SQL, and COPY fed through psql's stdin in
// batches of bounded size, so memory stays flat however many rows a large sample has.
import type { PgServer } from "./pg-server.js";
import { copyLine, ident, type Field } from "./copy.js";
import type { SizeProfile } from "./sizes.js";
import { Rng } from "./prng.js";

/** Upper bound of COPY text held in memory at once (a single row may exceed it). */
export const BATCH_BYTES = 16 * 1024 * 1024;

export class SampleDb {
  constructor(
    private readonly srv: PgServer,
    readonly name: string,
    private readonly progress: (msg: string) => void,
  ) {}

  sql(text: string): string {
    return this.srv.sql(text, this.name);
  }

  rows(text: string): (string | null)[][] {
    return this.srv.rows(text, this.name);
  }

  /** COPY `rows` into `table` (already quoted/qualified); returns the number of rows sent. */
  copy(table: string, columns: readonly string[], rows: Iterable<readonly Field[]>, batchBytes = BATCH_BYTES): number {
    const head = `COPY ${table} (${columns.map(ident).join(", ")}) FROM STDIN;\n`;
    let parts: string[] = [];
    let bytes = 0;
    let total = 0;
    let inBatch = 0;
    const flush = () => {
      if (inBatch === 0) return;
      this.srv.sql(head + parts.join("") + "\\.\n", this.name);
      total += inBatch;
      this.progress(`${table}: ${total} rows`);
      parts = [];
      bytes = 0;
      inBatch = 0;
    };
    for (const r of rows) {
      if (r.length !== columns.length) throw new Error(`${table}: row has ${r.length} fields, expected ${columns.length}`);
      const line = copyLine(r);
      parts.push(line);
      bytes += line.length;
      inBatch++;
      if (bytes >= batchBytes) flush();
    }
    flush();
    return total;
  }
}

/** What a generator module gets: the database to fill, its own random stream and the row counts. */
export interface GenContext {
  db: SampleDb;
  rng: Rng;
  profile: SizeProfile;
  progress: (msg: string) => void;
  /** what the server can store: column COMPRESSION clauses and numeric infinities (14+), lz4 (a build --with-lz4) */
  features: { compressionClause: boolean; lz4: boolean; numericInfinity: boolean };
}

/** A table a generator made, as reported in SampleInfo. */
export interface TableReport {
  database: string;
  schema: string;
  name: string;
  /** live rows after the build */
  rows: number;
  description: string;
  /** a total order over the rows, for `string_agg(... ORDER BY ...)` comparisons */
  orderBy: string;
  /**
   * false for tables whose dead tuples are part of the sample: any heap scan on a running server
   * may prune them (heap_page_prune_opt), so read their pages with pageinspect before scanning.
   */
  scanSafe: boolean;
}
