// The root `pgdisk` command and the end of a run: shared by cli/main.ts (the modules loaded as
// the command asks) and cli/snapshot.ts (the startup snapshot's `pgdisk inspect …`).
import { Command } from "commander";
import { handleStdoutErrors, reportError } from "./exit.js";
import { supportedRangeText } from "../formats/version/index.js";

/** `pgdisk` without subcommands (it reads nothing of the process until it parses). */
export function rootCommand(): Command {
  const program = new Command("pgdisk")
    .description(`read, dump, verify, browse and convert PostgreSQL ${supportedRangeText()} on-disk files offline (with Direct TOAST and BTP_PREFIX support)`)
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride((err) => {
      // commander's own usage errors exit 1; --help and --version exit 0.
      process.exit(err.exitCode === 0 ? 0 : 1);
    });
  return program;
}

/** Run the command line (stdout's errors handled as exit.ts says); an error that escapes the command sets the exit code so too. */
export async function runProgram(program: Command): Promise<void> {
  handleStdoutErrors();
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}
