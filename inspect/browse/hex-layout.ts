// Every byte of a page labelled by what it is: page header fields, each line pointer, tuple
// headers, null bitmaps, attribute data by attribute name, posting lists, special-space and
// metapage fields, free space and padding. Built from the struct declarations' layout() and the
// deform slot offsets; each region also names the row of the structured view it belongs to, so
// the hex view and the page/item views can select each other's fields.
import type { AnyStruct, FieldLayout } from "../../formats/schema/struct.js";
import type { Finding } from "../../formats/schema/errors.js";
import { PageHeaderData, PD_FLAG_NAMES } from "../../formats/page/page-header.js";
import { ItemIdData, LP_FLAG_NAMES, LP_DEAD, LP_NORMAL } from "../../formats/page/item-id.js";
import { HeapTupleHeaderData, HEAP_HASNULL, HEAP_NATTS_MASK, infomaskNames } from "../../formats/heap/tuple-header.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import { BTPageOpaqueData, btpoFlagNames } from "../../formats/nbtree/opaque.js";
import { BTMetaPageData } from "../../formats/nbtree/meta.js";
import {
  IndexTupleData, INDEX_NULL_MASK, INDEX_SIZE_MASK, isPivot, isPosting, nattsOf, postingCount, postingOffset, BT_PIVOT_HEAP_TID_ATTR, posidOf,
} from "../../formats/nbtree/index-tuple.js";
import { HashPageOpaqueData, HashMetaPageData } from "../../formats/am/hash.js";
import { GISTPageOpaqueData } from "../../formats/am/gist.js";
import { GinPageOpaqueData, GinMetaPageData } from "../../formats/am/gin.js";
import { SpGistPageOpaqueData, SpGistMetaPageData } from "../../formats/am/spgist.js";
import { BrinSpecialSpace, BrinMetaPageData } from "../../formats/am/brin.js";
import { SequenceMagic } from "../../formats/am/sequence.js";
import type { DumpPage } from "../dump/model.js";
import { readTid, tidText } from "../../formats/page/item-pointer.js";

export type RegionCategory =
  | "header"
  | "linp"
  | "tuple-header"
  | "null-bitmap"
  | "attr"
  | "attr-alt"
  | "posting"
  | "pivot-tid"
  | "item"
  | "padding"
  | "free"
  | "special"
  | "meta"
  | "unlabelled";

export interface HexRegion {
  /** stable key, e.g. "hdr.pd_lower", "lp.3", "item.3.t_infomask", "item.3.att.2", "special.btpo_next" */
  key: string;
  label: string;
  /** byte range [start, end) within the page */
  start: number;
  end: number;
  category: RegionCategory;
  /** the field's value, decoded */
  value?: string;
  /** what the field means (from the declaration) */
  doc?: string;
  /** the structured view row this region belongs to: a page-view row, or a row of item `item`'s view */
  view: "page" | "item";
  item?: number;
  row: string;
  problem?: boolean;
}

export interface LayoutContext {
  /** heap descriptor (tables, TOAST) */
  desc?: TupleDesc;
  /** index key descriptor */
  indexDesc?: TupleDesc;
}

/** The special-space struct of each access method. */
export const STRUCT_FOR_SPECIAL: Record<string, AnyStruct> = {
  btree: BTPageOpaqueData,
  hash: HashPageOpaqueData,
  gist: GISTPageOpaqueData,
  gin: GinPageOpaqueData,
  spgist: SpGistPageOpaqueData,
  brin: BrinSpecialSpace,
  sequence: SequenceMagic,
};
/** The metapage struct (at PageGetContents, offset 24) of each access method that has one. */
export const STRUCT_FOR_META: Record<string, AnyStruct> = {
  btree: BTMetaPageData,
  hash: HashMetaPageData,
  gin: GinMetaPageData,
  spgist: SpGistMetaPageData,
  brin: BrinMetaPageData,
};

/** A field's value from the page bytes, by its declared type. */
export function fieldValue(page: Uint8Array, f: FieldLayout): string {
  if (f.offset + f.size > page.length) return "(outside the page)";
  const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const o = f.offset;
  if (f.bits) {
    const w = f.size === 2 ? dv.getUint16(o, true) : dv.getUint32(o, true);
    const v = f.bits.width === 32 ? w >>> 0 : Math.floor(w / 2 ** f.bits.shift) % 2 ** f.bits.width;
    return String(v);
  }
  switch (f.type) {
    case "u8":
      return String(dv.getUint8(o));
    case "i8":
      return String(dv.getInt8(o));
    case "bool":
      return dv.getUint8(o) ? "true" : "false";
    case "u16":
      return String(dv.getUint16(o, true));
    case "i16":
      return String(dv.getInt16(o, true));
    case "u32":
      return String(dv.getUint32(o, true));
    case "i32":
      return String(dv.getInt32(o, true));
    case "u64":
      return String(dv.getBigUint64(o, true));
    case "i64":
      return String(dv.getBigInt64(o, true));
    case "f32":
      return String(dv.getFloat32(o, true));
    case "f64":
      return String(dv.getFloat64(o, true));
  }
  return `${f.size} bytes`;
}

