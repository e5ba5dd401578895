// `pgdisk inspect value`: commander wiring only; the work is in inspect/value.
import { Command, InvalidArgumentError, Option } from "commander";
import { writeFileSync } from "node:fs";
import { EXIT_OK, reportError } from "./exit.js";
import { readValue } from "../inspect/value/value.js";
import { statsText, valueJson, valueOutput, type ValueFormat } from "../inspect/value/render.js";
import { supportedRangeText } from "../formats/version/index.js";

interface ValueCliOptions {
  pgdata: string;
  database: string;
  table: string;
  column?: string;
  tid?: string;
  pointer?: string;
  slice?: { start: number; end?: number };
  out?: string;
  format?: ValueFormat;
  stats?: boolean;
  json?: boolean;
}

/** "A:B" (B exclusive), "A:" (to the end), ":B". */
function parseSlice(s: string): { start: number; end?: number } {
  const m = /^(\d*):(\d*)$/.exec(s.trim());
  if (!m || (m[1] === "" && m[2] === "")) throw new InvalidArgumentError(`"${s}" is not a byte range: use A:B (B exclusive), A: or :B`);
  const start = m[1] === "" ? 0 : Number(m[1]);
  const end = m[2] === "" ? undefined : Number(m[2]);
  if (end !== undefined && end < start) throw new InvalidArgumentError(`byte range "${s}" ends before it starts`);
  return { start, end };
}

export function makeValueCommand(): Command {
  return new Command("value")
    .description("print or save one value of a stopped cluster, detoasted (stock or Direct TOAST), whole or a byte slice, with the pages the read touched")
    .requiredOption("--pgdata <dir>", `data directory of a stopped PostgreSQL ${supportedRangeText()} cluster`)
    .requiredOption("-d, --database <name>", "database")
    .requiredOption("-t, --table <name>", "table (schema.name allowed)")
    .option("-c, --column <name>", "column name (or attnum); with --pointer it gives the type")
    .option("--tid <tid>", "the parent tuple: (block,item)")
    .option("--pointer <hex>", "a TOAST pointer datum in hex: 0112 + 16 bytes (stock) or 0113 + 18 bytes (direct)")
    .option("--slice <A:B>", "raw byte range [A, B) of the value (A:, :B allowed)", parseSlice)
    .option("--out <file>", "save the value to FILE (raw bytes unless --format says otherwise)")
    .addOption(new Option("-f, --format <format>", "text (the type's output), hex (\\x...) or raw bytes").choices(["text", "hex", "raw"]))
    .option("--stats", "report pages touched (TOAST heap, TOAST index), chunks read and bytes decompressed on stderr")
    .option("--json", "print the value's description, statistics and value as JSON")
    .addHelpText(
      "after",
      `
A read of a stock (plain) value descends the TOAST index and fetches its chunks; a Direct TOAST
value is read by TID from its root. --stats makes the two comparable. A slice reads only the
chunks it needs (for a compressed value: from the first chunk until the slice's end is decoded).

Exit status: 0 done, 1 usage error or no such value, 2 damage (a missing or wrong chunk, bad compressed data).

Examples:
  pgdisk inspect value --pgdata /tmp/s/data -d pgdisk_sample -t toast_docs -c body --tid "(0,3)" --stats
  pgdisk inspect value --pgdata /tmp/s/data -d pgdisk_sample -t toast_docs -c body --tid "(0,3)" --slice 1000:1100
  pgdisk inspect value --pgdata /tmp/s/data -d pgdisk_sample -t toast_docs --pointer 0112... --out /tmp/v.bin`,
    )
    .action((o: ValueCliOptions) => {
      try {
        const r = readValue({ pgdata: o.pgdata, database: o.database, table: o.table, column: o.column, tid: o.tid, pointer: o.pointer, slice: o.slice });
        if (o.out) {
          const v = valueOutput(r, o.format, true);
          writeFileSync(o.out, v);
          process.stderr.write(`pgdisk: wrote ${typeof v === "string" ? Buffer.byteLength(v) : v.length} bytes to ${o.out}\n`);
        }
        if (o.json) process.stdout.write(valueJson(r, !o.out));
        else if (!o.out) {
          const v = valueOutput(r, o.format, false);
          process.stdout.write(typeof v === "string" ? v + "\n" : v);
        }
        if (o.stats) process.stderr.write(statsText(r));
        process.exitCode = EXIT_OK;
      } catch (e) {
        process.exitCode = reportError(e);
      }
    });
}
