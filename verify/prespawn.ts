// verify's worker threads, started before anything else is loaded: \`pgdisk verify\` starts them
// first of all (cli/main.ts), so each boots (node, its modules) while the main thread loads its
// own modules and plans; runVerify then hands each its cluster and options (WorkerInit) and its
// job list. A worker nobody takes is unreferenced, so it never keeps the process alive. This
// module is small on purpose: it is loaded before the rest of the CLI.
import { readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** A started worker waiting for its WorkerInit message, and the error it raised meanwhile. */
interface Spare {
  worker: Worker;
  error: unknown;
}

const spares: Spare[] = [];

/** The number of worker threads \`pgdisk verify\` with these arguments may use: one per core but this thread's, or per -j/--jobs. */
export function workersFor(args: readonly string[]): number {
  let jobs = Math.max(1, availableParallelism());
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^(?:--jobs=|-j)(\d+)$/.exec(a);
    if (m) jobs = Number(m[1]);
    else if ((a === "--jobs" || a === "-j") && /^\d+$/.test(args[i + 1] ?? "")) jobs = Number(args[++i]);
  }
  return Math.max(0, jobs - 1);
}

/** Start the workers \`pgdisk verify <args>\` may use, to be taken by takeSpareWorker(). */
export function prespawnWorkers(args: readonly string[]): void {
  for (let i = workersFor(args); i > 0; i--) {
    const spare: Spare = { worker: new Worker(workerUrl(), { workerData: { prespawned: true } }), error: null };
    spare.worker.on("error", (e) => (spare.error ??= e));
    spare.worker.unref();
    spares.push(spare);
  }
}

/** A started worker (referenced again: the caller owns it), or null when none is left. */
export function takeSpareWorker(): Spare | null {
  const s = spares.shift() ?? null;
  s?.worker.ref();
  return s;
}

/**
 * The worker's entry. Compiled (.js) it is worker.js. Run from the sources, it is the compiled
 * dist/verify/worker.js when that is newer than every source the worker loads (as bin/pgdisk
 * picks dist/ for the CLI; a worker starts in half the time), else the sources through tsx: a
 * worker thread does not inherit tsx's module hooks (Node 20), so a small ESM bootstrap
 * registers tsx in the thread first and then imports worker.ts.
 */
export function workerUrl(): URL {
  if (!import.meta.url.endsWith(".ts")) return new URL("./worker.js", import.meta.url);
  const compiled = compiledWorker();
  if (compiled) return compiled;
  const api = import.meta.resolve("tsx/esm/api");
  const target = new URL("./worker.ts", import.meta.url).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(target)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

function compiledWorker(): URL | null {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const js = join(root, "dist", "verify", "worker.js");
  let built: number;
  try {
    built = statSync(js).mtimeMs;
  } catch {
    return null;
  }
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? newer(join(dir, e.name)) : /\.tsx?$/.test(e.name) && statSync(join(dir, e.name)).mtimeMs > built));
  try {
    return newer(join(root, "verify")) || newer(join(root, "formats")) ? null : pathToFileURL(js);
  } catch {
    return null;
  }
}

