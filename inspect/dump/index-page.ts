// Index pages (and FSM/VM pages) in a dump: btree items as bt_page_items shows them, GiST and
// hash items (plain IndexTupleData) as gist_page_items / hash_page_items, GIN entries and posting
// tree pages (gin-items.ts), with keys decoded through the index's descriptor; the other access
// methods' special spaces and metapages.
import { FormatError, findingFrom } from "../../formats/schema/errors.js";
import { detectPageKind, type AmName } from "../../formats/am/detect.js";
import { BrinSpecialSpace, BrinMetaPageData, BRIN_META_OFFSET, BRIN_PAGETYPE_META } from "../../formats/am/brin.js";
import { GinMetaPageData, GinPageOpaqueData, GIN_META_OFFSET } from "../../formats/am/gin.js";
import { ginDataPage, ginEntry } from "./gin-items.js";
import { brinItem, brinRevmap } from "./brin-items.js";
import { GISTPageOpaqueData } from "../../formats/am/gist.js";
import { HashPageOpaqueData, HashMetaPageData } from "../../formats/am/hash.js";
import { SpGistPageOpaqueData } from "../../formats/am/spgist.js";
import { btMetap, btPageStats, btItemAt, btItemsPageShape, readBtItemFields, type BtItemsPageShape } from "../../formats/nbtree/page-items.js";
import { INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_VAR_MASK, IndexTupleData, indexTupleSize, nattsOf, tInfoOf, tInfoRaw } from "../../formats/nbtree/index-tuple.js";
import { tidBlockAt, tidOffsetAt, tidText } from "../../formats/page/item-pointer.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { datumToText } from "../../formats/datum/index.js";
import { gistInetKeyText } from "../../formats/datum/network.js";
import { itemIdWord, maxOffsetNumber, pageView, pdSpecial } from "../../formats/page/page.js";
import { SizeOfPageHeaderData } from "../../formats/page/page-header.js";
import { BTDeletedPageData, pHasFullXid, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import type { DumpValue, IndexItemDump } from "./model.js";
import type { BtreeFields, ItemRecord, PageRecord } from "./page-record.js";
import { ValueLineKind, ValueLines, type TextValuePlan } from "./text-values.js";
import type { ValueContext } from "./heap-values.js";
import type { AttrSlot } from "../../formats/heap/deform.js";
import type { AttrDesc, TupleDesc } from "../../formats/heap/descriptor.js";
import type { PageDumpContext } from "./page-dump.js";

/** inet and cidr: their GiST opclass (inet_ops) stores a GistInetKey under the declared type. */
const INETOID = 869;
const CIDROID = 650;

const AMS = new Set(["heap", "btree", "hash", "gist", "gin", "spgist", "brin", "sequence"]);

export function detectKind(page: Uint8Array, am?: string): { am: string; kind: string; problem?: string } {
  if (am === "fsm" || am === "vm") return { am, kind: am };
  const k = detectPageKind(page, am && AMS.has(am) ? (am as AmName) : undefined);
  return { am: k.am, kind: k.kind, problem: k.problem };
}

const plain = (o: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v]));

/** Special space, metapage and items of an index (or FSM/VM) page into `rec`. */
export function dumpIndexPage(page: Uint8Array, rec: PageRecord, ctx: PageDumpContext, badItems: ReadonlySet<number>, hasItems = true): void {
  const dv = pageView(page);
  const loc = { file: ctx.file, block: rec.block };
  const special = pdSpecial(dv);
  try {
    switch (rec.am) {
      case "btree":
        return dumpBtree(page, dv, rec, ctx, badItems);
      case "hash":
        rec.special = plain(HashPageOpaqueData.decode(page, special));
        if (rec.kind === "meta") rec.meta = plain(HashMetaPageData.decode(page, 24));
        break;
      case "gist":
        rec.special = plain(GISTPageOpaqueData.decode(page, special));
        break;
      case "gin":
        rec.special = plain(GinPageOpaqueData.decode(page, special));
        if (rec.kind === "meta") rec.meta = plain(GinMetaPageData.decode(page, GIN_META_OFFSET));
        else if (rec.kind === "data-leaf" || rec.kind === "data-internal") rec.ginData = ginDataPage(page, rec.kind === "data-leaf");
        break;
      case "spgist":
        rec.special = plain(SpGistPageOpaqueData.decode(page, special));
        break;
      case "brin": {
        const s = BrinSpecialSpace.decode(page, special);
        rec.special = plain(s);
        if (dv.getUint16(page.length - 2, true) === BRIN_PAGETYPE_META) rec.meta = plain(BrinMetaPageData.decode(page, BRIN_META_OFFSET));
        else if (rec.kind === "revmap") rec.revmap = brinRevmap(page);
        break;
      }
    }
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    rec.findings.push(findingFrom(e, "error", loc));
  }
  if (!hasItems) return;
  const n = maxOffsetNumber(dv);
  const tuples = ITUP_PAGES.get(rec.am)?.has(rec.kind) ?? false;
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const item = rec.addItem(i, lpOff(w), lpFlags(w), lpLen(w));
    if (badItems.has(i) || !item.lp_len) continue;
    if (ctx.hex) item.hex = Buffer.from(page.subarray(item.lp_off, item.lp_off + item.lp_len)).toString("hex");
    if (tuples) item.index = indexItem(page, item, ctx, loc, rec);
    else if (rec.am === "brin" && rec.kind === "regular" && ctx.indexDesc) {
      try {
        item.brin = brinItem(page, item.lp_off, item.lp_len, ctx);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        rec.findings.push(findingFrom(e, "error", { ...loc, item: item.lp, offset: item.lp_off }));
      }
    }
  }
}

