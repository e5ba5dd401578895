// `pgdisk load …`: commander wiring only; the work is in migrate/load/engine.ts.
import { createReadStream, statSync } from "node:fs";
import { Command, Option } from "commander";
import { EXIT_OK } from "./exit.js";
import { runMigrateAction } from "../migrate/cli-run.js";
import { loadTable } from "../migrate/load/engine.js";
import { abortLoad } from "../migrate/load/switch.js";
import { FormatError } from "../formats/schema/errors.js";
import { renderLoadText } from "../migrate/load/render.js";
import { supportedRangeText } from "../formats/version/index.js";

interface LoadCliOptions {
  pgdata: string;
  database?: string;
  table?: string;
  columns?: string;
  format: "text" | "csv";
  header?: boolean;
  delimiter?: string;
  null?: string;
  quote?: string;
  escape?: string;
  toast: "plain" | "direct";
  dryRun?: boolean;
  json?: boolean;
  quiet?: boolean;
  abort?: boolean;
}


export function makeLoadCommand(): Command {
  return new Command("load")
    .description("bulk-load a COPY text or CSV file into a table of a stopped cluster, in place (direct path: new frozen pages, indexes rebuilt)")
    .argument("[file]", "input file, or - for standard input (not needed to finish an interrupted load)")
    .requiredOption("--pgdata <dir>", `data directory of a stopped, cleanly shut down PostgreSQL ${supportedRangeText()} cluster (written in place)`)
    .option("-d, --database <name>", "database of the table (required for a new load)")
    .option("-t, --table <name>", "table to load, name or schema.name (required for a new load)")
    .option("--columns <list>", "comma-separated columns the input gives, in input order (default: every column)")
    .addOption(new Option("--format <format>", "input format, as COPY's").choices(["text", "csv"]).default("text"))
    .option("--header", "the first line is a header (skipped)")
    .option("--delimiter <c>", "field delimiter (default tab in text, comma in CSV)")
    .option("--null <s>", "the string that means NULL (default \\N in text, empty unquoted in CSV)")
    .option("--quote <c>", "CSV quote character (default \")")
    .option("--escape <c>", "CSV escape character (default the quote)")
    .addOption(new Option("--toast <flavour>", "values the server would move out of line: stock TOAST chunks under new value OIDs, or Direct TOAST values (the cluster is then fenced: pg_control.pgdisk)").choices(["plain", "direct"]).default("plain"))
    .option("--dry-run", "parse, encode, check and build everything, write nothing")
    .option("--json", "print the report as JSON")
    .option("-q, --quiet", "no progress on stderr")
    .option("--abort", "undo an interrupted load: every file of the cluster gets its original bytes back")
    .addHelpText(
      "after",
      `
Rows are appended as new heap pages (the table's fillfactor), frozen as COPY FREEZE leaves them,
with their visibility map bits (all-visible, all-frozen) and free space map entries, and data
checksums when the cluster has them. Every btree index of the table is rebuilt over all rows as
REINDEX lays it out. Columns not given get their constant default or NULL. Refused (exit 1),
naming the object: CHECK constraints, triggers and foreign keys, rules, row-level security,
generated and identity columns not given, non-constant defaults, partitioned tables and
partitions, non-btree indexes and expressions pgdisk cannot evaluate, types pgdisk cannot
encode. A row over TOAST_TUPLE_THRESHOLD gets the server's TOAST decisions (attstorage,
attcompression or default_toast_compression, toast_tuple_target): values compressed inline or
moved to the TOAST relation, as stock chunks (--toast plain: value OIDs from pg_control's
nextOid, which is advanced, and the TOAST index rebuilt) or as Direct TOAST values (--toast
direct: no OIDs, no index entries; pg_control is renamed to pg_control.pgdisk so that no stock
server starts on the cluster; \`pgdisk migrate --toast plain\` converts back). Bad input (a malformed line, a value a type refuses, a NULL in a NOT NULL
column, a wrong column count) and unique violations: exit 2 with the input line, column and
value, nothing changed. New files are staged beside the table (*.pgdisk-load) and switched in at
the end through the journal (PGDATA/pgdisk_journal), with global/pg_control renamed
pg_control.pgdisk-incomplete meanwhile, so no server starts on a half-switched cluster. After a
crash, pgdisk load --pgdata DIR finishes the load from the staged files (the input is not read
again), or pgdisk load --abort --pgdata DIR undoes it; see docs/load.md.

Exit status: 0 loaded, 1 refused or a usage error, 2 bad input or a unique violation.

Examples:
  pgdisk load --pgdata /srv/pg -d app -t events events.tsv
  pgdisk load --pgdata /srv/pg -d app -t public.users --format csv --header --columns id,name users.csv
  pgdisk load --pgdata /srv/pg          (finish an interrupted load)
  pgdisk load --abort --pgdata /srv/pg  (or undo it)`,
    )
    .action((file: string | undefined, o: LoadCliOptions) =>
      runMigrateAction(async (abort) => {
        if (o.abort) {
          const a = abortLoad(o.pgdata);
          process.stdout.write(o.json ? JSON.stringify(a, null, 1) + "\n" : `pgdisk load --abort: the load into ${a.table} (database ${a.database}) undone, ${a.records} journal records; ${a.pgdata} holds its original files\n`);
          process.exitCode = EXIT_OK;
          return;
        }
        const tty = !o.quiet && !o.json && process.stderr.isTTY;
        const t0 = performance.now();
        const total = file === undefined || file === "-" ? 0 : statSync(file).size;
        const progress = tty
          ? (p: { phase: string; rows: number; bytes: number }) => {
              const s = Math.max((performance.now() - t0) / 1000, 0.001);
              // the input's size is known for a file: the time left at the rate so far
              const eta = total && p.phase === "rows" && p.bytes > 0 ? `, about ${Math.ceil(((total - p.bytes) * s) / p.bytes)} s of input left` : "";
              process.stderr.write(`\rpgdisk: ${p.phase}: ${p.rows} rows, ${(p.bytes / 1048576).toFixed(1)} MiB, ${Math.round(p.rows / s)} rows/s${eta}   `);
            }
          : undefined;
        // opened only when read (a resumed load does not read its input again)
        const input = (async function* (): AsyncGenerator<Uint8Array> {
          if (file === undefined) throw new FormatError("USAGE", "pgdisk load needs an input file (or - for standard input)");
          yield* file === "-" ? process.stdin : createReadStream(file);
        })();
        const r = await loadTable({
          pgdata: o.pgdata,
          database: o.database,
          table: o.table,
          columns: o.columns?.split(",").map((c) => c.trim()),
          format: { format: o.format, header: o.header, delimiter: o.delimiter, null: o.null, quote: o.quote, escape: o.escape },
          input,
          inputName: file ?? "-",
          dryRun: o.dryRun,
          toast: o.toast,
          abort,
          progress,
          // the row count from which the index builds run in parallel threads (tests set it low)
          parallelMinEntries: process.env.PGDISK_LOAD_PARALLEL_MIN ? Number(process.env.PGDISK_LOAD_PARALLEL_MIN) : undefined,
        });
        if (tty) process.stderr.write("\n");
        process.stdout.write(o.json ? JSON.stringify(r, null, 1) + "\n" : renderLoadText(r));
        process.exitCode = EXIT_OK;
      }),
    );
}
