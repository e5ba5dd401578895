// Dump one page: header, line pointers, items by access method, special space, findings.
// Pure over the page bytes (plus the catalog-derived context); the caller does the I/O.
import type { GinKeyShape } from "../../formats/am/gin.js";
import type { BrinStoredType } from "../../formats/am/brin.js";
import { FormatError, findingFrom, type Finding, type Location } from "../../formats/schema/errors.js";
import { PageHeaderData, PD_FLAG_NAMES, lsnText } from "../../formats/page/page-header.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { tidBlockAt, tidOffsetAt } from "../../formats/page/item-pointer.js";
import { itemIdWord, maxOffsetNumber, pageFreeSpace, pageIsAllZero, pageView } from "../../formats/page/page.js";
import { checkLinePointers, checkPageHeader } from "../../formats/page/sanity.js";
import { pgChecksumPage } from "../../formats/page/checksum.js";
import { HeapTupleHeaderData, infomaskNames, HEAP_NATTS_MASK, HEAP_HASNULL, SizeofHeapTupleHeader } from "../../formats/heap/tuple-header.js";
import { deformHeapTuple, expectedHoff } from "../../formats/heap/deform.js";
import { tupleState } from "../../formats/heap/visibility.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { XactStatusLookup } from "../../formats/storage/clog.js";
import { heapValue, heapValues, type ValueContext } from "./heap-values.js";
import { ValueLineKind, ValueLines, type TextValuePlan } from "./text-values.js";
import type { ScratchOut } from "../../formats/datum/text-out.js";
import { PageRecord, recordToDumpPage, type HeapFields, type ItemRecord } from "./page-record.js";
import { dumpIndexPage, detectKind } from "./index-page.js";
import type { DumpPage } from "./model.js";
import type { CopyRows } from "./copy-rows.js";

export interface PageDumpContext {
  file: string;
  pageSize: number;
  /** access method from the catalog (heap, btree, hash, gist, gin, spgist, brin), if known */
  am?: string;
  /** heap: descriptor for value decoding */
  desc?: TupleDesc;
  values?: ValueContext;
  /** index: descriptor of the index's key columns */
  indexDesc?: TupleDesc;
  /** indnkeyatts of a GiST index: its internal tuples hold the key attributes only, not INCLUDE ones */
  indexKeyAtts?: number;
  /** a GIN index: its key columns' shapes, computed once per relation */
  ginKeys?: GinKeyShape;
  /** a BRIN index: each column's stored types (brinStoredTypes) with their attlen and alignment, undefined for an opclass pgdisk does not know */
  brinStored?: (BrinStoredType[] | undefined)[];
  clog?: XactStatusLookup;
  /** verify pd_checksum (cluster has data checksums) */
  checksums: boolean;
  /** include hex of items pgdisk does not decode */
  hex?: boolean;
  /** COPY output: live tuples' values are written as rows here instead of kept as DumpValues */
  copyRows?: CopyRows;
  /** the text dump from records: heap values written as value lines (ScanOptions.textValues) */
  textValues?: TextValuePlan;
  /** the same for a btree index's keys */
  textKeys?: TextValuePlan;
}

const PH = PageHeaderData.offsets;
const PD_NAMES_BY_FLAGS = Array.from({ length: 8 }, (_, f) => PD_FLAG_NAMES.filter(([b]) => f & b).map(([, n]) => n));
const pdFlagNames = (flags: number): string[] => (flags < 8 ? PD_NAMES_BY_FLAGS[flags] : PD_FLAG_NAMES.filter(([b]) => flags & b).map(([, n]) => n));

/** The plain DumpPage of one page (for JSON, the terminal UI, tests). */
export function dumpPage(page: Uint8Array, block: number, fileOffset: number, ctx: PageDumpContext): DumpPage {
  return recordToDumpPage(scanPage(page, block, fileOffset, ctx, new PageRecord()));
}

