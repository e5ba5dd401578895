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
    // a damaged catalog page is a finding (directory.ts), not the end of the run
    this.cluster = new Cluster(pgdata, { tolerant: true });
    const control = this.cluster.control;
    this.horizons = horizonsFrom(control, preparedXids(pgdata));
    const cp = control.control.fields.checkPointCopy;
    this.multixact = new MultiXactReader(pgdata, control.blcksz, cp.nextMulti, cp.nextMultiOffset, this.cluster.profile.slru);
    this.checksums = control.dataChecksumVersion !== 0;
    this.checksumSeverity = control.cleanShutdown ? "error" : "warning";
  }

  database(nameOrOid: string | number): DatabaseCatalog {
    return this.cluster.database(nameOrOid);
  }

  /**
   * Read the catalogs relation checks use (pg_class, pg_index, pg_opclass, pg_attribute,
   * pg_collation) ahead of need, database by database, the newest first (user databases), until
   * `stop()` says the time is up: a worker does this while the main thread plans. Problems are
   * left to the jobs that meet them.
   */
  preload(stop: () => boolean): void {
    let dbs: { oid: number }[];
    try {
      dbs = [...this.cluster.databases()].sort((a, b) => b.oid - a.oid);
    } catch {
      return;
    }
    for (const d of dbs) {
      if (stop()) return;
      try {
        const cat = this.database(d.oid); // pg_class, pg_namespace, pg_am
        cat.indexes(); // pg_index, pg_opclass
        if (stop()) return;
        cat.descriptor(0); // pg_attribute, read whole on the first descriptor asked for
        cat.collations();
      } catch {
        // the job that needs this catalog reports it
      }
    }
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
