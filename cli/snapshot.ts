// Entry of the startup snapshot (scripts/bundle.mjs builds dist/bundle/snapshot.blob from it with
// `node --build-snapshot`): the `pgdisk inspect …` commands with their modules compiled and
// evaluated at build time, so that a run from the snapshot starts at the command line's parse.
// bin/pgdisk runs `node --snapshot-blob snapshot.blob dist/bundle/main.js inspect …` when the
// blob was built by the node it runs (docs/dump-performance.md "Process start").
// What holds in a snapshot: only node's built-in modules load while it is built (the rest is
// bundled into one script, lz4-napi loads on first use through createRequire); nothing here may
// touch process.stdout, the environment or the clock at build time (the deserialised heap would
// keep them); `import()` does not work in it (browse, which loads ink so, runs from the bundle);
// import.meta.url is globalThis.__pgdiskMetaUrl, set from the bundle's path (argv[1]) at each
// start, so worker threads start from dist/bundle's modules as in a run of the bundle.
import { startupSnapshot } from "node:v8";
import { pathToFileURL } from "node:url";
import { makeInspectCommand } from "./inspect.js";
import { rootCommand, runProgram } from "./program.js";
import { registry } from "../formats/schema/struct.js";

// the command tree is built while the snapshot is (commander reads the environment, argv and
// stdout only when it parses and prints)
const program = rootCommand();
program.addCommand(makeInspectCommand());
// the binary-parser decoders generated now, not at the first parse of each run (pg_control's,
// pg_filenode.map's: a few ms of code generation and compile at every start)
for (const s of registry.values()) s.parser.compile();

startupSnapshot.setDeserializeMainFunction(() => {
  (globalThis as { __pgdiskMetaUrl?: string }).__pgdiskMetaUrl = pathToFileURL(process.argv[1]!).href;
  void runProgram(program);
});
