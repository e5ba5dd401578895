// The check catalog is the one place codes live: docs/checks.md is exactly its rendering, every
// code the verify sources emit is in it, and every amcheck message it quotes is one the
// PostgreSQL 15 amcheck source (or the server / pg_checksums) really contains.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CHECKS, CHECK_BY_CODE } from "../../verify/catalog.js";
import { renderChecksDoc } from "../../verify/checks-doc.js";

const ROOT = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

test("docs/checks.md is generated from verify/catalog.ts", () => {
  assert.equal(readFileSync(join(ROOT, "docs/checks.md"), "utf8"), renderChecksDoc(), "regenerate with: npx tsx verify/checks-doc.ts > docs/checks.md");
});

test("every code the verify engine emits is in the catalog", () => {
  // operational error codes (thrown, exit 1), codes of other modules that are filtered out, and a file name (pg_checksums' skip list)
  const notFindings = new Set(["CLUSTER_RUNNING", "DB_IN_PRODUCTION", "FILE_IS_DIRECTORY", "FILE_NOT_FOUND", "LP_OUT_OF_PAGE", "RELATION_HAS_NO_STORAGE", "RELATION_NOT_FOUND", "PG_VERSION"]);
  const missing: string[] = [];
  for (const f of sources(join(ROOT, "verify"))) {
    if (f.endsWith("catalog.ts")) continue;
    for (const m of readFileSync(f, "utf8").matchAll(/"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/g)) {
      if (!CHECK_BY_CODE.has(m[1]) && !notFindings.has(m[1])) missing.push(`${m[1]} (${f})`);
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

test("quoted amcheck messages exist in the PostgreSQL 15 sources", (t) => {
  const src = "/work/pgsrc/postgresql-15.18";
  if (!existsSync(src)) {
    t.skip("PostgreSQL 15.18 source tree not present");
    return;
  }
  const files = ["contrib/amcheck/verify_heapam.c", "contrib/amcheck/verify_nbtree.c", "src/backend/access/nbtree/nbtpage.c", "src/backend/access/heap/heapam_handler.c", "src/backend/storage/buffer/bufmgr.c", "src/bin/pg_checksums/pg_checksums.c"];
  const text = files.map((f) => readFileSync(join(src, f), "utf8")).join("\n").replace(/"\s*\n\s*"/g, "");
  const pg16Only = new Set(["HEAP_REDIRECT_TO_DEAD", "HEAP_REDIRECT_TO_REDIRECT", "HEAP_HOT_UPDATED_XMAX_ZERO", "HEAP_ONLY_NOT_UPDATED", "HEAP_REDIRECT_TO_NON_HOT", "HEAP_REDIRECT_CHAINS_INTERSECT", "HEAP_UPDATE_CHAINS_INTERSECT", "HEAP_NON_HOT_UPDATE_MADE_HOT", "HEAP_HOT_UPDATE_MADE_NON_HOT", "HEAP_ABORTED_XMIN_UPDATED_TO_COMMITTED", "HEAP_ABORTED_XMIN_UPDATED_TO_IN_PROGRESS", "HEAP_IN_PROGRESS_XMIN_UPDATED_TO_COMMITTED", "HEAP_CHAIN_ROOT_IS_HEAP_ONLY"]);
  const absent: string[] = [];
  for (const c of CHECKS) {
    if (!c.amcheck || pg16Only.has(c.code)) continue;
    // the message as C source spells it (escaped quotes); server-side messages come from other files
    const needle = c.amcheck.replace(/"/g, '\\"');
    if (!text.includes(needle)) absent.push(`${c.code}: ${c.amcheck}`);
  }
  // a few are the server's own wording, not a C string literal of these files
  const serverWording = absent.filter((a) => !/^(REL_PARTIAL_BLOCK|REL_SHORT_READ|PAGE_|LP_REDIRECT_OUT_OF_RANGE|BT_LINK_OUT_OF_RANGE|BT_ZERO_PAGE)/.test(a));
  assert.deepEqual(serverWording, []);
  assert.ok(pg16Only.size > 0);
});
