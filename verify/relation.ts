// One relation's verification: from a catalog entry (or a lone file) to a report. Tables, TOAST
// relations and materialized views get the heap checks (and their TOAST values); B-tree indexes
// the structure, order and parent/child checks and heapallindexed; every other relation (other
// index AMs, sequences) and every fsm/vm/init fork the page-level checks (header, checksum).
import { existsSync, openSync, readSync, closeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../formats/catalog/cluster.js";
import type { Finding, Location } from "../formats/schema/errors.js";
import { FormatError } from "../formats/schema/errors.js";
import type { TupleDesc } from "../formats/heap/descriptor.js";
import { pageView, pdSpecial } from "../formats/page/page.js";
import { BTP_META, readBTOpaque } from "../formats/nbtree/opaque.js";
import { RelationFork, type ForkName } from "../formats/storage/relfile.js";
import { scanPages } from "./scan.js";
import { toastChunkDesc5 } from "../formats/toast/chunk-desc.js";
import type { ClusterContext } from "./cluster-context.js";
import { FindingSink } from "./findings.js";
import { HeapVerifier } from "./heap/heap-verify.js";
import { live } from "./heap/liveness.js";
import { XidContext } from "./heap/xid.js";
import { BtreeVerifier } from "./nbtree/btree-verify.js";
import { IndexEntries, nullTestPredicate, probeHeapMany } from "./nbtree/heapallindexed.js";
import { indexKeysFor, type IndexKeyPlan } from "./nbtree/index-keys.js";
import { checkPage } from "./page-check.js";
import { ToastRelation } from "./toast/toast-rel.js";

export interface VerifyOptions {
  /** heap-vs-index comparison for B-tree indexes */
  heapallindexed: boolean;
  /** follow TOAST pointers of tables */
  toast: boolean;
  /** decompress compressed values (inline and TOASTed) */
  decompress: boolean;
  /** search every B-tree leaf tuple from the root */
  rootdescend?: boolean;
  /** verify checksums (default: when the cluster has them) */
  checksums?: boolean;
  /** findings listed per code and relation */
  capPerCode: number;
}

export const DEFAULT_VERIFY_OPTIONS: VerifyOptions = { heapallindexed: true, toast: true, decompress: true, capPerCode: 200 };

export type RelationJob =
  | { kind: "catalog"; db: number; oid: number }
  | { kind: "file"; path: string }
  /** B-tree indexes of one table whose heapallindexed probes share one scan of the table */
  | { kind: "indexes"; db: number; oids: number[] }
  /** a TOAST relation, then its table: the TOAST relation's own check also maps its chunks for the table's */
  | { kind: "withToast"; db: number; oid: number; toastOid: number };

export type RelationStatus = "ok" | "warnings" | "corrupt";

export interface RelationReport {
  database?: string;
  schema?: string;
  name: string;
  oid?: number;
  relkind?: string;
  /** heap, btree, hash, gist, ..., sequence, or unknown (lone file) */
  am: string;
  /** segment 0 of the main fork */
  file: string;
  blocks: number;
  /** what was checked, e.g. ["pages", "heap", "toast"] */
  checks: string[];
  status: RelationStatus;
  findings: Finding[];
  stats: Record<string, number>;
  ms: number;
}

export interface JobEnv {
  ctx: ClusterContext | null;
  opts: VerifyOptions;
  onPages?: (n: number) => void;
}

/** The reports of a job: one, or one per index of an "indexes" job (in its order). */
export function verifyJobs(job: RelationJob, env: JobEnv): RelationReport[] {
  if (job.kind === "withToast") return verifyWithToast(job.db, job.oid, job.toastOid, env);
  if (job.kind !== "indexes") return [verifyJob(job, env)];
  return verifyIndexGroup(job.db, job.oids, env);
}

/**
 * A TOAST relation and its table (reports in that order): the TOAST relation's heap check reads
 * each page once and hands it to the chunk map the table's TOAST checks use, instead of a second
 * scan of the TOAST relation for the map. A failed or partial feed leaves the map to its own scan.
 */
function verifyWithToast(db: number, oid: number, toastOid: number, env: JobEnv): RelationReport[] {
  const ctx = env.ctx!;
  const cat = ctx.database(db);
  const toast = env.opts.toast ? toastRelationFor(cat, toastOid, ctx) : null;
  const one = (relOid: number, shared: { feed?: ToastRelation; toast?: ToastRelation | null }): RelationReport => {
    const t0 = performance.now();
    const sink = new FindingSink(env.opts.capPerCode);
    try {
      const rel = cat.classes.get(relOid);
      if (!rel) throw new FormatError("RELATION_NOT_FOUND", `relation ${relOid} does not exist in database "${cat.db.name}"`, {});
      const report = verifyCatalogRelation(cat, rel, sink, env, undefined, shared);
      report.findings = sink.finish({ file: report.file });
      report.status = statusOf(report.findings);
      report.ms = Math.round(performance.now() - t0);
      return report;
    } catch (e) {
      return failedReport({ kind: "catalog", db, oid: relOid }, e);
    }
  };
  try {
    const toastReport = one(toastOid, { feed: toast ?? undefined });
    const tableReport = one(oid, { toast });
    return [toastReport, tableReport];
  } finally {
    toast?.fork.close();
  }
}

export function verifyJob(job: RelationJob, env: JobEnv): RelationReport {
  if (job.kind === "indexes" || job.kind === "withToast") throw new Error("verifyJob: this job has several reports (verifyJobs)");
  const t0 = performance.now();
  const sink = new FindingSink(env.opts.capPerCode);
  let report: RelationReport;
  if (job.kind === "file") report = verifyLoneFile(job.path, sink, env);
  else {
    const cat = env.ctx!.database(job.db);
    const rel = cat.classes.get(job.oid);
    if (!rel) throw new FormatError("RELATION_NOT_FOUND", `relation ${job.oid} does not exist in database "${cat.db.name}"`, {});
    report = verifyCatalogRelation(cat, rel, sink, env);
  }
  report.findings = sink.finish({ file: report.file });
  report.status = statusOf(report.findings);
  report.ms = Math.round(performance.now() - t0);
  return report;
}

export function statusOf(findings: Finding[]): RelationStatus {
  if (findings.some((f) => f.severity === "error")) return "corrupt";
  if (findings.some((f) => f.severity === "warning")) return "warnings";
  return "ok";
}

function amOf(rel: RelationInfo): string {
  if (rel.kind === "i") return rel.amName || "index";
  if (rel.kind === "S") return "sequence";
  return "heap";
}

function baseReport(cat: DatabaseCatalog, rel: RelationInfo, file: string): RelationReport {
  return { database: cat.db.name, schema: rel.namespaceName, name: rel.name, oid: rel.oid, relkind: rel.kind, am: amOf(rel), file, blocks: 0, checks: [], status: "ok", findings: [], stats: {}, ms: 0 };
}

/** A heapallindexed probe put off so that several indexes of one table share the table scan. */
interface PendingProbe {
  heap: RelationInfo;
  info: IndexInfo;
  plan: IndexKeyPlan;
  entries: IndexEntries;
  rel: RelationInfo;
  label: string;
  report: RelationReport;
  sink: FindingSink;
  /** the index's main fork path (where errors are located) */
  path: string;
  /** what the relation's check does after the probe: partial tail, other forks */
  rest: () => void;
}

/** `shared.feed`: a TOAST relation's pages go to this chunk map as they are read; `shared.toast`: the table's TOAST relation, already made (and closed by the caller). */
function verifyCatalogRelation(cat: DatabaseCatalog, rel: RelationInfo, sink: FindingSink, env: JobEnv, defer?: PendingProbe[], shared: { feed?: ToastRelation; toast?: ToastRelation | null } = {}): RelationReport {
  const ctx = env.ctx!;
  const path = cat.path(rel);
  const report = baseReport(cat, rel, path);
  const label = `${cat.db.name}.${rel.namespaceName}.${rel.name}`;
  if (!existsSync(path)) {
    sink.add("REL_FILE_MISSING", rel.kind === "i" ? `index "${rel.name}" lacks a main relation fork` : `relation file ${path} of "${label}" does not exist`, { file: path });
    return report;
  }
  const fork = new RelationFork(path, ctx.cluster.geometry);
  const checksums = env.opts.checksums ?? ctx.checksums;
  try {
    report.blocks = fork.nblocks;
    const onPage = env.onPages ? (): void => env.onPages!(1) : undefined;
    if (rel.kind === "r" || rel.kind === "t" || rel.kind === "m") {
      report.checks.push("pages", "heap");
      const ownToast = shared.toast === undefined;
      const toast = !ownToast ? shared.toast! : env.opts.toast && rel.toastRelid ? toastRelationFor(cat, rel.toastRelid, ctx) : null;
      const feed = rel.kind === "t" ? shared.feed?.feeder() : undefined;
      if (toast) report.checks.push("toast");
      const v = new HeapVerifier(
        {
          fork,
          relName: label,
          relOid: rel.oid,
          desc: rel.kind === "t" ? toastChunkDesc5 : cat.descriptor(rel.oid),
          xids: new XidContext(ctx.horizons, rel.frozenXid, rel.minMxid, ctx.cluster.clog),
          multixact: ctx.multixact,
          toastRelid: rel.toastRelid,
          toast,
          blockSize: ctx.cluster.geometry.blockSize,
          checksums,
          checksumSeverity: ctx.checksumSeverity,
          // chunk_data is never compressed: a compressed header there is TOAST_CHUNK_BAD_VARLENA, found from the parent
          decompress: env.opts.decompress && rel.kind !== "t",
          onPage,
          onPageRead: feed ? (blkno, page) => feed.page(blkno, page) : undefined,
        },
        sink,
      );
      try {
        Object.assign(report.stats, v.run());
        feed?.done();
      } finally {
        if (ownToast) toast?.fork.close();
      }
    } else if (rel.kind === "i" && rel.amName === "btree") {
      const pending = verifyBtree(cat, rel, fork, sink, env, report, label, checksums, !!defer);
      if (pending && defer) {
        defer.push({
          ...pending,
          path,
          rest: () => {
            tail(fork, sink);
            report.stats.forkPages = checkOtherForks(cat, rel, sink, checksums, env);
          },
        });
        return report;
      }
    } else {
      report.checks.push("pages");
      sink.add("REL_NOT_CHECKED_AM", `${amOf(rel)} relation "${label}": only page-level checks (header, checksum) apply`, { file: path });
      report.stats.pages = pageOnly(fork, sink, checksums, env, label);
    }
    tail(fork, sink);
    report.stats.forkPages = checkOtherForks(cat, rel, sink, checksums, env);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    sink.fromError(e, { file: path }, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
  } finally {
    fork.close();
  }
  return report;
}

function verifyBtree(cat: DatabaseCatalog, rel: RelationInfo, fork: RelationFork, sink: FindingSink, env: JobEnv, report: RelationReport, label: string, checksums: boolean, defer = false): Omit<PendingProbe, "path" | "rest"> | null {
  const ctx = env.ctx!;
  const info = cat.indexes().get(rel.oid);
  const onPage = env.onPages ? (): void => env.onPages!(1) : undefined;
  if (!info || !info.valid) {
    report.checks.push("pages");
    sink.add("REL_INDEX_NOT_VALID", `cannot check index "${rel.name}": it is not valid; only page-level checks ran`, { file: fork.basePath }, "Index is not valid.");
    report.stats.pages = pageOnly(fork, sink, checksums, env, label);
    return null;
  }
  report.checks.push("pages", "btree", "parent");
  const plan = indexKeysFor(cat, rel, info);
  if (plan.notComparable.length) {
    sink.add("BT_ORDER_NOT_CHECKED", `key order of index "${label}" is not checked for ${plan.notComparable.join(", ")}: no on-disk comparator`, { file: fork.basePath });
  }
  const heap = cat.classes.get(info.tableOid);
  let entries: IndexEntries | null = null;
  if (env.opts.heapallindexed && heap) {
    if (info.exprs) sink.add("BT_HEAPALLINDEXED_SKIPPED", `heapallindexed skipped for expression index "${label}"`, { file: fork.basePath });
    else if (info.pred && !nullTestPredicate(info.pred)) sink.add("BT_HEAPALLINDEXED_SKIPPED", `heapallindexed skipped for partial index "${label}": its predicate is not a NULL test pgdisk can evaluate offline`, { file: fork.basePath });
    else entries = new IndexEntries(plan.keys.attrs, sink, rel.name, (b) => fork.fileOf(b).path);
  }
  const v = new BtreeVerifier({ fork, relName: rel.name, blockSize: ctx.cluster.geometry.blockSize, checksums, checksumSeverity: ctx.checksumSeverity, keys: plan.keys, opcintypes: plan.opcintypes, collector: entries ?? undefined, rootdescend: env.opts.rootdescend, onPage }, sink);
  Object.assign(report.stats, v.run());
  if (!entries || !heap) return null;
  report.checks.push("heapallindexed");
  if (!existsSync(cat.path(heap))) return null;
  const pending = { heap, info, plan, entries, rel, label, report, sink };
  if (defer) return pending;
  probeTable(cat, ctx, [pending]);
  return null;
}

/** heapallindexed for indexes of one table `heap`, in one scan of it. */
function probeTable(cat: DatabaseCatalog, ctx: ClusterContext, ps: Omit<PendingProbe, "path" | "rest">[]): void {
  const heap = ps[0].heap;
  const hpath = cat.path(heap);
  const hfork = new RelationFork(hpath, ctx.cluster.geometry);
  const toast = heap.toastRelid ? toastRelationFor(cat, heap.toastRelid, ctx) : null;
  try {
    const stats = probeHeapMany(
      {
        fork: hfork,
        relName: heap.name,
        desc: heap.kind === "t" ? toastChunkDesc5 : cat.descriptor(heap.oid),
        xids: new XidContext(ctx.horizons, heap.frozenXid, heap.minMxid, ctx.cluster.clog),
        multixact: ctx.multixact,
        toast,
        isToast: heap.kind === "t",
      },
      ps.map((p) => ({ entries: p.entries, sink: p.sink, indkey: p.info.keys, attrs: p.plan.keys.attrs, indexName: p.rel.name, predicate: p.info.pred ? nullTestPredicate(p.info.pred) : null })),
    );
    ps.forEach((p, k) => {
      const hs = stats[k];
      p.report.stats.indexEntries = p.entries.entries;
      p.report.stats.heapTuplesProbed = hs.liveTuples;
      if (hs.unformable) p.sink.add("BT_HEAPALLINDEXED_SKIPPED", `${hs.unformable} live heap tuples of "${heap.name}" were not compared with index "${p.label}": their key values cannot be read (see the table's findings)`, { file: hpath });
    });
  } finally {
    hfork.close();
    toast?.fork.close();
  }
}

/**
 * B-tree indexes of one table: each index's own checks as verifyJob runs them, then one scan of
 * the table probes all their heapallindexed entries, then each index's remaining checks. The
 * reports are those the indexes would get one by one (ms: own time plus a share of the scan).
 */
function verifyIndexGroup(db: number, oids: number[], env: JobEnv): RelationReport[] {
  const ctx = env.ctx!;
  const cat = ctx.database(db);
  const members: { report: RelationReport; sink: FindingSink; ms: number; failed?: boolean; pending?: PendingProbe }[] = [];
  for (const oid of oids) {
    const t0 = performance.now();
    const rel = cat.classes.get(oid);
    if (!rel) {
      members.push({ report: failedReport({ kind: "catalog", db, oid }, new FormatError("RELATION_NOT_FOUND", `relation ${oid} does not exist in database "${cat.db.name}"`, {})), sink: new FindingSink(env.opts.capPerCode), ms: 0, failed: true });
      continue;
    }
    const sink = new FindingSink(env.opts.capPerCode);
    const defer: PendingProbe[] = [];
    try {
      const report = verifyCatalogRelation(cat, rel, sink, env, defer);
      members.push({ report, sink, ms: performance.now() - t0, pending: defer[0] });
    } catch (e) {
      // as safeVerifyJob reports a single relation whose check threw
      members.push({ report: failedReport({ kind: "catalog", db, oid }, e), sink, ms: 0, failed: true });
    }
  }
  const pend = members.filter((m) => m.pending);
  if (pend.length) {
    const t0 = performance.now();
    // every member names the same table; grouped anyway in case the catalog says otherwise
    const byHeap = new Map<number, typeof pend>();
    for (const m of pend) byHeap.set(m.pending!.heap.oid, [...(byHeap.get(m.pending!.heap.oid) ?? []), m]);
    for (const group of byHeap.values()) {
      try {
        probeTable(cat, ctx, group.map((m) => m.pending!));
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        for (const m of group) {
          m.sink.fromError(e, { file: m.pending!.path }, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
          m.pending = undefined; // as a single index's check, a failed probe ends it
        }
      }
    }
    const share = (performance.now() - t0) / pend.length;
    for (const m of pend) m.ms += share;
  }
  return members.map((m) => {
    if (m.failed) return m.report;
    const t0 = performance.now();
    if (m.pending) {
      try {
        m.pending.rest();
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        m.sink.fromError(e, { file: m.pending.path }, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
      }
    }
    m.report.findings = m.sink.finish({ file: m.report.file });
    m.report.status = statusOf(m.report.findings);
    m.report.ms = Math.round(m.ms + performance.now() - t0);
    return m.report;
  });
}

/** The TOAST relation of a table, with chunk liveness from its own XID context. */
function toastRelationFor(cat: DatabaseCatalog, toastOid: number, ctx: ClusterContext): ToastRelation | null {
  const t = cat.classes.get(toastOid);
  if (!t) return null;
  const path = cat.path(t);
  if (!existsSync(path)) return null;
  const xids = new XidContext(ctx.horizons, t.frozenXid, t.minMxid, ctx.cluster.clog);
  const idx = cat.toastIndexOf(toastOid);
  const partial = !!idx?.pred && /NULLTEST/.test(idx.pred);
  return new ToastRelation(new RelationFork(path, ctx.cluster.geometry), toastOid, `${t.namespaceName}.${t.name}`, (page, off) => live(pageView(page), off, xids, ctx.multixact), partial);
}

/** Header and checksum of every page (other access methods, sequences, invalid indexes). */
function pageOnly(fork: RelationFork, sink: FindingSink, checksums: boolean, env: JobEnv, label: string): number {
  let n = 0;
  const bs = fork.geometry.blockSize;
  for (const [blk, page] of scanPages(fork)) {
    n++;
    env.onPages?.(1);
    checkPage(page, pageView(page), blk, fork.fileOf(blk).path, sink, { am: "other", blockSize: bs, checksums, checksumSeverity: env.ctx?.checksumSeverity, relName: label });
  }
  return n;
}

function tail(fork: RelationFork, sink: FindingSink): void {
  const t = fork.partialTail;
  if (!t) return;
  sink.add("REL_PARTIAL_BLOCK", `could not read block ${t.block} in file "${t.file}": read ${t.bytes} of ${fork.geometry.blockSize}`, { file: t.file, block: t.block, offset: (t.block % fork.geometry.segmentBlocks) * fork.geometry.blockSize });
}

/** fsm, vm and init forks: page headers and checksums, as pg_checksums scans them. */
function checkOtherForks(cat: DatabaseCatalog, rel: RelationInfo, sink: FindingSink, checksums: boolean, env: JobEnv): number {
  let n = 0;
  for (const f of ["fsm", "vm", "init"] as ForkName[]) {
    const p = cat.path(rel, f);
    if (!existsSync(p)) continue;
    const fork = new RelationFork(p, env.ctx!.cluster.geometry);
    try {
      const label = `${rel.name} (${f} fork)`;
      n += pageOnly(fork, sink, checksums, env, label);
      tail(fork, sink);
    } finally {
      fork.close();
    }
  }
  return n;
}

/** A file outside any cluster: what its pages say it is, checked without a catalog. */
function verifyLoneFile(path: string, sink: FindingSink, env: JobEnv): RelationReport {
  const fork = RelationFork.openFile(path);
  const report: RelationReport = { name: path, am: "unknown", file: path, blocks: 0, checks: ["pages"], status: "ok", findings: [], stats: {}, ms: 0 };
  const where: Location = { file: path };
  try {
    report.blocks = fork.nblocks;
    const bs = fork.geometry.blockSize;
    const am = guessAm(path, bs);
    report.am = am;
    sink.add("REL_NO_CATALOG", `${path} is checked without a catalog (access method guessed from its pages: ${am})`, where);
    const checksums = env.opts.checksums ?? false;
    if (am === "heap") {
      report.checks.push("heap");
      Object.assign(report.stats, new HeapVerifier({ fork, relName: path, relOid: 0, desc: null as TupleDesc | null, xids: null, multixact: null, toastRelid: 0, toast: null, blockSize: bs, checksums, decompress: env.opts.decompress }, sink).run());
    } else if (am === "btree") {
      report.checks.push("btree");
      Object.assign(report.stats, new BtreeVerifier({ fork, relName: path, blockSize: bs, checksums, keys: null, opcintypes: [] }, sink).run());
    } else report.stats.pages = pageOnly(fork, sink, checksums, env, path);
    tail(fork, sink);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    sink.fromError(e, where, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
  } finally {
    fork.close();
  }
  return report;
}

function guessAm(path: string, bs: number): string {
  const fd = openSync(path, "r");
  try {
    const b = new Uint8Array(bs);
    if (readSync(fd, b, 0, bs, 0) < bs) return "unknown";
    const dv = pageView(b);
    const special = pdSpecial(dv);
    if (special === bs) return "heap";
    if (bs - special === 16 && readBTOpaque(dv).btpo_flags & BTP_META) return "btree";
    return "other";
  } finally {
    closeSync(fd);
  }
}

/** A relation whose verification threw: reported, so the run still covers the others. */
export function failedReport(job: RelationJob, e: unknown): RelationReport {
  const msg = e instanceof FormatError ? `${e.code}: ${e.message}` : e instanceof Error ? (e.stack ?? e.message) : String(e);
  const name = job.kind === "file" ? job.path : job.kind === "indexes" ? `relations ${job.oids.join(", ")} of database ${job.db}` : job.kind === "withToast" ? `relations ${job.toastOid}, ${job.oid} of database ${job.db}` : `relation ${job.oid} of database ${job.db}`;
  return {
    name,
    am: "unknown",
    file: job.kind === "file" ? job.path : "",
    blocks: 0,
    checks: [],
    status: "corrupt",
    findings: [{ code: "REL_VERIFY_FAILED", severity: "error", message: `verification of ${name} failed: ${msg}`, location: {} }],
    stats: {},
    ms: 0,
  };
}

/** verifyJob that never throws. */
export function safeVerifyJob(job: RelationJob, env: JobEnv): RelationReport {
  try {
    return verifyJob(job, env);
  } catch (e) {
    return failedReport(job, e);
  }
}

/** verifyJobs that never throws: a job that fails reports each of its relations as failed. */
export function safeVerifyJobs(job: RelationJob, env: JobEnv): RelationReport[] {
  try {
    return verifyJobs(job, env);
  } catch (e) {
    if (job.kind === "withToast") return [job.toastOid, job.oid].map((oid) => failedReport({ kind: "catalog", db: job.db, oid }, e));
    if (job.kind !== "indexes") return [failedReport(job, e)];
    return job.oids.map((oid) => failedReport({ kind: "catalog", db: job.db, oid }, e));
  }
}
