// Build the view model of a location: plain data the components draw. Engine errors (a damaged
// page, a missing file) become an error view, never an exception in the UI.
import { FormatError } from "../../formats/schema/errors.js";
import { tidText } from "../../formats/page/item-pointer.js";
import { pageRegions } from "./hex-layout.js";
import { itemRows } from "./item-rows.js";
import { pageRows, valueText } from "./page-rows.js";
import { relationView } from "./relation-pages.js";
import { searchIndex } from "./search.js";
import { toastChunks, toastValue } from "./toast.js";
import { treeView } from "./tree.js";
import { at, relKey, type Location, type RelRef } from "./navigation.js";
import type { Row, RowsView, ViewModel } from "./rows.js";
import type { BrowseSession, RelHandle } from "./session.js";
import type { ScreenLayout } from "./layout.js";
import { oneLine, wrapText } from "./format.js";
import { VARTAG_ONDISK } from "../../formats/varlena/varlena.js";

/** Text views show at most this much of a value. */
export const TEXT_LIMIT = 256 * 1024;

function pageTitle(h: RelHandle, block: number): string {
  return `${h.name} › block ${block}`;
}

function tableOf(session: BrowseSession, h: RelHandle): RelRef | undefined {
  if (!h.index || "file" in h.ref) return undefined;
  try {
    return session.refFor(h.ref.db, h.index.tableOid);
  } catch (e) {
    if (e instanceof FormatError) return undefined; // the index's table is not in pg_class: no heap links
    throw e;
  }
}

function checkBlock(h: RelHandle, block: number): void {
  if (block < h.firstBlock || block >= h.nblocks) {
    throw new FormatError("BLOCK_RANGE_OUT_OF_RELATION", `block ${block} is outside ${h.name} (blocks ${h.firstBlock}..${h.nblocks - 1})`, { block });
  }
}

function build(session: BrowseSession, loc: Location, screen: ScreenLayout, expanded: string[]): ViewModel {
  switch (loc.view) {
    case "tree":
      return treeView(session, expanded);
    case "relation":
      return relationView(session, loc, screen.list, screen.mapCells);
    case "page": {
      const h = session.relation(loc.rel);
      checkBlock(h, loc.block);
      const d = session.page(loc.rel, loc.block);
      const v = pageRows(loc.rel, session.readPage(loc.rel, loc.block), d);
      return { ...v, title: pageTitle(h, loc.block), subtitle: `${d.am}/${d.kind}  ${d.items.length} items  ${d.header ? `${d.header.freeSpace} bytes free` : ""}  ${d.findings.length ? `${d.findings.length} problem${d.findings.length === 1 ? "" : "s"}` : "no problems"}` };
    }
    case "item": {
      const h = session.relation(loc.rel);
      checkBlock(h, loc.block);
      const d = session.page(loc.rel, loc.block);
      const level = d.am === "btree" && typeof d.special?.btpo_level === "number" ? d.special.btpo_level : undefined;
      const v = itemRows({ rel: loc.rel, table: tableOf(session, h), blockSize: h.resolved.geometry.blockSize, level }, d, session.readPage(loc.rel, loc.block), loc.item);
      return { ...v, title: `${pageTitle(h, loc.block)} › item ${loc.item}`, subtitle: `TID (${loc.block},${loc.item})  ${d.am}/${d.kind}` };
    }
    case "hex": {
      const h = session.relation(loc.rel);
      checkBlock(h, loc.block);
      const d = session.page(loc.rel, loc.block);
      const bytes = session.readPage(loc.rel, loc.block);
      const regions = session.cached(`hex:${relKey(loc.rel)}:${loc.block}`, () => pageRegions(bytes, d, { desc: h.ctx.desc, indexDesc: h.ctx.indexDesc }));
      const first = regions.findIndex((r) => r.key.startsWith("lp."));
      return { kind: "hex", title: `${pageTitle(h, loc.block)} › hex`, subtitle: `${d.am}/${d.kind}  ${regions.length} labelled ranges  file offset ${d.fileOffset}`, bytes, regions, defaultCursor: Math.max(0, first) };
    }
    case "toast":
      return toastView(session, loc);
    case "text":
      return textView(session, loc, screen);
    case "search":
      return searchView(session, loc);
  }
}