/** Flag names for the fields that hold flags. */
function annotate(name: string, value: number): string | undefined {
  switch (name) {
    case "pd_flags":
      return PD_FLAG_NAMES.filter(([b]) => value & b).map(([, n]) => n).join("|") || undefined;
    case "btpo_flags":
      return btpoFlagNames(value).join("|") || undefined;
    case "t_infomask":
      return infomaskNames(value, 0).raw.join("|") || undefined;
    case "t_infomask2": {
      const n = infomaskNames(0, value).raw;
      return [`natts ${value & HEAP_NATTS_MASK}`, ...n].join(" ");
    }
    case "lp_flags":
      return LP_FLAG_NAMES[value];
  }
  return undefined;
}

/**
 * Regions of one declared struct at `base`: bit-field parts sharing a word become one region
 * whose value lists the parts.
 */
function structRegions(s: AnyStruct, base: number, page: Uint8Array, o: { key: string; label: string; category: RegionCategory; view: "page" | "item"; item?: number; row: (path: string) => string }): HexRegion[] {
  const out: HexRegion[] = [];
  const layout = s.layout("", base);
  for (let i = 0; i < layout.length; i++) {
    const f = layout[i];
    if (f.bits) {
      const group = [f];
      while (i + 1 < layout.length && layout[i + 1].offset === f.offset && layout[i + 1].bits) group.push(layout[++i]);
      const parts = group.map((g) => {
        const v = fieldValue(page, g);
        const ann = annotate(g.path, Number(v));
        return `${g.path} ${v}${ann ? ` ${ann}` : ""}`;
      });
      out.push({ key: o.key, label: o.label, start: f.offset, end: f.offset + f.size, category: o.category, value: parts.join(", "), doc: group.map((g) => `${g.path}: ${g.doc}`).join("; "), view: o.view, item: o.item, row: o.row(f.path) });
      continue;
    }
    const v = fieldValue(page, f);
    const n = Number(v);
    const ann = Number.isFinite(n) ? annotate(f.path.split(".").pop()!, n) : undefined;
    const hex = (f.type === "u16" || f.type === "u32") && /flags|infomask|info$|pagesize_version|magic|page_id/.test(f.path) ? ` (0x${n.toString(16).padStart(f.size * 2, "0")})` : "";
    out.push({
      key: `${o.key}.${f.path}`,
      label: `${o.label}${o.label ? " " : ""}${f.path}`,
      start: f.offset,
      end: f.offset + f.size,
      category: o.category,
      value: `${v}${hex}${ann ? ` ${ann}` : ""}`,
      doc: f.doc,
      view: o.view,
      item: o.item,
      row: o.row(f.path),
    });
  }
  return out;
}

const tidAt = (page: Uint8Array, at: number): string => tidText(readTid(new DataView(page.buffer, page.byteOffset, page.byteLength), at));

const PAGE_ROW_OF_HEADER = (path: string): string => (path.startsWith("pd_lsn") ? "hdr.pd_lsn" : `hdr.${path}`);

