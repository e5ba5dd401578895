// The dump engine: walks the blocks of resolved relations and yields plain events
// (relation, page, file-level finding, summary) for the renderers.
import type { Finding } from "../../formats/schema/errors.js";
import { FormatError, findingFrom } from "../../formats/schema/errors.js";
import { scanBlocks } from "../../formats/storage/relfile.js";
import { scanPage, type PageDumpContext } from "./page-dump.js";
import { PageRecord, recordToDumpPage } from "./page-record.js";
import { dumpContext, openFork, type ResolvedRelation } from "./target.js";
import type { DumpPage, DumpSummary, DumpTarget } from "./model.js";
import { CopyRows, type CopyFieldWriter } from "./copy-rows.js";
import { TextValuePlan } from "./text-values.js";
import { indexKeyTypeNames } from "./index-page.js";

export interface BlockRange {
  from: number;
  /** exclusive; undefined = to the end */
  to?: number;
}

export interface DumpOptions {
  blocks?: BlockRange;
  detoast: boolean;
  /** force checksum verification on/off (default: the cluster's setting; off for lone files) */
  checksums?: boolean;
  /** decode attribute values and index keys (default true) */
  values?: boolean;
  /** item bytes in hex: index key bytes even without values, items of kinds not decoded */
  hex?: boolean;
  /** values are shown cut to this many characters (text dumps): long ones are decoded in part */
  previewChars?: number;
  /** COPY output: the live rows of tables are written here as they are scanned (not cloned to workers) */
  copyTo?: CopyFieldWriter;
}

export interface ScanOptions {
  /** yield "record" events (one PageRecord, reused: consume each before the next) instead of pages */
  records?: boolean;
  /** with records, in text mode: heap values as value lines of bytes (HeapFields.lines), for TextByteRenderer */
  textValues?: boolean;
}

export type DumpEvent =
  | { type: "relation"; target: DumpTarget }
  | { type: "page"; page: DumpPage }
  | { type: "record"; record: PageRecord }
  | { type: "finding"; finding: Finding }
  | { type: "end"; summary: DumpSummary };

export function emptySummary(): DumpSummary {
  return { pages: 0, newPages: 0, items: 0, findings: 0, errors: 0, warnings: 0 };
}

function count(s: DumpSummary, f: Finding): void {
  s.findings++;
  if (f.severity === "error") s.errors++;
  else if (f.severity === "warning") s.warnings++;
}

export interface RelationPlan {
  target: DumpTarget;
  from: number;
  to: number;
  /** a partial trailing block inside the requested range */
  tail?: Finding;
}

/** A table's column names (COPY's HEADER); none when its descriptor cannot be read (the dump reports that itself). */
function columnNames(r: ResolvedRelation): string[] | undefined {
  try {
    return r.catalog!.descriptor(r.rel!.oid).attrs.filter((a) => !a.dropped && !a.generated).map((a) => a.name);
  } catch (e) {
    if (e instanceof FormatError) return undefined;
    throw e;
  }
}

/** Where a dump of `r` starts and ends. Usage errors (a block range beyond the end) throw FormatError. */
export function planRelation(r: ResolvedRelation, opts: DumpOptions): RelationPlan {
  const fork = openFork(r);
  try {
    const first = fork.firstBlock;
    const end = fork.nblocks;
    const from = opts.blocks?.from ?? first;
    const to = Math.min(opts.blocks?.to ?? end, end);
    if (opts.blocks && (from < first || from >= end) && !(end === first && from === first)) {
      throw new FormatError("BLOCK_RANGE_OUT_OF_RELATION", `block ${from} is outside ${fork.basePath} (blocks ${first}..${end - 1})`, { file: fork.basePath, block: from });
    }
    const target: DumpTarget = {
      file: fork.segments[0]?.path ?? r.path,
      pgdata: r.cluster?.pgdata,
      database: r.catalog?.db.name,
      relation: r.rel ? `${r.rel.namespaceName}.${r.rel.name}` : undefined,
      relkind: r.rel?.kind,
      am: r.rel ? (r.rel.kind === "i" ? r.rel.amName : r.rel.kind === "S" ? "sequence" : "heap") : undefined,
      fork: r.fork,
      blocks: [from, to],
      nblocks: end,
    };
    if (r.rel && r.catalog && (r.rel.kind === "r" || r.rel.kind === "m" || r.rel.kind === "t")) target.columns = columnNames(r);
    const t = fork.partialTail;
    let tail: Finding | undefined;
    if (t && (opts.blocks?.to === undefined || opts.blocks.to > t.block)) {
      tail = {
        code: "REL_PARTIAL_BLOCK",
        severity: "error",
        message: `file ends with a partial block: ${t.bytes} bytes where a ${r.geometry.blockSize}-byte block should be (truncated file, or wrong block size)`,
        location: { file: t.file, block: t.block, offset: (t.block % r.geometry.segmentBlocks) * r.geometry.blockSize },
      };
    }
    return { target, from, to, tail };
  } finally {
    fork.close();
  }
}

