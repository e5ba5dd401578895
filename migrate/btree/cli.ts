// `pgdisk migrate btree …`: commander wiring only; the work is in engine.ts.
import { Command, Option } from "commander";
import { EXIT_OK } from "../../cli/exit.js";
import { runMigrateAction, SAFETY_HELP } from "../cli-run.js";
import { parseTablespaceMap } from "../output-copy.js";
import { migrateBtree } from "./engine.js";
import { renderMigrateBtreeText } from "./render.js";
import type { ConvertMode, TargetFormat } from "./convert.js";
import type { PrefixPolicyName } from "../../formats/nbtree/prefix-policy.js";
import { supportedRangeText } from "../../formats/version/index.js";

interface BtreeCliOptions {
  pgdata: string;
  out: string;
  database: string;
  index?: string[];
  all?: boolean;
  to: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
  tablespaceMap?: string[];
  json?: boolean;
  quiet?: boolean;
}

/** This converter's own refusals (exit 1); the shared ones are in cli-run.ts. */
const OPERATIONAL = ["NOT_A_BTREE_INDEX", "PREFIX_RECODE_DOES_NOT_FIT", "BT_VERSION_TOO_OLD", "BAD_RELOPTION"];

export function makeBtreeCommand(): Command {
  return new Command("btree")
    .description("convert btree indexes of a stopped cluster, in a copy, between plain and BTP_PREFIX (prefix-compressed) leaf pages")
    .requiredOption("--pgdata <dir>", `data directory of a stopped, cleanly shut down PostgreSQL ${supportedRangeText()} cluster (only read)`)
    .requiredOption("--out <dir>", "new data directory for the converted copy (must not exist or be empty)")
    .requiredOption("-d, --database <name>", "database holding the indexes")
    .option("--index <name...>", "index to convert (name or schema.name); repeatable")
    .option("--all", "every user btree index of the database (not pg_toast, not invalid ones)")
    .addOption(new Option("--to <format>", "target leaf format").choices(["prefix", "plain"]).makeOptionMandatory())
    .addOption(new Option("--mode <mode>", "recode: each leaf page alone, 1:1; rebuild: repack as CREATE INDEX would").choices(["recode", "rebuild"]).default("rebuild"))
    .addOption(new Option("--policy <policy>", "prefix encoder: v9 (lead 0) or lead (lead chosen per group)").choices(["v9", "lead"]).default("lead"))
    .option("--tablespace-map <oid=dir...>", "directory of the output's copy of tablespace OID (default OUT.tblspc/OID); repeatable")
    .option("--json", "print the report as JSON")
    .option("-q, --quiet", "no progress on stderr")
    .addHelpText(
      "after",
      `
The input is never written. The output is a copy (cp -a) with the chosen indexes rewritten
(checksums recomputed when the cluster has them; a rebuilt index loses its FSM fork). A conversion
that leaves BTP_PREFIX pages renames OUT/global/pg_control to pg_control.pgdisk so that no stock
server starts on it; converting back to plain restores the name when no BTP_PREFIX page remains.
The SQL a patched server would run (ALTER INDEX ... SET (prefix_compression = on)) is written to
OUT/pgdisk-migrate.sql.

${SAFETY_HELP}

Exit status: 0 done, 1 usage error or a conversion that cannot be done, 2 damage in the input.

Examples:
  pgdisk migrate btree --pgdata /srv/pg --out /srv/pg-prefix -d app --all --to prefix
  pgdisk migrate btree --pgdata /srv/pg-prefix --out /srv/pg-plain -d app --all --to plain --json`,
    )
    .action((o: BtreeCliOptions) =>
      runMigrateAction(OPERATIONAL, async (abort) => {
        const progress = o.quiet ? undefined : (m: string) => process.stderr.write(`pgdisk: ${m}\n`);
        const tablespaceMap = parseTablespaceMap(o.tablespaceMap);
        const r = await migrateBtree({ pgdata: o.pgdata, out: o.out, database: o.database, indexes: o.index, all: o.all, to: o.to, mode: o.mode, policy: o.policy, tablespaceMap, abort, progress });
        process.stdout.write(o.json ? JSON.stringify(r, null, 1) + "\n" : renderMigrateBtreeText(r));
        if (!o.json && r.control.action === "renamed") process.stderr.write(`pgdisk: ${r.control.file}: pg_control renamed; a stock server will refuse to start on ${r.output}\n`);
        process.exitCode = EXIT_OK;
      }),
    );
}
