// `pgdisk migrate btree`: the conversion engine (../engine.ts) with the btree format only, in one
// database, with the report of one format. Returns plain data; the CLI renders it.
import { FormatError } from "../../formats/schema/errors.js";
import { migrate, MIGRATE_SQL_FILE, type BtreeTotals, type MigrateOptions } from "../engine.js";
import type { ControlNameAction } from "../control-name.js";
import type { ConvertMode, IndexConversion, TargetFormat } from "./convert.js";
import type { PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";

export { MIGRATE_SQL_FILE };

export interface MigrateBtreeOptions extends Omit<MigrateOptions, "toast" | "btree" | "databases" | "tables" | "indexes"> {
  database: string;
  /** index names ("name" or "schema.name") */
  indexes?: string[];
  /** every user btree index of the database (oid >= 16384, not in pg_toast) */
  all?: boolean;
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
}

export type MigrateBtreeTotals = BtreeTotals;

export interface MigrateBtreeReport {
  schema: "pgdisk.migrate-btree/1";
  input: string;
  output: string;
  inPlace: boolean;
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

const usage = (m: string): FormatError => new FormatError("USAGE", m);

export async function migrateBtree(o: MigrateBtreeOptions): Promise<MigrateBtreeReport> {
  if (o.to !== "prefix" && o.to !== "plain") throw usage(`--to must be prefix or plain, not "${o.to}"`);
  if (o.all && o.indexes?.length) throw usage("name indexes with --index or use --all, not both");
  if (!o.all && !o.indexes?.length) throw usage("nothing to convert: name an index with --index NAME, or use --all");
  const r = await migrate({ ...o, btree: { to: o.to, mode: o.mode, policy: o.policy }, databases: [o.database], indexes: o.all ? undefined : o.indexes });
  const db = r.databases[0]!;
  return {
    schema: "pgdisk.migrate-btree/1",
    input: r.input,
    output: r.output,
    inPlace: r.inPlace,
    database: db.database,
    to: o.to,
    mode: o.mode,
    policy: o.to === "prefix" ? o.policy : null,
    checksums: r.checksums,
    savingsBuckets: r.savingsBuckets,
    indexes: db.indexes,
    skipped: db.skipped.map((s) => ({ index: s.relation, reason: s.reason })),
    totals: r.totals.btree,
    control: r.control,
    sqlFile: r.sqlFile,
    seconds: r.seconds,
  };
}
