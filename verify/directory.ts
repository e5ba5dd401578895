// The relation directories of a database (base/<oid>, its tablespace directories, and global/
// with the shared catalogs) matched against pg_class: every file pg_checksums would scan must be
// a fork segment of a relation pg_class names. A file that is not (its pg_class row lost, e.g.
// on a zeroed catalog page, or a stray file) is a finding, and its pages get pg_checksums'
// checks (whole blocks, checksums), as pg_checksums scans every such file. pg_class rows whose
// files are missing are found by each relation's own check (REL_FILE_MISSING). The catalog
// pages and tuples a tolerant catalog scan left out (damaged headers, undecodable tuples, zeroed
// pages inside a catalog) are findings of the directory holding the catalog.
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { GLOBALTABLESPACE_OID, type DatabaseCatalog } from "../formats/catalog/cluster.js";
import { CONTROL_NAMES } from "../formats/catalog/control.js";
import { FormatError } from "../formats/schema/errors.js";
import { RelationFork } from "../formats/storage/relfile.js";
import { FindingSink } from "./findings.js";
import { pageOnly, statusOf, tail, type JobEnv, type RelationReport } from "./relation.js";

/**
 * Files pg_checksums does not scan (its skip list; names matched whole unless a prefix), and
 * pg_control under the names pgdisk's fence gives it.
 */
const SKIPPED_NAMES: readonly string[] = [...Object.values(CONTROL_NAMES), "pg_filenode.map", "PG_VERSION"];
const SKIPPED_PREFIXES = ["pg_internal.init", "pgsql_tmp"];
/** A temporary relation's file (t<backend>_<filenode>[_fork][.segment]), left by a crash: no pg_class row outlives its session, and the server removes such files at start. */
const TEMP_RELATION_FILE = /^t\d+_\d+(?:_(?:fsm|vm|init))?(?:\.\d+)?$/;
const FORKS = new Set(["fsm", "vm", "init"]);

/** A relation file name: filenode, optional fork, optional segment number. */
const FILE_NAME = /^(\d+)(?:_([^.]*))?(?:\.(\d+))?$/;

/** The directories of one database's relation files, each with the filenodes pg_class puts there. */
function directories(cat: DatabaseCatalog, withShared: boolean): Map<string, Set<number>> {
  const dirs = new Map<string, Set<number>>();
  const add = (dir: string, filenode?: number): void => {
    const s = dirs.get(dir) ?? new Set<number>();
    if (filenode) s.add(filenode);
    dirs.set(dir, s);
  };
  add(dirname(cat.cluster.relationPath(cat.db.tablespace, cat.db.oid, 1)));
  if (withShared) add(dirname(cat.cluster.relationPath(GLOBALTABLESPACE_OID, 0, 1)));
  for (const rel of cat.classes.values()) {
    if (!rel.filenode || (rel.shared && !withShared)) continue;
    add(dirname(cat.path(rel)), rel.filenode);
  }
  return dirs;
}

/** Why a file is not a fork segment pg_class names, or null when it is one. */
function strayReason(dir: string, name: string, known: Set<number>, segmentBytes: number): string | null {
  const m = FILE_NAME.exec(name);
  if (!m) return "its name is not a relation file name (filenode[_fork][.segment])";
  const filenode = Number(m[1]);
  if (!known.has(filenode)) return `no pg_class row has relfilenode ${filenode} in this directory`;
  if (m[2] !== undefined && !FORKS.has(m[2])) return `"${m[2]}" is not a fork name (fsm, vm, init)`;
  if (m[3] === undefined) return null;
  const segno = Number(m[3]);
  if (segno === 0) return "segment number 0 is never written as a suffix";
  // a segment is read only when every segment before it is full (md.c)
  const prev = segno === 1 ? name.slice(0, name.lastIndexOf(".")) : `${name.slice(0, name.lastIndexOf("."))}.${segno - 1}`;
  const st = statSync(join(dir, prev), { throwIfNoEntry: false });
  if (!st || st.size !== segmentBytes) return `segment ${segno - 1} before it is ${st ? "not full" : "missing"}, so no reader reaches it`;
  return null;
}

/**
 * Read every catalog the checks use (pg_type, pg_attribute, pg_index, pg_opclass, pg_collation,
 * pg_enum besides pg_class, pg_namespace and pg_am), so that the problems of each are listed on
 * this thread (workers read their own copies, leaving out the same pages and tuples).
 */
