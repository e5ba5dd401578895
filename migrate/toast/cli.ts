// `pgdisk migrate toast …`: commander wiring only; the work is in engine.ts.
import { Command, Option } from "commander";
import { FormatError } from "../../formats/schema/errors.js";
import { EXIT_OK } from "../../cli/exit.js";
import { runMigrateAction, SAFETY_HELP } from "../cli-run.js";
import { parseTablespaceMap } from "../output-copy.js";
import { migrateToast } from "./engine.js";
import { renderMigrateToastText } from "./render.js";
import type { TargetFlavour } from "./plan.js";
import { supportedRangeText } from "../../formats/version/index.js";

interface ToastCliOptions {
  pgdata: string;
  out: string;
  database: string;
  table?: string[];
  all?: boolean;
  to: TargetFlavour;
  tablespaceMap?: string[];
  measure: string;
  sync: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** This converter's own refusals (exit 1); the shared ones are in cli-run.ts. */
const OPERATIONAL = ["NOT_A_TABLE", "NO_TOAST_RELATION"];

export function makeToastCommand(): Command {
  return new Command("toast")
    .description("convert the TOAST values of tables of a stopped cluster, in a copy, between stock (plain) and Direct TOAST")
    .requiredOption("--pgdata <dir>", `data directory of a stopped, cleanly shut down PostgreSQL ${supportedRangeText()} cluster (only read)`)
    .requiredOption("--out <dir>", "new data directory for the converted copy (must not exist or be empty)")
    .requiredOption("-d, --database <name>", "database holding the tables")
    .option("-t, --table <name...>", "table to convert (name or schema.name); repeatable")
    .option("--all", "every user table and materialized view of the database that has a TOAST relation")
    .addOption(new Option("--to <flavour>", "target TOAST layout").choices(["direct", "plain"]).makeOptionMandatory())
    .option("--tablespace-map <oid=dir...>", "directory of the output's copy of tablespace OID (default OUT.tblspc/OID); repeatable")
    .option("--measure <n>", "values per class (single, multi, tree) read before and after to count pages touched; 0 skips", "200")
    .option("--no-sync", "do not wait for the rewritten files to reach the disk (faster; unsafe if the machine crashes)")
    .option("--json", "print the report as JSON")
    .option("-q, --quiet", "no progress on stderr")
    .addHelpText(
      "after",
      `
The input is never written. The output is a copy (cp -a) in which each table's TOAST relation is
rewritten: going to direct, every stock pointer whose tuple still fits on its page (the pointer
grows by 2 bytes) names a Direct TOAST value; pointers that do not fit stay stock, their chunks
kept and indexed. Parent pages keep their line pointer numbers, so no TID changes and the
table's indexes stay valid. The TOAST index is rebuilt over the stock chunks; the TOAST
relation's VM and FSM and the index's FSM are removed; checksums are set when the cluster has
them. A conversion that leaves Direct TOAST values renames OUT/global/pg_control to
pg_control.pgdisk so that no stock server starts on it (a stock server would crash reading a
direct pointer); converting back to plain restores it when none remains. The SQL a patched
server would run is written to OUT/pgdisk-migrate.sql.

${SAFETY_HELP}

Exit status: 0 done, 1 usage error or a conversion that cannot be done here, 2 damage in the input.

Examples:
  pgdisk migrate toast --pgdata /srv/pg --out /srv/pg-direct -d app --all --to direct
  pgdisk migrate toast --pgdata /srv/pg-direct --out /srv/pg-plain -d app -t public.docs --to plain --json`,
    )
    .action((o: ToastCliOptions) =>
      runMigrateAction(OPERATIONAL, async (abort) => {
        const measure = Number(o.measure);
        if (!Number.isInteger(measure) || measure < 0) throw new FormatError("USAGE", `--measure must be a whole number, not "${o.measure}"`);
        const progress = o.quiet ? undefined : (m: string) => process.stderr.write(`pgdisk: ${m}\n`);
        const tablespaceMap = parseTablespaceMap(o.tablespaceMap);
        const r = await migrateToast({ pgdata: o.pgdata, out: o.out, database: o.database, tables: o.table, all: o.all, to: o.to, measure, fsync: o.sync, tablespaceMap, abort, progress });
        process.stdout.write(o.json ? JSON.stringify(r, null, 1) + "\n" : renderMigrateToastText(r));
        if (!o.json && r.control.action === "renamed") process.stderr.write(`pgdisk: ${r.control.file}: pg_control renamed; a stock server will refuse to start on ${r.output}\n`);
        process.exitCode = EXIT_OK;
      }),
    );
}