function heapItemRegions(page: Uint8Array, n: number, off: number, len: number, ctx: LayoutContext, values: string[]): HexRegion[] {
  const tuple = page.subarray(off, off + len);
  const p = `item.${n}`;
  const base = { view: "item" as const, item: n };
  const out = structRegions(HeapTupleHeaderData, off, page, { key: p, label: `item ${n}`, category: "tuple-header", ...base, row: (path) => `${p}.${path.split(".")[0]}` });
  if (len < HeapTupleHeaderData.size) return out.filter((r) => r.end <= off + len);
  const dv = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
  const infomask = dv.getUint16(HeapTupleHeaderData.offsets.t_infomask, true);
  const natts = dv.getUint16(HeapTupleHeaderData.offsets.t_infomask2, true) & HEAP_NATTS_MASK;
  const hoff = tuple[HeapTupleHeaderData.offsets.t_hoff];
  let pos = HeapTupleHeaderData.size;
  if (infomask & HEAP_HASNULL) {
    const blen = (natts + 7) >> 3;
    out.push({ key: `${p}.t_bits`, label: `item ${n} t_bits`, start: off + pos, end: off + pos + blen, category: "null-bitmap", value: values[0], doc: "null bitmap: one bit per attribute, 1 = not null", ...base, row: `${p}.t_bits` });
    pos += blen;
  }
  if (hoff > pos && hoff <= len) out.push({ key: `${p}.hoff-pad`, label: `item ${n} header padding`, start: off + pos, end: off + hoff, category: "padding", doc: "MAXALIGN padding up to t_hoff", ...base, row: `${p}.t_hoff` });
  if (!ctx.desc) {
    if (hoff < len) out.push({ key: `${p}.data`, label: `item ${n} data`, start: off + hoff, end: off + len, category: "item", doc: "tuple data (no descriptor to split it into attributes)", ...base, row: `${p}.data` });
    return out;
  }
  try {
    const layout = deformHeapTuple(tuple, ctx.desc);
    let k = 0;
    let prevEnd = hoff;
    layout.attrs.forEach((slot, i) => {
      if (slot.isnull || slot.missing) return;
      const a = ctx.desc!.attrs[i];
      if (slot.off > prevEnd) out.push({ key: `${p}.pad.${a.attnum}`, label: `item ${n} alignment padding`, start: off + prevEnd, end: off + slot.off, category: "padding", doc: `padding to ${a.name}'s alignment (${a.align})`, ...base, row: `${p}.att.${a.attnum}` });
      const storage = slot.varlena ? ` varlena ${slot.varlena.kind}` : slot.cstring ? " cstring" : "";
      out.push({
        key: `${p}.att.${a.attnum}`,
        label: `item ${n} ${a.name}`,
        start: off + slot.off,
        end: off + slot.off + slot.len,
        category: k++ % 2 ? "attr-alt" : "attr",
        value: values[a.attnum],
        doc: `attribute ${a.attnum} ${a.name} (attlen ${a.len}, align ${a.align}${storage})`,
        ...base,
        row: `${p}.att.${a.attnum}`,
      });
      prevEnd = slot.off + slot.len;
    });
    if (layout.end < len) out.push({ key: `${p}.tail`, label: `item ${n} trailing bytes`, start: off + layout.end, end: off + len, category: "unlabelled", doc: "bytes after the last attribute, within lp_len", ...base, row: `${p}.t_hoff` });
  } catch {
    // The tuple does not fit the descriptor: the finding says why; show the data whole.
    if (hoff < len) out.push({ key: `${p}.data`, label: `item ${n} data`, start: off + hoff, end: off + len, category: "item", doc: "tuple data (does not deform with the catalog's descriptor)", ...base, row: `${p}.data`, problem: true });
  }
  return out;
}

