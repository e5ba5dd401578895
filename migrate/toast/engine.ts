// `pgdisk migrate toast`: the conversion engine (../engine.ts) with the TOAST format only, in
// one database, with the report of one format. Returns plain data; the CLI renders it.
import { FormatError } from "../../formats/schema/errors.js";
import { migrate, MIGRATE_SQL_FILE, type MigrateOptions, type ToastTotals } from "../engine.js";
import type { ControlNameAction } from "../control-name.js";
import type { TableConversion } from "./table.js";
import type { TargetFlavour } from "./plan.js";

export { MIGRATE_SQL_FILE };

export interface MigrateToastOptions extends Omit<MigrateOptions, "toast" | "btree" | "databases" | "tables" | "indexes"> {
  database: string;
  /** table names ("name" or "schema.name") */
  tables?: string[];
  /** every user table (and materialized view) of the database with a TOAST relation */
  all?: boolean;
  to: TargetFlavour;
}

export type MigrateToastTotals = ToastTotals;

export interface MigrateToastReport {
  schema: "pgdisk.migrate-toast/1";
  input: string;
  output: string;
  inPlace: boolean;
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

export async function migrateToast(o: MigrateToastOptions): Promise<MigrateToastReport> {
  if (o.to !== "direct" && o.to !== "plain") throw usage(`--to must be direct or plain, not "${o.to}"`);
  if (o.all && o.tables?.length) throw usage("name tables with -t or use --all, not both");
  if (!o.all && !o.tables?.length) throw usage("nothing to convert: name a table with -t TABLE, or use --all");
  const r = await migrate({ ...o, toast: o.to, databases: [o.database], tables: o.all ? undefined : o.tables });
  const db = r.databases[0]!;
  return {
    schema: "pgdisk.migrate-toast/1",
    input: r.input,
    output: r.output,
    inPlace: r.inPlace,
    database: db.database,
    to: o.to,
    checksums: r.checksums,
    tables: db.tables,
    skipped: db.skipped.map((s) => ({ table: s.relation, reason: s.reason })),
    totals: r.totals.toast,
    control: r.control,
    sqlFile: r.sqlFile,
    seconds: r.seconds,
  };
}
