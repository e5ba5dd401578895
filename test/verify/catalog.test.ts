// The check catalog is the one place codes live: docs/checks.md is exactly its rendering, every
// code the verify sources emit is in it, and every amcheck message it quotes is one the
// installed PostgreSQL 15 (amcheck, the server, pg_checksums) really contains.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CHECKS, CHECK_BY_CODE } from "../../formats/codes/checks.js";
import { isCode } from "../../formats/codes/index.js";
import { renderChecksDoc } from "../../verify/checks-doc.js";
import { PG_BIN, npmServerBin } from "../../samples/pg-server.js";

const ROOT = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

test("docs/checks.md is generated from formats/codes/checks.ts", () => {
  assert.equal(readFileSync(join(ROOT, "docs/checks.md"), "utf8"), renderChecksDoc(), "regenerate with: npx tsx verify/checks-doc.ts > docs/checks.md");
});

test("every code the verify engine names is declared", () => {
  // (the types make sink.add take check codes only; here: no stray code-like literal either)
  // pg_control state names and a file name (pg_checksums' skip list) are not codes
  const notFindings = new Set(["DB_IN_PRODUCTION", "PG_VERSION"]);
  const missing: string[] = [];
  for (const f of sources(join(ROOT, "verify"))) {
    if (f.endsWith("catalog.ts")) continue;
    for (const m of readFileSync(f, "utf8").matchAll(/"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/g)) {
      if (!isCode(m[1]) && !notFindings.has(m[1])) missing.push(`${m[1]} (${f})`);
    }
  }
  assert.deepEqual(missing, []);
});

test("codes are unique UPPER_SNAKE with a severity, meaning and detection", () => {
  assert.equal(CHECK_BY_CODE.size, CHECKS.length);
  for (const c of CHECKS) {
    assert.match(c.code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/);
    assert.ok(["error", "warning", "info"].includes(c.severity));
    assert.ok(c.meaning.length > 10 && c.detection.length > 3, c.code);
  }
});

/**
 * The message templates compiled into the installed server: amcheck's module (verify_heapam.c,
 * verify_nbtree.c), the postgres binary (nbtpage.c, heapam_handler.c, bufmgr.c) and
 * pg_checksums. C string literals appear there verbatim (%u and all), so a quoted message that
 * is not found is not PostgreSQL's wording.
 */
function installedMessageText(): string {
  const files = [join(PG_BIN, "..", "lib", "amcheck.so"), join(PG_BIN, "postgres"), join(PG_BIN, "pg_checksums")];
  return files.map((f) => readFileSync(f).toString("latin1")).join("\n");
}

let pg18Text: string | undefined;
function pg18Amcheck(): string {
  pg18Text ??= readFileSync(join(npmServerBin(18), "..", "lib", "postgresql", "amcheck.so")).toString("latin1");
  return pg18Text;
}

// Added to amcheck in PostgreSQL 16 (HOT chain checks); pgdisk reports them on 15 clusters too.
const PG16_ONLY = new Set(["HEAP_REDIRECT_TO_DEAD", "HEAP_REDIRECT_TO_REDIRECT", "HEAP_HOT_UPDATED_XMAX_ZERO", "HEAP_ONLY_NOT_UPDATED", "HEAP_REDIRECT_TO_NON_HOT", "HEAP_REDIRECT_CHAINS_INTERSECT", "HEAP_UPDATE_CHAINS_INTERSECT", "HEAP_NON_HOT_UPDATE_MADE_HOT", "HEAP_HOT_UPDATE_MADE_NON_HOT", "HEAP_ABORTED_XMIN_UPDATED_TO_COMMITTED", "HEAP_ABORTED_XMIN_UPDATED_TO_IN_PROGRESS", "HEAP_IN_PROGRESS_XMIN_UPDATED_TO_COMMITTED", "HEAP_CHAIN_ROOT_IS_HEAP_ONLY"]);

test("quoted amcheck messages are the installed PostgreSQL 15's own wording", () => {
  const text = installedMessageText();
  const absent: string[] = [];
  const in15: string[] = [];
  for (const c of CHECKS) {
    if (!c.amcheck) continue;
    const found = text.includes(c.amcheck);
    if (c.code.startsWith("GIN_")) {
      // verify_gin.c is PostgreSQL 18's: its wording is checked against the npm server's amcheck
      // (some, e.g. "contains unexpected zero page", are older messages other checks share)
      if (!pg18Amcheck().includes(c.amcheck) && !c.amcheck.startsWith("could not read block")) absent.push(`${c.code}: ${c.amcheck}`);
    } else if (PG16_ONLY.has(c.code)) {
      if (found) in15.push(c.code);
    } else if (!found) absent.push(`${c.code}: ${c.amcheck}`);
  }
  assert.deepEqual(absent, [], "messages the installed server does not contain");
  assert.deepEqual(in15, [], "messages said to be PostgreSQL 16's that 15 already has");
  assert.ok(CHECKS.filter((c) => c.amcheck).length > 100);
});
