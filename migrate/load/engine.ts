// `pgdisk load`: a direct-path bulk load into a table of a stopped cluster. Phases: the gate and
// the lock; the target resolved and refused where an offline writer cannot act as the server;
// the input parsed as COPY FROM parses it, each row encoded and formed into frozen tuples on new
// pages (staged), and into index tuples; every btree index rebuilt over all rows (staged, unique
// keys checked); the visibility map and free space map for the new pages (staged); then the
// switch (plan.ts) makes it all current. Any error before the switch discards what was staged:
// the cluster is left exactly as it was. Returns plain data; the CLI renders it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Cluster } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { maxHeapTupleSize, toastTupleThreshold } from "../../formats/heap/page-builder.js";
import { assertClusterStopped } from "../safety.js";
import { assertCanWriteAs, clusterOwner } from "../file-owner.js";
import { lockInput } from "../input-lock.js";
import { safePoint } from "../interrupt.js";
import { faultPoint } from "../fault-point.js";
import { CopyParser, type CopyFormat } from "./copy-parse.js";
import { resolveTarget } from "./target.js";
import { badRow, rowDatums } from "./row-datums.js";
import { HeapAppender } from "./heap-append.js";
import { IndexLoader, type IndexLoadResult } from "./index-load.js";
import { applyPlan, discardPlan, writePlanFile, type LoadPlan } from "./plan.js";
import { appendBase, appendSteps, indexSteps, stageMaps } from "./stage-steps.js";
import { ToastLoader, type ToastFlavour, type ToastLoadReport } from "./toast-load.js";

/** Errors about the input's content (exit 2). */
const INPUT_CODES = new Set(["LOAD_BAD_INPUT", "LOAD_UNIQUE_VIOLATION"]);

export const LOAD_PLAN_FILE = "pgdisk-load.plan.json";

export interface LoadOptions {
  pgdata: string;
  database: string;
  table: string;
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
  /** seconds per phase */
  phases: { rows: number; indexes: number; maps: number; toast: number; switch: number };
  seconds: number;
}

