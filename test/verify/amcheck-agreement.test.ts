// Agreement with pg_amcheck on the same files. A copy of the sample is verified clean by both
// (and pgdisk covers every relation the server lists); then a dozen kinds of damage that
// PostgreSQL 15's amcheck detects are injected (checksums recomputed, except for the one
// checksum flip), pgdisk verifies the stopped copy, a server is started on it and
// `pg_amcheck --heapallindexed --parent-check` runs. Every problem pg_amcheck reports must be
// reported by pgdisk in the same relation, at the same block/offset/attribute, with the same
// message (a server ERROR "invalid page in block N" maps to a page-level finding at block N).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tinySampleCopy } from "../fixtures/sample.js";
import { PgServer } from "../../samples/pg-server.js";
import { HEAP_HASEXTERNAL, HEAP_XMAX_INVALID, HEAP_XMIN_COMMITTED, HTH } from "../../formats/heap/tuple-header.js";
import { LP_REDIRECT, lpFlags, makeLp } from "../../formats/page/item-id.js";
import { maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { Damager, attrOffset, leafPages, lpWord, setLpWord, type Item } from "./damage.js";

const ENTRY = join(import.meta.dirname, "cli-entry.ts");
const ROOT = join(import.meta.dirname, "../..");
const DB = "pgdisk_sample";
let root = "";
let pgdata = "";
let srv: PgServer | undefined;

interface Report {
  database?: string;
  schema?: string;
  name: string;
  relkind?: string;
  file?: string;
  findings: { code: string; severity: string; message: string; location: { block?: number; item?: number; attnum?: number } }[];
}

function pgdiskJson(...args: string[]): { status: number; doc: { relations: Report[]; summary: { relations: number } } } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--no-warnings", ENTRY, "verify", "--format", "json", ...args], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status ?? -1, doc: r.stdout ? JSON.parse(r.stdout) : { relations: [], summary: { relations: 0 } } };
}

function pgAmcheck(s: PgServer): { status: number; stdout: string; stderr: string } {
  return s.toolResult("pg_amcheck", ["-h", s.socketDir, "-p", String(s.port), "-U", "postgres", "-d", DB, "--heapallindexed", "--parent-check", "--install-missing", "-j", "2"]);
}

interface AmcheckItem {
  kind: "heap table" | "btree index";
  schema: string;
  name: string;
  block?: number;
  offset?: number;
  attribute?: number;
  message: string;
}

/** pg_amcheck's report: a header line per problem, the message indented (ERROR:/DETAIL: for errors). */
function parseAmcheck(out: string): AmcheckItem[] {
  const items: AmcheckItem[] = [];
  const lines = out.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const h = /^(heap table|btree index) "([^".]+)\.([^".]+)\.([^"]+)"(?:, block (\d+))?(?:, offset (\d+))?(?:, attribute (\d+))?:$/.exec(lines[i]);
    if (!h) continue;
    const body = lines[i + 1]?.trim() ?? "";
    items.push({
      kind: h[1] as AmcheckItem["kind"],
      schema: h[3],
      name: h[4],
      block: h[5] === undefined ? undefined : Number(h[5]),
      offset: h[6] === undefined ? undefined : Number(h[6]),
      attribute: h[7] === undefined ? undefined : Number(h[7]),
      message: body.replace(/^ERROR:\s+/, ""),
    });
  }
  return items;
}

/**
 * The pgdisk finding that reports the same problem, or undefined. Same relation, location and
 * message; two server-side errors map by what they name: "invalid page in block N of relation
 * P" to a page-level finding at block N of the relation stored in P (amcheck may raise it while
 * an index check reads the table), and "heap tuple (B,O) ... lacks matching index tuple" to the
 * same message, or to pgdisk's finding on that heap tuple itself (a tuple whose bytes are
 * damaged forms a garbage key in amcheck's probe; pgdisk reports the damage instead).
 */
