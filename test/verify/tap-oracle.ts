// What the rebuilt amcheck / pg_amcheck TAP tests compare: amcheck's own reports (verify_heapam
// rows) and pgdisk's findings in amcheck's terms, on the same cluster.
import { closeSync, openSync, writeSync } from "node:fs";
import type { PgServer } from "../../samples/pg-server.js";
import { SizeOfPageHeaderData } from "../../formats/page/page-header.js";
import { SizeOfItemIdData } from "../../formats/page/item-id.js";
import type { Finding } from "../../formats/schema/errors.js";
import { runVerify } from "../../verify/run.js";

/** pgdisk's finding in amcheck's terms: "block B, offset O[, attribute A]: message" (amcheck counts attributes from 0). */
export const asAmcheck = (f: Finding): string => `block ${f.location.block}, offset ${f.location.item}${f.location.attnum !== undefined ? `, attribute ${f.location.attnum - 1}` : ""}: ${f.message}`;

/** verify_heapam's rows for a relation (server running, amcheck installed), in the same terms. */
export function verifyHeapamRows(srv: PgServer, relation: string, args = "", db = "postgres"): string[] {
  return srv.rows(`SELECT blkno, offnum, attnum, msg FROM verify_heapam('${relation}'${args ? `, ${args}` : ""})`, db).map(([b, o, a, m]) => `block ${b}, offset ${o}${a !== null ? `, attribute ${a}` : ""}: ${m}`);
}

/** Findings that say something is wrong (errors and warnings), not notes. */
export const problems = (fs: readonly Finding[]): Finding[] => fs.filter((f) => f.severity === "error" || f.severity === "warning");

/** pgdisk verify of some relations (all when none named) of a stopped cluster: each report's schema-qualified name, checks run and findings. */
export async function pgdiskFindings(pgdata: string, database: string, relations?: string[]): Promise<{ relation: string; am: string; checks: string[]; findings: Finding[] }[]> {
  const run = await runVerify({ pgdata, database, relations }, { jobs: 1 });
  return run.reports.map((r) => ({ relation: r.schema ? `${r.schema}.${r.name}` : r.name, am: r.am, checks: r.checks, findings: r.findings }));
}

/** The TAP tests' damage: `words` written over the line pointers of block 0 from line pointer `firstLp` on (server stopped). */
export function overwriteLinePointers(path: string, words: readonly number[], firstLp: number): void {
  const bytes = Buffer.alloc(words.length * SizeOfItemIdData);
  words.forEach((w, i) => bytes.writeUInt32LE(w, i * SizeOfItemIdData));
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, SizeOfPageHeaderData + (firstLp - 1) * SizeOfItemIdData);
  } finally {
    closeSync(fd);
  }
}
