// `pgdisk migrate btree …`: the conversion engine with the btree format only, in one database
// (an alias of `pgdisk migrate --btree`, with the options and action of ../cli.ts).
import { Command, Option } from "commander";
import { runMigrateAction, SAFETY_HELP } from "../cli-run.js";
import { addBtreeModeOptions, addWhereOptions, printReport, whereFromCli, type WhereCliOptions } from "../cli.js";
import { migrateBtree } from "./engine.js";
import { renderMigrateBtreeText } from "./render.js";
import type { ConvertMode, TargetFormat } from "./convert.js";
import type { PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";

interface BtreeCliOptions extends WhereCliOptions {
  database: string;
  index?: string[];
  all?: boolean;
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
}

export function makeBtreeCommand(): Command {
  const cmd = new Command("btree").description("convert btree indexes of a stopped cluster between plain and BTP_PREFIX (prefix-compressed) leaf pages (pgdisk migrate --btree, one database)");
  addWhereOptions(cmd)
    .requiredOption("-d, --database <name>", "database holding the indexes")
    .option("--index <name...>", "index to convert (name or schema.name); repeatable")
    .option("--all", "every user btree index of the database (not pg_toast, not invalid ones)")
    .addOption(new Option("--to <format>", "target leaf format").choices(["prefix", "plain"]).makeOptionMandatory());
  return addBtreeModeOptions(cmd)
    .addHelpText(
      "after",
      `
The chosen indexes are rewritten (checksums recomputed when the cluster has them; a rebuilt index
loses its FSM fork). A conversion that leaves BTP_PREFIX pages renames global/pg_control to
pg_control.pgdisk so that no stock server starts on it; converting back to plain restores the
name when no BTP_PREFIX page remains. The SQL a patched server would run (ALTER INDEX ... SET
(prefix_compression = on)) is written to pgdisk-migrate.sql in the result.

${SAFETY_HELP}

Exit status: 0 done, 1 usage error or a conversion that cannot be done, 2 damage in the input.

Examples:
  pgdisk migrate btree --pgdata /srv/pg --out /srv/pg-prefix -d app --all --to prefix
  pgdisk migrate btree --pgdata /srv/pg-prefix --out /srv/pg-plain -d app --all --to plain --json`,
    )
    .action((o: BtreeCliOptions) =>
      runMigrateAction(async (abort) => {
        const r = await migrateBtree({ ...whereFromCli(o, abort), database: o.database, indexes: o.index, all: o.all, to: o.to, mode: o.mode, policy: o.policy });
        printReport(o, r, () => renderMigrateBtreeText(r));
      }),
    );
}
