// Differential check shared by the sample and the independent cluster (on every version): pgdisk's
// decoding of every page of every relation of a real PostgreSQL cluster (user tables, TOAST, every index, system catalogs, shared catalogs) against
// pageinspect run on the same bytes, and every decoded value against SELECT's text output.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync, chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import { PgServer } from "../../samples/pg-server.js";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { dumpRelation, emptySummary } from "../../inspect/dump/dump.js";
import { ByteOut } from "../../inspect/dump/byte-out.js";
import { CopyRenderer } from "../../inspect/dump/render-copy.js";
import type { DumpPage, DumpValue } from "../../inspect/dump/model.js";
import type { ResolvedRelation } from "../../inspect/dump/target.js";
import { RelationFork, scanBlocks } from "../../formats/storage/relfile.js";

const s16 = (n: number): number => (n > 32767 ? n - 65536 : n);

function byKey<T>(rows: (string | null)[][], key: (r: (string | null)[]) => string, f: (r: (string | null)[]) => T): Map<string, T> {
  return new Map(rows.map((r) => [key(r), f(r)]));
}

export interface DifferentialOptions {
  /** database whose relations (user and system) are compared; shared catalogs come along */
  db: string;
  /** minimum numbers of items compared, so a silently empty run cannot pass */
  minHeapItems: number;
  minBtreeItems: number;
  minRows: number;
  minToasted: number;
  /** every index AM expected in the cluster */
  ams: string[];
  /** major version of the npm server that made the cluster (default Debian's PostgreSQL 15) */
  version?: number;
  /** type OIDs whose output function lives in a shared library pgdisk cannot have (a test module's): their columns are left out of the value comparison, and counted */
  foreignOutputTypes?: ReadonlySet<number>;
}

