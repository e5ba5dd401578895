// `pgdisk inspect …`: dump (pages, items, values), control, relmap, list.
import { Command, Option } from "commander";
import { join } from "node:path";
import { dumpRelation, emptySummary, type DumpOptions, type DumpEvent } from "../inspect/dump/dump.js";
import { TextByteRenderer } from "../inspect/dump/render-text-bytes.js";
import { TEXT_VALUE_CHARS } from "../inspect/dump/text-values.js";
import { ByteOut } from "../inspect/dump/byte-out.js";
import { JsonRenderer } from "../inspect/dump/render-json.js";
import { CopyRenderer, type CopyOptions } from "../inspect/dump/render-copy.js";
import { resolveByName, resolveDatabase, resolveFile, type ResolvedRelation } from "../inspect/dump/target.js";
import { dumpSpecialFile, specialFileKind, type SpecialFileDump } from "../inspect/dump/special-files.js";
import { listCluster, renderListText } from "../inspect/list.js";
import { parseBlockRange, parseBlockSize, parsePositiveInt } from "./args.js";
import { EXIT_DAMAGE, EXIT_OK, UsageError, reportError } from "./exit.js";
import { availableParallelism } from "node:os";
import { statSync } from "node:fs";
import { openDumpOutput } from "./dump-output.js";

/** A progress line on stderr (at most five updates a second): pages of the total, bytes written, rate. */
function dumpProgress(totalPages: number, pages: () => number, bytes: () => number): { tick(): void; done(): void } {
  const t0 = performance.now();
  let last = 0;
  let shown = false;
  const show = (): void => {
    const s = Math.max((performance.now() - t0) / 1000, 0.001);
    const p = pages();
    const of = totalPages > 0 && p > 0 ? `${p}/${totalPages} pages (${Math.min(100, Math.floor((100 * p) / totalPages))} %), ` : "";
    process.stderr.write(`\rpgdisk: dump ${of}${(bytes() / 1048576).toFixed(1)} MiB written, ${(bytes() / 1048576 / s).toFixed(1)} MiB/s   `);
    shown = true;
  };
  return {
    tick: () => {
      const now = performance.now();
      if (now - last < 200) return;
      last = now;
      show();
    },
    done: () => {
      if (shown) {
        show();
        process.stderr.write("\n");
      }
    },
  };
}

/** Below this many blocks, starting worker threads costs more than it saves. */
const PARALLEL_MIN_BLOCKS = 4096;

/** About how many blocks of `r` the dump reads: its first file's blocks, cut to `--blocks`. */
function approxBlocks(r: ResolvedRelation, range?: { from: number; to?: number }): number {
  let n: number;
  try {
    n = Math.floor(statSync(r.path).size / r.geometry.blockSize);
  } catch {
    return 0;
  }
  return range ? Math.max(0, Math.min(range.to ?? n, n) - range.from) : n;
}
import type { ForkName } from "../formats/storage/relfile.js";
import { makeBrowseCommand } from "./browse.js";
import { makeValueCommand } from "./value.js";
import { supportedRangeText } from "../formats/version/index.js";

interface DumpCliOptions {
  pgdata?: string;
  database?: string;
  table?: string;
  fork: ForkName;
  blocks?: ReturnType<typeof parseBlockRange>;
  detoast?: boolean;
  format: "text" | "json" | "copy" | "csv";
  values: boolean;
  delimiter?: string;
  null?: string;
  quote?: string;
  escape?: string;
  header?: boolean;
  hex?: boolean;
  checksums?: boolean;
  blockSize?: number;
  color?: boolean;
  system?: boolean;
  jobs?: number;
  output?: string;
  progress?: boolean;
}

const stdoutText = (s: string): void => {
  process.stdout.write(s);
};
const out = stdoutText;

