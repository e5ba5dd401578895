// `pgdisk migrate btree`: copy a stopped cluster and convert btree indexes in the copy between
// plain and BTP_PREFIX leaves (new-formats.md §2.6, §4). The input is only read. Returns plain
// data; the CLI renders it.
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { convertInCopy, finishOutput, withPreparedOutput, writeOutputFile, type OutputRunOptions } from "../output-run.js";
import { assertInputPagesIntact, catalogFiles } from "../input-check.js";
import { safePoint } from "../interrupt.js";
import { faultPoint } from "../fault-point.js";
import { BtreeCatalog } from "./index-info.js";
import { convertIndex, SAVINGS_BUCKETS, type ConvertMode, type IndexConversion, type TargetFormat } from "./convert.js";
import { fenceReason, type ControlNameAction } from "../control-name.js";
import { PREFIX_POLICIES, type PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";

export const FIRST_NORMAL_OBJECT_ID = 16384;
export const MIGRATE_SQL_FILE = "pgdisk-migrate.sql";

export interface MigrateBtreeOptions extends OutputRunOptions {
  database: string;
  /** index names ("name" or "schema.name") */
  indexes?: string[];
  /** every user btree index of the database (oid >= 16384, not in pg_toast) */
  all?: boolean;
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
}

export interface MigrateBtreeTotals {
  indexes: number;
  pagesBefore: number;
  pagesAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  leafPages: number;
  leafCoded: number;
  leafPlain: number;
  groups: number;
  bytesShared: number;
  savingsHistogram: number[];
}

export interface MigrateBtreeReport {
  schema: "pgdisk.migrate-btree/1";
  input: string;
  output: string;
  database: string;
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName | null;
  checksums: boolean;
  savingsBuckets: readonly string[];
  indexes: IndexConversion[];
  skipped: { index: string; reason: string }[];
  totals: MigrateBtreeTotals;
  control: ControlNameAction;
  sqlFile: string;
  seconds: number;
}

const quoteIdent = (s: string): string => (/^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`);
const qualified = (rel: RelationInfo): string => `${quoteIdent(rel.namespaceName)}.${quoteIdent(rel.name)}`;

function usage(message: string): FormatError {
  return new FormatError("USAGE", message);
}

/** The indexes named or selected, resolved in a catalog; the skipped ones with why. */
function selectIndexes(cat: DatabaseCatalog, o: MigrateBtreeOptions): { rels: RelationInfo[]; skipped: { index: string; reason: string }[] } {
  const skipped: { index: string; reason: string }[] = [];
  if (o.all) {
    const rels = [...cat.classes.values()]
      .filter((c) => c.kind === "i" && c.amName === "btree" && c.oid >= FIRST_NORMAL_OBJECT_ID && c.namespaceName !== "pg_toast" && c.filenode !== 0)
      .sort((a, b) => a.oid - b.oid)
      .filter((c) => {
        const ix = cat.indexes().get(c.oid);
        if (ix && !ix.valid) {
          skipped.push({ index: `${c.namespaceName}.${c.name}`, reason: "invalid index (indisvalid false)" });
          return false;
        }
        if (c.persistence === "t") {
          skipped.push({ index: `${c.namespaceName}.${c.name}`, reason: "temporary index" });
          return false;
        }
        return true;
      });
    return { rels, skipped };
  }
  const rels: RelationInfo[] = [];
  for (const name of o.indexes ?? []) {
    const rel = cat.findRelation(name);
    if (rel.kind !== "i" || rel.amName !== "btree") throw new FormatError("NOT_A_BTREE_INDEX", `"${name}" is ${rel.kind === "i" ? `a ${rel.amName} index` : `not an index (relkind ${rel.kind})`}; only btree indexes are converted`, {});
    if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `index "${name}" has no storage (a partitioned index); name its partitions' indexes`, {});
    if (!rels.some((r) => r.oid === rel.oid)) rels.push(rel);
  }
  return { rels, skipped };
}

function emptyTotals(): MigrateBtreeTotals {
  return { indexes: 0, pagesBefore: 0, pagesAfter: 0, bytesBefore: 0, bytesAfter: 0, leafPages: 0, leafCoded: 0, leafPlain: 0, groups: 0, bytesShared: 0, savingsHistogram: SAVINGS_BUCKETS.map(() => 0) };
}

