// Bundle the compiled CLI and its worker threads (dist/) into a few modules in dist/bundle/, so
// that a run loads one file per thread instead of ~150 (module loading was a quarter of
// `pgdisk verify`'s start-up). Run by `npm run build` / `prepare` after tsc; bin/pgdisk uses the
// bundle when it is newer than the sources. Native and optional packages stay external.
// Then the startup snapshot of `pgdisk inspect …` (cli/snapshot.ts), for the node that builds.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The V8 flags bin/pgdisk passes to `command` (bin/v8-flags: "command flags…" lines, # comments). */
const v8FlagsOf = (command) => {
  const line = readFileSync(join(root, "bin", "v8-flags"), "utf8").split("\n").find((l) => l.split(/\s+/)[0] === command);
  if (!line) throw new Error(`bin/v8-flags has no line for ${command}`);
  return line.trim().split(/\s+/).slice(1);
};
const out = join(root, "dist", "bundle");
rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: "dist/cli/main.js", worker: "dist/verify/worker.js", "dump-worker": "dist/inspect/dump/dump-worker.js", "unit-worker": "dist/migrate/unit-worker.js", "index-worker": "dist/migrate/load/index-worker.js" },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunk-[hash]",
  external: ["lz4-napi", "@antoniomuso/*", "react-devtools-core"],
  // CommonJS dependencies bundled into ESM call require() for node built-ins
  banner: { js: 'import { createRequire as __pgdiskRequire } from "node:module"; const require = __pgdiskRequire(import.meta.url);' },
  logLevel: "warning",
  legalComments: "none",
});

// The startup snapshot: cli/snapshot.ts and what it imports as one CommonJS script (a snapshot
// is built from one script that loads only node's built-in modules), evaluated by
// `node --build-snapshot` into snapshot.blob. import.meta.url is a global there, set to the
// script's own URL while building and to the bundle's at each start (cli/snapshot.ts); ink and
// react (browse) are left out: a snapshot cannot import() them, and browse runs from the bundle.
// snapshot.node names the node that built the blob and has its binary's modification time:
// bin/pgdisk uses the blob only with that node (another version refuses the blob and exits).
// Its first line is the V8 flags of the build, which every run from the blob must pass too (V8
// refuses a blob built under other flags): bin/v8-flags' `inspect` line, which bin/pgdisk also
// passes to an `inspect` run from the bundle.
const SNAPSHOT_V8_FLAGS = v8FlagsOf("inspect");
const script = join(out, "snapshot.cjs");
const blob = join(out, "snapshot.blob");
const stamp = join(out, "snapshot.node");
await build({
  absWorkingDir: root,
  entryPoints: ["dist/cli/snapshot.js"],
  outfile: script,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["lz4-napi", "@antoniomuso/*", "react-devtools-core", "ink", "react"],
  define: { "import.meta.url": "globalThis.__pgdiskMetaUrl" },
  banner: { js: 'globalThis.__pgdiskMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  // import.meta.resolve and .dirname are read only when running from the TypeScript sources
  logOverride: { "empty-import-meta": "silent" },
  logLevel: "warning",
  legalComments: "none",
});
// (node warns that some built-in modules, e.g. child_process that commander loads, are not
// verified in snapshots: they are loaded, not used, while building)
const r = spawnSync(process.execPath, ["--no-warnings", ...SNAPSHOT_V8_FLAGS, "--snapshot-blob", blob, "--build-snapshot", script], { cwd: out, stdio: ["ignore", "inherit", "inherit"] });
if (r.status === 0) {
  writeFileSync(stamp, `${SNAPSHOT_V8_FLAGS.join(" ")}\n${process.version} ${process.execPath}\n`);
  const t = statSync(process.execPath, { bigint: true });
  // to the nanosecond, as bash's -nt compares (touch -r where there is one)
  if (spawnSync("touch", ["-r", process.execPath, stamp]).status !== 0) utimesSync(stamp, Number(t.atimeMs) / 1000, Number(t.mtimeMs) / 1000);
} else {
  console.warn(`scripts/bundle.mjs: no startup snapshot (node ${process.version} --build-snapshot exited ${r.status ?? r.signal}); bin/pgdisk runs the bundle`);
  rmSync(blob, { force: true });
}
// (snapshot.cjs stays: the stack traces of a run from the snapshot point into it)
