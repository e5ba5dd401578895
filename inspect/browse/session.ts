// The browser's engine state: the cluster (or lone file), open relations, and bounded caches of
// raw pages, page summaries and page dumps. Pages are read one block at a time, only when a view
// asks for them; nothing here reads a whole relation.
import { existsSync, statSync } from "node:fs";
import { FormatError } from "../../formats/schema/errors.js";
import { Cluster, type DatabaseCatalog, type DatabaseInfo, type IndexInfo, type RelationInfo } from "../../formats/catalog/cluster.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import { dumpPage, type PageDumpContext } from "../dump/page-dump.js";
import { dumpContext, openFork, resolveFile, type ResolvedRelation } from "../dump/target.js";
import type { DumpPage } from "../dump/model.js";
import { Lru } from "./lru.js";
import { relKey, type RelRef } from "./navigation.js";
import type { PageSummary } from "./rows.js";

export interface BrowseOptions {
  pgdata?: string;
  /** a lone relation file */
  file?: string;
  /** database to open first (default: the only non-template one, or the first) */
  database?: string;
  blockSize?: number;
  /** raw pages kept in memory (default 256 = 2 MiB of 8 KiB pages) */
  cachePages?: number;
}

export interface RelHandle {
  ref: RelRef;
  resolved: ResolvedRelation;
  fork: RelationFork;
  firstBlock: number;
  nblocks: number;
  /** decoding context with attribute values */
  ctx: PageDumpContext;
  /** the same without value decoding, for page summaries */
  light: PageDumpContext;
  /** schema.name, or the file path */
  name: string;
  /** heap, btree, hash, ... (unknown for a lone file outside a cluster) */
  am: string;
  relkind?: string;
  rel?: RelationInfo;
  catalog?: DatabaseCatalog;
  index?: IndexInfo;
  types?: TypeLookup;
  decodeAs?: (oid: number) => number;
}

export interface SessionStats {
  blocksRead: number;
  pageDumps: number;
}

export class BrowseSession {
  readonly cluster?: Cluster;
  readonly stats: SessionStats = { blocksRead: 0, pageDumps: 0 };
  /** the relation the command line named (a file, or -t) */
  readonly startRel?: RelRef;
  readonly startDb?: number;
  private readonly rels = new Lru<string, RelHandle>(16, (_, h) => h.fork.close());
  private readonly pages: Lru<string, Uint8Array>;
  private readonly summaries = new Lru<string, PageSummary>(16384);
  private readonly dumps = new Lru<string, DumpPage>(48);
  private readonly fileRels = new Map<string, ResolvedRelation>();
  private readonly sizes = new Map<string, number>();
  private readonly memo = new Lru<string, unknown>(64);
  /** detoasted values can be megabytes: keep only a few */
  private readonly values = new Lru<string, unknown>(4);

  constructor(readonly opts: BrowseOptions & { table?: string }) {
    this.pages = new Lru(opts.cachePages ?? 256);
    if (opts.file) {
      const r = resolveFile(opts.file, { blockSize: opts.blockSize });
      this.cluster = r.cluster;
      if (r.rel && r.catalog && r.fork === "main" && !r.singleFile) {
        this.startRel = { db: r.catalog.db.oid, oid: r.rel.oid, label: `${r.rel.namespaceName}.${r.rel.name}` };
        this.startDb = r.catalog.db.oid;
      } else {
        const ref: RelRef = { file: opts.file, label: opts.file };
        this.fileRels.set(relKey(ref), r);
        this.startRel = ref;
        this.startDb = r.catalog?.db.oid;
      }
      return;
    }
    if (!opts.pgdata) throw new FormatError("USAGE", "nothing to browse: name a relation FILE, or --pgdata DIR");
    this.cluster = new Cluster(opts.pgdata);
    const dbs = this.cluster.databases();
    if (opts.database) this.startDb = this.cluster.database(opts.database).db.oid;
    else this.startDb = (dbs.find((d) => !d.isTemplate && d.name !== "postgres") ?? dbs.find((d) => !d.isTemplate) ?? dbs[0])?.oid;
    if (opts.table) {
      if (this.startDb === undefined) throw new FormatError("USAGE", "-t needs a database (-d)");
      this.startRel = this.findRelation(this.startDb, opts.table);
    }
  }

  databases(): DatabaseInfo[] {
    return this.cluster?.databases() ?? [];
  }

  catalog(db: number): DatabaseCatalog {
    if (!this.cluster) throw new FormatError("USAGE", "a lone file has no catalog");
    return this.cluster.database(db);
  }

  refFor(db: number, oid: number): RelRef {
    const rel = this.catalog(db).classes.get(oid);
    if (!rel) throw new FormatError("RELATION_NOT_FOUND", `no relation with OID ${oid} in database ${db}`, {});
    return { db, oid, label: `${rel.namespaceName}.${rel.name}` };
  }