function match(a: AmcheckItem, reports: Report[]): string | undefined {
  const page = /^invalid page in block (\d+) of relation (\S+)$/.exec(a.message);
  if (page) {
    const rel = reports.find((r) => r.file?.endsWith(`/${page[2]}`));
    return rel?.findings.find((f) => f.severity === "error" && /^(PAGE_|LP_)/.test(f.code) && f.location.block === Number(page[1]))?.code;
  }
  const rel = reports.find((r) => r.database === DB && r.schema === a.schema && r.name === a.name);
  if (!rel) return undefined;
  const hai = /^heap tuple \((\d+),(\d+)\) from table "([^"]+)" lacks matching index tuple/.exec(a.message);
  if (hai) {
    const exact = rel.findings.find((f) => f.message === a.message);
    if (exact) return exact.code;
    const table = reports.find((r) => r.database === DB && r.schema === a.schema && r.name === hai[3]);
    return table?.findings.find((f) => f.severity === "error" && f.location.block === Number(hai[1]) && f.location.item === Number(hai[2]))?.code;
  }
  for (const f of rel.findings) {
    if (f.severity !== "error" || f.message !== a.message) continue;
    if (a.block !== undefined && f.location.block !== a.block) continue;
    if (a.offset !== undefined && f.location.item !== a.offset) continue;
    // pg_amcheck prints verify_heapam's 0-based attribute number
    if (a.attribute !== undefined && f.location.attnum !== a.attribute + 1) continue;
    return f.code;
  }
  return undefined;
}

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
});
after(() => {
  try {
    srv?.stop();
  } catch {
    // already stopped
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

test("clean copy: both report nothing, and pgdisk covers every relation the server lists", async () => {
  const mine = pgdiskJson("--pgdata", pgdata, "-j", "2");
  assert.equal(mine.status, 0);
  srv = PgServer.attach(root);
  srv.start();
  const refused = spawnSync(process.execPath, ["--import", "tsx", "--no-warnings", ENTRY, "verify", "--pgdata", pgdata], { cwd: ROOT, encoding: "utf8" });
  assert.equal(refused.status, 1, "a running cluster is refused");
  assert.match(refused.stderr, /CLUSTER_RUNNING/);
  // relations with storage per database, shared catalogs counted once (pgdisk verifies them once)
  let expected = 0;
  const dbs = srv.rows("SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1").map((r) => r[0]!);
  for (const [i, db] of dbs.entries()) {
    const q = `SELECT count(*) FROM pg_class WHERE relkind IN ('r','t','m','i','S') AND relpersistence <> 't' ${i === 0 ? "" : "AND NOT relisshared"}`;
    expected += Number(srv.rows(q, db)[0][0]);
  }
  // template0 takes no connections: count it from its catalog as the others (it equals template1's)
  const t0 = Number(srv.rows("SELECT count(*) FROM pg_class WHERE relkind IN ('r','t','m','i','S') AND NOT relisshared", "template1")[0][0]);
  assert.equal(mine.doc.summary.relations, expected + t0);
  const am = pgAmcheck(srv);
  assert.equal(am.status, 0, am.stdout + am.stderr);
  srv.stop();
});

test("damaged copy: every problem pg_amcheck reports, pgdisk reports too", async () => {
  const d = new Damager(pgdata);
  const injected = inject(d);
  const mine = pgdiskJson("--pgdata", pgdata, "-d", DB, "-j", "2");
  assert.equal(mine.status, 2);
  srv ??= PgServer.attach(root);
  srv.start();
  const am = pgAmcheck(srv);
  srv.stop();
  assert.equal(am.status, 2, am.stderr);
  const items = parseAmcheck(am.stdout);
  assert.ok(items.length >= injected, `pg_amcheck reported ${items.length} problems for ${injected} damages:\n${am.stdout}`);
  const unmatched = items.filter((a) => !match(a, mine.doc.relations));
  assert.deepEqual(unmatched, [], `pg_amcheck output:\n${am.stdout}`);
  // pgdisk also finds what PostgreSQL 15's amcheck has no check for (HOT chains, decompression, ...):
  // at least one error per injected damage
  const errors = mine.doc.relations.flatMap((r) => r.findings.filter((f) => f.severity === "error"));
  assert.ok(new Set(errors.map((f) => f.code)).size >= injected - 1, errors.map((f) => f.code).join(" "));
});

/** Damages amcheck detects; returns how many were injected. */
function inject(d: Damager): number {
  const live = (dv: DataView, it: Item): boolean => (dv.getUint16(it.off + HTH.t_infomask, true) & (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED)) === (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED);
  let n = 0;
  // 1 swapped keys in a B-tree leaf
  d.patch(d.path("web_links_pkey"), leafPages(d, "web_links_pkey")[0], (_p, dv) => {
    const a = lpWord(dv, 5);
    setLpWord(dv, 5, lpWord(dv, 6));
    setLpWord(dv, 6, a);
  });
  n++;
  // 2 xmin beyond nextXid
  const wl = d.item(d.path("web_links"), (_p, dv, x) => x.blk === 1 && live(dv, x));
  d.patch(d.path("web_links"), 1, (_p, dv) => dv.setUint32(wl.off + HTH.t_xmin, 4_000_000, true));
  n++;
  // 3 a heap key changed behind its indexes (heapallindexed)
  const wk = d.item(d.path("web_links"), (_p, dv, x) => x.blk === 2 && live(dv, x));
  d.patch(d.path("web_links"), 2, (_p, dv) => dv.setBigInt64(wk.off + 24, dv.getBigInt64(wk.off + 24, true) + 100000n, true));
  n++;
  // 4 wrong t_hoff
  const at = d.item(d.path("all_types"), (_p, dv, x) => x.blk === 0 && live(dv, x));
  d.patch(d.path("all_types"), 0, (p) => void (p[at.off + HTH.t_hoff] += 8));
  n++;
  // 5 a TOAST chunk missing from the middle of a value
  const tp = d.path("toast_docs");
  let ptrAt = 0;
  const tt = d.item(tp, (p, dv, x) => {
    if (!live(dv, x)) return false;
    const a = attrOffset(d, "toast_docs", p, x, 4);
    if (p[a.off] !== 1 || (dv.getUint32(a.off + 6, true) & 0x3fffffff) < 5 * 1996) return false;
    ptrAt = a.off;
    return true;
  });
  const valueId = pageView(d.page(tp, tt.blk)).getUint32(ptrAt + 10, true);
  const tpath = d.path(d.toastOf("toast_docs"));
  const ch = d.item(tpath, (_p, dv, x) => dv.getUint32(x.off + 24, true) === valueId && dv.getInt32(x.off + 28, true) === 1);
  d.patch(tpath, ch.blk, (_p, dv) => setLpWord(dv, ch.item, 0));
  n++;
  // 6 a compressed TOAST pointer with an invalid compression method
  const cp = d.path("compressed_docs");
  let cAt = 0;
  const ct = d.item(cp, (p, dv, x) => {
    if (!live(dv, x)) return false;
    const a = attrOffset(d, "compressed_docs", p, x, 5);
    if (p[a.off] !== 1) return false;
    const ext = dv.getUint32(a.off + 6, true) & 0x3fffffff;
    if (!(ext < dv.getInt32(a.off + 2, true) - 4)) return false;
    cAt = a.off;
    return true;
  });
  d.patch(cp, ct.blk, (_p, dv) => dv.setUint32(cAt + 6, ((dv.getUint32(cAt + 6, true) & 0x3fffffff) | (2 << 30)) >>> 0, true));
  n++;
  // 7 a TOAST pointer in a tuple without HEAP_HASEXTERNAL
  const ep = d.path("embeddings");
  const et = d.item(ep, (_p, dv, x) => live(dv, x) && (dv.getUint16(x.off + HTH.t_infomask, true) & HEAP_HASEXTERNAL) !== 0);
  d.patch(ep, et.blk, (_p, dv) => dv.setUint16(et.off + HTH.t_infomask, dv.getUint16(et.off + HTH.t_infomask, true) & ~HEAP_HASEXTERNAL, true));
  n++;
  // 8 a redirect line pointer to an unused item
  d.patch(d.path("accounts"), 0, (_p, dv) => {
    const lower = dv.getUint16(12, true);
    dv.setUint32(lower, 0, true);
    dv.setUint32(lower + 4, makeLp((lower - 24) / 4 + 1, LP_REDIRECT, 0), true);
    dv.setUint16(12, lower + 8, true);
  });
  n++;
  // 9 a child high key that differs from its parent's separator
  const apk = d.path("accounts_pkey");
  const leaf = leafPages(d, "accounts_pkey")[0];
  d.patch(apk, leaf, (_p, dv) => {
    const off = dv.getUint32(24, true) & 0x7fff;
    dv.setBigInt64(off + 8, dv.getBigInt64(off + 8, true) + 1n, true);
  });
  n++;
  // 10 posting list TIDs out of order
  const st = d.path("web_links_status_idx");
  const post = d.item(st, (_p, dv, x) => x.blk !== 0 && (dv.getUint16(x.off + 6, true) & 0x2000) !== 0 && (dv.getUint16(x.off + 4, true) & 0x2000) !== 0);
  d.patch(st, post.blk, (pg, dv) => {
    const po = post.off + dv.getUint16(post.off + 2, true);
    const a = pg.slice(po, po + 6);
    pg.copyWithin(po, po + 6, po + 12);
    pg.set(a, po + 6);
  });
  n++;
  // 11 a B-tree metapage from an unknown version
  d.patch(d.path("toast_docs_tier_idx"), 0, (_p, dv) => dv.setUint32(28, 9, true));
  n++;
  // 12 a checksum flip (no recompute): the server refuses the page
  const ev = d.path("archive.evolving");
  d.patch(ev, 1, (_p, dv) => dv.setUint16(8, dv.getUint16(8, true) ^ 0x0f0f, true), true);
  n++;
  void maxOffsetNumber;
  void lpFlags;
  return n;
}