/** Page kinds whose items are plain IndexTupleData, by access method (gistpage, hash bucket and overflow pages). */
const ITUP_PAGES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["gist", new Set(["leaf", "internal"])],
  ["hash", new Set(["bucket", "overflow"])],
  ["gin", new Set(["entry-leaf", "entry-internal", "pending-list"])],
]);

/** An IndexTupleData item's header and keys; null (and a finding) when its header does not fit. */
function indexItem(page: Uint8Array, item: ItemRecord, ctx: PageDumpContext, loc: { file: string; block: number }, rec: PageRecord): IndexItemDump | null {
  const tuple = page.subarray(item.lp_off, item.lp_off + item.lp_len);
  let tInfo: number;
  try {
    tInfo = tInfoOf(tuple);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    rec.findings.push(findingFrom(e, "error", { ...loc, item: item.lp, offset: item.lp_off }));
    return null;
  }
  const at = item.lp_off + IndexTupleData.offsets.t_tid;
  const ix: IndexItemDump = {
    ctid: tidText({ block: tidBlockAt(page, at), offset: tidOffsetAt(page, at) }),
    size: indexTupleSize(tInfo),
    nulls: (tInfo & INDEX_NULL_MASK) !== 0,
    vars: (tInfo & INDEX_VAR_MASK) !== 0,
  };
  if (rec.am === "gin") {
    if (!ctx.indexDesc || !ctx.ginKeys) return ix;
    try {
      const e = ginEntry(page, item.lp_off, item.lp_len, rec.kind, ctx.indexDesc, ctx.ginKeys, ctx);
      ix.gin = e.gin;
      if (e.key) ix.keys = [e.key];
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      rec.findings.push(findingFrom(err, "error", { ...loc, item: item.lp, offset: item.lp_off }));
    }
    return ix;
  }
  if (ctx.indexDesc && ctx.values) {
    const all = ctx.indexDesc.attrs.length;
    const keys = indexKeys(tuple, rec.am === "gist" && rec.kind === "internal" ? Math.min(all, ctx.indexKeyAtts ?? all) : all, ctx, loc, item, rec);
    if (keys) ix.keys = keys;
  }
  return ix;
}

function dumpBtree(page: Uint8Array, dv: DataView, rec: PageRecord, ctx: PageDumpContext, badItems: ReadonlySet<number>): void {
  const loc = { file: ctx.file, block: rec.block };
  if (rec.kind === "meta") {
    rec.meta = { ...btMetap(page) };
    return;
  }
  rec.special = { ...btPageStats(page, rec.block) };
  // A deleted page holds BTDeletedPageData after its header, not index tuples: no items, as
  // bt_page_items shows none (pd_lower covers the struct, which reads as two LP_UNUSED slots).
  if (rec.kind === "deleted") {
    if (pHasFullXid(readBTOpaque(dv).btpo_flags)) {
      const safexid = BTDeletedPageData.decode(page, SizeOfPageHeaderData).safexid;
      rec.meta = { safexid: `${safexid >> 32n}:${safexid & 0xffffffffn}` };
    }
    return;
  }
  // bt_page_items' rows: none when a line pointer is damaged or pageinspect would refuse the page.
  let shape: BtItemsPageShape | null = null;
  if (!badItems.size) {
    try {
      shape = btItemsPageShape(page, ctx.pageSize);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      rec.findings.push(findingFrom(e, "error", loc));
    }
  }
  const n = maxOffsetNumber(dv);
  let decode = shape !== null && !shape.deleted;
  const first = rec.n;
  for (let i = 1; i <= n; i++) {
    const w = itemIdWord(dv, i);
    const item = rec.addItem(i, lpOff(w), lpFlags(w), lpLen(w));
    if (!decode) continue;
    const b = item.btreeBox;
    try {
      readBtItemFields(page, dv, i, shape!.leaf, shape!.rightmost, b);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      rec.findings.push(findingFrom(e, "error", loc));
      // As bt_page_items: one bad item and the page has no rows.
      for (let k = first; k < rec.n; k++) rec.items[k]!.btree = null;
      decode = false;
      continue;
    }
    const tInfo = dv.getUint16(item.lp_off + IndexTupleData.offsets.t_info, true);
    const pivot = (tInfo & INDEX_ALT_TID_MASK) !== 0 && b.postingCount < 0;
    b.kind = i === 1 && !shape!.rightmost ? "highkey" : pivot && tInfo === 0x2008 && !shape!.leaf ? "minus-infinity" : pivot ? "pivot" : b.postingCount >= 0 ? "posting" : "tuple";
    b.keys = undefined;
    b.hasLines = false;
    item.btree = b;
    if (ctx.indexDesc && ctx.values && b.kind !== "minus-infinity") {
      if (ctx.textKeys) btreeKeyLines(page, item, pivot, ctx, ctx.textKeys, loc, rec, b);
      else b.keys = btreeKeys(page, item, pivot, ctx, loc, rec);
    }
  }
}

