// `pgdisk migrate …`: commander wiring only (the work is in engine.ts). The command itself
// converts both formats over every database or the named ones; `migrate toast` and `migrate
// btree` (toast/cli.ts, btree/cli.ts) are aliases with one format, built from the same options
// and the same action.
import { Command, Option } from "commander";
import { FormatError } from "../formats/schema/errors.js";
import { EXIT_OK } from "../cli/exit.js";
import { supportedRangeText } from "../formats/version/index.js";
import { runMigrateAction, SAFETY_HELP } from "./cli-run.js";
import { parseTablespaceMap } from "./output-copy.js";
import { migrate, type MigrateOptions } from "./engine.js";
import { abortInPlace } from "./in-place.js";
import { progressLine, renderMigrateText } from "./render.js";
import type { ControlNameAction } from "./control-name.js";
import { PREFIX_POLICY_NAMES, PREFIX_POLICY_SUMMARY, type PrefixPolicyName } from "../formats/nbtree/prefix-policy.js";
import type { ConvertMode, TargetFormat } from "./btree/convert.js";
import type { TargetFlavour } from "./toast/plan.js";
import type { CopyMode } from "./copy-mode.js";

/** Options every conversion command takes: where to read, where to write, how to report. */
export interface WhereCliOptions {
  pgdata: string;
  out?: string;
  inPlace?: boolean;
  tablespaceMap?: string[];
  sync: boolean;
  json?: boolean;
  quiet?: boolean;
  progress?: boolean;
  copyMode: CopyMode;
  jobs: string;
}

export function addWhereOptions(cmd: Command): Command {
  return cmd
    .requiredOption("--pgdata <dir>", `data directory of a stopped, cleanly shut down PostgreSQL ${supportedRangeText()} cluster`)
    .option("--out <dir>", "new data directory for the converted cluster (must not exist or be empty); the input is only read")
    .option("--in-place", "convert the cluster itself, through a journal (rerun the same command to resume after a crash, or --abort)")
    .addOption(new Option("--copy-mode <mode>", "with --out: untouched files cloned (reflinks; copied where the filesystem has none), copied, or hard-linked as pg_upgrade --link (the input's pg_control is then renamed pg_control.old)").choices(["clone", "copy", "link"]).default("clone"))
    .option("--tablespace-map <oid=dir...>", "with --out: directory of the output's copy of tablespace OID (default OUT.tblspc/OID); repeatable")
    .option("--no-sync", "do not wait for the written files to reach the disk (faster; unsafe if the machine crashes)")
    .option("--json", "print the report as JSON")
    .option("-q, --quiet", "no progress on stderr")
    .option("-P, --progress", "after each relation: bytes done, rate and time left on stderr")
    .option("-j, --jobs <n>", "relations converted at once by N worker threads (the main thread switches them in order: the same journal and bytes as -j 1)", "1");
}

export function addBtreeModeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--mode <mode>", "btree: recode: each leaf page alone, 1:1; rebuild: repack as CREATE INDEX would").choices(["recode", "rebuild"]).default("rebuild"))
    .addOption(new Option("--policy <policy>", `btree prefix encoder: ${PREFIX_POLICY_NAMES.map((p) => `${p} (${PREFIX_POLICY_SUMMARY[p]})`).join(", ")}`).choices(PREFIX_POLICY_NAMES).default("lead"));
}

export const measureOption = (): Option => new Option("--measure <n>", "values per class (single, multi, tree) read before and after to count pages touched; 0 skips (not measured in place)").default("200");

/** The engine options the shared CLI options give. */
export function whereFromCli(o: WhereCliOptions, abort: AbortSignal, measure?: string): Pick<MigrateOptions, "pgdata" | "out" | "inPlace" | "copyMode" | "tablespaceMap" | "fsync" | "abort" | "progress" | "onProgress" | "measure" | "jobs"> {
  const m = measure === undefined ? undefined : Number(measure);
  if (m !== undefined && (!Number.isInteger(m) || m < 0)) throw new FormatError("USAGE", `--measure must be a whole number, not "${measure}"`);
  const jobs = Number(o.jobs ?? "1");
  if (!Number.isInteger(jobs) || jobs < 1) throw new FormatError("USAGE", `--jobs must be a whole number of at least 1, not "${o.jobs}"`);
  const say = (line: string): void => void process.stderr.write(`pgdisk: ${line}\n`);
  return {
    pgdata: o.pgdata,
    out: o.out,
    inPlace: o.inPlace,
    copyMode: o.copyMode,
    tablespaceMap: parseTablespaceMap(o.tablespaceMap),
    fsync: o.sync,
    abort,
    progress: o.quiet ? undefined : say,
    onProgress: o.progress ? (p) => say(progressLine(p)) : undefined,
    measure: m,
    jobs,
  };
}