function toastView(session: BrowseSession, loc: Extract<Location, { view: "toast" }>): RowsView {
  const h = session.relation(loc.rel);
  const list = toastChunks(session, loc.rel, loc.block, loc.item, loc.attnum);
  const p = list.pointer;
  const rows: Row[] = [];
  rows.push({ key: "h.pointer", text: `TOAST pointer (${p.tag === VARTAG_ONDISK ? "varatt_external" : "varatt_direct"}) in ${list.attr.name}`, style: "heading" });
  rows.push({ key: "va_rawsize", label: "va_rawsize", text: `${p.va_rawsize}  (raw size + 4-byte header)`, style: "field" });
  rows.push({ key: "va_extinfo", label: "va_extinfo", text: `stored size ${p.extsize}${p.compressed ? `, compressed (${p.method === 0 ? "pglz" : p.method === 1 ? "lz4" : `method ${p.method}`})` : ", not compressed"}`, style: "field" });
  if (p.tag === VARTAG_ONDISK) rows.push({ key: "va_valueid", label: "va_valueid", text: String(p.va_valueid), style: "field" });
  else rows.push({ key: "va_tid", label: "va_tid", text: `${tidText(p.root)} (root chunk)`, style: "field" });
  rows.push({ key: "va_toastrelid", label: "va_toastrelid", text: `${p.va_toastrelid}  ${list.toastRel.label}`, style: "link", target: at({ view: "relation", rel: list.toastRel }) });
  rows.push({ key: "value", label: "value", text: "show the detoasted value  →", style: "link", target: at({ view: "text", rel: loc.rel, block: loc.block, item: loc.item, attnum: loc.attnum }) });
  rows.push({ key: "h.chunks", text: `chunks: ${list.chunks.length} found, ${list.expected} expected  (via ${list.method}, ${list.pagesVisited} pages read)`, style: list.chunks.length === list.expected ? "heading" : "problem", problem: list.chunks.length !== list.expected });
  if (list.note) rows.push({ key: "note", text: list.note, style: "dim" });
  for (const c of list.chunks) {
    rows.push({ key: `chunk.${c.seq}.${tidText(c.tid)}`, label: `chunk_seq ${c.seq}`, text: `${tidText(c.tid)}${c.dead ? "  (dead)" : ""}  →`, style: "link", target: at({ view: "item", rel: list.toastRel, block: c.tid.block, item: c.tid.offset }) });
  }
  return { kind: "rows", title: `${h.name} › (${loc.block},${loc.item}) › ${list.attr.name} › TOAST`, subtitle: `${list.toastRel.label}  value ${p.tag === VARTAG_ONDISK ? p.va_valueid : tidText(p.root)}`, rows, defaultCursor: rows.findIndex((r) => r.key === "value"), labelWidth: 16 };
}

function textView(session: BrowseSession, loc: Extract<Location, { view: "text" }>, screen: ScreenLayout): ViewModel {
  const h = session.relation(loc.rel);
  const d = session.page(loc.rel, loc.block);
  const v = d.items.find((i) => i.lp === loc.item)?.heap?.values?.find((x) => x.attnum === loc.attnum);
  if (!v) throw new FormatError("BROWSE_NO_SUCH_VALUE", `(${loc.block},${loc.item}) has no attribute ${loc.attnum}`, { block: loc.block, item: loc.item, attnum: loc.attnum });
  let text: string;
  let subtitle: string;
  if (v.toast) {
    const t = toastValue(session, loc.rel, loc.block, loc.item, loc.attnum);
    text = t.text;
    subtitle = `detoasted: ${t.chunksRead} chunks, ${t.storedBytes} bytes stored${t.compression ? ` (${t.compression})` : ""}, ${t.rawBytes} bytes raw, ${t.text.length} characters`;
  } else {
    text = v.value ?? valueText(v);
    subtitle = `${v.type}, ${v.storage ?? ""} ${v.storedSize ?? ""} bytes stored, ${text.length} characters`;
  }
  const width = Math.max(1, screen.columns - 1);
  const lines = session.cachedLarge(`lines:${relKey(loc.rel)}:${loc.block}:${loc.item}:${loc.attnum}:${width}`, () => {
    const shown = text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT) : text;
    const out = wrapText(shown, width);
    if (shown.length < text.length) out.push(`… ${text.length - shown.length} more characters not shown`);
    return out;
  });
  return { kind: "text", title: `${h.name} › (${loc.block},${loc.item}) › ${v.name}`, subtitle, lines };
}

function searchView(session: BrowseSession, loc: Extract<Location, { view: "search" }>): RowsView {
  const h = session.relation(loc.rel);
  const s = searchIndex(session, loc.rel, loc.key);
  const table = tableOf(session, h);
  const rows: Row[] = [];
  rows.push({
    key: "h.search",
    text: `${s.matches.length}${s.truncated ? "+" : ""} entr${s.matches.length === 1 ? "y" : "ies"} with ${s.column} = '${oneLine(s.key, 40)}'  (${s.method}, ${s.pagesVisited} pages read${s.why ? `; ${s.why}` : ""})`,
    style: "heading",
  });
  if (s.note) rows.push({ key: "note", text: s.note, style: "dim" });
  for (const m of s.matches) {
    const tids = m.htids.map((t) => tidText(t));
    rows.push({
      key: `m.${m.block}.${m.item}`,
      label: `(${m.block},${m.item})`,
      text: `${m.dead ? "dead  " : ""}heap ${tids.length > 3 ? `${tids.slice(0, 3).join(" ")} … ${tids.length} TIDs` : tids.join(" ")}`,
      note: table ? `table ${table.label}` : undefined,
      style: "link",
      target: at({ view: "item", rel: loc.rel, block: m.block, item: m.item }),
    });
  }
  return { kind: "rows", title: `${h.name} › search '${oneLine(s.key, 30)}'`, subtitle: `${h.am} index on ${table?.label ?? "?"}`, rows, defaultCursor: rows.length > 1 ? 1 : 0, labelWidth: 12 };
}

export function buildView(session: BrowseSession, loc: Location, screen: ScreenLayout, expanded: string[]): ViewModel {
  try {
    return build(session, loc, screen, expanded);
  } catch (e) {
    if (e instanceof FormatError) {
      return { kind: "error", title: "cannot show this", message: `${e.code}: ${e.message}`, hint: "Press ← or Backspace to go back." };
    }
    const err = e as Error;
    return { kind: "error", title: "internal error (please report)", message: err?.stack ?? String(e), hint: "Press ← or Backspace to go back." };
  }
}
