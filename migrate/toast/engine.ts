// `pgdisk migrate toast`: copy a stopped cluster and convert the TOAST values of tables in the
// copy between stock and Direct TOAST (new-formats.md §1.6, §4). The input is only read. Returns
// plain data; the CLI renders it.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { assertClusterStopped } from "../safety.js";
import { copyClusterForOutput, abandonOutput } from "../output-copy.js";
import { clusterHasDirectToast, clusterHasPrefixPages, CONTROL_RENAMED, type ControlNameAction } from "../control-name.js";
import { convertTable, FIRST_NORMAL_OBJECT_ID, type TableConversion } from "./table.js";
import type { TargetFlavour } from "./plan.js";
import { migrateSql } from "./sql.js";

export const MIGRATE_SQL_FILE = "pgdisk-migrate.sql";

export interface MigrateToastOptions {
  pgdata: string;
  out: string;
  database: string;
  /** table names ("name" or "schema.name") */
  tables?: string[];
  /** every user table (and materialized view) of the database with a TOAST relation */
  all?: boolean;
  to: TargetFlavour;
  /** values per class read before and after for the pages-touched figures (default 200; 0: none) */
  measure?: number;
  /** fsync every file written (default true; pg_checksums' --no-sync when false) */
  fsync?: boolean;
  progress?: (message: string) => void;
}

export interface MigrateToastTotals {
  tables: number;
  pointers: number;
  converted: number;
  keptPlain: number;
  directValues: number;
  plainValues: number;
  toastBytesBefore: number;
  toastBytesAfter: number;
  indexBytesBefore: number;
  indexBytesAfter: number;
  oidsNoLongerUsed: number;
}

export interface MigrateToastReport {
  schema: "pgdisk.migrate-toast/1";
  input: string;
  output: string;
  database: string;
  to: TargetFlavour;
  checksums: boolean;
  tables: TableConversion[];
  skipped: { table: string; reason: string }[];
  totals: MigrateToastTotals;
  control: ControlNameAction;
  sqlFile: string;
  seconds: number;
}

const usage = (m: string): FormatError => new FormatError("USAGE", m);

/** The tables named or selected, resolved in a catalog; the skipped ones with why. */
export function selectTables(cat: DatabaseCatalog, o: Pick<MigrateToastOptions, "tables" | "all">): { rels: RelationInfo[]; skipped: { table: string; reason: string }[] } {
  const skipped: { table: string; reason: string }[] = [];
  if (o.all) {
    const rels = [...cat.classes.values()]
      .filter((c) => (c.kind === "r" || c.kind === "m") && c.oid >= FIRST_NORMAL_OBJECT_ID && c.filenode !== 0 && c.namespaceName !== "pg_toast")
      .sort((a, b) => a.oid - b.oid)
      .filter((c) => {
        const n = `${c.namespaceName}.${c.name}`;
        if (!c.toastRelid) {
          skipped.push({ table: n, reason: "no TOAST relation" });
          return false;
        }
        if (c.persistence === "t") {
          skipped.push({ table: n, reason: "temporary table" });
          return false;
        }
        return true;
      });
    return { rels, skipped };
  }
  const rels: RelationInfo[] = [];
  for (const name of o.tables ?? []) {
    const rel = cat.findRelation(name);
    if (rel.kind !== "r" && rel.kind !== "m") throw new FormatError("NOT_A_TABLE", `"${name}" is not a table or materialized view (relkind ${rel.kind})`, {});
    if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `table "${name}" has no storage (a partitioned table); name its partitions`, {});
    if (!rel.toastRelid) throw new FormatError("NO_TOAST_RELATION", `table "${name}" has no TOAST relation`, {});
    if (!rels.some((r) => r.oid === rel.oid)) rels.push(rel);
  }
  return { rels, skipped };
}

/**
 * Put global/pg_control under the name the output needs (new-formats.md §4): renamed while a
 * direct value (or a BTP_PREFIX page) remains, restored once neither does.
 */
