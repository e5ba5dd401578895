// Generate docs/format-structs.md from the struct declarations (never edited by hand).
// `npx tsx scripts/gen-format-docs.ts` writes it; `--check` exits 1 when it is stale.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { registry } from "../formats/schema/struct.js";
import "../formats/all.js";

export function renderStructDocs(): string {
  const lines = [
    "# On-disk structs",
    "",
    "Generated from the declarations in `formats/` by `scripts/gen-format-docs.ts`; do not edit.",
    "Offsets are in bytes from the start of the struct; all integers are little-endian.",
    "",
  ];
  for (const s of [...registry.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    lines.push(`## ${s.name}`, "", `Source: \`${s.source}\`. Size: ${s.size} bytes.`, "", "| offset | size | field | type | meaning |", "|---|---|---|---|---|");
    for (const f of s.layout()) {
      const bits = f.bits ? ` (bits ${f.bits.shift}..${f.bits.shift + f.bits.width - 1})` : "";
      lines.push(`| ${f.offset} | ${f.size} | \`${f.path}\` | ${f.type}${bits} | ${f.doc.replace(/\|/g, "\\|")} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = join(import.meta.dirname, "..", "docs", "format-structs.md");
  const text = renderStructDocs();
  if (process.argv.includes("--check")) {
    const cur = existsSync(out) ? readFileSync(out, "utf8") : "";
    if (cur !== text) {
      console.error(`${out} is stale: run npx tsx scripts/gen-format-docs.ts`);
      process.exit(1);
    }
  } else writeFileSync(out, text);
}
