// inspect, browse, verify and migrate on every supported release, each against its own server from npm: a small
// cluster (TOASTed text compressed and not, a btree index, numeric, timestamptz, jsonb, arrays)
// is listed, its values read by `inspect value` equal SELECT's, the browse engine lays out its
// pages and finds its TOAST chunks, it verifies clean; two damages (B-tree keys swapped, an xmin beyond nextXid) are found by pgdisk
// and by pg_amcheck on that version's server at the same places (13's amcheck has no heap check:
// there only the btree damage is compared, through bt_index_parent_check); the TOAST round trip (to
// Direct TOAST and back) and the btree round trip (to BTP_PREFIX and back) give clusters the
// server of that version starts on, with the same rows and a clean pg_amcheck; a plain btree
// rebuild equals that server's REINDEX page by page.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { HEAP_XMAX_INVALID, HEAP_XMIN_COMMITTED, HTH } from "../../formats/heap/tuple-header.js";
import { pageRegions } from "../../inspect/browse/hex-layout.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { toastChunks } from "../../inspect/browse/toast.js";
import { NPM_SERVER_VERSIONS, PgServer } from "../../samples/pg-server.js";
import { pgdisk, pgdiskMigrate, rowDigests } from "../toast/cluster-helpers.js";
import { Damager, leafPages, lpWord, setLpWord, type Item } from "../verify/damage.js";
import { comparePages, convertInPlace, outputCopy, reindexCopy, removeRoot } from "../../samples/cluster-kit.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ENTRY = join(ROOT, "test", "verify", "cli-entry.ts");
const DB = "vm";

interface VerifyDoc {
  relations: { name: string; findings: { code: string; severity: string; location: { block?: number; item?: number } }[] }[];
  summary: { relations: number; errors: number };
}

function verify(pgdata: string): { status: number; doc: VerifyDoc; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--no-warnings", ENTRY, "verify", "--format", "json", "-D", pgdata], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status ?? -1, doc: JSON.parse(r.stdout || '{"relations":[],"summary":{"relations":0,"errors":0}}') as VerifyDoc, stderr: r.stderr };
}

/**
 * amcheck on the server: pg_amcheck where the server's amcheck has verify_heapam (14+); on 13,
 * whose amcheck checks only btrees, bt_index_parent_check(heapallindexed) on every btree index,
 * its errors written as pg_amcheck writes them. `heap` says whether heaps were checked.
 */
function amcheck(srv: PgServer): { status: number; out: string; heap: boolean } {
  srv.sql("CREATE EXTENSION IF NOT EXISTS amcheck", DB);
  const heap = srv.rows("SELECT count(*) FROM pg_proc WHERE proname = 'verify_heapam'", DB)[0]![0] !== "0";
  if (heap) {
    const r = srv.toolResult("pg_amcheck", [...srv.connArgs(DB), "--heapallindexed", "--parent-check"]);
    return { status: r.status, out: r.stdout + r.stderr, heap };
  }
  const indexes = srv.rows("SELECT n.nspname, c.relname, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'btree' AND c.relpersistence <> 't' ORDER BY c.oid", DB);
  let out = "";
  for (const [nsp, name, oid] of indexes) {
    const r = srv.toolResult("psql", [...srv.connArgs(DB), "-X", "-q", "-c", `SELECT bt_index_parent_check(${oid}, true)`]);
    if (r.status !== 0) out += `btree index "${DB}.${nsp}.${name}":\n    ${r.stderr.trim()}\n`;
  }
  return { status: out ? 2 : 0, out, heap };
}

