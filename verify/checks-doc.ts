// docs/checks.md, generated from formats/codes/checks.ts (a test keeps the file equal to this output).
// Regenerate: npx tsx verify/checks-doc.ts > docs/checks.md
import { pathToFileURL } from "node:url";
import { AREA_TITLES, CHECKS, isNotChecked, type CheckArea } from "../formats/codes/checks.js";

const cell = (s: string | undefined): string => (s ?? "").replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (s: string | undefined): string => (s ? `\`${s.replace(/`/g, "'")}\`` : "—");

export function renderChecksDoc(): string {
  const out: string[] = [];
  out.push("# pgdisk verify: the check catalog");
  out.push("");
  out.push("<!-- Generated from formats/codes/checks.ts by verify/checks-doc.ts; do not edit by hand. -->");
  out.push("");
  out.push("Every finding `pgdisk verify` reports carries one of the codes below, with its severity,");
  out.push("and a location (file, relation-wide block, byte offset in the page, item = line pointer");
  out.push("number, attnum = 1-based attribute number). Where amcheck (PostgreSQL 15 `contrib/amcheck`),");
  out.push("the buffer manager or `pg_checksums` reports the same problem, the message is worded as");
  out.push("theirs and the right column quotes it (`%u`, `%d`, `%s` stand for the values). Severity:");
  out.push("**error** is corruption (exit status 2), **warning** is suspicious but readable, **info**");
  out.push("notes a check that could not apply (never silent); **info (not checked)** says that a check");
  out.push("could not run on the relation, with the reason: such notes are counted in the summary");
  out.push("(\"notes: N not checked\"), always listed, and fail the run with `--fail-on-not-checked`.");
  out.push("");
  out.push("Notes on matching amcheck:");
  out.push("");
  out.push("- pg_amcheck prints verify_heapam's `attribute` 0-based; pgdisk's `attnum` is 1-based.");
  out.push("- amcheck stops a B-tree check at its first error; pgdisk reports every independent one and");
  out.push("  stops a tree walk only where amcheck's structure checks would make further walking unsafe.");
  out.push("- Messages marked PG16+ come from newer amcheck releases (PostgreSQL 15's amcheck lacks them).");
  out.push("- Checks with no amcheck column go beyond amcheck (decompression, overlaps, Direct TOAST, BTP_PREFIX).");
  out.push("- heapallindexed: amcheck fingerprints every normalised index tuple into a Bloom filter and probes");
  out.push("  it with the tuple each live heap tuple should have, so a missing tuple escapes with the filter's");
  out.push("  false-positive rate (a few percent). pgdisk keeps, per heap TID, a 64-bit fingerprint of the");
  out.push("  normalised index tuple: the TID is compared exactly and the bytes through the fingerprint, so a");
  out.push("  missing or altered entry escapes only on a 64-bit collision (and never when the bytes differ in");
  out.push("  one 8-byte word). `--exact-heapallindexed` also keeps every normalised index tuple and matches a");
  out.push("  heap tuple only to an entry with its TID and exactly its bytes, the fingerprint only choosing the");
  out.push("  entries to compare (more memory; about 40 % slower on the large sample). The indexes of one table");
  out.push("  are probed in one scan of it. Timings: [verify-performance.md](verify-performance.md).");
  out.push("");
  const areas = [...new Set(CHECKS.map((c) => c.area))] as CheckArea[];
  out.push(`${CHECKS.length} checks in ${areas.length} groups:`);
  out.push("");
  for (const a of areas) out.push(`- [${AREA_TITLES[a]}](#${anchor(AREA_TITLES[a])}) (${CHECKS.filter((c) => c.area === a).length})`);
  for (const a of areas) {
    out.push("");
    out.push(`## ${AREA_TITLES[a]}`);
    out.push("");
    out.push("| code | severity | meaning | how it is detected | amcheck / server message |");
    out.push("|---|---|---|---|---|");
    for (const c of CHECKS.filter((x) => x.area === a)) {
      const am = c.amcheck ? `${code(c.amcheck)}${c.note ? ` (${cell(c.note)})` : ""}` : c.note ? cell(c.note) : "—";
      out.push(`| \`${c.code}\` | ${c.severity}${isNotChecked(c.code) ? " (not checked)" : ""} | ${cell(c.meaning)} | ${cell(c.detection)} | ${am} |`);
    }
  }
  out.push("");
  return out.join("\n");
}

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .trim()
    .replace(/ /g, "-");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(renderChecksDoc());
