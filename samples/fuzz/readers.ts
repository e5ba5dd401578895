// The fuzz campaign's entry points beyond dump, verify and browse: the listing (`inspect list`),
// value reading (`pgdisk value` by TID, TOAST values resolved), and the converters (`migrate
// toast`, `migrate btree`, through their engines' exported functions) run into an output copy,
// and the loader (`pgdisk load --dry-run` of an empty input, which reads all a load would).
// Each returns nothing when the reader ended as it may (a result, or a FormatError it throws);
// the converters return a failure message when a refusal left an output behind.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { itemIdWord, maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { LP_NORMAL, lpFlags, SizeOfItemIdData } from "../../formats/page/item-id.js";
import { SizeOfPageHeaderData } from "../../formats/page/page-header.js";
import { FormatError } from "../../formats/schema/errors.js";
import { listCluster, renderListText } from "../../inspect/list.js";
import { readValue } from "../../inspect/value/value.js";
import { migrateToast } from "../../migrate/toast/engine.js";
import { migrateBtree } from "../../migrate/btree/engine.js";
import { loadTable } from "../../migrate/load/engine.js";

async function* emptyInput(): AsyncIterable<Uint8Array> {}

export interface ReaderTarget {
  /** the relation as the CLI names it */
  name: string;
  rel: RelationInfo;
  path: string;
}

/** At most this many values read a round: readValue opens the catalog for each. */
const VALUES_PER_ROUND = 8;

/** `inspect list` of the database, system relations included, rendered as text. */
export function listEntry(o: { pgdata: string; database: string }): void {
  renderListText(listCluster(o.pgdata, o.database, { system: true }));
}

/**
 * `pgdisk value --tid`: the varlena columns of the live items of the first mutated blocks of a
 * table, or of the first blocks of the table owning a TOAST relation (its values point into it).
 */
export function valueEntry(o: { pgdata: string; database: string }, target: ReaderTarget, blocks: number[], onError: (e: FormatError) => void): void {
  const cat = new Cluster(o.pgdata).database(o.database);
  const table = target.rel.kind === "t" ? ownerOf(cat, target.rel) : target.rel.kind === "r" || target.rel.kind === "m" ? target.rel : undefined;
  if (!table) return;
  const columns = cat.descriptor(table.oid).attrs.filter((a) => a.len === -1 && !a.dropped).map((a) => a.name);
  const name = `${table.namespaceName}.${table.name}`;
  const fork = new RelationFork(cat.path(table), cat.cluster.geometry);
  const tids: string[] = [];
  try {
    const from = table === target.rel ? blocks : [0, 1];
    for (const b of from) {
      if (b >= fork.nblocks) continue;
      const dv = pageView(fork.readBlock(b));
      // the line pointers that fit in the page, whatever a damaged pd_lower says
      const max = Math.min(maxOffsetNumber(dv), Math.floor((dv.byteLength - SizeOfPageHeaderData) / SizeOfItemIdData));
      for (let n = 1; n <= max; n++) if (lpFlags(itemIdWord(dv, n)) === LP_NORMAL) tids.push(`(${b},${n})`);
    }
  } finally {
    fork.close();
  }
  let budget = VALUES_PER_ROUND;
  for (const tid of tids) {
    for (const column of columns) {
      if (budget-- <= 0) return;
      try {
        readValue({ pgdata: o.pgdata, database: o.database, table: name, tid, column });
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        onError(e);
      }
    }
  }
}

/** The table whose TOAST relation (or index) `rel` is, or the table of an index. */
function ownerOf(cat: DatabaseCatalog, rel: RelationInfo): RelationInfo | undefined {
  if (rel.kind === "t") return [...cat.classes.values()].find((c) => c.toastRelid === rel.oid);
  if (rel.kind === "i") {
    const table = cat.classes.get(cat.indexes().get(rel.oid)?.tableOid ?? 0);
    return table?.kind === "t" ? ownerOf(cat, table) : table;
  }
  return rel;
}

/** What a writer was asked to do on a target: a table for `migrate toast` and `load`, an index for `migrate btree`. */
export type ConverterEntry = "migrate-toast" | "migrate-btree" | "load";

/** The converter's subject for a target, or null when the converter does not read it. */
export function converterSubject(entry: ConverterEntry, o: { pgdata: string; database: string }, target: ReaderTarget): string | null {
  const cat = new Cluster(o.pgdata).database(o.database);
  if (entry === "migrate-btree") return target.rel.kind === "i" && target.rel.amName === "btree" && target.rel.namespaceName !== "pg_toast" ? target.name : null;
  // load reads the table's last page, the catalog that describes it and its indexes' leaves
  if (entry === "load") {
    const table = target.rel.kind === "i" ? ownerOf(cat, target.rel) : target.rel;
    return table && table.kind === "r" && table.namespaceName !== "pg_toast" && table.namespaceName !== "pg_catalog" ? `${table.namespaceName}.${table.name}` : null;
  }
  // migrate toast reads the table, its TOAST relation and the TOAST index, not the table's own indexes
  if (target.rel.kind === "i" && target.rel.namespaceName !== "pg_toast") return null;
  const table = ownerOf(cat, target.rel);
  return table && table.toastRelid && (table.kind === "r" || table.kind === "m") ? `${table.namespaceName}.${table.name}` : null;
}

/**
 * Run a converter into a fresh output directory. A refusal must be a FormatError and leave no
 * output; a finished conversion's output is removed. Returns a failure message, or null.
 */
export async function converterEntry(entry: ConverterEntry, o: { pgdata: string; database: string }, subject: string, onError: (e: FormatError) => void): Promise<string | null> {
  const root = mkdtempSync(join(tmpdir(), "pgdisk-fuzz-out-"));
  const out = join(root, "data");
  const common = { pgdata: o.pgdata, out, database: o.database, fsync: false };
  try {
    try {
      // a dry run of an empty input: the loader reads everything it would append to and rebuilds the indexes in memory
      if (entry === "load") await loadTable({ pgdata: o.pgdata, database: o.database, table: subject, format: { format: "text" }, input: emptyInput(), inputName: "-", dryRun: true });
      else if (entry === "migrate-toast") await migrateToast({ ...common, tables: [subject], to: "direct", measure: 0 });
      else await migrateBtree({ ...common, indexes: [subject], to: "prefix", mode: "recode", policy: "lead" });
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      onError(e);
      if (existsSync(out)) return `${entry} ${subject} refused (${e.code}: ${e.message}) but left its output ${out}`;
    }
    if (existsSync(join(o.pgdata, "postmaster.pid"))) return `${entry} ${subject} left the input locked (postmaster.pid)`;
    return null;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
