// What a dump (or a browse, or a verify) is about: a lone file, a relation of a cluster found by
// name, or every relation of a database. Resolves names through the offline catalog and builds
// the per-relation decoding context.
import { brinStoredTypes, BRIN_OPCINFO_PROC, type BrinStoredType } from "../../formats/am/brin.js";
import { ginKeyShape } from "../../formats/am/gin.js";
import { alignBytes } from "../../formats/heap/descriptor.js";
import { findPgdata } from "../../formats/catalog/locate.js";
import { existsSync, statSync } from "node:fs";
import { basename, resolve, relative, sep } from "node:path";
import { FormatError } from "../../formats/schema/errors.js";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import { RelationFork, parseSegmentPath, type ForkName, type Geometry } from "../../formats/storage/relfile.js";
import { ToastReader } from "../../formats/toast/reader.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { TypeLookup } from "../../formats/datum/types.js";
import type { XactStatusLookup } from "../../formats/storage/clog.js";
import type { PageDumpContext } from "./page-dump.js";
import { pageView, pdPagesizeVersion } from "../../formats/page/page.js";
import { readSync, openSync, closeSync } from "node:fs";

export interface ResolvedRelation {
  /** path of segment 0 of the fork, or the single file named */
  path: string;
  fork: ForkName;
  rel?: RelationInfo;
  catalog?: DatabaseCatalog;
  cluster?: Cluster;
  /** a single segment file was named */
  singleFile: boolean;
  geometry: Geometry;
}


const FORK_RE = /^(\d+)(?:_(fsm|vm|init))?$/;

/** Guess the block size of a lone file from its first page header (pg_filedump's rule), else 8192. */
export function guessBlockSize(path: string): number {
  const fd = openSync(path, "r");
  try {
    const b = new Uint8Array(24);
    const n = readSync(fd, b, 0, 24, 0);
    if (n < 24) return 8192;
    const size = pdPagesizeVersion(pageView(b)) & 0xff00;
    return [1024, 2048, 4096, 8192, 16384, 32768].includes(size) ? size : 8192;
  } finally {
    closeSync(fd);
  }
}

/** A file named on the command line: inside a cluster, found in the catalog by its filenode. */
export function resolveFile(file: string, opts: { blockSize?: number } = {}): ResolvedRelation {
  if (!existsSync(file)) throw new FormatError("FILE_NOT_FOUND", `file ${file} does not exist`, { file });
  if (statSync(file).isDirectory()) throw new FormatError("FILE_IS_DIRECTORY", `${file} is a directory; name a relation file, or use --pgdata`, { file });
  const { base, segno } = parseSegmentPath(file);
  const m = FORK_RE.exec(basename(base));
  const fork = (m?.[2] ?? "main") as ForkName;
  const pgdata = findPgdata(file);
  if (pgdata && m) {
    const cluster = new Cluster(pgdata);
    const geometry = opts.blockSize ? { ...cluster.geometry, blockSize: opts.blockSize } : cluster.geometry;
    const parts = relative(pgdata, resolve(file)).split(sep);
    let catalog: DatabaseCatalog | undefined;
    let rel: RelationInfo | undefined;
    try {
      if (parts[0] === "base" && parts.length === 3) catalog = cluster.database(Number(parts[1]));
      else if (parts[0] === "global") catalog = cluster.database(cluster.databases()[0].oid);
      const filenode = Number(m[1]);
      rel = catalog ? [...catalog.classes.values()].find((c) => c.filenode === filenode && (parts[0] === "global") === c.shared) : undefined;
    } catch {
      // An unreadable catalog must not stop a raw dump of the file.
      catalog = undefined;
    }
    return { path: segno ? file : base, fork, rel, catalog, cluster, singleFile: segno !== 0, geometry };
  }
  return { path: file, fork, singleFile: true, geometry: { blockSize: opts.blockSize ?? guessBlockSize(file), segmentBlocks: 131072 } };
}

export function resolveByName(pgdata: string, database: string, relation: string, fork: ForkName = "main"): ResolvedRelation {
  const cluster = new Cluster(pgdata);
  const catalog = cluster.database(database);
  const rel = catalog.findRelation(relation);
  if (rel.filenode === 0) throw new FormatError("RELATION_HAS_NO_STORAGE", `relation "${relation}" (relkind ${rel.kind}) has no storage`, {});
  return { path: catalog.path(rel, fork), fork, rel, catalog, cluster, singleFile: false, geometry: cluster.geometry };
}

/**
 * Every relation with storage in a database, tables first then their TOAST and indexes: fork
 * `fork` of each (for fsm, vm and init, of each relation that has that fork).
 */
export function resolveDatabase(pgdata: string, database: string, opts: { includeSystem?: boolean; fork?: ForkName } = {}): ResolvedRelation[] {
  const cluster = new Cluster(pgdata);
  const catalog = cluster.database(database);
  const fork = opts.fork ?? "main";
  const rels = [...catalog.classes.values()]
    .filter((c) => c.filenode !== 0 && "rtimS".includes(c.kind))
    .filter((c) => opts.includeSystem || c.oid >= 16384 || (c.kind === "t" && c.oid >= 16384))
    .filter((c) => fork === "main" || existsSync(catalog.path(c, fork)))
    .sort((a, b) => a.oid - b.oid);
  return rels.map((rel) => ({ path: catalog.path(rel, fork), fork, rel, catalog, cluster, singleFile: false, geometry: cluster.geometry }));
}

export function openFork(r: ResolvedRelation): RelationFork {
  return r.singleFile ? RelationFork.openFile(r.path, r.geometry) : new RelationFork(r.path, r.geometry);
}

