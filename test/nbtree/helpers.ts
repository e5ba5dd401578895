// Shared helpers for the nbtree/AM tests: read a relation's main fork from disk after a CHECKPOINT.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PgServer } from "../../samples/pg-server.js";
import { maxAlign } from "../../formats/page/page.js";
import { INDEX_NULL_MASK, INDEX_VAR_MASK } from "../../formats/nbtree/index-tuple.js";
import { mulberry32 } from "../../samples/prng.js";

export const BLCKSZ = 8192;

/** Every block of a relation's main fork, read from the data directory (segment 0 only: tests stay < 1 GiB). */
export function readRelation(srv: PgServer, rel: string): Uint8Array[] {
  const path = srv.rows(`select pg_relation_filepath('${rel}')`)[0]![0]!;
  const buf = readFileSync(join(srv.pgdata, path));
  const pages: Uint8Array[] = [];
  for (let off = 0; off + BLCKSZ <= buf.length; off += BLCKSZ) pages.push(new Uint8Array(buf.buffer, buf.byteOffset + off, BLCKSZ));
  return pages;
}

export const md5 = (b: Uint8Array): string => createHash("md5").update(b).digest("hex");

/** md5 of every block as the server's buffers hold it (get_raw_page), to prove disk == buffers. */
export function serverPageMd5s(srv: PgServer, rel: string, n: number): string[] {
  if (n === 0) return [];
  return srv.rows(`select md5(get_raw_page('${rel}', b)) from generate_series(0, ${n - 1}) b order by b`).map((r) => r[0]!);
}

/** A small seeded PRNG for property tests (samples/prng.ts). */
export const prng = mulberry32;

/** A plain index tuple with key bytes K (size = MAXALIGN(8 [+8] + |K|)). */
export function mkTuple(K: Uint8Array, opts: { nullBits?: number; var?: boolean; tid?: [number, number] } = {}): Uint8Array {
  const dataOff = opts.nullBits === undefined ? 8 : 16;
  const size = maxAlign(dataOff + K.length);
  const t = new Uint8Array(size);
  const dv = new DataView(t.buffer);
  const [blk, off] = opts.tid ?? [1, 1];
  dv.setUint16(0, blk >>> 16, true);
  dv.setUint16(2, blk & 0xffff, true);
  dv.setUint16(4, off, true);
  dv.setUint16(6, size | (opts.var ? INDEX_VAR_MASK : 0) | (opts.nullBits === undefined ? 0 : INDEX_NULL_MASK), true);
  if (opts.nullBits !== undefined) t[8] = opts.nullBits;
  t.set(K, dataOff);
  return t;
}
