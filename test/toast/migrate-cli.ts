// `pgdisk migrate` for the tests, straight from cli/migrate.ts, so that the TOAST subcommand is
// exercised through its commander wiring whether or not cli/main.ts registers `migrate` yet.
import { Command } from "commander";
import { makeMigrateCommand } from "../../cli/migrate.js";

const program = new Command("pgdisk").exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 1));
program.addCommand(makeMigrateCommand());
await program.parseAsync(["node", "pgdisk", "migrate", ...process.argv.slice(2)]);