export async function loadTable(o: LoadOptions): Promise<LoadReport> {
  const t0 = performance.now();
  const control = assertClusterStopped(o.pgdata);
  const owner = clusterOwner(o.pgdata);
  if (!o.dryRun) assertCanWriteAs(owner, o.pgdata);
  const lock = lockInput(o.pgdata);
  const plan: LoadPlan = { schema: "pgdisk.load-plan/1", owner: { uid: owner.uid, gid: owner.gid, fileMode: owner.fileMode }, steps: [], staged: [] };
  let switched = false;
  try {
    const cluster = new Cluster(o.pgdata);
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
    const toaster = new ToastLoader(cat, target, { flavour: o.toast ?? "plain", pgdata: o.pgdata, checksums, owner, nextOid: control.control.fields.checkPointCopy.nextOid, dryRun: o.dryRun, staged: plan.staged });

    // rows: parse, encode, form, place (staged), index tuples
    const stagePath = `${heapPath}.pgdisk-load`;
    plan.staged.push(stagePath);
    const appender = new HeapAppender(target.desc, { blockSize: bs, fillfactor: target.fillfactor, firstBlock: pagesBefore, checksums, stagePath, owner, dryRun: o.dryRun });
    let rows = 0;
    let bytes = 0;
    const parser = new CopyParser(o.format, (row) => {
      const datums = rowDatums(target, row);
      let size = appender.size(datums);
      // over TOAST_TUPLE_THRESHOLD the server compresses and moves values out of line (heap_prepare_insert)
      const stored = size > threshold ? toaster.toastRow(datums, row.line) : { datums, size };
      size = stored.size;
      if (size > maxTuple) throw badRow(row, `row is too big: size ${size}, maximum size ${maxTuple}${target.rel.toastRelid ? "" : ` (table ${target.name} has no TOAST relation)`}`);
      const tid = appender.add(stored.datums, size);
      // index tuples are formed from the values before TOAST (index_form_tuple compresses on its own)
      for (const l of loaders) l.addRow(datums, tid, row.line);
      rows++;
    });
    const tRows = performance.now();
    try {
      let lastTick = performance.now();
      for await (const chunk of o.input) {
        bytes += chunk.length;
        parser.push(chunk);
        // at most five progress reports a second
        if (o.progress && performance.now() - lastTick >= 200) {
          lastTick = performance.now();
          o.progress({ phase: "rows", rows, bytes });
        }
        await safePoint(o.abort);
      }
      parser.end();
    } catch (e) {
      appender.close();
      toaster.close();
      throw e;
    }
    const pagesAdded = appender.finish();
    const secRows = (performance.now() - tRows) / 1000;

    // indexes: merged, checked, built (staged)
    const tIdx = performance.now();
    const heapRead = new RelationFork(heapPath, geometry);
    const indexes: IndexLoadResult[] = [];
    try {
      for (const [i, l] of loaders.entries()) {
        await safePoint(o.abort);
        o.progress?.({ phase: `index ${i + 1}/${loaders.length} ${l.name}`, rows, bytes });
        const ipath = cat.path(target.indexes[i].rel);
        const r = l.build({ path: ipath, checksums, owner, heap: (b) => heapRead.readBlock(b), clog: cluster.clog, dryRun: o.dryRun });
        indexes.push(r);
        plan.steps.push(...indexSteps(r.staged, cat.path(target.indexes[i].rel, "fsm")));
      }
    } finally {
      heapRead.close();
    }
    const secIdx = (performance.now() - tIdx) / 1000;

    // maps: VM all-visible + all-frozen for the new pages, FSM with their free space
    const tMaps = performance.now();
    const pagesAfter = pagesBefore + pagesAdded;
    let vmPages = 0;
    let fsmPages = 0;
    if (pagesAdded > 0) {
      ({ vmPages, fsmPages } = stageMaps((f) => cat.path(target.rel, f), pagesBefore, appender.freeSpace, { geometry, checksums, owner, dryRun: o.dryRun }, plan.steps));
      // the heap's new pages, appended segment by segment
      plan.steps.push(...appendSteps(heapPath, heapBase, pagesAfter, stagePath, geometry));
    }
    const secMaps = (performance.now() - tMaps) / 1000;

    // the TOAST relation: new pages, maps, index; pg_control (nextOid, or the Direct TOAST fence)
    const tToast = performance.now();
    o.progress?.({ phase: "toast", rows, bytes });
    const toast = toaster.finish();
    plan.steps.push(...toast.steps);
    const secToast = (performance.now() - tToast) / 1000;

    // the switch
    await safePoint(o.abort);
    const tSwitch = performance.now();
    const planFile = join(o.pgdata, LOAD_PLAN_FILE);
    if (o.dryRun) discardPlan(plan);
    else {
      // heap appends first, so that every index entry points at a tuple that exists
      plan.steps.sort((a, b) => Number(b.kind === "append-file") - Number(a.kind === "append-file"));
      // pg_control first: nextOid past every new value OID, or the fence up before any Direct TOAST value lands
      plan.steps.unshift(...toast.first);
      faultPoint("load-staged");
      writePlanFile(planFile, plan);
      switched = true;
      applyPlan(plan, (i) => i === 1 && faultPoint("load-switching"));
      rmSync(planFile, { force: true });
    }
    const secSwitch = (performance.now() - tSwitch) / 1000;
    return {
      schema: "pgdisk.load/1",
      pgdata: o.pgdata,
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
      switchSteps: plan.steps.length,
      phases: { rows: secRows, indexes: secIdx, maps: secMaps, toast: secToast, switch: secSwitch },
      seconds: (performance.now() - t0) / 1000,
    };
  } catch (e) {
    // before the switch nothing real was touched: drop what was staged
    if (!switched) discardPlan(plan);
    // input errors name the input file (their message has the line and column)
    if (e instanceof FormatError && INPUT_CODES.has(e.code)) throw new FormatError(e.code, e.message, { file: o.inputName === "-" ? "stdin" : o.inputName }, e.detail);
    throw e;
  } finally {
    lock?.release();
  }
}
