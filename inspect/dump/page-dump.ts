// Dump one page: header, line pointers, items by access method, special space, findings.
// Pure over the page bytes (plus the catalog-derived context); the caller does the I/O.
import { FormatError, findingFrom, type Finding, type Location } from "../../formats/schema/errors.js";
import { PageHeaderData, PD_FLAG_NAMES, lsnText } from "../../formats/page/page-header.js";
import { LP_FLAG_NAMES, LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageFreeSpace, pageIsAllZero, pageView } from "../../formats/page/page.js";
import { checkLinePointers, checkPageHeader } from "../../formats/page/sanity.js";
import { pgChecksumPage } from "../../formats/page/checksum.js";
import { HeapTupleHeaderData, infomaskNames, HEAP_NATTS_MASK, HEAP_HASNULL } from "../../formats/heap/tuple-header.js";
import { deformHeapTuple, expectedHoff } from "../../formats/heap/deform.js";
import { tupleState } from "../../formats/heap/visibility.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { XactStatusLookup } from "../../formats/storage/clog.js";
import { heapValues, type ValueContext } from "./heap-values.js";
import { dumpIndexPage, detectKind } from "./index-page.js";
import type { DumpItem, DumpPage } from "./model.js";

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
  clog?: XactStatusLookup;
  /** verify pd_checksum (cluster has data checksums) */
  checksums: boolean;
  /** include hex of items pgdisk does not decode */
  hex?: boolean;
}

const PH = PageHeaderData.offsets;
const PD_NAMES_BY_FLAGS = Array.from({ length: 8 }, (_, f) => PD_FLAG_NAMES.filter(([b]) => f & b).map(([, n]) => n));
const pdFlagNames = (flags: number): string[] => (flags < 8 ? PD_NAMES_BY_FLAGS[flags] : PD_FLAG_NAMES.filter(([b]) => flags & b).map(([, n]) => n));

export function dumpPage(page: Uint8Array, block: number, fileOffset: number, ctx: PageDumpContext): DumpPage {
  const loc: Location = { file: ctx.file, block };
  const dv = pageView(page);
  const findings: Finding[] = [];
  const out: DumpPage = { block, file: ctx.file, fileOffset, am: ctx.am ?? "unknown", kind: "unknown", isNew: false, items: [], findings };
  if (dv.getUint16(PageHeaderData.offsets.pd_upper, true) === 0) {
    out.isNew = true;
    out.kind = "new";
    if (!pageIsAllZero(page)) findings.push({ code: "PAGE_NEW_NOT_ZERO", severity: "error", message: "page has pd_upper 0 (new) but is not all zeroes", location: { ...loc, offset: PageHeaderData.offsets.pd_upper } });
    return out;
  }
  // Hot path: header fields read through the declaration's offsets (no decode object).
  const h = {
    pd_lsn_xlogid: dv.getUint32(PH.pd_lsn_xlogid, true),
    pd_lsn_xrecoff: dv.getUint32(PH.pd_lsn_xrecoff, true),
    pd_checksum: dv.getUint16(PH.pd_checksum, true),
    pd_flags: dv.getUint16(PH.pd_flags, true),
    pd_lower: dv.getUint16(PH.pd_lower, true),
    pd_upper: dv.getUint16(PH.pd_upper, true),
    pd_special: dv.getUint16(PH.pd_special, true),
    pd_pagesize_version: dv.getUint16(PH.pd_pagesize_version, true),
    pd_prune_xid: dv.getUint32(PH.pd_prune_xid, true),
  };
  const nItems = maxOffsetNumber(dv);
  out.header = {
    lsn: lsnText(h),
    pd_checksum: h.pd_checksum,
    pd_flags: h.pd_flags,
    flagNames: pdFlagNames(h.pd_flags),
    pd_lower: h.pd_lower,
    pd_upper: h.pd_upper,
    pd_special: h.pd_special,
    pd_pagesize_version: h.pd_pagesize_version,
    pageSize: h.pd_pagesize_version & 0xff00,
    layoutVersion: h.pd_pagesize_version & 0xff,
    pd_prune_xid: h.pd_prune_xid,
    items: nItems,
    freeSpace: pageFreeSpace(dv),
  };
  if (ctx.checksums) {
    const computed = pgChecksumPage(page, block);
    out.header.checksum = { computed, ok: computed === h.pd_checksum };
    if (computed !== h.pd_checksum) {
      findings.push({ code: "PAGE_CHECKSUM_MISMATCH", severity: "error", message: `page verification failed, calculated checksum ${computed} but expected ${h.pd_checksum}`, location: { ...loc, offset: PageHeaderData.offsets.pd_checksum, path: "pd_checksum" } });
    }
  }
  const headerFindings = checkPageHeader(dv, ctx.pageSize, loc);
  findings.push(...headerFindings);
  const kind = detectKind(page, ctx.am);
  out.am = kind.am;
  out.kind = kind.kind;
  if (kind.problem && !headerFindings.length) {
    findings.push({
      code: kind.kind === "invalid" ? "PAGE_BAD_SPECIAL_SIZE" : "PAGE_KIND_MISMATCH",
      severity: "error",
      message: `${kind.problem}${ctx.am ? ` (the catalog says ${ctx.am})` : ""}`,
      location: { ...loc, offset: PageHeaderData.offsets.pd_special, path: "pd_special" },
    });
    if (kind.kind === "invalid") {
      for (let i = 1; i <= nItems; i++) out.items.push(rawItem(dv, i));
      return out;
    }
  }
  if (headerFindings.some((f) => f.code !== "PAGE_BAD_FLAGS")) {
    // Line pointers cannot be trusted; list them raw without decoding items.
    const n = Math.min(nItems, Math.floor((ctx.pageSize - 24) / 4));
    for (let i = 1; i <= n; i++) out.items.push(rawItem(dv, i));
    return out;
  }
  if (!hasLinePointers(kind.am, kind.kind)) {
    // Metapages and map pages have no line pointers: their pd_lower marks the end of the metadata.
    dumpIndexPage(page, out, ctx, new Set(), findings, false);
    return out;
  }
  // Sequences keep their one row in an ordinary heap tuple.
  const isHeap = kind.am === "heap" || kind.am === "sequence";
  findings.push(...checkLinePointers(dv, loc, isHeap && kind.kind !== "fsm" && kind.kind !== "vm" ? { minItemLen: HeapTupleHeaderData.size } : {}));
  const badItems = new Set<number>();
  for (const f of findings) if (f.severity === "error" && f.location.item !== undefined && f.code.startsWith("LP_")) badItems.add(f.location.item);
  if (isHeap) {
    for (let i = 1; i <= nItems; i++) {
      const item = rawItem(dv, i);
      out.items.push(item);
      if (item.lp_flags !== LP_NORMAL || badItems.has(i)) continue;
      item.heap = dumpHeapTuple(page.subarray(item.lp_off, item.lp_off + item.lp_len), ctx, { ...loc, item: i, offset: item.lp_off }, findings);
    }
  } else {
    dumpIndexPage(page, out, ctx, badItems, findings);
  }
  return out;
}

