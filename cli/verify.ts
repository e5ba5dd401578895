// `pgdisk verify`: commander wiring over verify/run.ts; the engine returns plain data and the
// renderers in verify/report/ turn it into text, JSON or JUnit XML.
import { writeFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { FormatError } from "../formats/schema/errors.js";
import { DEFAULT_VERIFY_OPTIONS } from "../verify/relation.js";
import { runVerify, type Progress } from "../verify/run.js";
import { renderJson } from "../verify/report/json.js";
import { renderJunit } from "../verify/report/junit.js";
import { renderText } from "../verify/report/text.js";
import { reportError } from "./exit.js";
import { supportedRangeText } from "../formats/version/index.js";

const collect = (v: string, prev: string[]): string[] => [...prev, v];

function positiveInt(s: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`"${s}" is not a positive integer`);
  return n;
}

/** At most one line a second, \r-rewritten on a terminal (pg_checksums -P style). */
function progressPrinter(): (p: Progress) => void {
  let last = 0;
  const tty = process.stderr.isTTY;
  return (p) => {
    const now = Date.now();
    const finished = p.relationsDone === p.relations;
    if (now - last < 1000 && !finished) return;
    last = now;
    const pct = p.pages ? Math.min(100, Math.floor((100 * p.pagesDone) / p.pages)) : 100;
    process.stderr.write(`${p.relationsDone}/${p.relations} relations, ${p.pagesDone}/${p.pages} pages (${pct}%) verified${tty && !finished ? "\r" : "\n"}`);
  };
}

export function makeVerifyCommand(): Command {
  return new Command("verify")
    .description("check a stopped cluster, a database, relations or relation files for corruption, offline (amcheck's and pg_checksums' checks, and more)")
    .argument("[files...]", "relation files (segment files of any fork); inside a data directory they are found in its catalog")
    .option("-D, --pgdata <dir>", `data directory of a stopped PostgreSQL cluster ${supportedRangeText()}: every database, shared catalogs once`)
    .option("-d, --database <name>", "only this database (with --table: the database of the relations)")
    .option("-t, --table <name>", "a table (with its TOAST relation, TOAST index and indexes) or an index; repeatable", collect, [] as string[])
    .option("-i, --index <name>", "an index; repeatable", collect, [] as string[])
    .option("-j, --jobs <n>", "worker threads across relations (default: automatic, up to the number of cores; a single small table uses one)", positiveInt)
    .option("-P, --progress", "report progress on stderr")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json", "junit"]).default("text"))
    .option("-o, --output <file>", "write the report to a file instead of stdout")
    .option("--no-heapallindexed", "skip the heap-vs-index comparison of B-tree indexes")
    .option("--exact-heapallindexed", "compare each index tuple's bytes themselves, not their 64-bit fingerprints (keeps every index's tuples in memory until its table is read; slower)")
    .option("--no-toast", "do not follow TOAST pointers of tables")
    .option("--no-decompress", "do not decompress compressed values")
    .option("--rootdescend", "also find every B-tree leaf tuple by a search from the root (slower)")
    .option("--checksums", "verify data checksums even when pg_control says they are off")
    .option("--no-checksums", "do not verify data checksums")
    .option("--max-findings <n>", "findings listed per check code and relation (the rest are counted)", positiveInt, DEFAULT_VERIFY_OPTIONS.capPerCode)
    .option("--allow-running", "verify even though pg_control says the server is running (results may be inconsistent)")
    .option("--fail-on-not-checked", "a check that could not run on a relation (a \"not checked\" note) fails the run, exit 2 (for CI)")
    .option("-v, --verbose", "text format: also list the other notes (not-checked notes are always listed)")
    .addHelpText(
      "after",
      `
Exit status: 0 no corruption, 2 corruption found (or, with --fail-on-not-checked, a check
that could not run), 1 operational error (as pg_amcheck).

Examples:
  pgdisk verify --pgdata /tmp/s/data                       # every relation of every database
  pgdisk verify --pgdata /tmp/s/data -d pgdisk_sample -t accounts
  pgdisk verify --pgdata /tmp/s/data -j 4 -P --format junit -o verify.xml
  pgdisk verify /tmp/s/data/base/16384/16390               # one relation file
`,
    )
    .action(async (files: string[], o: Record<string, unknown>) => {
      const relations = [...(o.table as string[]), ...(o.index as string[])];
      if (relations.length && !o.pgdata) throw new FormatError("USAGE", "--table and --index need --pgdata");
      if (o.database && !o.pgdata) throw new FormatError("USAGE", "--database needs --pgdata");
      const jobs = o.jobs as number | undefined;
      const opts = {
        heapallindexed: o.heapallindexed as boolean,
        ...(o.exactHeapallindexed ? { exactHeapallindexed: true } : {}),
        toast: o.toast as boolean,
        decompress: o.decompress as boolean,
        rootdescend: !!o.rootdescend,
        checksums: o.checksums as boolean | undefined,
        capPerCode: o.maxFindings as number,
      };
      let run;
      try {
        run = await runVerify(
          { pgdata: o.pgdata as string | undefined, database: o.database as string | undefined, relations, files },
          { ...opts, jobs, allowRunning: !!o.allowRunning, failOnNotChecked: !!o.failOnNotChecked, onProgress: o.progress ? progressPrinter() : undefined },
        );
      } catch (e) {
        reportError(e);
        process.exitCode = 1;
        return;
      }
      const format = o.format as string;
      const text = format === "json" ? renderJson(run, { ...DEFAULT_VERIFY_OPTIONS, ...opts, jobs: run.summary.workers }) : format === "junit" ? renderJunit(run, { failOnNotChecked: !!o.failOnNotChecked }) : renderText(run, { verbose: !!o.verbose });
      if (o.output) writeFileSync(o.output as string, text);
      else process.stdout.write(text);
      process.exitCode = run.summary.exitCode;
    });
}
