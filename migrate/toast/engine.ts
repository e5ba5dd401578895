// `pgdisk migrate toast`: copy a stopped cluster and convert the TOAST values of tables in the
// copy between stock and Direct TOAST (new-formats.md §1.6, §4). The input is only read. Returns
// plain data; the CLI renders it.
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { convertInCopy, finishOutput, withPreparedOutput, writeOutputFile, type OutputRunOptions } from "../output-run.js";
import { assertInputPagesIntact, catalogFiles, type InputRelationFile } from "../input-check.js";
import { safePoint } from "../interrupt.js";
import { faultPoint } from "../fault-point.js";
import { fenceReason, type ControlNameAction } from "../control-name.js";
import { convertTable, FIRST_NORMAL_OBJECT_ID, type TableConversion } from "./table.js";
import type { TargetFlavour } from "./plan.js";
import { migrateSql } from "./sql.js";

export const MIGRATE_SQL_FILE = "pgdisk-migrate.sql";

export interface MigrateToastOptions extends OutputRunOptions {
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

/** The files a conversion of these tables reads: each table, its TOAST relation and TOAST index. */
function inputFiles(cat: DatabaseCatalog, rels: readonly RelationInfo[]): InputRelationFile[] {
  const files: InputRelationFile[] = [];
  for (const rel of rels) {
    const toast = cat.classes.get(rel.toastRelid);
    const ix = toast && cat.toastIndexOf(toast.oid);
    const ixRel = ix ? cat.classes.get(ix.indexOid) : undefined;
    files.push({ path: cat.path(rel), am: "heap", relName: `${rel.namespaceName}.${rel.name}` });
    if (toast && toast.filenode !== 0) files.push({ path: cat.path(toast), am: "heap", relName: `${toast.namespaceName}.${toast.name}` });
    if (ixRel && ixRel.filenode !== 0) files.push({ path: cat.path(ixRel), am: "btree", relName: `${ixRel.namespaceName}.${ixRel.name}` });
  }
  return files;
}

export async function migrateToast(o: MigrateToastOptions): Promise<MigrateToastReport> {
  const t0 = performance.now();
  if (o.to !== "direct" && o.to !== "plain") throw usage(`--to must be direct or plain, not "${o.to}"`);
  if (o.all && o.tables?.length) throw usage("name tables with -t or use --all, not both");
  if (!o.all && !o.tables?.length) throw usage("nothing to convert: name a table with -t TABLE, or use --all");
  const progress = o.progress ?? (() => {});
  return withPreparedOutput(o, async (prep) => {
    const { input, output, control } = prep;
    // resolve the tables on the input first, so that a wrong name fails before anything is copied
    const inCluster = new Cluster(input);
    const inCat = inCluster.database(o.database);
    const selected = selectTables(inCat, o);
    const checksums = control.dataChecksumVersion !== 0;
    progress(`checking the input's pages${checksums ? " and checksums" : ""}`);
    assertInputPagesIntact([...catalogFiles(inCat), ...inputFiles(inCat, selected.rels)], inCluster.geometry, checksums);
    return convertInCopy(prep, o, async () => {
      const cluster = new Cluster(output);
      const cat = cluster.database(o.database);
      const tables: TableConversion[] = [];
      for (const [i, inRel] of selected.rels.entries()) {
        await safePoint(o.abort);
        const rel = cat.classes.get(inRel.oid)!;
        progress(`[${i + 1}/${selected.rels.length}] ${rel.namespaceName}.${rel.name}: to ${o.to}`);
        const r = convertTable({ cat, inCat, to: o.to, checksums, measure: o.measure ?? 200, fsync: o.fsync ?? true, owner: prep.plan.owner, progress }, rel);
        tables.push(r);
        faultPoint("relation-done");
        progress(`${r.table}: ${r.pointers.converted} of ${r.pointers.total} pointers converted, TOAST ${r.toastHeap.pagesBefore} -> ${r.toastHeap.pagesAfter} pages, index ${r.toastIndexSize.pagesBefore} -> ${r.toastIndexSize.pagesAfter} pages (${r.seconds.toFixed(1)} s)`);
      }
      await safePoint(o.abort);
      const wroteDirect = tables.find((r) => r.values.direct.single + r.values.direct.flat + r.values.direct.tree > 0);
      const reason = fenceReason(output, { directWritten: wroteDirect?.table, scanDirect: control.renamed, scanPrefix: control.renamed });
      const sqlFile = writeOutputFile(prep, MIGRATE_SQL_FILE, migrateSql(o.to, o.database, selected.rels.map((r) => cat.classes.get(r.oid)!), cat));
      const controlAction = finishOutput(prep, reason, o.fsync ?? true);
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
      } satisfies MigrateToastReport;
    });
  });
}
