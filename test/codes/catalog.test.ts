// The one catalog of codes (formats/codes): generated docs current, no dead code, every class's
// exit status, and a ratchet on codes that no test names yet (the list may only shrink).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ERRORS } from "../../formats/codes/errors.js";
import { CHECKS } from "../../formats/codes/checks.js";
import { codeClass, isCode, type Code } from "../../formats/codes/index.js";
import { exitStatusFor } from "../../cli/exit.js";
import { renderErrorsDoc } from "../../scripts/gen-errors-doc.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ALL: Code[] = [...ERRORS.map((e) => e.code), ...CHECKS.map((c) => c.code)];

function sources(dirs: string[], skip: (rel: string) => boolean): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const rel = relative(ROOT, p);
      if (n === "node_modules" || skip(rel)) continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(n)) out.push(readFileSync(p, "utf8"));
    }
  };
  for (const d of dirs) walk(join(ROOT, d));
  return out.join("\n");
}

const named = (text: string): Set<string> => new Set(text.match(/\b[A-Z][A-Z0-9_]{3,}\b/g) ?? []);

test("docs/errors.md is generated from formats/codes/errors.ts", () => {
  assert.equal(readFileSync(join(ROOT, "docs", "errors.md"), "utf8"), renderErrorsDoc(), "run: npx tsx scripts/gen-errors-doc.ts > docs/errors.md");
});

test("every declared code is raised somewhere outside the catalog", () => {
  const used = named(sources(["formats", "inspect", "verify", "migrate", "cli", "samples"], (rel) => rel.startsWith(join("formats", "codes"))));
  assert.deepEqual(ALL.filter((c) => !used.has(c)), []);
});

test("the exit status follows the code's class", () => {
  assert.equal(exitStatusFor("USAGE"), 1);
  assert.equal(exitStatusFor("CLUSTER_RUNNING"), 1);
  assert.equal(exitStatusFor("REL_FILE_MISSING"), 1);
  assert.equal(exitStatusFor("VARLENA_TRUNCATED"), 2);
  assert.equal(exitStatusFor("LP_OVERLAP"), 2);
  assert.equal(exitStatusFor("PREFIX_SELF_CHECK_FAILED"), 70);
  for (const e of ERRORS) assert.equal(codeClass(e.code), e.class);
  assert.ok(isCode("HEAP_BAD_T_HOFF") && isCode("DATUM_BAD_INPUT") && !isCode("NOT_A_CODE"));
});

test("codes no test names yet: the committed list only shrinks", () => {
  const listed = readFileSync(join(import.meta.dirname, "untested-codes.txt"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const inTests = named(sources(["test"], () => false));
  const untested = ALL.filter((c) => !inTests.has(c));
  assert.deepEqual(untested.filter((c) => !listed.includes(c)), [], "a new code needs a test that produces it");
  assert.deepEqual(listed.filter((c) => !untested.includes(c as Code)), [], "these codes are named by a test now: remove them from test/codes/untested-codes.txt");
});
