// Shared by the samples tests: build a tiny sample into a temp dir, fingerprint tables, and read raw
// attribute bytes through pageinspect.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSample, type SampleInfo } from "../../samples/build.js";
import { PgServer } from "../../samples/pg-server.js";

export interface Built {
  info: SampleInfo;
  /** attached (not started) server over info.root */
  srv: PgServer;
  cleanup: () => void;
}

export async function buildTiny(seed: number, checksums = true): Promise<Built> {
  const parent = mkdtempSync(join(tmpdir(), "pgdisk-sample-test-"));
  chmodSync(parent, 0o755); // the server runs as postgres and must reach the cluster
  const out = join(parent, "cluster");
  const info = await buildSample({ size: "tiny", seed, out, checksums });
  const srv = PgServer.attach(out);
  return {
    info,
    srv,
    cleanup: () => {
      try {
        srv.stop();
      } finally {
        rmSync(parent, { recursive: true, force: true });
      }
    },
  };
}

/** md5 over every row's text form, in the table's total order. */
export function tableMd5(srv: PgServer, db: string, schema: string, name: string, orderBy: string): string {
  const [[md5]] = srv.rows(`SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY ${orderBy.split(",").map((c) => `t.${c.trim()}`).join(", ")}), '')) FROM ${schema}.${name} t`, db);
  return md5 as string;
}

/** Raw on-disk bytes (first `n`) of attribute `attnum` of every live tuple, keyed by ctid. */
export function rawAttrs(srv: PgServer, db: string, rel: string, attnum: number, n = 18): Map<string, Buffer | null> {
  const rows = srv.rows(
    `SELECT '(' || b || ',' || lp || ')', encode(substr(t_attrs[${attnum}], 1, ${n}), 'hex')
       FROM generate_series(0, pg_relation_size('${rel}') / 8192 - 1) b,
            heap_page_item_attrs(get_raw_page('${rel}', b::int), '${rel}'::regclass)
      WHERE lp_flags = 1 AND t_attrs IS NOT NULL`,
    db,
  );
  return new Map(rows.map(([ctid, hex]) => [ctid as string, hex === null ? null : Buffer.from(hex, "hex")]));
}

export type Stored =
  | { kind: "external"; rawsize: number; extsize: number; compressed: boolean; method: number; valueid: number }
  | { kind: "inline-compressed" }
  | { kind: "inline-plain" };

/** Classify a varlena by its header (little-endian layouts from postgres.h / varatt.h). */
export function classify(raw: Buffer): Stored {
  const b0 = raw[0];
  if (b0 === 0x01) {
    if (raw[1] !== 18) throw new Error(`unexpected vartag ${raw[1]}`);
    const rawsize = raw.readInt32LE(2);
    const extinfo = raw.readUInt32LE(6);
    const extsize = extinfo & 0x3fffffff;
    return { kind: "external", rawsize, extsize, compressed: extsize < rawsize - 4, method: extinfo >>> 30, valueid: raw.readUInt32LE(10) };
  }
  if ((b0 & 0x01) === 0x01) return { kind: "inline-plain" }; // 1-byte header
  return (b0 & 0x03) === 0x02 ? { kind: "inline-compressed" } : { kind: "inline-plain" };
}

/** Chunk count and largest chunk per chunk_id in the TOAST table of `rel`. */
export function toastChunks(srv: PgServer, db: string, rel: string): Map<number, { n: number; maxLen: number; lastLen: number }> {
  const [[toast]] = srv.rows(`SELECT reltoastrelid::regclass FROM pg_class WHERE oid = '${rel}'::regclass`, db);
  const rows = srv.rows(
    `SELECT chunk_id, count(*), max(octet_length(chunk_data)),
            (array_agg(octet_length(chunk_data) ORDER BY chunk_seq DESC))[1]
       FROM ${toast} GROUP BY chunk_id`,
    db,
  );
  return new Map(rows.map(([id, n, maxLen, lastLen]) => [Number(id), { n: Number(n), maxLen: Number(maxLen), lastLen: Number(lastLen) }]));
}
