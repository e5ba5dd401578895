// Databases and relations of a stopped cluster, with sizes, as plain data.
import { statSync, existsSync } from "node:fs";
import { Cluster } from "../formats/catalog/cluster.js";

export interface ListedRelation {
  oid: number;
  schema: string;
  name: string;
  kind: string;
  am: string;
  filenode: number;
  path: string;
  bytes: number;
  toast?: string;
  indexes?: string[];
}

export interface ClusterListing {
  pgdata: string;
  state: string;
  blockSize: number;
  dataChecksums: boolean;
  databases: { oid: number; name: string }[];
  database?: string;
  relations?: ListedRelation[];
}

function forkBytes(path: string): number {
  let total = 0;
  for (const suffix of ["", "_fsm", "_vm", "_init"]) {
    for (let seg = 0; ; seg++) {
      const p = `${path}${suffix}${seg ? `.${seg}` : ""}`;
      if (!existsSync(p)) break;
      total += statSync(p).size;
    }
  }
  return total;
}

const KIND: Record<string, string> = { r: "table", i: "index", S: "sequence", t: "toast", v: "view", m: "matview", c: "type", f: "foreign", p: "partitioned", I: "partitioned index" };

export function listCluster(pgdata: string, database?: string, opts: { system: boolean } = { system: false }): ClusterListing {
  const c = new Cluster(pgdata);
  const l: ClusterListing = {
    pgdata,
    state: c.control.stateName,
    blockSize: c.geometry.blockSize,
    dataChecksums: c.control.dataChecksumVersion !== 0,
    databases: c.databases().map((d) => ({ oid: d.oid, name: d.name })),
  };
  if (!database) return l;
  const cat = c.database(database);
  l.database = cat.db.name;
  l.relations = [...cat.classes.values()]
    .filter((r) => opts.system || r.oid >= 16384)
    .filter((r) => r.filenode !== 0)
    .sort((a, b) => a.namespaceName.localeCompare(b.namespaceName) || a.name.localeCompare(b.name))
    .map((r) => {
      const path = cat.path(r);
      const lr: ListedRelation = { oid: r.oid, schema: r.namespaceName, name: r.name, kind: KIND[r.kind] ?? r.kind, am: r.amName, filenode: r.filenode, path, bytes: forkBytes(path) };
      if (r.toastRelid) lr.toast = cat.classes.get(r.toastRelid)?.name;
      const idx = cat.indexesOf(r.oid).map((i) => cat.classes.get(i.indexOid)?.name ?? String(i.indexOid));
      if (idx.length) lr.indexes = idx;
      return lr;
    });
  return l;
}

export function renderListText(l: ClusterListing): string {
  let s = `cluster ${l.pgdata}: ${l.state}, block size ${l.blockSize}, data checksums ${l.dataChecksums ? "on" : "off"}\n`;
  if (!l.relations) {
    for (const d of l.databases) s += `  ${String(d.oid).padStart(6)}  ${d.name}\n`;
    return s;
  }
  s += `database ${l.database}\n`;
  for (const r of l.relations) {
    s += `  ${String(r.oid).padStart(6)}  ${r.kind.padEnd(8)} ${(r.am || "").padEnd(6)} ${`${r.schema}.${r.name}`.padEnd(48)} ${String(r.bytes).padStart(12)} B  ${r.path}`;
    if (r.toast) s += `  toast ${r.toast}`;
    if (r.indexes) s += `  indexes ${r.indexes.join(",")}`;
    s += "\n";
  }
  return s;
}