/** Scan one page into `rec` (reused between pages: per-item slots are recycled). */
export function scanPage(page: Uint8Array, block: number, fileOffset: number, ctx: PageDumpContext, rec: PageRecord): PageRecord {
  const loc: Location = { file: ctx.file, block };
  const dv = pageView(page);
  rec.reset(page, block, ctx.file, fileOffset, ctx.am ?? "unknown");
  const findings = rec.findings;
  if (dv.getUint16(PageHeaderData.offsets.pd_upper, true) === 0) {
    rec.isNew = true;
    rec.kind = "new";
    if (!pageIsAllZero(page)) findings.push({ code: "PAGE_NEW_NOT_ZERO", severity: "error", message: "page has pd_upper 0 (new) but is not all zeroes", location: { ...loc, offset: PageHeaderData.offsets.pd_upper } });
    return rec;
  }
  // Hot path: header fields read through the declaration's offsets (no decode object).
  const pd_checksum = dv.getUint16(PH.pd_checksum, true);
  const pd_flags = dv.getUint16(PH.pd_flags, true);
  const pd_pagesize_version = dv.getUint16(PH.pd_pagesize_version, true);
  const nItems = maxOffsetNumber(dv);
  rec.header = {
    lsn: lsnText({ pd_lsn_xlogid: dv.getUint32(PH.pd_lsn_xlogid, true), pd_lsn_xrecoff: dv.getUint32(PH.pd_lsn_xrecoff, true) }),
    pd_checksum,
    pd_flags,
    flagNames: pdFlagNames(pd_flags),
    pd_lower: dv.getUint16(PH.pd_lower, true),
    pd_upper: dv.getUint16(PH.pd_upper, true),
    pd_special: dv.getUint16(PH.pd_special, true),
    pd_pagesize_version,
    pageSize: pd_pagesize_version & 0xff00,
    layoutVersion: pd_pagesize_version & 0xff,
    pd_prune_xid: dv.getUint32(PH.pd_prune_xid, true),
    items: nItems,
    freeSpace: pageFreeSpace(dv),
  };
  if (ctx.checksums) {
    const computed = pgChecksumPage(page, block);
    rec.header.checksum = { computed, ok: computed === pd_checksum };
    if (computed !== pd_checksum) {
      findings.push({ code: "PAGE_CHECKSUM_MISMATCH", severity: "error", message: `page verification failed, calculated checksum ${computed} but expected ${pd_checksum}`, location: { ...loc, offset: PageHeaderData.offsets.pd_checksum, path: "pd_checksum" } });
    }
  }
  const headerFindings = checkPageHeader(dv, ctx.pageSize, loc);
  findings.push(...headerFindings);
  const kind = detectKind(page, ctx.am);
  rec.am = kind.am;
  rec.kind = kind.kind;
  if (kind.problem && !headerFindings.length) {
    findings.push({
      code: kind.kind === "invalid" ? "PAGE_BAD_SPECIAL_SIZE" : "PAGE_KIND_MISMATCH",
      severity: "error",
      message: `${kind.problem}${ctx.am ? ` (the catalog says ${ctx.am})` : ""}`,
      location: { ...loc, offset: PageHeaderData.offsets.pd_special, path: "pd_special" },
    });
    if (kind.kind === "invalid") {
      for (let i = 1; i <= nItems; i++) rawItem(rec, dv, i);
      return rec;
    }
  }
  if (headerFindings.some((f) => f.code !== "PAGE_BAD_FLAGS")) {
    // Line pointers cannot be trusted; list them raw without decoding items.
    const n = Math.min(nItems, Math.floor((ctx.pageSize - 24) / 4));
    for (let i = 1; i <= n; i++) rawItem(rec, dv, i);
    return rec;
  }
  if (!hasLinePointers(kind.am, kind.kind)) {
    // Metapages and map pages have no line pointers: their pd_lower marks the end of the metadata.
    dumpIndexPage(page, rec, ctx, NO_BAD_ITEMS, false);
    return rec;
  }
  // Sequences keep their one row in an ordinary heap tuple.
  const isHeap = kind.am === "heap" || kind.am === "sequence";
  const lpFindings = checkLinePointers(dv, loc, isHeap && kind.kind !== "fsm" && kind.kind !== "vm" ? { minItemLen: HeapTupleHeaderData.size } : {});
  let badItems = NO_BAD_ITEMS;
  if (lpFindings.length) {
    findings.push(...lpFindings);
    const bad = new Set<number>();
    for (const f of lpFindings) if (f.severity === "error" && f.location.item !== undefined && f.code.startsWith("LP_")) bad.add(f.location.item);
    badItems = bad;
  }
  if (isHeap) {
    for (let i = 1; i <= nItems; i++) {
      const item = rawItem(rec, dv, i);
      if (item.lp_flags !== LP_NORMAL || badItems.has(i)) continue;
      item.heap = scanHeapTuple(page, dv, item, ctx, loc, findings, rec.valueBytes);
    }
  } else {
    dumpIndexPage(page, rec, ctx, badItems);
  }
  return rec;
}

const NO_BAD_ITEMS: ReadonlySet<number> = new Set<number>();

/** Page kinds whose pd_lower marks the end of metadata or a bitmap, not a line pointer array. */
const NO_LINE_POINTERS = new Set(["meta", "revmap", "bitmap", "data-leaf", "data-internal", "deleted", "half-dead-no-items", "fsm", "vm"]);
export function hasLinePointers(am: string, kind: string): boolean {
  if (am === "btree" && kind === "half-dead") return true;
  return !NO_LINE_POINTERS.has(kind) && am !== "fsm" && am !== "vm";
}

function rawItem(rec: PageRecord, dv: DataView, i: number): ItemRecord {
  const w = itemIdWord(dv, i);
  return rec.addItem(i, lpOff(w), lpFlags(w), lpLen(w));
}

