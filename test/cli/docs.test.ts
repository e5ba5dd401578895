// docs/cli.md is the commands' own --help, regenerated: it must match the current code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderCliDocs } from "../../scripts/gen-cli-docs.js";

test("docs/cli.md is current with every command's --help", () => {
  const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "cli.md"), "utf8");
  assert.equal(doc, renderCliDocs(), "run: npx tsx scripts/gen-cli-docs.ts");
});
