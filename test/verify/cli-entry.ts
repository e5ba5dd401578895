// The `pgdisk verify` command mounted on its own, for tests (cli/main.ts registers it in the
// real binary; this entry keeps the tests independent of that wiring).
import { Command } from "commander";
import { makeVerifyCommand } from "../../cli/verify.js";

const program = new Command("pgdisk").exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 1));
program.addCommand(makeVerifyCommand());
await program.parseAsync(process.argv);
