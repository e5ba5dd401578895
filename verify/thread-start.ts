// Starting a worker thread from compiled code or from the TypeScript sources (tests, tsx): a
// worker thread does not inherit tsx's module hooks (Node 20), so from the sources a small
// bootstrap registers the tsx loader in the thread before importing its module.
import { Worker } from "node:worker_threads";

export function startWorker(url: URL): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url);
  const api = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true });
}

/** The URL of a worker module beside `base` (an import.meta.url): name.ts from the sources, name.js compiled. */
export function workerModule(base: string, name: string): URL {
  return new URL(`./${name}${base.endsWith(".ts") ? ".ts" : ".js"}`, base);
}
