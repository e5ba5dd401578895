// Verify one relation of a real cluster and read its findings as (code, block, item), before
// and after a damage: the helpers of the access-method structure tests.
import assert from "node:assert/strict";
import type { PgServer } from "../../samples/pg-server.js";
import { runVerify } from "../../verify/run.js";
import { Damager } from "./damage.js";

export type Found = { code: string; block?: number; item?: number; offset?: number; severity: string; message: string };

/** verify of relation `rel` of database `db`: what ran and what it found. */
export async function verifyRelation(srv: PgServer, db: string, rel: string): Promise<{ found: Found[]; checks: string[] }> {
  const run = await runVerify({ pgdata: srv.pgdata, database: db, relations: [rel] }, { jobs: 1 });
  assert.equal(run.reports.length, 1);
  const r = run.reports[0]!;
  return { checks: r.checks, found: r.findings.map((f) => ({ code: f.code, block: f.location.block, item: f.location.item, offset: f.location.offset, severity: f.severity, message: f.message })) };
}

/** Damage block `blk` of `rel`, verify, restore. */
export async function damagedFindings(srv: PgServer, db: string, rel: string, blk: number, f: (page: Uint8Array, dv: DataView) => void): Promise<Found[]> {
  const d = new Damager(srv.pgdata, db);
  d.patch(d.path(rel), blk, f);
  try {
    return (await verifyRelation(srv, db, rel)).found;
  } finally {
    d.restore();
  }
}

/** A finding of `code` at `block` (and `item`, when given). */
export const foundAt = (found: Found[], code: string, block: number, item?: number): boolean => found.some((f) => f.code === code && f.block === block && (item === undefined || f.item === item));