/** Page events for blocks [from, to) of `r`; counts into `summary`. */
export function* dumpBlocks(r: ResolvedRelation, opts: DumpOptions, from: number, to: number, summary: DumpSummary, scan: ScanOptions = {}): Generator<DumpEvent> {
  const fork = openFork(r);
  let ctxBase: PageDumpContext | undefined;
  try {
    const label = fork.segments[0]?.path ?? r.path;
    ctxBase = dumpContext(r, { detoast: opts.detoast, checksums: opts.checksums, fileLabel: label, values: opts.values, hex: opts.hex, previewChars: opts.previewChars });
    if (opts.copyTo && ctxBase.desc && ctxBase.values) ctxBase.copyRows = new CopyRows(opts.copyTo, ctxBase.desc, ctxBase.values);
    else if (scan.records && scan.textValues && ctxBase.values) {
      if (ctxBase.desc) ctxBase.textValues = TextValuePlan.heap(ctxBase.desc, ctxBase.values);
      else if (ctxBase.indexDesc && ctxBase.am === "btree") ctxBase.textKeys = new TextValuePlan(ctxBase.indexDesc, ctxBase.values.types, indexKeyTypeNames(ctxBase.indexDesc, ctxBase.values), false);
    }
    const rec = new PageRecord();
    let ctx = ctxBase;
    for (const [blkno, page] of scanBlocks(fork, from, to)) {
      const { path, position } = fork.fileOf(blkno);
      if (ctx.file !== path) ctx = { ...ctxBase, file: path };
      scanPage(page, blkno, position, ctx, rec);
      summary.pages++;
      if (rec.isNew) summary.newPages++;
      summary.items += rec.n;
      for (const f of rec.findings) count(summary, f);
      yield scan.records ? { type: "record", record: rec } : { type: "page", page: recordToDumpPage(rec) };
    }
  } catch (e) {
    if (!(e instanceof FormatError && e.code.startsWith("REL_SHORT"))) throw e;
    const f = findingFrom(e);
    count(summary, f);
    yield { type: "finding", finding: f };
  } finally {
    fork.close();
    // the TOAST relation's heap and index files the context opened
    ctxBase?.values?.toast?.close();
  }
}

/** Dump one relation fork: its target, its pages, then file-level findings. */
export function* dumpRelation(r: ResolvedRelation, opts: DumpOptions, summary: DumpSummary = emptySummary(), scan: ScanOptions = {}): Generator<DumpEvent, DumpSummary> {
  const plan = planRelation(r, opts);
  yield { type: "relation", target: plan.target };
  yield* dumpBlocks(r, opts, plan.from, plan.to, summary, scan);
  if (plan.tail) {
    count(summary, plan.tail);
    yield { type: "finding", finding: plan.tail };
  }
  return summary;
}

export function addSummary(into: DumpSummary, s: DumpSummary): void {
  into.pages += s.pages;
  into.newPages += s.newPages;
  into.items += s.items;
  into.findings += s.findings;
  into.errors += s.errors;
  into.warnings += s.warnings;
}

export function countFinding(s: DumpSummary, f: Finding): void {
  count(s, f);
}