  findRelation(db: number, name: string): RelRef {
    const rel = this.catalog(db).findRelation(name);
    if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `relation "${name}" (relkind ${rel.kind}) has no storage`, {});
    return { db, oid: rel.oid, label: `${rel.namespaceName}.${rel.name}` };
  }

  /** Open (or reuse) a relation: its fork and decoding contexts. */
  relation(ref: RelRef): RelHandle {
    return this.rels.use(relKey(ref), () => this.openRelation(ref));
  }

  private openRelation(ref: RelRef): RelHandle {
    let resolved: ResolvedRelation;
    if ("file" in ref) {
      resolved = this.fileRels.get(relKey(ref)) ?? resolveFile(ref.file, { blockSize: this.opts.blockSize });
    } else {
      const catalog = this.catalog(ref.db);
      const rel = catalog.classes.get(ref.oid);
      if (!rel) throw new FormatError("RELATION_NOT_FOUND", `no relation with OID ${ref.oid} in database ${catalog.db.name}`, {});
      if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `relation ${rel.name} (relkind ${rel.kind}) has no storage`, {});
      resolved = { path: catalog.path(rel), fork: "main", rel, catalog, cluster: this.cluster, singleFile: false, geometry: this.cluster!.geometry };
    }
    const fork = openFork(resolved);
    // the handle owns the fork once it exists; a catalog that cannot describe the relation
    // (damaged pg_attribute, pg_type, pg_index) must not leave the file open
    try {
      return this.relationHandle(ref, resolved, fork);
    } catch (e) {
      fork.close();
      throw e;
    }
  }

  private relationHandle(ref: RelRef, resolved: ResolvedRelation, fork: RelationFork): RelHandle {
    const label = fork.segments[0]?.path ?? resolved.path;
    const ctx = dumpContext(resolved, { detoast: false, fileLabel: label });
    const light: PageDumpContext = { file: ctx.file, pageSize: ctx.pageSize, am: ctx.am, checksums: ctx.checksums, clog: ctx.clog };
    const rel = resolved.rel;
    const lookup = resolved.catalog ? typeLookupFor(resolved.catalog) : undefined;
    return {
      ref,
      resolved,
      fork,
      firstBlock: fork.firstBlock,
      nblocks: fork.nblocks,
      ctx,
      light,
      name: rel ? `${rel.namespaceName}.${rel.name}` : resolved.path,
      am: ctx.am ?? "unknown",
      relkind: rel?.kind,
      rel,
      catalog: resolved.catalog,
      index: rel && rel.kind === "i" ? resolved.catalog?.indexes().get(rel.oid) : undefined,
      types: lookup?.types,
      decodeAs: lookup?.decodeAs,
    };
  }

  /** The bytes of one block (cached; the returned array must not be modified). */
  readPage(ref: RelRef, block: number): Uint8Array {
    const h = this.relation(ref);
    return this.pages.use(`${relKey(ref)}#${block}`, () => {
      const buf = h.fork.readBlock(block);
      this.stats.blocksRead++;
      return buf;
    });
  }

  /** Header-level facts of a page for the page list and the minimap (no value decoding). */
  summary(ref: RelRef, block: number): PageSummary {
    return this.summaries.use(`${relKey(ref)}#${block}`, () => {
      const h = this.relation(ref);
      try {
        const page = this.readPage(ref, block);
        const d = dumpPage(page, block, h.fork.fileOf(block).position, h.light);
        const size = h.resolved.geometry.blockSize;
        const used = d.header ? size - (d.header.pd_upper - d.header.pd_lower) : 0;
        const level = d.am === "btree" && d.special && typeof d.special.btpo_level === "number" ? d.special.btpo_level : undefined;
        return {
          block,
          am: d.am,
          kind: d.kind,
          isNew: d.isNew,
          items: d.items.length,
          freeSpace: d.header?.freeSpace ?? 0,
          pageSize: size,
          fill: d.isNew ? 0 : Math.max(0, Math.min(1, used / size)),
          level,
          problems: d.findings.filter((f) => f.severity !== "info").map((f) => f.code),
        };
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        return { block, am: h.am, kind: "unreadable", isNew: false, items: 0, freeSpace: 0, pageSize: h.resolved.geometry.blockSize, fill: 0, problems: [e.code] };
      }
    });
  }

  /** The full dump of a page (header, items with values, special space, findings). */
  page(ref: RelRef, block: number): DumpPage {
    return this.dumps.use(`${relKey(ref)}#${block}`, () => {
      const h = this.relation(ref);
      const page = this.readPage(ref, block);
      this.stats.pageDumps++;
      return dumpPage(page, block, h.fork.fileOf(block).position, { ...h.ctx, file: h.fork.fileOf(block).path });
    });
  }

  /** Bytes of a relation's main fork, all segments (0 when the file is missing). */
  relationBytes(db: number, rel: RelationInfo): number {
    const key = `${db}/${rel.oid}`;
    let n = this.sizes.get(key);
    if (n === undefined) {
      n = 0;
      if (rel.filenode !== 0) {
        const base = this.catalog(db).path(rel);
        for (let seg = 0; ; seg++) {
          const p = seg ? `${base}.${seg}` : base;
          if (!existsSync(p)) break;
          n += statSync(p).size;
        }
      }
      this.sizes.set(key, n);
    }
    return n;
  }

  /** A small cache for derived results (search hits, TOAST chunk lists, hex layouts). */
  cached<T>(key: string, make: () => T): T {
    return this.memo.use(key, make) as T;
  }

  /** The same for large results (detoasted values), holding fewer. */
  cachedLarge<T>(key: string, make: () => T): T {
    return this.values.use(key, make) as T;
  }

  close(): void {
    this.rels.clear();
    this.pages.clear();
  }
}