function btreeKeys(page: Uint8Array, item: ItemRecord, pivot: boolean, ctx: PageDumpContext, loc: { file: string; block: number }, rec: PageRecord): DumpValue[] | undefined {
  const n = ctx.indexDesc!.attrs.length;
  let tuple: Uint8Array;
  let natts: number;
  try {
    tuple = btItemAt(page, item.lp);
    natts = pivot ? nattsOf(tuple, n) : n;
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    rec.findings.push(findingFrom(e, "error", { ...loc, item: item.lp, offset: item.lp_off }));
    return undefined;
  }
  return indexKeys(tuple, natts, ctx, loc, item, rec);
}

/**
 * A btree item's keys as value lines (TextValuePlan) into b.lines, from their spans; the
 * checked path (btreeKeys: DumpValues, or a finding) when the tuple does not pass its checks.
 */
function btreeKeyLines(page: Uint8Array, item: ItemRecord, pivot: boolean, ctx: PageDumpContext, plan: TextValuePlan, loc: { file: string; block: number }, rec: PageRecord, b: BtreeFields): void {
  const desc = ctx.indexDesc!;
  let tuple: Uint8Array;
  let natts: number;
  try {
    tuple = btItemAt(page, item.lp);
    natts = pivot ? nattsOf(tuple, desc.attrs.length) : desc.attrs.length;
  } catch {
    b.keys = btreeKeys(page, item, pivot, ctx, loc, rec);
    return;
  }
  const end = Math.min(tuple.length, indexTupleSize(tInfoRaw(tuple)));
  const lines = (b.lines ??= new ValueLines());
  const mark = rec.valueBytes.pos;
  const r = natts <= plan.natts && plan.spans.indexTuple(tuple, 0, end, natts, desc.attrs) < 0 ? plan.write(tuple, plan.spans, natts, rec.valueBytes, lines) : -1;
  if (r < 0) {
    rec.valueBytes.pos = mark;
    b.keys = btreeKeys(page, item, pivot, ctx, loc, rec);
    return;
  }
  if (r > 0) {
    try {
      const slots = deformIndexTuple(tuple, desc, natts);
      for (let k = 0; k < lines.n; k++) if (lines.kind[k] === ValueLineKind.Value) lines.fallback[k] = indexKeyValue(tuple, slots[k]!, desc.attrs[k]!, ctx.values!, rec.am);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      rec.findings.push(findingFrom(e, "error", { ...loc, item: item.lp, offset: item.lp_off }));
      return;
    }
  }
  b.hasLines = true;
}

/** The type names index keys show (pg_type's typname). */
export const indexKeyTypeNames = (desc: TupleDesc, values: ValueContext): string[] => desc.attrs.map((a) => values.types(a.typid)?.name ?? String(a.typid));

/** One key attribute of an index tuple as a dump value; throws FormatError on malformed bytes. */
function indexKeyValue(tuple: Uint8Array, s: AttrSlot, a: AttrDesc, values: ValueContext, am: string): DumpValue {
  const v: DumpValue = { attnum: a.attnum, name: a.name, type: values.types(a.typid)?.name ?? String(a.typid), isnull: s.isnull };
  if (s.missing) v.missing = true;
  if (!s.isnull && !s.missing) {
    const d = datumBytes(tuple, s);
    if (d.kind !== "inline") v.storage = "external";
    else if (am === "gist" && (a.typid === INETOID || a.typid === CIDROID)) v.value = gistInetKeyText(d.bytes);
    else v.value = datumToText(d.bytes, values.decodeAs ? values.decodeAs(a.typid) : a.typid, a.typmod, values.types);
  }
  return v;
}

/** The first `natts` key attributes of an index tuple as dump values (undefined, and a finding, when they cannot be read). */
function indexKeys(tuple: Uint8Array, natts: number, ctx: PageDumpContext, loc: { file: string; block: number }, item: ItemRecord, rec: PageRecord): DumpValue[] | undefined {
  const desc = ctx.indexDesc!;
  const values = ctx.values!;
  try {
    const slots = deformIndexTuple(tuple, desc, natts);
    return slots.map((s, k): DumpValue => indexKeyValue(tuple, s, desc.attrs[k]!, values, rec.am));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    rec.findings.push(findingFrom(e, "error", { ...loc, item: item.lp, offset: item.lp_off }));
    return undefined;
  }
}