// Flag-name lists are shared between tuples with the same masks (renderers never mutate them).
const flagCache = new Map<number, string[]>();
function flagNames(infomask: number, infomask2: number): string[] {
  const key = infomask * 65536 + infomask2;
  let f = flagCache.get(key);
  if (!f) {
    const n = infomaskNames(infomask, infomask2);
    f = [...n.raw, ...n.combined];
    if (flagCache.size < 4096) flagCache.set(key, f);
  }
  return f;
}

const HT = HeapTupleHeaderData.offsets;

/**
 * The tuple's value lines (TextValuePlan) into h.lines, from its attribute spans walked in the
 * page; false, with nothing kept, when its layout does not pass deformHeapTuple's checks (the
 * caller's checked path reports why).
 */
function heapValueLines(page: Uint8Array, item: ItemRecord, h: HeapFields, ctx: PageDumpContext, plan: TextValuePlan, valueBytes: ScratchOut, pageLoc: Location, findings: Finding[], live: boolean): boolean {
  const at = item.lp_off;
  const len = item.lp_len;
  const desc = ctx.desc!;
  if (len < SizeofHeapTupleHeader || h.t_hoff !== expectedHoff(h.natts, h.hasBits) || h.t_hoff > len) return false;
  if (plan.spans.heapTuple(page, at, len, plan.natts, desc.attrs) >= 0) return false;
  const lines = (h.lines ??= new ValueLines());
  const mark = valueBytes.pos;
  const r = plan.write(page, plan.spans, plan.natts, valueBytes, lines);
  if (r < 0) {
    valueBytes.pos = mark;
    return false;
  }
  if (r > 0) {
    const tuple = page.subarray(at, at + len);
    const layout = deformHeapTuple(tuple, desc);
    const loc = { ...pageLoc, item: item.lp, offset: at };
    for (let k = 0; k < lines.n; k++) if (lines.kind[k] === ValueLineKind.Value) lines.fallback[k] = heapValue(tuple, layout, desc, k, ctx.values!, loc, findings, live);
  }
  h.hasLines = true;
  return true;
}

/** The heap tuple header of `item` (and its values when the context asks) into the item's slot. */
function scanHeapTuple(page: Uint8Array, dv: DataView, item: ItemRecord, ctx: PageDumpContext, pageLoc: Location, findings: Finding[], valueBytes: ScratchOut): HeapFields {
  // Hot path: fields read through the declaration's offsets, no intermediate objects.
  const at = item.lp_off;
  const h = item.heapBox;
  h.t_xmin = dv.getUint32(at + HT.t_xmin, true);
  h.t_xmax = dv.getUint32(at + HT.t_xmax, true);
  h.t_field3 = dv.getUint32(at + HT.t_field3, true);
  h.ctidBlock = tidBlockAt(page, at + HT.t_ctid);
  h.ctidOffset = tidOffsetAt(page, at + HT.t_ctid);
  h.t_infomask2 = dv.getUint16(at + HT.t_infomask2, true);
  h.t_infomask = dv.getUint16(at + HT.t_infomask, true);
  h.t_hoff = page[at + HT.t_hoff]!;
  h.natts = h.t_infomask2 & HEAP_NATTS_MASK;
  h.flags = flagNames(h.t_infomask, h.t_infomask2);
  h.hasBits = (h.t_infomask & HEAP_HASNULL) !== 0;
  h.state = ctx.clog ? tupleState(h.t_xmin, h.t_xmax, h.t_infomask, ctx.clog) : undefined;
  h.values = undefined;
  h.hasLines = false;
  if (ctx.desc && ctx.values) {
    const live = h.state === undefined || h.state === "live";
    // COPY prints the live rows only; a dead tuple's layout is still checked
    if (ctx.copyRows) ctx.copyRows.tuple(page, at, item.lp_len, live, pageLoc, item.lp, findings);
    else try {
      if (!ctx.textValues || !heapValueLines(page, item, h, ctx, ctx.textValues, valueBytes, pageLoc, findings, live)) {
        const tuple = page.subarray(at, at + item.lp_len);
        const layout = deformHeapTuple(tuple, ctx.desc);
        h.values = heapValues(tuple, layout, ctx.desc, ctx.values, { ...pageLoc, item: item.lp, offset: at }, findings, live);
      }
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      findings.push(findingFrom(e, "error", { ...pageLoc, item: item.lp, offset: at }));
    }
  } else {
    const want = expectedHoff(h.natts, h.hasBits);
    if (h.t_hoff !== want || h.t_hoff > item.lp_len) {
      findings.push({
        code: "HEAP_BAD_T_HOFF",
        severity: "error",
        message: `tuple data should begin at byte ${want}, but actually begins at byte ${h.t_hoff} (${h.natts} attributes, ${h.hasBits ? "has nulls" : "no nulls"})`,
        location: { ...pageLoc, item: item.lp, offset: at, path: "t_hoff" },
      });
    }
  }
  return h;
}