const SQL = String.raw`
CREATE TABLE docs (id int PRIMARY KEY, title text, body text, raw text, n numeric, ts timestamptz, j jsonb, tags text[]);
ALTER TABLE docs ALTER raw SET STORAGE EXTERNAL;
INSERT INTO docs
  SELECT g, 'doc ' || g,
         (SELECT string_agg(md5(g::text || '.' || i::text), '') FROM generate_series(1, 300) i),
         CASE WHEN g % 3 = 0 THEN (SELECT string_agg(md5(i::text || '/' || g::text), ' ') FROM generate_series(1, 80) i) END,
         g * 1.25, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 hour', jsonb_build_object('g', g, 'odd', g % 2 = 1), ARRAY['a' || g, 'b']
  FROM generate_series(1, 60) g;
CREATE INDEX docs_title ON docs (title);
CREATE TABLE nums (id int, k int);
INSERT INTO nums SELECT g, g * 7 % 1000 FROM generate_series(1, 5000) g;
CREATE INDEX nums_k ON nums (k);
CREATE TABLE urls (u text);
INSERT INTO urls SELECT 'https://example.org/articles/2024/' || lpad(g::text, 6, '0') FROM generate_series(1, 3000) g;
CREATE INDEX urls_u ON urls (u);
VACUUM FREEZE ANALYZE;
`;

