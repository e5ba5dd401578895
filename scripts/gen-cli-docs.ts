// Generate docs/cli.md from the commands' own --help (never edited by hand).
// `npx tsx scripts/gen-cli-docs.ts` writes it; `--check` exits 1 when it is stale.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
export const COMMANDS = ["", "inspect", "inspect dump", "inspect list", "inspect control", "inspect value", "inspect browse", "verify", "migrate", "migrate convert", "migrate toast", "migrate btree", "load", "samples", "samples make"];

export function renderCliDocs(): string {
  const parts = ["# pgdisk command reference", "", "Generated from each command's `--help` by `scripts/gen-cli-docs.ts`; do not edit.", ""];
  for (const c of COMMANDS) {
    const args = [...(c ? c.split(" ") : []), "--help"];
    const help = execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "cli/main.ts"), ...args], { encoding: "utf8", env: { ...process.env, COLUMNS: "100", NO_COLOR: "1" }, cwd: ROOT });
    parts.push(`## pgdisk ${c}`.trimEnd(), "", "```", help.trimEnd(), "```", "");
  }
  return parts.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = join(ROOT, "docs", "cli.md");
  const text = renderCliDocs();
  if (process.argv.includes("--check")) {
    if ((existsSync(out) ? readFileSync(out, "utf8") : "") !== text) {
      console.error(`${out} is stale: run npx tsx scripts/gen-cli-docs.ts`);
      process.exit(1);
    }
  } else writeFileSync(out, text);
}