function targets(file: string | undefined, o: DumpCliOptions): ResolvedRelation[] {
  if (file) {
    if (o.pgdata || o.table) throw new UsageError("name either a FILE or --pgdata/-d/-t, not both");
    return [resolveFile(file, { blockSize: o.blockSize })];
  }
  if (!o.pgdata) throw new UsageError("nothing to dump: name a FILE, or --pgdata DIR with -d DB [-t RELATION]");
  if (!o.database) throw new UsageError("--pgdata needs -d DATABASE");
  if (o.table) return [resolveByName(o.pgdata, o.database, o.table, o.fork)];
  if (o.blocks) throw new UsageError("--blocks needs a single relation (-t) or FILE");
  return resolveDatabase(o.pgdata, o.database, { includeSystem: o.system, fork: o.fork });
}

function renderSpecial(d: SpecialFileDump, format: string, out: (s: string) => void = stdoutText): void {
  if (format === "json") {
    out(JSON.stringify(d, null, 1) + "\n");
    return;
  }
  out(`${d.schema === "pgdisk.control/1" ? "pg_control" : "pg_filenode.map"} ${d.file}\n`);
  const walk = (o: Record<string, unknown>, indent: string): void => {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === "object" && !Array.isArray(v)) {
        out(`${indent}${k}:\n`);
        walk(v as Record<string, unknown>, indent + "  ");
      } else if (Array.isArray(v)) {
        out(`${indent}${k}: ${v.length} entries\n`);
        for (const e of v) out(`${indent}  ${Object.entries(e as object).map(([a, b]) => `${a} ${b}`).join("  ")}\n`);
      } else out(`${indent}${k}: ${v}\n`);
    }
  };
  walk(d.fields, "  ");
  for (const f of d.findings) out(`ERROR ${f.code}: ${f.message}\n`);
}

/** COPY's options from the command line, checked as COPY checks them. */
function copyOptions(o: DumpCliOptions): CopyOptions | undefined {
  const copyish = o.format === "copy" || o.format === "csv";
  if (!copyish) {
    if (o.delimiter !== undefined || o.null !== undefined || o.quote !== undefined || o.escape !== undefined || o.header) throw new UsageError("--delimiter, --null, --quote, --escape and --header go with --format copy or csv");
    return undefined;
  }
  const csv = o.format === "csv";
  if (!csv && (o.quote !== undefined || o.escape !== undefined)) throw new UsageError("--quote and --escape are available only in CSV mode (--format csv)");
  const c: CopyOptions = { csv, delimiter: o.delimiter ?? (csv ? "," : "\t"), null: o.null ?? (csv ? "" : "\\N"), quote: o.quote ?? '"', escape: o.escape ?? o.quote ?? '"', header: !!o.header };
  for (const [name, v] of [["delimiter", c.delimiter], ["quote", c.quote], ["escape", c.escape]] as const) {
    if (v.length !== 1 || v.charCodeAt(0) >= 0x80) throw new UsageError(`COPY ${name} must be a single one-byte character`);
  }
  if (/[\r\n]/.test(c.delimiter) || /[\r\n]/.test(c.null)) throw new UsageError("COPY delimiter and NULL cannot be newline or carriage return");
  if (csv && c.delimiter === c.quote) throw new UsageError("COPY delimiter and quote must be different");
  if (c.null.includes(c.delimiter)) throw new UsageError("COPY delimiter must not appear in the NULL specification");
  return c;
}