/** Register the differential tests for a cluster made by `make` (a stopped cluster at root/data). */
export function differentialSuite(make: () => Promise<{ root: string; pgdata: string }>, o: DifferentialOptions): void {
  const DB = o.db;
  let root = "";
  let srv: PgServer;
  interface Snap {
    rel: RelationInfo;
    cat: DatabaseCatalog;
    pages: Uint8Array[];
    dump: DumpPage[];
    /** `--format copy`'s output of a table (its rows as the CLI writes them), else "" */
    copy: string;
  }
  const snaps: Snap[] = [];


  before(async () => {
    const copy = await make();
    root = copy.root;
    const cluster = new Cluster(copy.pgdata);
    const cat = cluster.database(DB);
    // Every relation with storage: user and system, plus shared catalogs (global/).
    for (const rel of cat.classes.values()) {
      if (rel.filenode === 0 || !"rtimS".includes(rel.kind)) continue;
      if (rel.persistence === "t") continue;
      const path = cat.path(rel);
      const fork = new RelationFork(path, cluster.geometry);
      const pages: Uint8Array[] = [];
      for (const [, p] of scanBlocks(fork)) pages.push(p.slice());
      fork.close();
      const r: ResolvedRelation = { path, fork: "main", rel, catalog: cat, cluster, singleFile: false, geometry: cluster.geometry };
      const dump: DumpPage[] = [];
      for (const e of dumpRelation(r, { detoast: rel.kind === "r" || rel.kind === "m" })) if (e.type === "page") dump.push(e.page);
      snaps.push({ rel, cat, pages, dump, copy: rel.kind === "r" && !rel.shared ? copyDump(r) : "" });
    }
    srv = PgServer.attach(dirname(copy.pgdata), { version: o.version });
    srv.start();
    srv.sql("CREATE EXTENSION IF NOT EXISTS pageinspect; CREATE TABLE pgd_pages(relid oid, am text, blk int, page bytea);", "postgres");
    const lines: string[] = [];
    for (const s of snaps) {
      const am = s.rel.kind === "i" ? s.rel.amName : "heap";
      s.pages.forEach((p, blk) => lines.push(`${s.rel.oid}\t${am}\t${blk}\t\\\\x${Buffer.from(p).toString("hex")}`));
    }
    const file = join(root, "pages.copy");
    writeFileSync(file, lines.join("\n") + "\n");
    chmodSync(file, 0o644);
    srv.sql(`COPY pgd_pages FROM '${file}'`, "postgres");
  });
  // The queries below pass pageinspect `page || ''::bytea`, an in-memory copy, not the stored
  // (TOASTed) value: PostgreSQL 15.18's heap_page_items, called once per row of pgd_pages, was
  // seen returning garbage for the last items of a page read from its detoasted argument
  // (pg_statistic block 17 of the independent cluster; 15.20 and the copy give the right rows).

  after(() => {
    srv?.destroy();
    if (root) rmSync(root, { recursive: true, force: true });
  });


  test("the snapshot covers user tables, TOAST tables, indexes of every AM and system catalogs", () => {
    const kinds = new Set(snaps.map((s) => s.rel.kind));
    for (const k of ["r", "t", "i"]) assert.ok(kinds.has(k), `relkind ${k} present`);
    const ams = new Set(snaps.filter((s) => s.rel.kind === "i").map((s) => s.rel.amName));
    for (const am of o.ams) assert.ok(ams.has(am), `an index of AM ${am}`);
    assert.ok(snaps.some((s) => s.rel.shared), "shared catalogs included");
    assert.ok(snaps.reduce((n, s) => n + s.pages.length, 0) > 200, "more than 200 pages");
  });

  test("page_header equals pageinspect on every page", (t) => {
    const rows = srv.rows("SELECT relid, blk, h.lsn, h.checksum, h.flags, h.lower, h.upper, h.special, h.pagesize, h.version, h.prune_xid FROM pgd_pages, page_header(page || ''::bytea) h", "postgres");
    const theirs = byKey(rows, (r) => `${r[0]}/${r[1]}`, (r) => r.slice(2).join(" "));
    let compared = 0;
    for (const s of snaps) {
      for (const p of s.dump) {
        const key = `${s.rel.oid}/${p.block}`;
        if (p.isNew) {
          assert.equal(theirs.get(key), "0/0 0 0 0 0 0 0 0 0", `new page ${key}`);
          continue;
        }
        const h = p.header!;
        const ours = [h.lsn, s16(h.pd_checksum), s16(h.pd_flags), h.pd_lower, h.pd_upper, h.pd_special, h.pageSize, h.layoutVersion, h.pd_prune_xid].join(" ");
        assert.equal(ours, theirs.get(key), `page_header of ${s.rel.name} block ${p.block}`);
        compared++;
      }
    }
    assert.equal(compared + snaps.reduce((n, s) => n + s.dump.filter((p) => p.isNew).length, 0), rows.length);
    t.diagnostic(`${rows.length} pages compared`);
  });

  test("heap_page_items equals pageinspect on every heap page (tables, TOAST, catalogs)", (t) => {
    const rows = srv.rows(
      "SELECT relid, blk, i.lp, i.lp_off, i.lp_flags, i.lp_len, i.t_xmin, i.t_xmax, i.t_field3, i.t_ctid, i.t_infomask2, i.t_infomask, i.t_hoff, i.t_bits FROM pgd_pages, heap_page_items(page || ''::bytea) i WHERE am = 'heap'",
      "postgres",
    );
    const theirs = byKey(rows, (r) => `${r[0]}/${r[1]}/${r[2]}`, (r) => r.slice(3).map((x) => x ?? "NULL").join(" "));
    let compared = 0;
    for (const s of snaps.filter((x) => x.rel.kind !== "i")) {
      for (const p of s.dump) {
        for (const it of p.items) {
          const h = it.heap;
          const ours = h
            ? [it.lp_off, it.lp_flags, it.lp_len, h.t_xmin, h.t_xmax, h.t_field3, h.t_ctid, h.t_infomask2, h.t_infomask, h.t_hoff, h.t_bits ?? "NULL"].join(" ")
            : [it.lp_off, it.lp_flags, it.lp_len, "NULL NULL NULL NULL NULL NULL NULL NULL"].join(" ");
          assert.equal(ours, theirs.get(`${s.rel.oid}/${p.block}/${it.lp}`), `${s.rel.name} (${p.block},${it.lp})`);
          compared++;
        }
      }
    }
    assert.equal(compared, rows.length, "every heap item compared");
    assert.ok(compared > o.minHeapItems, `compared ${compared} heap items`);
    t.diagnostic(`${compared} heap items compared`);
  });

  test("bt_page_items equals pageinspect on every btree page", (t) => {
    const rows = srv.rows(
      "SELECT relid, blk, i.itemoffset, i.ctid, i.itemlen, i.nulls, i.vars, i.data, i.dead, i.htid, i.tids FROM pgd_pages, bt_page_items(page || ''::bytea) i WHERE am = 'btree' AND blk > 0",
      "postgres",
    );
    const theirs = byKey(rows, (r) => `${r[0]}/${r[1]}/${r[2]}`, (r) => r.slice(3).map((x) => x ?? "NULL").join(" | "));
    let compared = 0;
    for (const s of snaps.filter((x) => x.rel.amName === "btree")) {
      for (const p of s.dump) {
        if (p.block === 0 || p.isNew) continue;
        // bt_page_items lists no rows for a deleted page with BTDeletedPageData (PostgreSQL 14+);
        // its "line pointers" are the safexid.
        if ((p.special as { type?: string } | undefined)?.type?.toLowerCase() === "d" && !theirs.has(`${s.rel.oid}/${p.block}/1`)) continue;
        for (const it of p.items) {
          const b = it.btree;
          assert.ok(b, `${s.rel.name} block ${p.block} item ${it.lp} decoded`);
          const tids = b.tids ? `{${b.tids.map((t) => `"${t}"`).join(",")}}` : "NULL";
          const ours = [b.ctid, it.lp_len, b.nulls ? "t" : "f", b.vars ? "t" : "f", b.data, b.dead === null ? "NULL" : b.dead ? "t" : "f", b.htid ?? "NULL", tids].join(" | ");
          const want = theirs.get(`${s.rel.oid}/${p.block}/${it.lp}`);
          // itemlen is IndexTupleSize; lp_len equals it for btree tuples.
          assert.equal(ours, want, `${s.rel.name} block ${p.block} item ${it.lp}`);
          compared++;
        }
      }
    }
    assert.equal(compared, rows.length);
    assert.ok(compared > o.minBtreeItems, `compared ${compared} btree items`);
    t.diagnostic(`${compared} btree items compared`);
  });

  test("every value decoded from the files equals the type output function's text (COPY TO) (toasted and compressed included)", (t) => {
    let compared = 0;
    let toasted = 0;
    let compressed = 0;
    const diffs: string[] = [];
    let foreignColumns = 0;
    // User tables and the database's system catalogs, every column (reg* names, aclitem role
    // names and pg_statistic's anyarray values included: they print through the catalog).
    for (const s of snaps.filter((x) => x.rel.kind === "r" && !x.rel.shared)) {
      const all = s.cat.descriptor(s.rel.oid).attrs.filter((a) => !a.dropped);
      const cols = all.filter((a) => !o.foreignOutputTypes?.has(a.typid));
      foreignColumns += all.length - cols.length;
      if (!cols.length) continue;
      const sel = cols.map((a) => quoteIdent(a.name)).join(", ");
      // ONLY: an inheritance parent's SELECT would also return its children's rows, whose ctids repeat its own
      const out = srv.sql(`COPY (SELECT ctid, ${sel} FROM ONLY ${quoteIdent(s.rel.namespaceName)}.${quoteIdent(s.rel.name)}) TO STDOUT`, DB);
      const theirs = new Map<string, string>();
      for (const line of out.split("\n")) if (line) theirs.set(line.slice(0, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1));
      let live = 0;
      for (const p of s.dump) {
        for (const it of p.items) {
          const h = it.heap;
          if (!h || h.state !== "live") continue;
          live++;
          const tid = `(${p.block},${it.lp})`;
          const keep = new Set(cols.map((c) => c.attnum));
          const vals = h.values!.filter((v) => keep.has(v.attnum));
          for (const v of vals) {
            if (v.toast) toasted++;
            if (v.compression || v.toast?.compressed) compressed++;
          }
          const ours = vals.map((v) => (v.isnull ? "\\N" : copyEscape(v.value ?? "<undecoded>"))).join("\t");
          if (ours !== theirs.get(tid)) diffs.push(`${s.rel.name} ${tid}: pgdisk ${JSON.stringify(ours.slice(0, 300))}, server ${JSON.stringify(theirs.get(tid)?.slice(0, 300))}`);
          compared++;
        }
      }
      if (live !== theirs.size) diffs.push(`${s.rel.name}: ${live} live tuples offline, ${theirs.size} rows SELECT sees`);
    }
    assert.deepEqual(diffs.slice(0, 30), [], `${diffs.length} differences`);
    assert.ok(compared > o.minRows, `compared ${compared} rows`);
    t.diagnostic(`${compared} rows compared (${toasted} toasted values, ${compressed} compressed)${foreignColumns ? `; ${foreignColumns} columns of types with a foreign output function left out` : ""}`);
    assert.ok(toasted >= o.minToasted, `${toasted} toasted values`);
    assert.ok(compressed >= Math.min(o.minToasted, 10), `${compressed} compressed values`);
  });

  test("the COPY dump (the writers of --format copy) prints every table and catalog as COPY TO does", (t) => {
    let rows = 0;
    const diffs: string[] = [];
    for (const s of snaps.filter((x) => x.rel.kind === "r" && !x.rel.shared)) {
      const all = s.cat.descriptor(s.rel.oid).attrs.filter((a) => !a.dropped);
      // fields of columns whose output function pgdisk cannot have are dropped from both sides
      const keep = all.map((a) => !o.foreignOutputTypes?.has(a.typid));
      const fields = (line: string): string => line.split("\t").filter((_, k) => keep[k]).join("\t");
      const theirs = srv.sql(`COPY ${quoteIdent(s.rel.namespaceName)}.${quoteIdent(s.rel.name)} TO STDOUT`, DB).split("\n").filter(Boolean).map(fields).sort();
      const ours = s.copy.split("\n").filter(Boolean).map(fields).sort();
      rows += theirs.length;
      if (ours.length !== theirs.length) diffs.push(`${s.rel.name}: pgdisk ${ours.length} rows, server ${theirs.length}`);
      else ours.forEach((l, i) => l !== theirs[i] && diffs.push(`${s.rel.name}: pgdisk ${JSON.stringify(l.slice(0, 300))}, server ${JSON.stringify(theirs[i]!.slice(0, 300))}`));
    }
    assert.deepEqual(diffs.slice(0, 30), [], `${diffs.length} differences`);
    assert.ok(rows > o.minRows, `compared ${rows} rows`);
    t.diagnostic(`${rows} rows compared`);
  });

  test("the dump of a clean cluster has no findings", () => {
    // Information (e.g. a dead tuple whose TOAST chunks VACUUM already removed) is not a problem.
    const findings = snaps.flatMap((s) => s.dump.flatMap((p) => p.findings.filter((f) => f.severity !== "info").map((f) => `${s.rel.name}: ${f.code} ${f.message}`)));
    assert.deepEqual(findings, []);
  });


  test("bt_metap and bt_page_stats equal pageinspect for every user btree index", (t) => {
    // Runs last: CREATE EXTENSION adds catalog rows that the value comparison must not see.
    srv.sql("CREATE EXTENSION IF NOT EXISTS pageinspect;", DB);
    let compared = 0;
    for (const s of snaps.filter((x) => x.rel.amName === "btree" && x.rel.oid >= 16384)) {
      const q = `format('%I.%I', '${s.rel.namespaceName.replace(/'/g, "''")}', '${s.rel.name.replace(/'/g, "''")}')`;
      // By position: PostgreSQL 13 names the same two fields oldest_xact and last_cleanup_num_heap_tuples.
      const meta = srv.rows(`SELECT m.* FROM bt_metap(${q}) m`, DB)[0];
      const m = s.dump[0].meta as Record<string, unknown>;
      assert.deepEqual(
        [m.magic, m.version, m.root, m.level, m.fastroot, m.fastlevel, m.last_cleanup_num_delpages, m.last_cleanup_num_tuples, m.allequalimage].map((x) => (typeof x === "boolean" ? (x ? "t" : "f") : String(x))),
        meta,
        `bt_metap ${s.rel.name}`,
      );
      if (s.pages.length < 2) continue;
      const stats = srv.rows(`SELECT s.* FROM generate_series(1, ${s.pages.length - 1}) b, bt_page_stats(${q}, b) s ORDER BY 1`, DB);
      for (const st of stats) {
        const p = s.dump[Number(st[0])];
        const o = p.special as Record<string, unknown>;
        assert.deepEqual([o.blkno, o.type, o.live_items, o.dead_items, o.avg_item_size, o.page_size, o.free_size, o.btpo_prev, o.btpo_next, o.btpo_level, o.btpo_flags].map(String), st, `bt_page_stats ${s.rel.name} ${st[0]}`);
        compared++;
      }
    }
    assert.ok(compared > 50, `compared ${compared} btree pages`);
  });

  test("gist_page_items and hash_page_items equal pageinspect on every GiST and hash page", (t) => {
    // After bt_metap's test: pageinspect exists in the database by then. gist_page_items is 14+.
    let compared = 0;
    let inetKeys = 0;
    for (const s of snaps.filter((x) => x.rel.amName === "gist" || x.rel.amName === "hash")) {
      const gist = s.rel.amName === "gist";
      if (gist && (o.version ?? 15) < 14) continue;
      const name = `'${quoteIdent(s.rel.namespaceName).replace(/'/g, "''")}.${quoteIdent(s.rel.name).replace(/'/g, "''")}'`;
      const nkey = gist ? s.cat.indexes().get(s.rel.oid)!.nkeyatts : 1;
      for (const p of s.dump) {
        if (gist ? p.kind !== "leaf" && p.kind !== "internal" : p.kind !== "bucket" && p.kind !== "overflow") continue;
        const rows = gist
          ? srv.rows(`SELECT itemoffset, ctid, itemlen, dead, keys FROM gist_page_items(get_raw_page(${name}, ${p.block}), ${name}::regclass) ORDER BY 1`, DB)
          : srv.rows(`SELECT itemoffset, ctid, data FROM hash_page_items(get_raw_page(${name}, ${p.block})) ORDER BY 1`, DB);
        const items = p.items.filter((it) => it.lp_len > 0);
        assert.equal(items.length, rows.length, `${s.rel.name} block ${p.block}: items`);
        items.forEach((it, k) => {
          const ix = it.index;
          assert.ok(ix?.keys, `${s.rel.name} block ${p.block} item ${it.lp} decoded`);
          const r = rows[k]!;
          // inet_ops keys are GistInetKeys: pageinspect prints them through inet_out, which misreads them
          const headerOnly = ix.keys.some((v) => v.type === "inet" || v.type === "cidr");
          if (headerOnly) inetKeys++;
          const ours = gist
            ? [String(it.lp), ix.ctid, String(ix.size), it.lp_flags === 3 ? "t" : "f", headerOnly ? "" : gistKeyValues(ix.keys, nkey)]
            : [String(it.lp), ix.ctid, String(Number(ix.keys[0]!.value) >>> 0)];
          const theirs = gist ? [...r.slice(0, 4), headerOnly ? "" : r[4]!.slice(r[4]!.indexOf(")=(") + 3, -1)] : r;
          assert.deepEqual(ours, theirs, `${s.rel.name} block ${p.block} item ${it.lp}`);
          compared++;
        });
      }
    }
    t.diagnostic(`${compared} GiST and hash items compared (${inetKeys} GiST inet keys by their headers only)`);
  });
}