function btreeItemRegions(page: Uint8Array, n: number, off: number, len: number, ctx: LayoutContext, values: string[]): HexRegion[] {
  const p = `item.${n}`;
  const base = { view: "item" as const, item: n };
  const out = structRegions(IndexTupleData, off, page, { key: p, label: `item ${n}`, category: "tuple-header", ...base, row: (path) => `${p}.${path.split(".")[0]}` });
  if (len < IndexTupleData.size) return out.filter((r) => r.end <= off + len);
  const tuple = page.subarray(off, off + len);
  const info = tuple[6] | (tuple[7] << 8);
  const size = Math.min(len, info & INDEX_SIZE_MASK);
  let pos = IndexTupleData.size;
  if (info & INDEX_NULL_MASK) {
    out.push({ key: `${p}.bits`, label: `item ${n} null bitmap`, start: off + 8, end: off + 12, category: "null-bitmap", doc: "IndexAttributeBitMapData: 1 = not null", ...base, row: `${p}.bits` });
    out.push({ key: `${p}.bits-pad`, label: `item ${n} padding`, start: off + 12, end: off + 16, category: "padding", doc: "MAXALIGN padding before the key data", ...base, row: `${p}.bits` });
    pos = 16;
  }
  let dataEnd = size;
  const posting = isPosting(tuple);
  const pivot = isPivot(tuple);
  if (posting) {
    const po = postingOffset(tuple);
    const cnt = postingCount(tuple);
    dataEnd = Math.min(po, size);
    for (let k = 0; k < cnt && po + (k + 1) * 6 <= len; k++) {
      out.push({ key: `${p}.posting.${k}`, label: `item ${n} posting[${k}]`, start: off + po + k * 6, end: off + po + (k + 1) * 6, category: "posting", value: tidAt(page, off + po + k * 6), doc: "heap TID in the posting list (ItemPointerData)", ...base, row: `${p}.posting.${k}` });
    }
  } else if (pivot && posidOf(tuple) & BT_PIVOT_HEAP_TID_ATTR && size >= 14) {
    dataEnd = size - 6;
    out.push({ key: `${p}.htid`, label: `item ${n} heap TID`, start: off + size - 6, end: off + size, category: "pivot-tid", value: tidAt(page, off + size - 6), doc: "pivot tuple's heap TID tiebreaker attribute", ...base, row: `${p}.htid` });
  }
  let done = false;
  if (ctx.indexDesc) {
    try {
      const natts = pivot ? nattsOf(tuple, ctx.indexDesc.attrs.length) : ctx.indexDesc.attrs.length;
      const slots = deformIndexTuple(tuple, ctx.indexDesc, natts);
      let prevEnd = pos;
      slots.forEach((s, i) => {
        if (s.isnull || s.missing) return;
        const a = ctx.indexDesc!.attrs[i];
        if (s.off > prevEnd) out.push({ key: `${p}.pad.${a.attnum}`, label: `item ${n} alignment padding`, start: off + prevEnd, end: off + s.off, category: "padding", doc: `padding to ${a.name}'s alignment`, ...base, row: `${p}.att.${a.attnum}` });
        out.push({ key: `${p}.att.${a.attnum}`, label: `item ${n} key ${a.name}`, start: off + s.off, end: off + s.off + s.len, category: i % 2 ? "attr-alt" : "attr", value: values[a.attnum], doc: `key attribute ${a.attnum} ${a.name} (attlen ${a.len})`, ...base, row: `${p}.att.${a.attnum}` });
        prevEnd = s.off + s.len;
      });
      if (prevEnd < dataEnd) out.push({ key: `${p}.key-pad`, label: `item ${n} padding`, start: off + prevEnd, end: off + dataEnd, category: "padding", doc: "MAXALIGN padding after the key data", ...base, row: `${p}.t_info` });
      done = true;
    } catch {
      done = false;
    }
  }
  if (!done && dataEnd > pos) out.push({ key: `${p}.data`, label: `item ${n} key data`, start: off + pos, end: off + dataEnd, category: "item", doc: "key data", ...base, row: `${p}.data` });
  return out;
}

/**
 * Label every byte of a page. `values` maps item number to attribute number to value text
 * (from the page dump) so attribute regions can show their values.
 */
export function pageRegions(page: Uint8Array, dump: DumpPage, ctx: LayoutContext): HexRegion[] {
  const regions: HexRegion[] = [];
  const size = page.length;
  regions.push(...structRegions(PageHeaderData, 0, page, { key: "hdr", label: "", category: "header", view: "page", row: PAGE_ROW_OF_HEADER }));
  if (dump.isNew || !dump.header) return finish(regions, page, dump.findings, dump);
  const h = dump.header;
  const lower = Math.min(h.pd_lower, size);
  const upper = Math.min(h.pd_upper, size);
  const special = Math.min(h.pd_special, size);
  const linpEnd = 24 + dump.items.length * 4;
  for (const it of dump.items) {
    const at = 24 + (it.lp - 1) * 4;
    if (at + 4 > size) break;
    const parts = structRegions(ItemIdData, at, page, { key: `lp.${it.lp}`, label: `linp[${it.lp}]`, category: "linp", view: "page", row: () => `item.${it.lp}` });
    regions.push(...parts.map((r) => ({ ...r, key: `lp.${it.lp}`, label: `linp[${it.lp}]` })));
  }
  if (upper > lower && lower >= linpEnd) regions.push({ key: "free", label: "free space", start: lower, end: upper, category: "free", value: `${upper - lower} bytes`, doc: "between pd_lower and pd_upper", view: "page", row: "free" });
  const meta = dump.kind === "meta" ? STRUCT_FOR_META[dump.am] : undefined;
  if (meta && 24 + meta.size <= size) regions.push(...structRegions(meta, 24, page, { key: "meta", label: "meta", category: "meta", view: "page", row: (path) => `meta.${path}` }));
  for (const it of dump.items) {
    if ((it.lp_flags !== LP_NORMAL && it.lp_flags !== LP_DEAD) || it.lp_len === 0) continue;
    if (it.lp_off < 24 || it.lp_off + it.lp_len > size) continue;
    const vals: string[] = [];
    if (it.heap) {
      vals[0] = it.heap.t_bits ?? "";
      for (const v of it.heap.values ?? []) vals[v.attnum] = v.value ?? (v.toast ? `TOAST pointer (value ${v.toast.valueid ?? v.toast.root})` : "");
      regions.push(...heapItemRegions(page, it.lp, it.lp_off, it.lp_len, ctx, vals));
    } else if (it.btree) {
      for (const v of it.btree.keys ?? []) vals[v.attnum] = v.value ?? "";
      regions.push(...btreeItemRegions(page, it.lp, it.lp_off, it.lp_len, ctx, vals));
    } else if (dump.am === "heap" && dump.kind === "data" && it.lp_flags === LP_NORMAL) {
      regions.push(...heapItemRegions(page, it.lp, it.lp_off, it.lp_len, {}, vals));
    } else {
      regions.push({ key: `item.${it.lp}.data`, label: `item ${it.lp}`, start: it.lp_off, end: it.lp_off + it.lp_len, category: "item", doc: `${dump.am} item (${it.lp_len} bytes)`, view: "item", item: it.lp, row: `item.${it.lp}.data` });
    }
  }
  const spec = STRUCT_FOR_SPECIAL[dump.am];
  if (special < size) {
    if (spec && special + spec.size <= size) regions.push(...structRegions(spec, special, page, { key: "special", label: "special", category: "special", view: "page", row: (path) => `special.${path}` }));
    else regions.push({ key: "special", label: "special space", start: special, end: size, category: "special", doc: `${size - special} bytes of special space`, view: "page", row: "special" });
  }
  return finish(regions, page, dump.findings, dump);
}

