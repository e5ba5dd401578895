// `pgdisk verify` as CI sees it: exit statuses (0 clean, 2 corruption, 1 operational), the
// text report, JSON that validates against the schema published in docs/verify-json.md, and
// JUnit XML that is well formed with a testcase per relation and failures carrying findings.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinySampleCopy } from "../fixtures/sample.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { HEAP_XMAX_INVALID, HEAP_XMIN_COMMITTED } from "../../formats/heap/tuple-header.js";
import { Damager, leafPages, lpWord, setLpWord } from "./damage.js";

const ENTRY = join(import.meta.dirname, "cli-entry.ts");
const ROOT = join(import.meta.dirname, "../..");
let root = "";
let pgdata = "";
let scratch = "";
let d: Damager;

function pgdisk(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--no-warnings", ENTRY, "verify", ...args], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

before(async () => {
  const c = await tinySampleCopy();
  root = c.root;
  pgdata = c.pgdata;
  scratch = mkdtempSync(join(tmpdir(), "pgdisk-verify-out-"));
  d = new Damager(pgdata);
  // two problems: swapped keys in web_links_pkey, an xmin beyond nextXid in web_links
  d.patch(d.path("web_links_pkey"), leafPages(d, "web_links_pkey")[0], (_p, dv) => {
    const a = lpWord(dv, 5);
    setLpWord(dv, 5, lpWord(dv, 6));
    setLpWord(dv, 6, a);
  });
  const it = d.item(d.path("web_links"), (_p, dv, x) => x.blk === 1 && (dv.getUint16(x.off + HTH.t_infomask, true) & (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED)) === (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED));
  d.patch(d.path("web_links"), 1, (_p, dv) => dv.setUint32(it.off + HTH.t_xmin, 4_000_000, true));
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("text: pg_amcheck-shaped report, exit 2", () => {
  const r = pgdisk("--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "web_links", "-j", "1");
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stdout, /^btree index "pgdisk_sample\.public\.web_links_pkey", block 1, offset 5:\n {4}\[BT_ITEM_ORDER\] item order invariant violated for index "web_links_pkey"\n {4}DETAIL: Lower index tid=\(1,5\)/m);
  assert.match(r.stdout, /^heap table "pgdisk_sample\.public\.web_links", block 1, offset \d+:\n {4}\[HEAP_XMIN_IN_FUTURE\] xmin 4000000 equals or exceeds next valid transaction ID 0:\d+$/m);
  assert.match(r.stdout, /^pgdisk verify: 13 relations, \d+ pages: 2 errors, 0 warnings \(2 relations corrupt\), notes: 0 not checked, [\d.]+ s with 1 worker$/m);
});

test("json: validates against docs/verify-json.md, worker threads, exit 2", () => {
  const r = pgdisk("--pgdata", pgdata, "-d", "pgdisk_sample", "--format", "json", "-j", "2", "-P");
  assert.equal(r.status, 2, r.stderr);
  const doc = JSON.parse(r.stdout);
  const schema = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(readFileSync(join(ROOT, "docs/verify-json.md"), "utf8"))![1]);
  assert.deepEqual(validate(schema, doc, "$"), []);
  assert.equal(doc.summary.exitCode, 2);
  assert.equal(doc.summary.workers, 2);
  assert.equal(doc.options.jobs, 2);
  const bad = doc.relations.filter((x: { status: string }) => x.status === "corrupt").map((x: { name: string }) => x.name);
  assert.deepEqual(bad.sort(), ["web_links", "web_links_pkey"]);
  const f = doc.relations.find((x: { name: string }) => x.name === "web_links_pkey").findings.find((x: { code: string }) => x.code === "BT_ITEM_ORDER");
  assert.deepEqual(f.location, { file: d.path("web_links_pkey"), block: 1, item: 5 });
  assert.match(r.stderr, /\d+\/\d+ relations, \d+\/\d+ pages \(\d+%\) verified/);
});

test("junit: well-formed XML, a testcase per relation, failures carry the findings", () => {
  const out = join(scratch, "verify.xml");
  const r = pgdisk("--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "web_links", "-t", "accounts", "--format", "junit", "-o", out, "-j", "2");
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, "");
  const xml = readFileSync(out, "utf8");
  assertWellFormed(xml);
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="pgdisk verify \(notes: 0 not checked\)" tests="\d+" failures="2" errors="0" skipped="0" time="[\d.]+">/);
  const cases = [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map((m) => `${m[1]}/${m[2]}`);
  assert.ok(cases.includes("pgdisk_sample.public/web_links_pkey (btree)"));
  assert.ok(cases.includes("pgdisk_sample.public/accounts (heap)"));
  const tests = Number(/<testsuites [^>]*tests="(\d+)"/.exec(xml)![1]);
  assert.equal(cases.length, tests);
  assert.match(xml, /<failure message="1 error: \[BT_ITEM_ORDER\] item order invariant violated for index &quot;web_links_pkey&quot;" type="BT_ITEM_ORDER">btree index &quot;pgdisk_sample\.public\.web_links_pkey&quot;, block 1, offset 5:/);
});

test("a clean table exits 0; an index alone is verified alone", () => {
  const r = pgdisk("--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "all_types", "-t", "accounts_email_idx", "--format", "json", "-j", "1");
  assert.equal(r.status, 0, r.stdout.slice(0, 2000));
  const doc = JSON.parse(r.stdout);
  assert.ok(doc.relations.some((x: { name: string; checks: string[] }) => x.name === "accounts_email_idx" && x.checks.includes("heapallindexed")));
  assert.ok(!doc.relations.some((x: { name: string }) => x.name === "accounts"));
});

test("operational errors exit 1", () => {
  assert.equal(pgdisk("--pgdata", join(scratch, "nope")).status, 1);
  const r = pgdisk("--pgdata", pgdata, "-d", "no_such_db");
  assert.equal(r.status, 1);
  assert.match(r.stderr, /DATABASE_NOT_FOUND/);
  assert.equal(pgdisk("--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "no_such_table").status, 1);
  assert.equal(pgdisk("--format", "xml", "--pgdata", pgdata).status, 1);
});

test("relation files: inside the cluster found in the catalog, outside checked alone", () => {
  const inside = pgdisk(d.path("all_types"), "--format", "json", "-j", "1");
  assert.equal(inside.status, 0, inside.stdout.slice(0, 1000));
  assert.equal(JSON.parse(inside.stdout).relations[0].name, "all_types");
  const lone = join(scratch, "16384");
  copyFileSync(d.path("web_links"), lone);
  const r = pgdisk(lone, "--format", "json", "--checksums");
  assert.equal(r.status, 0, r.stdout.slice(0, 1500));
  const rel = JSON.parse(r.stdout).relations[0];
  assert.equal(rel.am, "heap");
  assert.deepEqual(rel.findings.map((f: { code: string }) => f.code), ["REL_NO_CATALOG"]);
  // damage the lone copy's header: exit 2
  const b = readFileSync(lone);
  b.writeUInt16LE(b.readUInt16LE(14) + 8, 12); // pd_lower > pd_upper in block 0
  writeFileSync(lone, b);
  const r2 = pgdisk(lone, "--format", "json");
  assert.equal(r2.status, 2);
  assert.deepEqual(JSON.parse(r2.stdout).relations[0].findings.filter((f: { severity: string }) => f.severity === "error").map((f: { code: string }) => f.code), ["PAGE_LOWER_GT_UPPER"]);
});

// ---- a minimal JSON Schema subset (type, enum, required, properties, additionalProperties, items)
type Schema = { type?: string | string[]; enum?: unknown[]; required?: string[]; properties?: Record<string, Schema>; additionalProperties?: boolean; items?: Schema };
function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
function validate(s: Schema, v: unknown, path: string): string[] {
  const errs: string[] = [];
  if (s.enum && !s.enum.includes(v)) errs.push(`${path}: ${JSON.stringify(v)} not in ${JSON.stringify(s.enum)}`);
  if (s.type) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const t = typeOf(v);
    if (!types.includes(t) && !(t === "integer" && types.includes("number"))) errs.push(`${path}: ${t}, expected ${types.join("|")}`);
  }
  if (typeOf(v) === "object") {
    const o = v as Record<string, unknown>;
    for (const k of s.required ?? []) if (!(k in o)) errs.push(`${path}: missing ${k}`);
    for (const [k, x] of Object.entries(o)) {
      if (s.properties?.[k]) errs.push(...validate(s.properties[k], x, `${path}.${k}`));
      else if (s.additionalProperties === false) errs.push(`${path}: unexpected ${k}`);
    }
  }
  if (typeOf(v) === "array" && s.items) (v as unknown[]).forEach((x, i) => errs.push(...validate(s.items!, x, `${path}[${i}]`)));
  return errs;
}

// ---- XML well-formedness for what the JUnit writer emits: declaration, elements, attributes, text, entities
function assertWellFormed(xml: string): void {
  let i = 0;
  const stack: string[] = [];
  const name = /^[A-Za-z_][\w.-]*/;
  if (xml.startsWith("<?xml")) i = xml.indexOf("?>") + 2;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    assert.ok(!/&(?!(amp|lt|gt|quot|apos);)/.test(text), `bad entity near ${i}`);
    if (lt < 0) break;
    const gt = xml.indexOf(">", lt);
    assert.ok(gt > lt, "unterminated tag");
    const tag = xml.slice(lt + 1, gt);
    if (tag.startsWith("/")) {
      assert.equal(stack.pop(), tag.slice(1), `mismatched </${tag.slice(1)}>`);
    } else {
      const m = name.exec(tag);
      assert.ok(m, `bad tag <${tag.slice(0, 20)}>`);
      const attrs = tag.slice(m[0].length).replace(/\/$/, "");
      assert.match(attrs, /^(\s+[A-Za-z_][\w.-]*="[^"<&]*(&(amp|lt|gt|quot|apos);[^"<&]*)*")*\s*$/, `bad attributes in <${m[0]}>`);
      if (!tag.endsWith("/")) stack.push(m[0]);
    }
    i = gt + 1;
  }
  assert.deepEqual(stack, [], "unclosed elements");
}