/** The COPY dump of a relation, TOAST resolved, as `inspect dump --format copy` writes it. */
function copyDump(rel: ResolvedRelation): string {
  const chunks: Uint8Array[] = [];
  const out = new ByteOut((c) => void chunks.push(c));
  const r = new CopyRenderer(out);
  for (const e of dumpRelation(rel, { detoast: true, copyTo: r.writer }, emptySummary(), { records: true })) r.event(e);
  out.flush();
  return Buffer.concat(chunks).toString("utf8");
}

/** The values part of gist_page_items' "(columns)=(values)", from pgdisk's keys (record_out's quoting, gistfuncs.c). */
function gistKeyValues(keys: DumpValue[], nkey: number): string {
  const q = (v: DumpValue): string => {
    if (v.isnull) return "null";
    const x = v.value ?? "";
    return x !== "" && !/["\\(),\s]/.test(x) ? x : `"${x.replace(/["\\]/g, "$&$&")}"`;
  };
  const k = keys.slice(0, nkey).map(q).join(", ");
  return keys.length > nkey ? `${k}) INCLUDE (${keys.slice(nkey).map(q).join(", ")}` : k;
}

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`;
}
function copyEscape(s: string): string {
  return s.replace(/[\\\t\n\r\b\f\v]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v" })[c]!);
}