function settleControl(out: string, to: TargetFlavour, wroteDirect: boolean): ControlNameAction {
  const plain = join(out, "global", "pg_control");
  const renamed = join(out, "global", CONTROL_RENAMED);
  const isRenamed = !existsSync(plain) && existsSync(renamed);
  if (to === "direct") {
    if (!wroteDirect) return { action: isRenamed ? "kept-renamed" : "unchanged", file: isRenamed ? renamed : plain, reason: "no value was converted to Direct TOAST" };
    if (isRenamed) return { action: "kept-renamed", file: renamed, reason: "the output holds Direct TOAST values" };
    renameSync(plain, renamed);
    return { action: "renamed", file: renamed, reason: "the output holds Direct TOAST values; no stock server may start on it" };
  }
  if (!isRenamed) return { action: "unchanged", file: plain, reason: "no Direct TOAST value in the output" };
  const direct = clusterHasDirectToast(out);
  if (direct.found) return { action: "kept-renamed", file: renamed, reason: `Direct TOAST values remain (${direct.where})` };
  const prefix = clusterHasPrefixPages(out);
  if (prefix.found) return { action: "kept-renamed", file: renamed, reason: `no Direct TOAST value remains, but BTP_PREFIX pages do (${prefix.where})` };
  renameSync(renamed, plain);
  return { action: "restored", file: plain, reason: "no Direct TOAST value and no BTP_PREFIX page remains" };
}

export function migrateToast(o: MigrateToastOptions): MigrateToastReport {
  const t0 = performance.now();
  if (o.to !== "direct" && o.to !== "plain") throw usage(`--to must be direct or plain, not "${o.to}"`);
  if (o.all && o.tables?.length) throw usage("name tables with -t or use --all, not both");
  if (!o.all && !o.tables?.length) throw usage("nothing to convert: name a table with -t TABLE, or use --all");
  const input = resolve(o.pgdata);
  const output = resolve(o.out);
  const progress = o.progress ?? (() => {});

  const control = assertClusterStopped(input);
  // resolve the tables on the input first, so that a wrong name fails before anything is copied
  const inCluster = new Cluster(input);
  const inCat = inCluster.database(o.database);
  const selected = selectTables(inCat, o);
  progress(`copying ${input} to ${output}`);
  mkdirSync(dirname(output), { recursive: true });
  copyClusterForOutput(input, output);
  try {
    const cluster = new Cluster(output);
    const cat = cluster.database(o.database);
    const checksums = control.dataChecksumVersion !== 0;
    const tables: TableConversion[] = [];
    for (const [i, inRel] of selected.rels.entries()) {
      const rel = cat.classes.get(inRel.oid)!;
      progress(`[${i + 1}/${selected.rels.length}] ${rel.namespaceName}.${rel.name}: to ${o.to}`);
      const r = convertTable({ cat, inCat, to: o.to, checksums, measure: o.measure ?? 200, fsync: o.fsync ?? true, progress }, rel);
      tables.push(r);
      progress(`${r.table}: ${r.pointers.converted} of ${r.pointers.total} pointers converted, TOAST ${r.toastHeap.pagesBefore} -> ${r.toastHeap.pagesAfter} pages, index ${r.toastIndexSize.pagesBefore} -> ${r.toastIndexSize.pagesAfter} pages (${r.seconds.toFixed(1)} s)`);
    }
    const wroteDirect = tables.some((r) => r.values.direct.single + r.values.direct.flat + r.values.direct.tree > 0);
    const controlAction = settleControl(output, o.to, wroteDirect);
    const sqlFile = join(output, MIGRATE_SQL_FILE);
    writeFileSync(sqlFile, migrateSql(o.to, o.database, selected.rels.map((r) => cat.classes.get(r.oid)!), cat));
    const totals: MigrateToastTotals = { tables: 0, pointers: 0, converted: 0, keptPlain: 0, directValues: 0, plainValues: 0, toastBytesBefore: 0, toastBytesAfter: 0, indexBytesBefore: 0, indexBytesAfter: 0, oidsNoLongerUsed: 0 };
    for (const r of tables) {
      totals.tables++;
      totals.pointers += r.pointers.total;
      totals.converted += r.pointers.converted;
      totals.keptPlain += r.pointers.keptPlain["does-not-fit"] + r.pointers.keptPlain["chunks-missing"];
      totals.directValues += r.values.direct.single + r.values.direct.flat + r.values.direct.tree;
      totals.plainValues += r.values.plain;
      totals.toastBytesBefore += r.toastHeap.bytesBefore;
      totals.toastBytesAfter += r.toastHeap.bytesAfter;
      totals.indexBytesBefore += r.toastIndexSize.bytesBefore;
      totals.indexBytesAfter += r.toastIndexSize.bytesAfter;
      totals.oidsNoLongerUsed += r.oidsNoLongerUsed.count;
    }
    return {
      schema: "pgdisk.migrate-toast/1",
      input,
      output,
      database: o.database,
      to: o.to,
      checksums,
      tables,
      skipped: selected.skipped,
      totals,
      control: controlAction,
      sqlFile,
      seconds: (performance.now() - t0) / 1000,
    };
  } catch (e) {
    throw abandonOutput(output, e);
  }
}
