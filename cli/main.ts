#!/usr/bin/env node
// pgdisk command line: commander wiring only; each area registers its own commands.
import { Command } from "commander";
import { makeInspectCommand } from "./inspect.js";
import { makeSamplesCommand } from "../samples/cli.js";
import { makeMigrateCommand } from "./migrate.js";
import { makeVerifyCommand } from "./verify.js";
import { handleStdoutErrors, reportError } from "./exit.js";

const program = new Command("pgdisk")
  .description("read, dump, verify, browse and convert PostgreSQL 15 on-disk files offline (with Direct TOAST and BTP_PREFIX support)")
  .version("0.1.0")
  .showHelpAfterError()
  .exitOverride((err) => {
    // commander's own usage errors exit 1; --help and --version exit 0.
    process.exit(err.exitCode === 0 ? 0 : 1);
  });

handleStdoutErrors();
program.addCommand(makeInspectCommand());
program.addCommand(makeVerifyCommand());
program.addCommand(makeMigrateCommand());
program.addCommand(makeSamplesCommand());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