export async function migrateBtree(o: MigrateBtreeOptions): Promise<MigrateBtreeReport> {
  const t0 = performance.now();
  if (o.to !== "prefix" && o.to !== "plain") throw usage(`--to must be prefix or plain, not "${o.to}"`);
  if (o.mode !== "recode" && o.mode !== "rebuild") throw usage(`--mode must be recode or rebuild, not "${o.mode}"`);
  if (!(o.policy in PREFIX_POLICIES)) throw usage(`--policy must be ${Object.keys(PREFIX_POLICIES).join(" or ")}, not "${o.policy}"`);
  if (o.all && o.indexes?.length) throw usage("name indexes with --index or use --all, not both");
  if (!o.all && !o.indexes?.length) throw usage("nothing to convert: name an index with --index NAME, or use --all");
  const progress = o.progress ?? (() => {});
  return withPreparedOutput(o, async (prep) => {
    const { input, output, control } = prep;
    // Resolve the targets on the input first, so that a wrong name fails before anything is copied.
    const inCluster = new Cluster(input);
    const inCat = inCluster.database(o.database);
    const selected = selectIndexes(inCat, o);
    const checksums = control.dataChecksumVersion !== 0;
    progress(`checking the input's pages${checksums ? " and checksums" : ""}`);
    assertInputPagesIntact([...catalogFiles(inCat), ...selected.rels.map((rel) => ({ path: inCat.path(rel), am: "btree" as const, relName: qualified(rel) }))], inCluster.geometry, checksums);
    return convertInCopy(prep, o, async () => {
      const cluster = new Cluster(output);
      const cat = cluster.database(o.database);
      const bc = new BtreeCatalog(cat);
      const results: IndexConversion[] = [];
      const converted = new Set<string>();
      for (const [i, inRel] of selected.rels.entries()) {
        await safePoint(o.abort);
        const rel = cat.classes.get(inRel.oid)!;
        const info = bc.info(rel);
        progress(`[${i + 1}/${selected.rels.length}] ${info.name}: ${o.mode} to ${o.to}${o.to === "prefix" ? ` (policy ${o.policy})` : ""}`);
        const r = convertIndex(info, cat.path(rel), { to: o.to, mode: o.mode, policy: o.policy, geometry: cluster.geometry, checksums, owner: prep.plan.owner, progress });
        results.push(r);
        converted.add(`${rel.shared ? 0 : cat.db.oid}/${rel.filenode}`);
        progress(`${info.name}: ${r.pagesBefore} -> ${r.pagesAfter} pages, ${r.leafCoded} of ${r.leafPages} leaf pages coded (${r.seconds.toFixed(1)} s)`);
        faultPoint("relation-done");
      }
      await safePoint(o.abort);
      const written = results.find((r) => r.to === "prefix" && r.leafCoded > 0);
      if (!written) progress("checking the other btree indexes for BTP_PREFIX pages");
      const reason = fenceReason(output, { prefixWritten: written?.index, scanPrefix: true, prefixSkip: converted, scanDirect: control.renamed });
      const sql = [
        `-- pgdisk migrate btree: ${o.mode} to ${o.to}${o.to === "prefix" ? ` (policy ${o.policy})` : ""}, database ${o.database}`,
        "-- Catalogs are not changed offline; run this on the patched server that reads BTP_PREFIX pages.",
        ...selected.rels.map((rel) => (o.to === "prefix" ? `ALTER INDEX ${qualified(rel)} SET (prefix_compression = on);` : `ALTER INDEX ${qualified(rel)} RESET (prefix_compression);`)),
        "",
      ].join("\n");
      const sqlFile = writeOutputFile(prep, MIGRATE_SQL_FILE, sql);
      const controlAction = finishOutput(prep, reason);

      const totals = emptyTotals();
      for (const r of results) {
        totals.indexes++;
        totals.pagesBefore += r.pagesBefore;
        totals.pagesAfter += r.pagesAfter;
        totals.bytesBefore += r.bytesBefore;
        totals.bytesAfter += r.bytesAfter;
        totals.leafPages += r.leafPages;
        totals.leafCoded += r.leafCoded;
        totals.leafPlain += r.leafPlain;
        totals.groups += r.groups;
        totals.bytesShared += r.bytesShared;
        r.savingsHistogram.forEach((n, k) => (totals.savingsHistogram[k]! += n));
      }
      return {
        schema: "pgdisk.migrate-btree/1",
        input,
        output,
        database: o.database,
        to: o.to,
        mode: o.mode,
        policy: o.to === "prefix" ? o.policy : null,
        checksums,
        savingsBuckets: SAVINGS_BUCKETS,
        indexes: results,
        skipped: selected.skipped,
        totals,
        control: controlAction,
        sqlFile,
        seconds: (performance.now() - t0) / 1000,
      } satisfies MigrateBtreeReport;
    });
  });
}