/** Sort, clip overlaps (damaged pages), fill the gaps, mark findings. */
function finish(regions: HexRegion[], page: Uint8Array, findings: Finding[], dump: DumpPage): HexRegion[] {
  const size = page.length;
  const sorted = regions.filter((r) => r.end > r.start && r.start < size).sort((a, b) => a.start - b.start || a.end - b.end);
  const out: HexRegion[] = [];
  let pos = 0;
  const gap = (from: number, to: number): void => {
    if (to <= from) return;
    const zero = isZero(page, from, to);
    const itemsArea = dump.header && from >= Math.min(dump.header.pd_upper, size) && to <= Math.min(dump.header.pd_special, size);
    out.push({
      key: `gap.${from}`,
      label: dump.isNew ? "new page (zeroes)" : itemsArea && to - from < 8 ? "alignment padding" : "unlabelled bytes",
      start: from,
      end: to,
      category: itemsArea && to - from < 8 ? "padding" : "unlabelled",
      value: `${to - from} bytes${zero ? ", all zero" : ""}`,
      view: "page",
      row: "free",
    });
  };
  for (const r of sorted) {
    const start = Math.max(r.start, pos);
    const end = Math.min(r.end, size);
    if (end <= start) continue; // wholly inside an earlier region (overlapping items)
    gap(pos, start);
    out.push(start === r.start && end === r.end ? r : { ...r, start, end, problem: true });
    pos = end;
  }
  gap(pos, size);
  // Mark what each finding is about. An item's finding may carry a tuple-relative offset, so
  // items are matched by path and attribute, not by offset.
  const byKey = new Map(out.map((r) => [r.key, r]));
  const mark = (key: string): boolean => {
    const r = byKey.get(key);
    if (r) r.problem = true;
    return r !== undefined;
  };
  for (const f of findings) {
    const l = f.location;
    if (l.item !== undefined) {
      const p = `item.${l.item}`;
      if (l.attnum !== undefined) mark(`${p}.att.${l.attnum}`);
      if (l.path !== undefined && !mark(`${p}.${l.path}`)) for (const r of out) if (r.item === l.item && r.row === `${p}.${l.path}`) r.problem = true;
      mark(`lp.${l.item}`);
    } else if (l.path !== undefined && (mark(`hdr.${l.path}`) || mark(`special.${l.path}`) || mark(`meta.${l.path}`))) {
      // marked by name
    } else if (l.offset !== undefined) {
      const r = out[regionAt(out, l.offset)];
      if (r && r.start <= l.offset && l.offset < r.end) r.problem = true;
    }
  }
  return out;
}

function isZero(page: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (page[i] !== 0) return false;
  return true;
}

/** Index of the region containing byte `offset`. */
export function regionAt(regions: HexRegion[], offset: number): number {
  let lo = 0;
  let hi = regions.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (regions[mid].end <= offset) lo = mid + 1;
    else if (regions[mid].start > offset) hi = mid - 1;
    else return mid;
  }
  return Math.max(0, Math.min(regions.length - 1, lo));
}