/** Print a finished run's report (JSON or text) and what the fence means. */
export function printReport(o: WhereCliOptions, r: { output: string; control: ControlNameAction }, text: () => string): void {
  process.stdout.write(o.json ? JSON.stringify(r, null, 1) + "\n" : text());
  if (!o.json && r.control.action === "renamed") process.stderr.write(`pgdisk: ${r.control.file}: pg_control renamed; a stock server will refuse to start on ${r.output}\n`);
  process.exitCode = EXIT_OK;
}

interface MigrateCliOptions extends WhereCliOptions {
  toast?: TargetFlavour;
  btree?: TargetFormat;
  mode: ConvertMode;
  policy: PrefixPolicyName;
  database?: string[];
  table?: string[];
  index?: string[];
  measure: string;
  abort?: boolean;
  check?: boolean;
  scratch?: string;
}

export function makeConvertCommand(): Command {
  const cmd = new Command("convert").description("convert a stopped cluster (every database, or the ones named) between stock and the proposed formats, both formats in one run");
  addWhereOptions(cmd)
    .addOption(new Option("--toast <flavour>", "TOAST values of every table selected: direct or plain").choices(["direct", "plain"]))
    .addOption(new Option("--btree <format>", "leaf pages of every btree index selected: prefix or plain").choices(["prefix", "plain"]));
  addBtreeModeOptions(cmd)
    .option("-d, --database <name...>", "database to convert (default: every database); repeatable")
    .option("-t, --table <name...>", "only these tables' TOAST values (name or schema.name); repeatable")
    .option("--index <name...>", "only these btree indexes (name or schema.name); repeatable")
    .addOption(measureOption())
    .option("--check", "the what-if report: every figure of the conversion, nothing written into the cluster (the new files go to a scratch directory, removed)")
    .option("--scratch <dir>", "with --check: where the converted relations' new files are made (default: the system's temporary directory)")
    .option("--abort", "undo an interrupted --in-place run: every file of the cluster gets its original bytes back")
    .addHelpText(
      "after",
      `
Every user table with a TOAST relation (--toast) and every valid user btree index (--btree) of
each database is converted, or only those named with -t and --index. The relations are
converted in OID order (-j N: N at once, in worker threads, switched in that order), each with
the work of 'pgdisk migrate toast' and 'pgdisk migrate btree' (see their --help). With --out the result is a new cluster (the input is
only read); with --in-place the cluster itself is converted through a journal in the data
directory (docs/migrate-safety.md): after a crash, rerun the same command to resume. A result
holding Direct TOAST values or BTP_PREFIX pages has global/pg_control.pgdisk and a fenced
PG_VERSION, so that neither a stock server nor pg_resetwal takes it; converting back (--toast
plain --btree plain) restores both. The SQL
a patched server would run is written to pgdisk-migrate.sql in the result.

${SAFETY_HELP}

Exit status: 0 done, 1 usage error or a conversion that cannot be done here, 2 damage in the input.

Examples:
  pgdisk migrate --pgdata /srv/pg --check --toast direct --btree prefix
  pgdisk migrate --pgdata /srv/pg --out /srv/pg-new --toast direct --btree prefix
  pgdisk migrate --pgdata /srv/pg --in-place -d app --toast plain --btree plain -P
  pgdisk migrate --abort --pgdata /srv/pg`,
    )
    .action((o: MigrateCliOptions) =>
      runMigrateAction(async (abort) => {
        if (o.abort) {
          const a = abortInPlace(o.pgdata);
          process.stdout.write(o.json ? JSON.stringify(a, null, 1) + "\n" : `pgdisk migrate --abort: ${a.records} journal records undone; ${a.pgdata} holds its original files\n`);
          process.exitCode = EXIT_OK;
          return;
        }
        const r = await migrate({
          ...whereFromCli(o, abort, o.measure),
          toast: o.toast,
          btree: o.btree ? { to: o.btree, mode: o.mode, policy: o.policy } : undefined,
          databases: o.database,
          tables: o.table,
          indexes: o.index,
          check: o.check,
          scratch: o.scratch,
        });
        printReport(o, r, () => renderMigrateText(r));
      }),
    );
  return cmd;
}