function readAllCatalogs(cat: DatabaseCatalog): void {
  if (catalogsRead.has(cat)) return;
  catalogsRead.add(cat);
  const readers: [string, () => unknown][] = [
    ["pg_type", () => cat.types],
    ["pg_attribute", () => cat.descriptor(0)],
    ["pg_index and pg_opclass", () => cat.indexes()],
    ["pg_amproc", () => cat.supportProc(0, 0, 0, 0)],
    ["pg_collation", () => cat.collations()],
    ["pg_enum", () => cat.enumLabels()],
  ];
  for (const [what, read] of readers) {
    try {
      read();
    } catch (e) {
      // a catalog that cannot be read at all (its pg_class row lost): a finding, the run goes on
      if (!(e instanceof FormatError)) throw e;
      const file = e.location.file ?? join(dirname(cat.cluster.relationPath(cat.db.tablespace, cat.db.oid, 1)), "pg_filenode.map");
      cat.cluster.catalogProblems?.push({ code: "CATALOG_UNREADABLE", message: `${what} of database "${cat.db.name}" cannot be read: ${e.code}: ${e.message}`, location: { ...e.location, file } });
    }
  }
}
const catalogsRead = new WeakSet<DatabaseCatalog>();

/** The catalog pages and tuples left out in directory `dir`, as findings (catalog.ts codes). */
function addCatalogProblems(cat: DatabaseCatalog, dir: string, sink: FindingSink): void {
  for (const p of cat.cluster.catalogProblems ?? []) if (p.location.file && dirname(p.location.file) === dir) sink.add(p.code, p.message, p.location);
}

const directoryReport = (database: string, dir: string, checks: string[]): RelationReport => ({ database, name: dir, am: "directory", file: dir, blocks: 0, checks, status: "ok", findings: [], stats: {}, ms: 0 });

/**
 * The catalog pages and tuples left out of the catalogs of databases `cats`, in directories
 * other than `reported` (runs that name relations: the directories themselves are not matched).
 */
export function catalogProblemReports(cats: DatabaseCatalog[], reported: ReadonlySet<string>, env: JobEnv): RelationReport[] {
  const reports: RelationReport[] = [];
  const seen = new Set(reported);
  for (const cat of cats) {
    readAllCatalogs(cat);
    const dirs = new Set((cat.cluster.catalogProblems ?? []).map((p) => (p.location.file ? dirname(p.location.file) : "")));
    for (const dir of dirs) {
      if (!dir || seen.has(dir)) continue;
      seen.add(dir);
      const sink = new FindingSink(env.opts.capPerCode);
      const report = directoryReport(cat.db.name, dir, ["catalog"]);
      addCatalogProblems(cat, dir, sink);
      report.findings = sink.finish({ file: dir });
      report.status = statusOf(report.findings);
      reports.push(report);
    }
  }
  return reports;
}

/** One report per relation directory of the database: its catalogs' unreadable pages and its stray files as findings. */
export function checkDirectories(cat: DatabaseCatalog, withShared: boolean, env: JobEnv): RelationReport[] {
  const geometry = cat.cluster.geometry;
  const checksums = env.opts.checksums ?? env.ctx?.checksums ?? false;
  const reports: RelationReport[] = [];
  readAllCatalogs(cat);
  for (const [dir, known] of directories(cat, withShared)) {
    const sink = new FindingSink(env.opts.capPerCode);
    const report = directoryReport(cat.db.name, dir, ["catalog", "files"]);
    report.stats = { files: 0, strayFiles: 0 };
    addCatalogProblems(cat, dir, sink);
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      sink.add("REL_DIR_UNREADABLE", `could not read directory "${dir}": ${(e as Error).message}`, { file: dir });
      names = [];
    }
    for (const name of names) {
      if (SKIPPED_NAMES.includes(name) || SKIPPED_PREFIXES.some((p) => name.startsWith(p))) continue;
      const path = join(dir, name);
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
      report.stats.files++;
      // a temporary relation's file is no orphan, but pg_checksums checks its pages too
      const temp = TEMP_RELATION_FILE.test(name);
      const why = temp ? null : strayReason(dir, name, known, geometry.blockSize * geometry.segmentBlocks);
      if (!why && !temp) continue;
      if (why) {
        report.stats.strayFiles++;
        sink.add("REL_FILE_ORPHAN", `file "${path}" belongs to no relation of database "${cat.db.name}": ${why}`, { file: path });
      }
      const fork = RelationFork.openFile(path, geometry);
      try {
        report.blocks += pageOnly(fork, sink, checksums, env, basename(path));
        tail(fork, sink);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        sink.fromError(e, { file: path }, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
      } finally {
        fork.close();
      }
    }
    report.findings = sink.finish({ file: dir });
    report.status = statusOf(report.findings);
    reports.push(report);
  }
  return reports;
}
