#!/usr/bin/env node
// pgdisk command line: commander wiring only; each area registers its own commands. Only the
// command being run is loaded (all of them for help and unknown commands): a run of one command
// does not parse and evaluate the others' modules (about 20 ms of `pgdisk verify`'s start-up).
// verify's worker threads are started first of all, so they boot while this thread loads.
// (bin/pgdisk runs `pgdisk inspect …` from the startup snapshot of cli/snapshot.ts when it has one.)
const sub = process.argv[2];
if (sub === "verify") (await import("../verify/prespawn.js")).prespawnWorkers(process.argv.slice(3));
const { rootCommand, runProgram } = await import("./program.js");

const program = rootCommand();
const known = ["inspect", "verify", "migrate", "samples"];
const wanted = (name: string): boolean => !known.includes(sub ?? "") || sub === name;
if (wanted("inspect")) program.addCommand((await import("./inspect.js")).makeInspectCommand());
if (wanted("verify")) program.addCommand((await import("./verify.js")).makeVerifyCommand());
if (wanted("migrate")) program.addCommand((await import("./migrate.js")).makeMigrateCommand());
if (wanted("load")) program.addCommand((await import("./load.js")).makeLoadCommand());
if (wanted("samples")) program.addCommand((await import("../samples/cli.js")).makeSamplesCommand());

await runProgram(program);