/** Build the page-dump context (descriptors, type lookup, TOAST reader) for a resolved relation. */
export function dumpContext(r: ResolvedRelation, opts: { detoast: boolean; checksums?: boolean; fileLabel: string; values?: boolean; hex?: boolean; previewChars?: number }): PageDumpContext {
  const cat = r.catalog;
  const rel = r.rel;
  const checksums = opts.checksums ?? (r.cluster ? r.cluster.control.dataChecksumVersion !== 0 : false);
  const ctx: PageDumpContext = { file: opts.fileLabel, pageSize: r.geometry.blockSize, checksums, clog: r.cluster?.clog, hex: opts.hex };
  if (r.fork === "fsm" || r.fork === "vm") {
    ctx.am = r.fork;
    return ctx;
  }
  if (!cat || !rel) return ctx;
  ctx.am = rel.kind === "i" ? rel.amName : rel.kind === "S" ? "sequence" : "heap";
  // Without values, neither pg_attribute nor pg_type needs reading.
  if (opts.values === false) return ctx;
  const lookup = typeLookupFor(cat);
  if (rel.kind === "i") {
    ctx.indexDesc = indexDescriptor(cat, rel);
    if (rel.amName === "gist") ctx.indexKeyAtts = cat.indexes().get(rel.oid)?.nkeyatts;
    if (rel.amName === "brin") ctx.brinStored = brinColumnsStored(cat, rel, ctx.indexDesc, lookup.types);
    if (rel.amName === "gin") ctx.ginKeys = ginKeyShape(ctx.indexDesc.attrs);
    ctx.values = { types: lookup.types, decodeAs: lookup.decodeAs, detoast: false };
    return ctx;
  }
  ctx.desc = cat.descriptor(rel.oid);
  let toast: ToastReader | undefined;
  if (opts.detoast && rel.toastRelid) {
    const t = cat.classes.get(rel.toastRelid);
    if (t) toast = openToastReader(cat, t, r.geometry, r.cluster?.clog);
  }
  ctx.values = { types: lookup.types, decodeAs: lookup.decodeAs, toast, detoast: opts.detoast, previewChars: opts.previewChars };
  return ctx;
}

/** A reader for a TOAST relation: its heap, and its valid index when it has one with storage. */
export function openToastReader(cat: DatabaseCatalog, toast: RelationInfo, geometry: Geometry, clog?: XactStatusLookup): ToastReader {
  const ix = cat.toastIndexOf(toast.oid);
  const ixRel = ix ? cat.classes.get(ix.indexOid) : undefined;
  let index: RelationFork | null = null;
  if (ixRel && ixRel.filenode !== 0 && existsSync(cat.path(ixRel))) index = new RelationFork(cat.path(ixRel), geometry);
  return new ToastReader({ heap: new RelationFork(cat.path(toast), geometry), index, clog, toastRelid: toast.oid });
}

/**
 * Each BRIN index column's stored types, from its opclass's opcinfo support function, with
 * their attlen and alignment (an unknown type gets length 0, which no datum fits).
 */
function brinColumnsStored(cat: DatabaseCatalog, rel: RelationInfo, desc: TupleDesc, types: TypeLookup): (BrinStoredType[] | undefined)[] {
  const info = cat.indexes().get(rel.oid);
  const opclasses = cat.opclasses();
  return desc.attrs.map((a, k) => {
    const opc = info ? opclasses.get(info.opclasses[k]!) : undefined;
    return brinStoredTypes(opc ? cat.supportProc(opc.family, opc.intype, opc.intype, BRIN_OPCINFO_PROC) : undefined, a.typid)?.map((typid) => {
      const t = types(typid);
      return t ? { typid, len: t.len, align: alignBytes(t.align) } : { typid, len: 0, align: 1 };
    });
  });
}

/**
 * An index's tuple descriptor. pg_attribute of an index already describes the stored key type
 * (index_create uses the opclass's opckeytype, e.g. cstring for name_ops).
 */
export function indexDescriptor(cat: DatabaseCatalog, rel: RelationInfo): TupleDesc {
  return cat.descriptor(rel.oid);
}

/** A resolved relation in a form that crosses threads (workers resolve it again). */
export type RelationSpec =
  | { kind: "file"; path: string; blockSize: number }
  | { kind: "rel"; pgdata: string; db: number; oid: number; fork: ForkName; singleFile: boolean; path: string };

export function specOf(r: ResolvedRelation): RelationSpec {
  if (r.cluster && r.catalog && r.rel) return { kind: "rel", pgdata: r.cluster.pgdata, db: r.catalog.db.oid, oid: r.rel.oid, fork: r.fork, singleFile: r.singleFile, path: r.path };
  return { kind: "file", path: r.path, blockSize: r.geometry.blockSize };
}

const clusters = new Map<string, Cluster>();

/** Resolve a spec, reusing one Cluster (and its catalog caches) per data directory in this thread. */
export function resolveSpec(spec: RelationSpec): ResolvedRelation {
  if (spec.kind === "file") return resolveFile(spec.path, { blockSize: spec.blockSize });
  let cluster = clusters.get(spec.pgdata);
  if (!cluster) clusters.set(spec.pgdata, (cluster = new Cluster(spec.pgdata)));
  const catalog = cluster.database(spec.db);
  const rel = catalog.classes.get(spec.oid);
  if (!rel) throw new FormatError("RELATION_NOT_FOUND", `relation ${spec.oid} not found in database ${spec.db}`, {});
  return { path: spec.path, fork: spec.fork, rel, catalog, cluster, singleFile: spec.singleFile, geometry: cluster.geometry };
}
