// `pgdisk load`: a direct-path bulk load into a table of a stopped cluster. Phases: the gate and
// the lock; the target resolved and refused where an offline writer cannot act as the server;
// the input parsed as COPY FROM parses it, each row encoded and formed into frozen tuples on new
// pages (staged), and into index tuples; every btree index rebuilt over all rows (staged, unique
// keys checked); the visibility map and free space map for the new pages (staged); then the
// switch (plan.ts) through the journal (switch.ts) makes it all current. Any error before the
// switch discards what was staged: the cluster is left exactly as it was. A cluster whose load
// was interrupted gets it finished first, from the staged files. Returns plain data; the CLI
// renders it.
import { realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { Cluster } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { existingSegments, RelationFork } from "../../formats/storage/relfile.js";
import { maxHeapTupleSize, toastTupleThreshold } from "../../formats/heap/page-builder.js";
import { assertClusterStopped } from "../safety.js";
import { assertCanWriteAs, clusterOwner } from "../file-owner.js";
import { lockInput } from "../input-lock.js";
import { safePoint } from "../interrupt.js";
import { faultPoint } from "../fault-point.js";
import { CopyParser, type CopyFormat } from "./copy-parse.js";
import { resolveTarget } from "./target.js";
import { badRow, rowValues } from "./row-datums.js";
import { RowValues } from "./row-values.js";
import { HeapAppender } from "./heap-append.js";
import { IndexLoader, type IndexLoadResult } from "./index-load.js";
import { IndexThreads, PARALLEL_MIN_ENTRIES } from "./index-threads.js";
import { LOAD_PLAN_SCHEMA, relativeStep, removeStaged, STAGE_SUFFIX, type LoadPlan, type SwitchStep } from "./plan.js";
import { resumeLoad, switchLoad } from "./switch.js";
import { Journal, JOURNAL_FILE, journalHint } from "../journal.js";
import type { ControlNameAction } from "../control-name.js";
import { appendBase, appendSteps, replaceSteps, stageMaps } from "./stage-steps.js";
import { ToastLoader, type ToastFlavour, type ToastLoadReport } from "./toast-load.js";

/** Errors about the input's content (exit 2). */
const INPUT_CODES = new Set(["LOAD_BAD_INPUT", "LOAD_UNIQUE_VIOLATION"]);

export interface LoadOptions {
  pgdata: string;
  /** needed for a new load; a resumed one checks them when given */
  database?: string;
  table?: string;
  columns?: string[];
  format: CopyFormat;
  /** the input, in chunks */
  input: AsyncIterable<Uint8Array>;
  /** the input's name for the report ("-" for stdin) */
  inputName: string;
  /** parse, encode, check and build everything, then discard it */
  dryRun?: boolean;
  /** how values moved out of line are stored: stock chunks (default) or Direct TOAST */
  toast?: ToastFlavour;
  abort?: AbortSignal;
  /** build the indexes in parallel threads from this many rows on (default PARALLEL_MIN_ENTRIES) */
  parallelMinEntries?: number;
  /** progress: the phase, rows and input bytes so far (at most five times a second while reading) */
  progress?: (p: { phase: string; rows: number; bytes: number }) => void;
}

export interface LoadReport {
  schema: "pgdisk.load/1";
  pgdata: string;
  database: string;
  table: string;
  input: string;
  dryRun: boolean;
  checksums: boolean;
  rows: number;
  inputBytes: number;
  heap: { pagesBefore: number; pagesAdded: number; bytesAdded: number; fillfactor: number };
  indexes: Omit<IndexLoadResult, "staged">[];
  maps: { vmPages: number; fsmPages: number };
  toast: ToastLoadReport;
  switchSteps: number;
  /** the switch's journal: its records, whether this run resumed an interrupted load (whose report this is) */
  journal: { records: number; resumed: boolean } | null;
  /** what the switch did with pg_control's name (null: a dry run) */
  control: ControlNameAction | null;
  /** seconds per phase */
  phases: { rows: number; indexes: number; maps: number; toast: number; switch: number };
  seconds: number;
}

export async function loadTable(o: LoadOptions): Promise<LoadReport> {
  const t0 = performance.now();
  const pgdata = realpathSync(o.pgdata);
  const control = assertClusterStopped(pgdata, { journaled: true });
  const owner = clusterOwner(pgdata);
  if (o.dryRun && Journal.exists(pgdata)) throw new FormatError("CLUSTER_JOURNAL_PRESENT", `${pgdata} holds the journal of an interrupted run; ${journalHint(pgdata)}`, { file: join(pgdata, JOURNAL_FILE) });
  if (!o.dryRun) assertCanWriteAs(owner, pgdata);
  const lock = lockInput(pgdata);
  const rel = (p: string): string => relative(pgdata, p);
  const steps: SwitchStep[] = [];
  const staged: string[] = [];
  let switching = false;
  let threads = null as IndexThreads | null;
  /** steps a stage built with absolute paths (stage-steps.ts, the TOAST stage), made relative; their staged files recorded */
  const addSteps = (xs: SwitchStep[], front = false): void => {
    const r = xs.map((s) => relativeStep(s, rel));
    for (const s of r) if (s.kind === "link" && !staged.includes(s.staged)) staged.push(s.staged);
    if (front) steps.unshift(...r);
    else steps.push(...r);
  };
  try {
    if (Journal.exists(pgdata)) {
      // an interrupted load: finished from its staged files (the input is not read again)
      const { plan, result } = resumeLoad(pgdata, owner, { database: o.database, table: o.table });
      const report = plan.report as LoadReport;
      return { ...report, journal: { records: result.records, resumed: true }, control: result.control, seconds: (performance.now() - t0) / 1000 };
    }
    if (o.database === undefined || o.table === undefined) throw new FormatError("USAGE", "pgdisk load needs -d DATABASE and -t TABLE (only finishing an interrupted load does without them)");
    const cluster = new Cluster(pgdata);
    const cat = cluster.database(o.database);
    const target = resolveTarget(cat, o.table, o.columns);
    const geometry = cluster.geometry;
    const bs = geometry.blockSize;
    const checksums = control.dataChecksumVersion !== 0;
    const heapPath = cat.path(target.rel);
    const heapBase = appendBase(heapPath, geometry);
    const pagesBefore = heapBase.pages;
    const loaders = target.indexes.map((ix) => new IndexLoader(cat, ix.rel, ix.info, target.desc.attrs, geometry));
    const threshold = toastTupleThreshold(bs);
    const maxTuple = maxHeapTupleSize(bs);
    const toaster = new ToastLoader(cat, target, { flavour: o.toast ?? "plain", pgdata, checksums, owner, nextOid: control.control.fields.checkPointCopy.nextOid, dryRun: o.dryRun, stage: (f) => staged.push(rel(f)) });

    // rows: parse, encode, form, place (staged), index tuples
    const stagePath = heapPath + STAGE_SUFFIX;
    staged.push(rel(stagePath));
    const appender = new HeapAppender(target.desc, { blockSize: bs, fillfactor: target.fillfactor, firstBlock: pagesBefore, checksums, stagePath, owner, dryRun: o.dryRun });
    let rows = 0;
    let bytes = 0;
    // each row's datums, and a TOASTed row's stored ones (one buffer each, reused)
    const values = new RowValues(target.columns.length);
    const toasted = new RowValues(target.columns.length);
    const parser = new CopyParser(o.format, (row) => {
      rowValues(target, row, values);
      let size = appender.size(values);
      // over TOAST_TUPLE_THRESHOLD the server compresses and moves values out of line (heap_prepare_insert)
      const stored = size > threshold ? toaster.toastRow(values.datums(), row.line) : null;
      if (stored) size = stored.size;
      if (size > maxTuple) throw badRow(row, `row is too big: size ${size}, maximum size ${maxTuple}${target.rel.toastRelid ? "" : ` (table ${target.name} has no TOAST relation)`}`);
      const tid = appender.add(stored ? toasted.setAll(stored.datums) : values, size);
      // index tuples are formed from the values before TOAST (index_form_tuple compresses on its own)
      for (const l of loaders) l.addValues(values, tid, row.line);
      // enough rows for parallel index builds: the workers start now, while the rows are read
      if (++rows === (o.parallelMinEntries ?? PARALLEL_MIN_ENTRIES) && loaders.length > 1) threads = IndexThreads.forIndexes(loaders.length, { pgdata, database: o.database!, table: o.table!, columns: o.columns });
    });
    const tRows = performance.now();
    let pagesAdded = 0;
    try {
      let lastTick = performance.now();
      for await (const chunk of o.input) {
        bytes += chunk.length;
        parser.push(chunk);
        // at most two batches of heap pages being written behind the parse
        if (appender.pendingWrites > 2) await appender.drain(2);
        // at most five progress reports a second
        if (o.progress && performance.now() - lastTick >= 200) {
          lastTick = performance.now();
          o.progress({ phase: "rows", rows, bytes });
        }
        await safePoint(o.abort);
      }
      parser.end();
      pagesAdded = await appender.finish();
    } catch (e) {
      appender.close();
      toaster.close();
      throw e;
    }
    faultPoint("load-heap-staged");
    const secRows = (performance.now() - tRows) / 1000;

    // indexes: merged, checked, built (staged)
    const tIdx = performance.now();
    const heapRead = new RelationFork(heapPath, geometry);
    const indexes: IndexLoadResult[] = [];
    try {
      // index i goes to worker i % (workers + 1) - 1, or to this thread; every build is awaited before any error is thrown
      const shares = (threads?.count ?? 0) + 1;
      const pending = loaders.map((l, i) =>
        i % shares === 0 ? null : threads!.build({ pgdata, database: o.database!, table: o.table!, columns: o.columns, index: i, tuples: l.exportTuples(), checksums, owner, dryRun: o.dryRun }),
      );
      if (shares > 1) o.progress?.({ phase: `indexes: ${loaders.length} in ${shares} threads`, rows, bytes });
      const built: ({ ok: IndexLoadResult } | { error: unknown })[] = [];
      for (const [i, l] of loaders.entries()) {
        if (pending[i]) continue;
        await safePoint(o.abort);
        if (shares === 1) o.progress?.({ phase: `index ${i + 1}/${loaders.length} ${l.name}`, rows, bytes });
        try {
          built[i] = { ok: l.build({ path: cat.path(target.indexes[i].rel), checksums, owner, heap: (b) => heapRead.readBlock(b), clog: cluster.clog, dryRun: o.dryRun }) };
        } catch (e) {
          built[i] = { error: e };
          break;
        }
      }
      for (const [i, p] of pending.entries()) {
        if (p) built[i] = await p.then((ok) => ({ ok }), (error: unknown) => ({ error }));
      }
      // what was staged is recorded first, so that an error below removes it
      for (const b of built) if (b && "ok" in b) addSteps(replaceSteps(b.ok.staged));
      for (const [i, b] of built.entries()) {
        if (!b) continue;
        if ("error" in b) throw b.error;
        indexes.push(b.ok);
        // a rebuilt index has no free space map (REINDEX starts a new file without one)
        for (const f of existingSegments(cat.path(target.indexes[i].rel, "fsm"))) steps.push({ kind: "remove", target: rel(f) });
      }
    } finally {
      heapRead.close();
      await threads?.close();
      threads = null;
    }
    const secIdx = (performance.now() - tIdx) / 1000;

    // maps: VM all-visible + all-frozen for the new pages, FSM with their free space
    const tMaps = performance.now();
    const pagesAfter = pagesBefore + pagesAdded;
    let vmPages = 0;
    let fsmPages = 0;
    if (pagesAdded > 0) {
      const mapSteps: SwitchStep[] = [];
      ({ vmPages, fsmPages } = stageMaps((f) => cat.path(target.rel, f), pagesBefore, appender.freeSpace, { geometry, checksums, owner, dryRun: o.dryRun }, mapSteps));
      addSteps(mapSteps);
      // the heap's new pages, appended segment by segment (first: every index entry then points at a tuple that exists)
      addSteps(appendSteps(heapPath, heapBase, pagesAfter, stagePath, geometry), true);
    }
    const secMaps = (performance.now() - tMaps) / 1000;

    // the TOAST relation: new pages, maps, index; pg_control's nextOid; the Direct TOAST fence
    const tToast = performance.now();
    o.progress?.({ phase: "toast", rows, bytes });
    const toast = toaster.finish();
    addSteps(toast.steps);
    const secToast = (performance.now() - tToast) / 1000;

    // the heap's fsync, started after the rows phase, is done
    await appender.synced();
    await safePoint(o.abort);
    const report: LoadReport = {
      schema: "pgdisk.load/1",
      pgdata,
      database: o.database,
      table: target.name,
      input: o.inputName,
      dryRun: !!o.dryRun,
      checksums,
      rows,
      inputBytes: bytes,
      heap: { pagesBefore, pagesAdded, bytesAdded: pagesAdded * bs, fillfactor: target.fillfactor },
      indexes: indexes.map(({ staged: _staged, ...r }) => r),
      maps: { vmPages, fsmPages },
      toast: toast.report,
      switchSteps: steps.length,
      journal: null,
      control: null,
      phases: { rows: secRows, indexes: secIdx, maps: secMaps, toast: secToast, switch: 0 },
      seconds: 0,
    };
    if (o.dryRun) {
      removeStaged(pgdata, { staged });
      return { ...report, seconds: (performance.now() - t0) / 1000 };
    }
    // the switch, through the journal
    faultPoint("load-staged");
    const tSwitch = performance.now();
    const plan: LoadPlan<LoadReport> = { schema: LOAD_PLAN_SCHEMA, writer: "load", database: o.database, table: o.table, steps, staged, fence: toast.fence, report };
    switching = true;
    const sw = switchLoad(pgdata, owner, plan);
    const secSwitch = (performance.now() - tSwitch) / 1000;
    return { ...report, journal: { records: sw.records, resumed: false }, control: sw.control, phases: { ...report.phases, switch: secSwitch }, seconds: (performance.now() - t0) / 1000 };
  } catch (e) {
    // before the switch nothing real was touched: drop what was staged (the switch undoes itself)
    if (!switching) removeStaged(pgdata, { staged });
    // input errors name the input file (their message has the line and column)
    if (e instanceof FormatError && INPUT_CODES.has(e.code)) throw new FormatError(e.code, e.message, { file: o.inputName === "-" ? "stdin" : o.inputName }, e.detail);
    throw e;
  } finally {
    await threads?.close();
    lock?.release();
  }
}