/** Page kinds whose pd_lower marks the end of metadata or a bitmap, not a line pointer array. */
const NO_LINE_POINTERS = new Set(["meta", "revmap", "bitmap", "data-leaf", "data-internal", "deleted", "half-dead-no-items", "fsm", "vm"]);
export function hasLinePointers(am: string, kind: string): boolean {
  if (am === "btree" && kind === "half-dead") return true;
  return !NO_LINE_POINTERS.has(kind) && am !== "fsm" && am !== "vm";
}

function rawItem(dv: DataView, i: number): DumpItem {
  const w = itemIdWord(dv, i);
  const f = lpFlags(w);
  return { lp: i, lp_off: lpOff(w), lp_flags: f, flag: LP_FLAG_NAMES[f], lp_len: lpLen(w) };
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

export function dumpHeapTuple(tuple: Uint8Array, ctx: PageDumpContext, loc: Location, findings: Finding[]) {
  // Hot path: fields read through the declaration's offsets, no intermediate objects.
  const dv = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
  const t = {
    t_xmin: dv.getUint32(HT.t_xmin, true),
    t_xmax: dv.getUint32(HT.t_xmax, true),
    t_infomask2: dv.getUint16(HT.t_infomask2, true),
    t_infomask: dv.getUint16(HT.t_infomask, true),
    t_hoff: tuple[HT.t_hoff],
  };
  const natts = t.t_infomask2 & HEAP_NATTS_MASK;
  const heap: NonNullable<DumpItem["heap"]> = {
    t_xmin: t.t_xmin,
    t_xmax: t.t_xmax,
    t_field3: dv.getUint32(HT.t_field3, true),
    t_ctid: `(${dv.getUint16(HT.t_ctid, true) * 65536 + dv.getUint16(HT.t_ctid + 2, true)},${dv.getUint16(HT.t_ctid + 4, true)})`,
    t_infomask2: t.t_infomask2,
    t_infomask: t.t_infomask,
    t_hoff: t.t_hoff,
    natts,
    flags: flagNames(t.t_infomask, t.t_infomask2),
  };
  if (t.t_infomask & HEAP_HASNULL) {
    // pageinspect's t_bits: one character per attribute, '1' = present.
    let s = "";
    const nbytes = (natts + 7) >> 3;
    for (let b = 0; b < nbytes * 8 && 23 + (b >> 3) < tuple.length; b++) s += (tuple[23 + (b >> 3)] >> (b & 7)) & 1 ? "1" : "0";
    heap.t_bits = s;
  }
  if (ctx.clog) heap.state = tupleState(t.t_xmin, t.t_xmax, t.t_infomask, ctx.clog);
  if (ctx.desc && ctx.values) {
    try {
      const layout = deformHeapTuple(tuple, ctx.desc);
      heap.values = heapValues(tuple, layout, ctx.desc, ctx.values, loc, findings, heap.state === undefined || heap.state === "live");
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      findings.push(findingFrom(e, "error", loc));
    }
  } else {
    const want = expectedHoff(natts, (t.t_infomask & HEAP_HASNULL) !== 0);
    if (t.t_hoff !== want || t.t_hoff > tuple.length) {
      findings.push({ code: "HEAP_BAD_T_HOFF", severity: "error", message: `tuple data should begin at byte ${want}, but actually begins at byte ${t.t_hoff} (${natts} attributes, ${t.t_infomask & HEAP_HASNULL ? "has nulls" : "no nulls"})`, location: { ...loc, path: "t_hoff" } });
    }
  }
  return heap;
}

