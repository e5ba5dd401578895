// Bundle the compiled CLI and its worker threads (dist/) into a few modules in dist/bundle/, so
// that a run loads one file per thread instead of ~150 (module loading was a quarter of
// `pgdisk verify`'s start-up). Run by `npm run build` / `prepare` after tsc; bin/pgdisk uses the
// bundle when it is newer than the sources. Native and optional packages stay external.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { rmSync } from "node:fs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
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
