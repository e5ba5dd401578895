// `pgdisk migrate toast …`: the conversion engine with the TOAST format only, in one database
// (an alias of `pgdisk migrate --toast`, with the options and action of ../cli.ts).
import { Command, Option } from "commander";
import { runMigrateAction, SAFETY_HELP } from "../cli-run.js";
import { addWhereOptions, measureOption, printReport, whereFromCli, type WhereCliOptions } from "../cli.js";
import { migrateToast } from "./engine.js";
import { renderMigrateToastText } from "./render.js";
import type { TargetFlavour } from "./plan.js";

interface ToastCliOptions extends WhereCliOptions {
  database: string;
  table?: string[];
  all?: boolean;
  to: TargetFlavour;
  measure: string;
}

export function makeToastCommand(): Command {
  const cmd = new Command("toast").description("convert the TOAST values of tables of a stopped cluster between stock (plain) and Direct TOAST (pgdisk migrate --toast, one database)");
  return addWhereOptions(cmd)
    .requiredOption("-d, --database <name>", "database holding the tables")
    .option("-t, --table <name...>", "table to convert (name or schema.name); repeatable")
    .option("--all", "every user table and materialized view of the database that has a TOAST relation")
    .addOption(new Option("--to <flavour>", "target TOAST layout").choices(["direct", "plain"]).makeOptionMandatory())
    .addOption(measureOption())
    .addHelpText(
      "after",
      `
Each table's TOAST relation is rewritten: going to direct, every stock pointer whose tuple still
fits on its page (the pointer grows by 2 bytes) names a Direct TOAST value; pointers that do not
fit stay stock, their chunks kept and indexed. Parent pages keep their line pointer numbers, so
no TID changes and the table's indexes stay valid. The TOAST index is rebuilt over the stock
chunks; the TOAST relation's VM and FSM and the index's FSM are removed; checksums are set when
the cluster has them. A conversion that leaves Direct TOAST values renames global/pg_control to
pg_control.pgdisk so that no stock server starts on it (a stock server would crash reading a
direct pointer); converting back to plain restores it when none remains. The SQL a patched
server would run is written to pgdisk-migrate.sql in the result.

${SAFETY_HELP}

Exit status: 0 done, 1 usage error or a conversion that cannot be done here, 2 damage in the input.

Examples:
  pgdisk migrate toast --pgdata /srv/pg --out /srv/pg-direct -d app --all --to direct
  pgdisk migrate toast --pgdata /srv/pg-direct --out /srv/pg-plain -d app -t public.docs --to plain --json`,
    )
    .action((o: ToastCliOptions) =>
      runMigrateAction(async (abort) => {
        const r = await migrateToast({ ...whereFromCli(o, abort, o.measure), database: o.database, tables: o.table, all: o.all, to: o.to });
        printReport(o, r, () => renderMigrateToastText(r));
      }),
    );
}
