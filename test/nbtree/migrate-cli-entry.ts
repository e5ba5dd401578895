// The `pgdisk migrate` command tree alone, wired as cli/main.ts wires every command (for the CLI
// tests until main.ts registers makeMigrateCommand; then bin/pgdisk runs the same code).
import { Command } from "commander";
import { makeMigrateCommand } from "../../cli/migrate.js";
import { reportError } from "../../cli/exit.js";

const program = new Command("pgdisk").exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 1));
program.addCommand(makeMigrateCommand());
try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
