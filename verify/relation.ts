// One relation's verification: from a catalog entry (or a lone file) to a report. Tables, TOAST
// relations and materialized views get the heap checks (and their TOAST values); B-tree indexes
// the structure, order and parent/child checks and heapallindexed; GIN indexes the entry and
// posting tree checks (verify/gin); every other relation (other
// index AMs, sequences) and every fsm/vm/init fork the page-level checks (header, checksum).
import { existsSync, openSync, readSync, closeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../formats/catalog/cluster.js";
import type { Finding, Location } from "../formats/schema/errors.js";
import { FormatError } from "../formats/schema/errors.js";
import type { TupleDesc } from "../formats/heap/descriptor.js";
import { pdSpecial } from "../formats/page/page.js";
import { BTP_META, readBTOpaque } from "../formats/nbtree/opaque.js";
import { RelationFork, type ForkName } from "../formats/storage/relfile.js";
import { scanPages, type WholeForkBuffer } from "./scan.js";
import { toastChunkDesc5 } from "../formats/toast/chunk-desc.js";
import type { ClusterContext } from "./cluster-context.js";
import { FindingSink } from "./findings.js";
import { HeapVerifier } from "./heap/heap-verify.js";
import { live } from "./heap/liveness.js";
import { XidContext } from "./heap/xid.js";
import { BtreeVerifier } from "./nbtree/btree-verify.js";
import { HeapProber, IndexEntries, nullTestPredicate, type HeapSideStats } from "./nbtree/heapallindexed.js";
import { exprContextOf, indexExprs, type IndexExprs } from "../formats/expr/index-exprs.js";
import type { EntryExchange, EntryPayload } from "./entry-exchange.js";
import { indexKeysFor, type IndexKeyPlan } from "../formats/catalog/index-keys.js";
import { checkPage, type PageAm } from "./page-check.js";
import { isIndexAmWithItems } from "../formats/am/line-pointers.js";
import { indexRowProblem } from "./nbtree/index-row.js";
import { ToastRelation } from "./toast/toast-rel.js";
import { viewOf } from "./page-view.js";
import { GinVerifier } from "./gin/gin-verify.js";
import { ginKeysFor } from "./gin/gin-keys.js";
import { amCheckerFor, type AmChecker } from "./am/index.js";

export interface VerifyOptions {
  /** heap-vs-index comparison for B-tree indexes */
  heapallindexed: boolean;
  /** heapallindexed compares the tuples' bytes themselves, not only their 64-bit fingerprints (each index's normalised tuples kept in memory until its table is probed) */
  exactHeapallindexed?: boolean;
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
  | GroupJob;

/**
 * Relations checked together, in stages, reported in this order. A stage is B-tree indexes of
 * table `heap` (their heapallindexed probes share one scan of it: the table's own check when
 * `heap` is in the stage, else a scan of their own) and the table. With two stages, the first
 * table is the TOAST relation of the second, whose check uses the chunk map the first one's
 * check built from the pages it read.
 */
export interface GroupJob {
  kind: "group";
  db: number;
  stages: GroupStage[];
  /**
   * The indexes' entries go to the exchange (JobEnv.exchange) for the unit that checks their
   * table, instead of being probed here (a table split over several units is then read once).
   */
  publish?: boolean;
}

export interface GroupStage {
  indexes: number[];
  heap?: number;
  /** indexes of `heap` whose entries other units publish: the table's check probes them too */
  remote?: number[];
}

/** heapallindexed results of an index probed by another unit's table check, for its report. */
export interface ProbePatch {
  db: number;
  oid: number;
  findings: Finding[];
  stats: Record<string, number>;
}

/** The relations of a job, in the order of its reports. */
export function jobOids(job: GroupJob): number[] {
  return job.stages.flatMap((st) => [...st.indexes, ...(st.heap !== undefined ? [st.heap] : [])]);
}

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
  /** the thread's buffer for indexes read whole (one per thread, reused job after job) */
  wholeBuffer?: WholeForkBuffer;
  /** index entries handed between units (GroupJob.publish, GroupStage.remote) */
  exchange?: EntryExchange;
  /** the probe results of remote indexes (GroupStage.remote), for their reports */
  onPatch?: (p: ProbePatch) => void;
}

/** The reports of a job: one, or one per relation of a group job (in its order, jobOids). */
export function verifyJobs(job: RelationJob, env: JobEnv): RelationReport[] {
  if (job.kind !== "group") return [verifyJob(job, env)];
  return verifyGroup(job, env);
}

export function verifyJob(job: RelationJob, env: JobEnv): RelationReport {
  if (job.kind === "group") throw new Error("verifyJob: a group job has several reports (verifyJobs)");
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
  /** the index's expressions and predicate, compiled once */
  exprs: IndexExprs | null;
  /** the index's main fork path (where errors are located) */
  path: string;
  /** what the relation's check does after the probe: partial tail, other forks */
  rest: () => void;
}

/** What a group's members share with a table's check (verifyGroup). */
interface Shared {
  /** a TOAST relation's pages go to this chunk map as they are read */
  feed?: ToastRelation;
  /** the table's TOAST relation, already made (and closed by the caller) */
  toast?: ToastRelation | null;
  /** the table's pages go to its indexes' heapallindexed probes as they are read */
  probe?: HeapProber;
}

function verifyCatalogRelation(cat: DatabaseCatalog, rel: RelationInfo, sink: FindingSink, env: JobEnv, defer?: PendingProbe[], shared: Shared = {}): RelationReport {
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
    if (rel.kind === "r" || rel.kind === "t" || rel.kind === "m") {
      report.checks.push("pages", "heap");
      const ownToast = shared.toast === undefined;
      const toast = !ownToast ? shared.toast! : env.opts.toast && rel.toastRelid ? toastRelationFor(cat, rel.toastRelid, ctx) : null;
      const feed = rel.kind === "t" ? shared.feed?.feeder() : undefined;
      if (toast) report.checks.push("toast");
      else if (env.opts.toast && rel.toastRelid && rel.kind !== "t") {
        const t = cat.classes.get(rel.toastRelid);
        const why = t ? `its file ${cat.path(t)} does not exist` : "it has no pg_class row";
        sink.add("TOAST_NOT_CHECKED", `TOAST values of "${label}" are not followed: its TOAST relation (oid ${rel.toastRelid}) cannot be read, ${why}`, { file: path });
      }
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
          onPages: env.onPages,
          feed,
          probe: shared.probe,
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
    } else if (rel.kind === "i" && rel.amName === "gin") {
      report.checks.push("pages", "gin");
      Object.assign(report.stats, new GinVerifier({ fork, relName: rel.name, label, checksums, checksumSeverity: ctx.checksumSeverity, keys: ginKeysFor(cat, rel, cat.indexes().get(rel.oid)), onPages: env.onPages, wholeBuffer: env.wholeBuffer }, sink).run());
    } else {
      report.checks.push("pages");
      const am = itemPagesAm(rel.amName);
      const checker = amCheckerFor(cat, rel, fork, sink);
      if (checker) report.checks.push(checker.name);
      else sink.add("REL_NOT_CHECKED_AM", `${amOf(rel)} relation "${label}": only page-level checks (header, checksum${am ? ", line pointers" : ""}) apply`, { file: path });
      report.stats.pages = pageOnly(fork, sink, checksums, env, label, rel.kind === "i" ? am : undefined, checker);
      checker?.finish();
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

/** An index's expressions and predicate compiled for heapallindexed, or the error that says why they cannot be. */
function compiledTrees(cat: DatabaseCatalog, info: { exprs: string | null; pred: string | null }): IndexExprs | null | FormatError {
  try {
    return indexExprs(info.exprs, info.pred, !!info.pred && nullTestPredicate(info.pred) !== null, exprContextOf(cat));
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw e;
  }
}

function verifyBtree(cat: DatabaseCatalog, rel: RelationInfo, fork: RelationFork, sink: FindingSink, env: JobEnv, report: RelationReport, label: string, checksums: boolean, defer = false): Omit<PendingProbe, "path" | "rest"> | null {
  const ctx = env.ctx!;
  const info = cat.indexes().get(rel.oid);
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
  const heapPath = heap ? cat.path(heap) : "";
  let entries: IndexEntries | null = null;
  let trees: IndexExprs | null | FormatError = null;
  // heapallindexed is listed only where it runs: a table without its row or its file is a finding
  if (env.opts.heapallindexed && !heap) sink.add("BT_HEAPALLINDEXED_SKIPPED", `heapallindexed skipped for index "${label}": its table (oid ${info.tableOid}) has no pg_class row`, { file: fork.basePath });
  else if (env.opts.heapallindexed && !existsSync(heapPath)) sink.add("REL_FILE_MISSING", `relation file ${heapPath} of table "${heap!.name}" does not exist: heapallindexed of index "${label}" could not run`, { file: heapPath });
  else if (env.opts.heapallindexed && heap) {
    const badRow = heap.kind === "t" ? null : indexRowProblem(info, cat.descriptor(heap.oid));
    trees = badRow ? null : compiledTrees(cat, info);
    if (badRow) sink.add("CATALOG_INDEX_ROW_INVALID", `pg_index row of index "${label}" does not fit its table "${heap.name}": ${badRow}; heapallindexed not run`, { file: fork.basePath });
    else if (trees instanceof FormatError) sink.add("BT_HEAPALLINDEXED_SKIPPED", `heapallindexed skipped for ${info.exprs ? "expression" : "partial"} index "${label}": ${trees.message}`, { file: fork.basePath });
    else entries = new IndexEntries(plan.keys.attrs, sink, rel.name, (b) => fork.fileOf(b).path, heap.tuples, undefined, fork.geometry.blockSize, !!env.opts.exactHeapallindexed);
  }
  const v = new BtreeVerifier({ fork, relName: rel.name, blockSize: ctx.cluster.geometry.blockSize, checksums, checksumSeverity: ctx.checksumSeverity, keys: plan.keys, opcintypes: plan.opcintypes, collector: entries ?? undefined, rootdescend: env.opts.rootdescend, onPages: env.onPages, wholeBuffer: env.wholeBuffer }, sink);
  Object.assign(report.stats, v.run());
  if (!entries || !heap) return null;
  report.checks.push("heapallindexed");
  const pending = { heap, info, plan, entries, rel, label, report, sink, exprs: trees as IndexExprs | null };
  if (defer) return pending;
  probeTable(cat, ctx, [pending]);
  return null;
}

/**
 * The heapallindexed side of a table for the pending probes of its indexes. Toasted key values
 * are read through `shared` (the TOAST relation a group already mapped) or a TOAST relation of
 * its own, which close() closes.
 */
function proberFor(cat: DatabaseCatalog, ctx: ClusterContext, ps: Omit<PendingProbe, "path" | "rest">[], fork: RelationFork, shared: ToastRelation | null = null): { prober: HeapProber; close: () => void } {
  const heap = ps[0].heap;
  const own = !shared && heap.toastRelid ? toastRelationFor(cat, heap.toastRelid, ctx) : null;
  const toast = shared ?? own;
  const prober = new HeapProber(
    {
      fork,
      relName: heap.name,
      desc: heap.kind === "t" ? toastChunkDesc5 : cat.descriptor(heap.oid),
      xids: new XidContext(ctx.horizons, heap.frozenXid, heap.minMxid, ctx.cluster.clog),
      multixact: ctx.multixact,
      toast,
      isToast: heap.kind === "t",
    },
    ps.map((p) => ({ entries: p.entries, sink: p.sink, indkey: p.info.keys, attrs: p.plan.keys.attrs, indexName: p.rel.name, predicate: p.info.pred ? nullTestPredicate(p.info.pred) : null, exprs: p.exprs })),
  );
  return { prober, close: () => own?.fork.close() };
}

/** The probes' outcome into each index's report. */
function probeDone(ps: Omit<PendingProbe, "path" | "rest">[], stats: HeapSideStats[], hpath: string): void {
  ps.forEach((p, k) => {
    const hs = stats[k];
    p.report.stats.indexEntries = p.entries.entries;
    p.report.stats.heapTuplesProbed = hs.liveTuples;
    p.entries.release();
    if (hs.unformable) p.sink.add("BT_HEAPALLINDEXED_SKIPPED", `${hs.unformable} live heap tuples of "${ps[0].heap.name}" were not compared with index "${p.label}": their key values cannot be read (see the table's findings)`, { file: hpath });
  });
}

/** heapallindexed for indexes of one table `heap`, in one scan of it. */
function probeTable(cat: DatabaseCatalog, ctx: ClusterContext, ps: Omit<PendingProbe, "path" | "rest">[]): void {
  const hpath = cat.path(ps[0].heap);
  const hfork = new RelationFork(hpath, ctx.cluster.geometry);
  const { prober, close } = proberFor(cat, ctx, ps, hfork);
  try {
    for (const [blk, page] of scanPages(hfork)) prober.page(blk, page);
    probeDone(ps, prober.stats(), hpath);
  } finally {
    hfork.close();
    close();
  }
}

interface GroupMember {
  report: RelationReport;
  sink: FindingSink;
  ms: number;
  failed?: boolean;
  pending?: PendingProbe;
}

/**
 * A group job (GroupJob), stage by stage: each index's own checks as verifyJob runs them; then the
 * table's check, whose pages also go to the indexes' heapallindexed probes (and, for a TOAST
 * relation followed by its owner's stage, to the chunk map the owner's check uses), or, without
 * the table in the stage, one scan of it for the probes; then each index's remaining checks. The
 * reports are those the relations would get one by one (ms: an index's own time plus a share of
 * a separate scan; a table's includes the probes its scan fed).
 */
function verifyGroup(job: GroupJob, env: JobEnv): RelationReport[] {
  const ctx = env.ctx!;
  const db = job.db;
  const cat = ctx.database(db);
  const check = (oid: number, defer?: PendingProbe[], shared?: Shared): GroupMember => {
    const t0 = performance.now();
    const rel = cat.classes.get(oid);
    if (!rel) return { report: failedReport({ kind: "catalog", db, oid }, new FormatError("RELATION_NOT_FOUND", `relation ${oid} does not exist in database "${cat.db.name}"`, {})), sink: new FindingSink(env.opts.capPerCode), ms: 0, failed: true };
    const sink = new FindingSink(env.opts.capPerCode);
    try {
      const report = verifyCatalogRelation(cat, rel, sink, env, defer, shared);
      return { report, sink, ms: performance.now() - t0, pending: defer?.[0] };
    } catch (e) {
      // as safeVerifyJob reports a single relation whose check threw
      return { report: failedReport({ kind: "catalog", db, oid }, e), sink, ms: 0, failed: true };
    }
  };
  const finish = (m: GroupMember): RelationReport => {
    if (m.failed) return m.report;
    m.report.findings = m.sink.finish({ file: m.report.file });
    m.report.status = statusOf(m.report.findings);
    m.report.ms = Math.round(m.ms);
    return m.report;
  };
  const out: RelationReport[] = [];
  // a first-stage TOAST relation's chunk map, for the second stage's table
  let chunkMap: ToastRelation | null = null;
  try {
    for (const [si, stage] of job.stages.entries()) {
      const members: GroupMember[] = [];
      for (const oid of stage.indexes) {
        const defer: PendingProbe[] = [];
        members.push(check(oid, defer));
      }
      if (job.publish && env.exchange) publishEntries(job.db, stage.indexes, members, env.exchange, ctx, cat);
      const remote = stage.heap !== undefined && stage.remote?.length && env.exchange ? remoteMembers(cat, stage.heap, stage.remote, env.exchange, env.opts.capPerCode) : [];
      // published entries are probed by their table's unit
      let pend = job.publish ? [] : [...members.filter((m) => m.pending), ...remote];
      let heapMember: GroupMember | null = null;
      if (stage.heap !== undefined) {
        const mapHere = si === 0 && job.stages.length > 1 && env.opts.toast ? toastRelationFor(cat, stage.heap, ctx) : null;
        if (mapHere) chunkMap = mapHere;
        // the table's check feeds the probes of its indexes
        const mine = pend.filter((m) => m.pending!.heap.oid === stage.heap);
        const hrel = cat.classes.get(stage.heap);
        let hfork: RelationFork | null = null;
        let fed: ReturnType<typeof proberFor> | null = null;
        try {
          if (mine.length && hrel) {
            hfork = new RelationFork(cat.path(hrel), ctx.cluster.geometry);
            fed = proberFor(cat, ctx, mine.map((m) => m.pending!), hfork, si > 0 ? chunkMap : null);
          }
        } catch (e) {
          // left to the separate probe below, which reports the error for each index
          if (!(e instanceof FormatError)) throw e;
        }
        try {
          const shared: Shared = { feed: mapHere ?? undefined, probe: fed?.prober };
          if (si > 0 && job.stages.length > 1) shared.toast = chunkMap;
          heapMember = check(stage.heap, undefined, shared);
          if (fed?.prober.complete) {
            probeDone(mine.map((m) => m.pending!), fed.prober.stats(), cat.path(hrel!));
            pend = pend.filter((m) => !mine.includes(m));
          }
        } finally {
          hfork?.close();
          fed?.close();
        }
      }
      if (pend.length) {
        // the table is not in the stage (or its check did not read every page): a scan of its own
        const t0 = performance.now();
        const byHeap = new Map<number, GroupMember[]>();
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
      for (const m of members) {
        if (m.failed || !m.pending) continue;
        const t0 = performance.now();
        try {
          m.pending.rest();
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          m.sink.fromError(e, { file: m.pending.path }, e.code === "REL_SHORT_READ" ? "REL_SHORT_READ" : "REL_VERIFY_FAILED");
        }
        m.ms += performance.now() - t0;
      }
      out.push(...members.map(finish));
      if (heapMember) out.push(finish(heapMember));
      for (const m of remote) if (!m.failed) env.onPatch?.({ db, oid: m.report.oid!, findings: m.sink.finish({ file: m.report.file }), stats: m.report.stats });
    }
    return out;
  } finally {
    chunkMap?.fork.close();
  }
}

/**
 * A publishing unit's indexes: each one's entries grouped into shared memory (for the heap's
 * size) and published, or, when it has none to give, word of that.
 */
function publishEntries(db: number, oids: number[], members: GroupMember[], exchange: EntryExchange, ctx: ClusterContext, cat: DatabaseCatalog): void {
  oids.forEach((oid, k) => {
    const m = members[k];
    let payload: EntryPayload = { db, oid };
    if (m && !m.failed && m.pending) {
      const hfork = new RelationFork(cat.path(m.pending.heap), ctx.cluster.geometry);
      try {
        const entries = m.pending.entries;
        payload = { db, oid, shared: entries.share(hfork.nblocks), entries: entries.entries };
        m.report.stats.indexEntries = entries.entries;
      } finally {
        hfork.close();
      }
    }
    exchange.publish(payload);
  });
}

/** The published entries of `oids` (indexes of table `heapOid`) as members probed by this unit. */
function remoteMembers(cat: DatabaseCatalog, heapOid: number, oids: number[], exchange: EntryExchange, cap: number): GroupMember[] {
  const heap = cat.classes.get(heapOid);
  const out: GroupMember[] = [];
  if (!heap) return out;
  for (const oid of oids) {
    const p = exchange.take(cat.db.oid, oid);
    const rel = cat.classes.get(oid);
    const info = cat.indexes().get(oid);
    if (!p?.shared || !rel || !info) continue;
    const path = cat.path(rel);
    const report = baseReport(cat, rel, path);
    const label = `${cat.db.name}.${rel.namespaceName}.${rel.name}`;
    const sink = new FindingSink(cap);
    const plan = indexKeysFor(cat, rel, info);
    const entries = new IndexEntries(plan.keys.attrs, sink, rel.name, () => path, 0, { table: p.shared, entries: p.entries ?? 0 });
    // the worker that read the index compiled its trees too; they are functions, so not sent here
    const exprs = compiledTrees(cat, info);
    const pending: PendingProbe = { heap, info, plan, entries, rel, label, report, sink, exprs: exprs instanceof FormatError ? null : exprs, path, rest: () => {} };
    out.push({ report, sink, ms: 0, pending });
  }
  return out;
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
  return new ToastRelation(new RelationFork(path, ctx.cluster.geometry), toastOid, `${t.namespaceName}.${t.name}`, (page, off) => live(viewOf(page), off, xids, ctx.multixact), partial);
}

/** The index AMs besides btree (checked on its own) whose item pages get the line pointer checks. */
const itemPagesAm = (amName: string): PageAm | undefined => (amName !== "btree" && isIndexAmWithItems(amName) ? amName : undefined);

/**
 * Header and checksum of every page (other access methods, sequences, invalid indexes), the
 * line pointers of the item pages of index access method `am` (hash, GiST, GIN, SP-GiST, BRIN),
 * and each page handed to the access method's structure checker (verify/am/), if it has one.
 */
export function pageOnly(fork: RelationFork, sink: FindingSink, checksums: boolean, env: JobEnv, label: string, am?: PageAm, checker?: AmChecker): number {
  let n = 0;
  const bs = fork.geometry.blockSize;
  for (const [blk, page] of scanPages(fork)) {
    n++;
    env.onPages?.(1);
    const dv = viewOf(page);
    const v = checkPage(page, dv, blk, fork.fileOf(blk).path, sink, { am: am ?? "other", blockSize: bs, checksums, checksumSeverity: env.ctx?.checksumSeverity, relName: label });
    checker?.page(blk, page, dv, v);
  }
  return n;
}

export function tail(fork: RelationFork, sink: FindingSink): void {
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
    const dv = viewOf(b);
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
  const name = job.kind === "file" ? job.path : job.kind === "group" ? `relations ${jobOids(job).join(", ")} of database ${job.db}` : `relation ${job.oid} of database ${job.db}`;
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
    if (job.kind !== "group") return [failedReport(job, e)];
    // the table's unit must not wait for entries this job will not publish now
    if (job.publish && env.exchange) for (const st of job.stages) for (const oid of st.indexes) if (!env.exchange.has(job.db, oid)) env.exchange.publish({ db: job.db, oid });
    return jobOids(job).map((oid) => failedReport({ kind: "catalog", db: job.db, oid }, e));
  }
}
