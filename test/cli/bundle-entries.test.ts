// Every worker-thread module the sources start must be an entry of the bundle (scripts/bundle.mjs):
// bin/pgdisk runs the bundle, where a thread whose module is missing cannot start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, dirname } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

test("every worker module started by the sources is a bundle entry", () => {
  const bundle = readFileSync(join(ROOT, "scripts", "bundle.mjs"), "utf8");
  const found: string[] = [];
  for (const dir of ["cli", "formats", "inspect", "verify", "migrate", "samples"]) {
    for (const file of sources(join(ROOT, dir))) {
      const text = readFileSync(file, "utf8");
      const names = [...text.matchAll(/workerModule\(import\.meta\.url, "([\w-]+)"\)/g), ...text.matchAll(/"\.\/([\w-]*worker)\.js"/g)].map((m) => m[1]!);
      for (const name of names) found.push(`dist/${relative(ROOT, join(dirname(file), name))}.js`);
    }
  }
  assert.ok(found.length >= 4, `worker modules found: ${found.join(", ")}`);
  for (const entry of found) assert.ok(bundle.includes(`"${entry}"`), `${entry} is not an entry point of scripts/bundle.mjs`);
});
