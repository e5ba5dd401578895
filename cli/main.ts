#!/usr/bin/env node
// pgdisk command line: commander wiring only; each area registers its own commands. Only the
// command being run is loaded (all of them for help and unknown commands): a run of one command
// does not parse and evaluate the others' modules (about 20 ms of `pgdisk verify`'s start-up).
// verify's worker threads are started first of all, so they boot while this thread loads.
const sub = process.argv[2];
if (sub === "verify") (await import("../verify/prespawn.js")).prespawnWorkers(process.argv.slice(3));
const { Command } = await import("commander");
const { handleStdoutErrors, reportError } = await import("./exit.js");
const { supportedRangeText } = await import("../formats/version/index.js");

const program = new Command("pgdisk")
  .description(`read, dump, verify, browse and convert PostgreSQL ${supportedRangeText()} on-disk files offline (with Direct TOAST and BTP_PREFIX support)`)
  .version("0.1.0")
  .showHelpAfterError()
  .exitOverride((err) => {
    // commander's own usage errors exit 1; --help and --version exit 0.
    process.exit(err.exitCode === 0 ? 0 : 1);
  });

handleStdoutErrors();
const known = ["inspect", "verify", "migrate", "samples"];
const wanted = (name: string): boolean => !known.includes(sub ?? "") || sub === name;
if (wanted("inspect")) program.addCommand((await import("./inspect.js")).makeInspectCommand());
if (wanted("verify")) program.addCommand((await import("./verify.js")).makeVerifyCommand());
if (wanted("migrate")) program.addCommand((await import("./migrate.js")).makeMigrateCommand());
if (wanted("load")) program.addCommand((await import("./load.js")).makeLoadCommand());
if (wanted("samples")) program.addCommand((await import("../samples/cli.js")).makeSamplesCommand());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = reportError(e);
}
