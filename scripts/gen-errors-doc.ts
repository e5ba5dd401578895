// docs/errors.md, generated from formats/codes/errors.ts (a test keeps the file equal to this output).
// Regenerate: npx tsx scripts/gen-errors-doc.ts > docs/errors.md
import { pathToFileURL } from "node:url";
import { ERRORS, type CodeClass } from "../formats/codes/errors.js";

const CLASS_TEXT: Record<CodeClass, string> = {
  usage: "Usage (exit 1): the command line asks for something impossible",
  operational: "Operational (exit 1): what was asked for is not there, or cannot be done safely",
  damage: "Damage (exit 2): the bytes break a format rule",
  internal: "Internal (exit 70): pgdisk contradicted itself; please report it",
};

export function renderErrorsDoc(): string {
  const out: string[] = [];
  out.push("# pgdisk error codes");
  out.push("");
  out.push("<!-- Generated from formats/codes/errors.ts by scripts/gen-errors-doc.ts; do not edit by hand. -->");
  out.push("");
  out.push("Every error a pgdisk command stops on prints `pgdisk: CODE: message (location)`. The code is");
  out.push("declared once in `formats/codes/` with its class, and the class alone decides the exit status");
  out.push("(`exitStatusFor` in cli/exit.ts). The findings of `pgdisk verify` are listed in");
  out.push("[checks.md](checks.md); a command that stops on one of those codes exits 2 (damage), except");
  out.push("`REL_FILE_MISSING`, which stops a command as a missing input does (exit 1). A writer stopped by");
  out.push("SIGINT or SIGTERM (`INTERRUPTED`) exits 128 + the signal number.");
  const classes = [...new Set(ERRORS.map((e) => e.class))];
  for (const c of classes) {
    out.push("");
    out.push(`## ${CLASS_TEXT[c]}`);
    out.push("");
    out.push("| code | meaning |");
    out.push("|---|---|");
    for (const e of ERRORS.filter((x) => x.class === c)) out.push(`| \`${e.code}\` | ${e.meaning.replace(/\|/g, "\\|")} |`);
  }
  out.push("");
  return out.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(renderErrorsDoc());