export async function runDump(file: string | undefined, o: DumpCliOptions): Promise<number> {
  if (file && specialFileKind(file)) {
    const d = dumpSpecialFile(file);
    const dest = openDumpOutput(o.output);
    const enc = new TextEncoder();
    renderSpecial(d, o.format, (s) => dest.write(enc.encode(s)));
    dest.commit();
    return d.findings.some((f) => f.severity === "error") ? EXIT_DAMAGE : EXIT_OK;
  }
  const copy = copyOptions(o);
  // csv is COPY's other format: the same rows, rendered by the same renderer
  o = { ...o, format: o.format === "csv" ? "copy" : o.format };
  const rels = targets(file, o);
  const toScreen = o.output === undefined && process.stdout.isTTY === true;
  const colour = o.color ?? (toScreen && !process.env.NO_COLOR);
  // COPY output needs every value, so it always resolves TOAST pointers.
  const opts: DumpOptions = { blocks: o.blocks, detoast: o.format === "copy" || (o.detoast ?? false), checksums: o.checksums, values: o.format !== "text" || o.values, hex: o.hex };
  // text shows the first TEXT_VALUE_CHARS characters of a value: decode no more than that
  if (o.format === "text") opts.previewChars = TEXT_VALUE_CHARS + 1;
  const jobs = o.jobs ?? availableParallelism();
  const parallel = jobs > 1 && rels.reduce((n, r) => n + approxBlocks(r, o.blocks), 0) > PARALLEL_MIN_BLOCKS;
  let summary = emptySummary();
  const dest = openDumpOutput(o.output);
  // progress on a terminal's stderr while the output goes elsewhere (a file, a pipe)
  const progress = o.progress !== false && process.stderr.isTTY === true && !toScreen ? dumpProgress(rels.reduce((n, r) => n + approxBlocks(r, o.blocks), 0), () => summary.pages, () => dest.bytes) : null;
  // Every format goes out through one byte buffer; text is rendered from reused page records.
  const out = new ByteOut((chunk) => (dest.write(chunk), progress?.tick()), toScreen ? 1 << 14 : 1 << 20);
  const text = (s: string): void => out.text(s);
  /** worker fragments pass straight through; reusable once nothing is left queued (stdout writes synchronously to files, pipes, TTYs) */
  const passThrough = (b: Uint8Array): boolean => (out.flush(), dest.write(b), progress?.tick(), dest.pending() === 0);
  const json = o.format === "json" ? new JsonRenderer(text, (b) => void passThrough(b)) : undefined;
  const copyRenderer = o.format === "copy" ? new CopyRenderer(out, copy) : undefined;
  const renderer: { event(e: DumpEvent): void } = json ?? copyRenderer ?? new TextByteRenderer(out, colour, { values: o.values, hex: o.hex });
  // text is rendered from reused page records; COPY rows are written during the scan
  const records = o.format === "text" || o.format === "copy";
  try {
    if (parallel) {
      const sink = { event: (e: DumpEvent) => renderer.event(e), fragmentBytes: (b: Uint8Array, empty: boolean, continued: boolean) => (json ? json.fragmentBytes(b, empty, continued) : passThrough(b)) };
      // loaded here: worker_threads must not load while the startup snapshot is built (the
      // deserialised module has lost its shared cwd counter), and a small dump never needs it
      const { dumpParallel } = await import("../inspect/dump/parallel.js");
      summary = await dumpParallel(rels, opts, { jobs, format: o.format as "text" | "json" | "copy", copy, colour, values: opts.values !== false }, sink);
    } else {
      for (const r of rels) {
        const it = dumpRelation(r, copyRenderer ? { ...opts, copyTo: copyRenderer.writer } : opts, summary, { records, textValues: o.format === "text" });
        for (let e = it.next(); !e.done; e = it.next()) renderer.event(e.value);
      }
    }
    renderer.event({ type: "end", summary });
    out.flush();
    dest.commit();
  } catch (e) {
    dest.discard();
    throw e;
  } finally {
    progress?.done();
  }
  if (o.format !== "text") process.stderr.write(`pgdisk: ${summary.pages} pages, ${summary.errors} errors, ${summary.warnings} warnings\n`);
  return summary.errors > 0 ? EXIT_DAMAGE : EXIT_OK;
}