for (const version of NPM_SERVER_VERSIONS) {
  describe(`PostgreSQL ${version}`, () => {
    let work = "";
    let srv: PgServer;
    let original: Map<string, Map<string, string>>;
    /** ctid and md5 of a TOASTed body and of a raw (external, uncompressed) value */
    let sample: { tid: string; body: string; raw: string };
    before(async () => {
      work = mkdtempSync(join(tmpdir(), `pgdisk-v${version}-vm-`));
      chmodSync(work, 0o755);
      srv = await PgServer.create({ dir: join(work, "clean"), version, checksums: true });
      srv.sql(`CREATE DATABASE ${DB}`);
      srv.sql(SQL, DB);
      original = rowDigests(srv, DB);
      const [tid, body, raw] = srv.rows("SELECT ctid, md5(body), md5(raw) FROM docs WHERE id = 9", DB)[0]!;
      sample = { tid: tid!, body: body!, raw: raw! };
      srv.stop();
    });
    /** The server of this version starts on a converted cluster (root/data): pg_amcheck clean, every row as before. */
    function assertServerAgrees(root: string, more?: (s: PgServer) => void): void {
      const restored = PgServer.attach(root, { version });
      restored.start();
      try {
        const am = amcheck(restored);
        assert.equal(am.status, 0, am.out);
        const now = rowDigests(restored, DB);
        assert.deepEqual([...now.keys()], [...original.keys()]);
        for (const [t, rows] of original) assert.deepEqual(now.get(t), rows, t);
        more?.(restored);
      } finally {
        restored.destroy();
      }
    }
    after(() => {
      srv?.destroy();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    test("verify: the clean cluster has no findings", () => {
      const r = verify(srv.pgdata);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.doc.summary.errors, 0);
      assert.ok(r.doc.summary.relations > 100, `${r.doc.summary.relations} relations`);
      const names = new Set(r.doc.relations.map((x) => x.name));
      for (const n of ["docs", "docs_pkey", "docs_title", "nums", "nums_k"]) assert.ok([...names].some((x) => x === n || x.endsWith(`.${n}`)), n);
    });

    test("inspect list, control and value: the relations, the release, TOASTed values equal to SELECT's", () => {
      const list = pgdisk(["inspect", "list", "--pgdata", srv.pgdata, "-d", DB]);
      assert.equal(list.status, 0, list.stderr);
      for (const n of ["public.docs", "public.docs_pkey", "public.docs_title", "public.nums", "public.nums_k"]) assert.match(list.stdout.toString(), new RegExp(`\\s${n.replace(".", "\\.")}\\s`), n);
      const control = pgdisk(["inspect", "control", "--pgdata", srv.pgdata, "--format", "json"]);
      assert.equal(control.status, 0, control.stderr);
      assert.equal((JSON.parse(control.stdout.toString()) as { fields: { derived: { version: { catalogRelease: number } } } }).fields.derived.version.catalogRelease, version);
      for (const column of ["body", "raw"] as const) {
        const v = pgdisk(["inspect", "value", "--pgdata", srv.pgdata, "-d", DB, "-t", "public.docs", "-c", column, "--tid", sample.tid]);
        assert.equal(v.status, 0, v.stderr);
        // the text output ends with a newline
        assert.equal(createHash("md5").update(v.stdout.subarray(0, -1)).digest("hex"), sample[column], column);
      }
    });

    test("browse engine: docs' pages laid out without problem regions, every TOASTed body's chunks found through the TOAST index", () => {
      const session = new BrowseSession({ pgdata: srv.pgdata, database: DB });
      try {
        const db = session.databases().find((d) => d.name === DB)!.oid;
        const t = session.findRelation(db, "public.docs");
        const h = session.relation(t);
        let toasted = 0;
        for (let b = h.firstBlock; b < h.nblocks; b++) {
          const d = session.page(t, b);
          assert.deepEqual(d.findings, [], `block ${b}`);
          const regions = pageRegions(session.readPage(t, b), d, { desc: h.ctx.desc, indexDesc: h.ctx.indexDesc });
          assert.ok(regions.length > d.items.length && !regions.some((x) => x.problem), `block ${b}`);
          for (const it of d.items) {
            const body = it.heap?.values?.find((v) => v.name === "body");
            if (!body?.toast) continue;
            const list = toastChunks(session, t, b, it.lp, body.attnum);
            assert.equal(list.method, "toast index");
            assert.deepEqual(list.chunks.map((c) => c.seq), [...Array(list.expected).keys()], `(${b},${it.lp})`);
            toasted++;
          }
        }
        assert.equal(toasted, 60);
      } finally {
        session.close();
      }
    });

    test("damage: swapped B-tree keys and an xmin beyond nextXid, found by pgdisk and by pg_amcheck at the same places", () => {
      const root = join(work, "damaged");
      mkdirSync(root);
      cpSync(srv.pgdata, join(root, "data"), { recursive: true });
      const d = new Damager(join(root, "data"), DB);
      const leaf = leafPages(d, "nums_k")[0]!;
      d.patch(d.path("nums_k"), leaf, (_p, dv) => {
        const a = lpWord(dv, 5);
        setLpWord(dv, 5, lpWord(dv, 6));
        setLpWord(dv, 6, a);
      });
      const live = (dv: DataView, it: Item): boolean => (dv.getUint16(it.off + HTH.t_infomask, true) & HEAP_XMAX_INVALID) !== 0 && it.blk === 3;
      const victim = d.item(d.path("nums"), (_p, dv, x) => live(dv, x));
      d.patch(d.path("nums"), victim.blk, (_p, dv) => {
        dv.setUint32(victim.off + HTH.t_xmin, 4_000_000, true);
        dv.setUint16(victim.off + HTH.t_infomask, dv.getUint16(victim.off + HTH.t_infomask, true) & ~HEAP_XMIN_COMMITTED, true);
      });
      const mine = verify(join(root, "data"));
      assert.equal(mine.status, 2, mine.stderr);
      const findings = (name: string) => mine.doc.relations.filter((x) => x.name === name || x.name.endsWith(`.${name}`)).flatMap((x) => x.findings);
      assert.ok(findings("nums_k").some((f) => f.code === "BT_ITEM_ORDER" && f.location.block === leaf), JSON.stringify(findings("nums_k")));
      assert.ok(findings("nums").some((f) => f.code === "HEAP_XMIN_IN_FUTURE" && f.location.block === victim.blk && f.location.item === victim.item), JSON.stringify(findings("nums")));
      const damaged = PgServer.attach(root, { version });
      damaged.start();
      try {
        const am = amcheck(damaged);
        assert.notEqual(am.status, 0);
        assert.match(am.out, /btree index "vm\.public\.nums_k":\n\s+ERROR:\s+item order invariant violated for index "nums_k"/);
        if (am.heap) assert.match(am.out, new RegExp(`heap table "vm\\.public\\.nums", block ${victim.blk}, offset ${victim.item}:\\n\\s+xmin 4000000 equals or exceeds next valid transaction ID`));
      } finally {
        damaged.destroy();
      }
    });

    test("TOAST round trip: to Direct TOAST and back; the server starts, same rows, pg_amcheck clean", () => {
      const direct = join(work, "direct", "data");
      const back = join(work, "back", "data");
      const fwd = pgdiskMigrate(["toast", "--pgdata", srv.pgdata, "--out", direct, "-d", DB, "--all", "--to", "direct", "--json", "-q"]);
      assert.equal(fwd.status, 0, fwd.stderr);
      const rep = JSON.parse(fwd.stdout) as { tables: { table: string; chunks: { after: { direct: number } } }[] };
      assert.ok(rep.tables.some((t) => t.chunks.after.direct > 0), "some chunks are direct");
      const checked = verify(direct);
      assert.equal(checked.status, 0, checked.stderr);
      const rev = pgdiskMigrate(["toast", "--pgdata", direct, "--out", back, "-d", DB, "--all", "--to", "plain", "--json", "-q"]);
      assert.equal(rev.status, 0, rev.stderr);
      assertServerAgrees(join(work, "back"));
      assert.equal(original.get("public.docs")!.size, 60);
    });

    test("btree round trip: to BTP_PREFIX and back; the prefix copy verifies clean, the server starts, same rows, pg_amcheck clean", () => {
      const prefix = join(work, "prefix", "data");
      const plain = join(work, "plain", "data");
      // migrate btree wants the output's parent to exist (a missing one is an internal error today)
      mkdirSync(join(work, "prefix"));
      mkdirSync(join(work, "plain"));
      const fwd = pgdiskMigrate(["btree", "--pgdata", srv.pgdata, "--out", prefix, "-d", DB, "--all", "--to", "prefix", "--mode", "rebuild", "--policy", "lead", "--json", "-q"]);
      assert.equal(fwd.status, 0, fwd.stderr);
      const rep = JSON.parse(fwd.stdout) as { indexes: { index: string; leafCoded: number }[] };
      assert.ok(rep.indexes.some((i) => i.index === "public.urls_u" && i.leafCoded > 5), JSON.stringify(rep.indexes));
      const checked = verify(prefix);
      assert.equal(checked.status, 0, checked.stderr);
      const rev = pgdiskMigrate(["btree", "--pgdata", prefix, "--out", plain, "-d", DB, "--all", "--to", "plain", "-q"]);
      assert.equal(rev.status, 0, rev.stderr);
      assertServerAgrees(join(work, "plain"), (restored) => {
        assert.equal(restored.rows("SET enable_seqscan = off; SELECT count(*) FROM urls WHERE u >= 'https://example.org/articles/2024/002001'", DB).at(-1)![0], "1000");
      });
    });

    test("plain rebuild = that server's REINDEX, page by page (pd_lsn and pd_checksum aside)", () => {
      const indexes = ["docs_pkey", "docs_title", "nums_k", "urls_u"];
      const re = reindexCopy(srv.root, DB, indexes, version);
      const out = outputCopy(srv.pgdata, `v${version}-rebuild`);
      try {
        const reports = convertInPlace(out, DB, indexes, { to: "plain", mode: "rebuild" });
        for (const name of indexes) {
          const r = reports.get(name)!;
          const cmp = comparePages(readFileSync(r.path), re.files.get(name)!);
          assert.equal(cmp.pages, cmp.theirPages, `${name}: ${cmp.pages} pages, REINDEX wrote ${cmp.theirPages}`);
          assert.deepEqual(cmp.differing, [], `${name}: pages ${cmp.differing.slice(0, 10).join(", ")} differ from REINDEX`);
        }
        assert.ok(reports.get("urls_u")!.report.pagesAfter > 10);
      } finally {
        removeRoot(re.root);
        removeRoot(dirname(out));
      }
    });
  });
}
