// What every relation check of one cluster shares: pg_control's horizons, pg_xact, pg_multixact,
// the prepared transactions, and the per-database catalogs (loaded once per process).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Cluster, type DatabaseCatalog } from "../formats/catalog/cluster.js";
import type { Severity } from "../formats/schema/errors.js";
import { MultiXactReader } from "./heap/multixact.js";
import { horizonsFrom, type Horizons } from "./heap/xid.js";

export class ClusterContext {
  readonly cluster: Cluster;
  readonly horizons: Horizons;
  readonly multixact: MultiXactReader;
  readonly checksums: boolean;
  /** a checksum mismatch is corruption only when the cluster was shut down cleanly */
  readonly checksumSeverity: Severity;

  constructor(readonly pgdata: string) {
    this.cluster = new Cluster(pgdata);
    const control = this.cluster.control;
    this.horizons = horizonsFrom(control, preparedXids(pgdata));
    const cp = control.control.fields.checkPointCopy;
    this.multixact = new MultiXactReader(pgdata, control.blcksz, cp.nextMulti, cp.nextMultiOffset);
    this.checksums = control.dataChecksumVersion !== 0;
    this.checksumSeverity = control.cleanShutdown ? "error" : "warning";
  }

  database(nameOrOid: string | number): DatabaseCatalog {
    return this.cluster.database(nameOrOid);
  }
}

/** XIDs of prepared transactions: pg_twophase holds one file per XID, named %08X. */
function preparedXids(pgdata: string): Set<number> {
  const dir = join(pgdata, "pg_twophase");
  const out = new Set<number>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir)) if (/^[0-9A-F]{8}$/.test(f)) out.add(parseInt(f, 16));
  return out;
}
