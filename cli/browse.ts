// `pgdisk inspect browse`: a full-screen, keyboard-driven browser of a stopped cluster or a lone
// relation file (pages, items, values, hex with every byte labelled, TOAST and btree links).
import { Command } from "commander";
import { BrowseSession } from "../inspect/browse/session.js";
import { parseBlockSize } from "./args.js";
import { EXIT_OK, EXIT_USAGE, UsageError, reportError } from "./exit.js";
import { supportedRangeText } from "../formats/version/index.js";

interface BrowseCliOptions {
  pgdata?: string;
  database?: string;
  table?: string;
  blockSize?: number;
}

export async function runBrowse(file: string | undefined, o: BrowseCliOptions): Promise<number> {
  try {
    if (file && o.pgdata) throw new UsageError("name either a FILE or --pgdata DIR, not both");
    if (!file && !o.pgdata) throw new UsageError("nothing to browse: name a relation FILE, or --pgdata DIR");
    if (o.table && !o.pgdata) throw new UsageError("-t needs --pgdata");
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      process.stderr.write("pgdisk: browse needs a terminal (stdin and stdout must be a TTY); use `pgdisk inspect dump` for text output\n");
      return EXIT_USAGE;
    }
    const session = new BrowseSession({ pgdata: o.pgdata, file, database: o.database, table: o.table, blockSize: o.blockSize });
    // ink renders only its last frame when it believes it runs in CI (CI=true and the like); this
    // command is interactive on a real terminal, so that belief must not hold here. ink reads the
    // variables when it loads, which is just below.
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    // ink and React load only here: every other pgdisk command starts without them.
    const { runBrowser } = await import("../inspect/browse/run.js");
    await runBrowser(session);
    return EXIT_OK;
  } catch (e) {
    return reportError(e);
  }
}

export function makeBrowseCommand(): Command {
  return new Command("browse")
    .description("browse a stopped cluster or a relation file in a full-screen terminal UI: tree, pages, items, values, hex, TOAST and btree links")
    .argument("[file]", "a relation file (any segment); found in the catalog when it lies inside a cluster")
    .option("--pgdata <dir>", `data directory of a stopped PostgreSQL ${supportedRangeText()} cluster`)
    .option("-d, --database <name>", "database to open first")
    .option("-t, --table <relation>", "relation to open first (with --pgdata)")
    .option("--block-size <bytes>", "block size of a lone file (default: from its first page header)", parseBlockSize)
    .addHelpText(
      "after",
      `
Keys: ↑↓ PgUp PgDn Home End move, ⏎ open or follow a link, ←/⌫ back, → forward, x hex view
(and back to the field), [ ] previous/next block, < > btree siblings, g or : go to a block,
a TID (b,o) or a relation name, / search a btree index by key, t tree, q quit.

Exit status: 0 after q, 1 usage error or unreadable input.

Examples:
  pgdisk inspect browse --pgdata /tmp/s/data
  pgdisk inspect browse --pgdata /tmp/s/data -d pgdisk_sample -t toast_docs
  pgdisk inspect browse /tmp/s/data/base/16384/16446`,
    )
    .action(async (file: string | undefined, o: BrowseCliOptions) => {
      process.exitCode = await runBrowse(file, o);
    });
}