export function makeInspectCommand(): Command {
  const inspect = new Command("inspect").description("look at PostgreSQL files offline: dump pages and values, pg_control, the relation map");
  inspect
    .command("dump")
    .description("dump every page of a relation file, a relation of a stopped cluster (by name), or a whole database")
    .argument("[file]", "a relation file (any fork or segment), pg_control or pg_filenode.map")
    .option("--pgdata <dir>", `data directory of a stopped PostgreSQL ${supportedRangeText()} cluster`)
    .option("-d, --database <name>", "database (with --pgdata)")
    .option("-t, --table <relation>", "relation name: table, index, TOAST table or sequence; schema.name allowed")
    .addOption(new Option("--fork <fork>", "fork of the relation (with -d and no -t: that fork of every relation that has one)").choices(["main", "fsm", "vm", "init"]).default("main"))
    .option("-b, --blocks <range>", "blocks to dump: N, A:B (B exclusive), A: or :B", parseBlockRange)
    .option("--detoast", "resolve TOAST pointers through the table's TOAST relation")
    .addOption(new Option("-f, --format <format>", "output format: copy and csv print a table's live rows as COPY TO does").choices(["text", "json", "copy", "csv"]).default("text"))
    .option("--delimiter <char>", "copy/csv: the column delimiter (default: TAB for copy, comma for csv)")
    .option("--null <string>", "copy/csv: the NULL string (default: \\N for copy, empty for csv)")
    .option("--quote <char>", "csv: the quote character (default \")")
    .option("--escape <char>", "csv: the escape character (default: the quote)")
    .option("--header", "copy/csv: a first line with the column names")
    .option("--no-values", "item headers only, no decoded values or keys (text format; as pg_filedump -i)")
    .option("--hex", "item bytes in hex: index key bytes with --no-values, and items of kinds pgdisk does not decode")
    .option("--checksums", "verify page checksums even if pg_control says they are off")
    .option("--no-checksums", "do not verify page checksums")
    .option("--block-size <bytes>", "block size of a lone file (default: from its first page header)", parseBlockSize)
    .option("--system", "with -d and no -t: include system catalogs")
    .option("-j, --jobs <n>", "worker threads for large dumps (default: the number of cores)", parsePositiveInt)
    .option("-o, --output <file>", "write the output to FILE (made under a temporary name, renamed onto FILE when the dump has finished) instead of standard output")
    .option("--no-progress", "no progress line on a terminal's stderr (shown while the output goes to a file or a pipe)")
    .option("--color", "force colour")
    .option("--no-color", "no colour")
    .addHelpText(
      "after",
      `
Exit status: 0 clean, 1 usage or unreadable input, 2 damage found (each finding names file, block and offset),
141 when the reader of the output goes away ("pgdisk ... | head"), as for a tool stopped by SIGPIPE.

Examples:
  pgdisk inspect dump --pgdata /tmp/s/data -d pgdisk_sample -t toast_docs --detoast -b 0:2
  pgdisk inspect dump /tmp/s/data/base/16384/16390 --format json
  pgdisk inspect dump --pgdata /tmp/s/data -d pgdisk_sample -t web_links --format csv --header -o links.csv
  pgdisk inspect dump /tmp/s/data/global/pg_control`,
    )
    .action(async (file: string | undefined, o: DumpCliOptions) => {
      process.exitCode = await runDump(file, o).catch((e) => reportError(e));
    });

  inspect
    .command("control")
    .description("decode pg_control of a data directory")
    .requiredOption("--pgdata <dir>", "data directory")
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json"]).default("text"))
    .action(async (o: { pgdata: string; format: string }) => {
      try {
        const d = dumpSpecialFile(join(o.pgdata, "global", "pg_control"));
        renderSpecial(d, o.format);
        process.exitCode = d.findings.length ? EXIT_DAMAGE : EXIT_OK;
      } catch (e) {
        process.exitCode = reportError(e);
      }
    });

  inspect
    .command("list")
    .description("list databases, or the relations of a database, of a stopped cluster")
    .requiredOption("--pgdata <dir>", "data directory")
    .option("-d, --database <name>", "list this database's relations")
    .option("--system", "include system catalogs")
    .addOption(new Option("-f, --format <format>", "output format").choices(["text", "json"]).default("text"))
    .action(async (o: { pgdata: string; database?: string; system?: boolean; format: string }) => {
      try {
        const l = listCluster(o.pgdata, o.database, { system: o.system ?? false });
        out(o.format === "json" ? JSON.stringify(l, null, 1) + "\n" : renderListText(l));
        process.exitCode = EXIT_OK;
      } catch (e) {
        process.exitCode = reportError(e);
      }
    });
  inspect.addCommand(makeBrowseCommand());
  inspect.addCommand(makeValueCommand());
  return inspect;
}
