// The item view: the line pointer, the tuple header with flag names, and the attribute values
// through the catalog (heap); or the index tuple's header, keys, heap TID, posting list and
// downlink (btree). Links: TOAST pointers, t_ctid, heap TIDs, downlinks, redirects.
import type { Finding } from "../../formats/schema/errors.js";
import { LP_REDIRECT } from "../../formats/page/item-id.js";
import { parseTid } from "../../formats/page/item-pointer.js";
import { INDEX_NULL_MASK, INDEX_VAR_MASK, INDEX_ALT_TID_MASK } from "../../formats/nbtree/index-tuple.js";
import { toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import type { DumpItem, DumpPage, DumpValue } from "../dump/model.js";
import { hex, oneLine } from "./format.js";
import { at, type Location, type RelRef } from "./navigation.js";
import { valueText } from "./page-rows.js";
import type { Row, RowsView } from "./rows.js";

export interface ItemContext {
  rel: RelRef;
  /** the heap relation an index points into */
  table?: RelRef;
  blockSize: number;
  /** btree level of the page (downlinks lead one level down) */
  level?: number;
}

function findingRow(key: string, f: Finding): Row {
  return { key, text: `  ${f.severity === "error" ? "!" : "~"} ${f.code}: ${f.message}`, style: "problem", problem: true };
}

function tidTarget(rel: RelRef | undefined, tid: string | null | undefined): Location | undefined {
  const t = tid ? parseTid(tid) : null;
  if (!rel || !t || t.offset < 1) return undefined;
  return at({ view: "item", rel, block: t.block, item: t.offset });
}

function valueRow(c: ItemContext, d: DumpPage, n: number, v: DumpValue, problems: Finding[], bitsPresent: boolean): Row {
  const p = `item.${n}`;
  const problem = problems.some((f) => f.location.attnum === v.attnum);
  const stored = !v.isnull && !v.missing && !v.dropped;
  let target: Location | undefined;
  let note = v.storage ? `${v.storage}${v.compression ? ` ${v.compression}` : ""}${v.storedSize !== undefined ? ` ${v.storedSize} B` : ""}` : undefined;
  if (v.toast) {
    target = at({ view: "toast", rel: c.rel, block: d.block, item: n, attnum: v.attnum });
    const maxChunk = toastMaxChunkSize(c.blockSize);
    const chunks = v.toast.extsize ? Math.floor((v.toast.extsize - 1) / maxChunk) + 1 : 0;
    note = `external: raw ${v.toast.rawsize}, stored ${v.toast.extsize}${v.toast.compressed ? ` ${v.toast.method ?? ""}` : ""}, ${chunks} chunk${chunks === 1 ? "" : "s"}, toastrel ${v.toast.toastrelid}`;
  } else if (v.value !== undefined && (v.value.length > 40 || /[\n\r\t]/.test(v.value))) {
    target = at({ view: "text", rel: c.rel, block: d.block, item: n, attnum: v.attnum });
  }
  return {
    key: `${p}.att.${v.attnum}`,
    label: `${v.attnum} ${v.name}`,
    text: `${v.type} ${v.toast ? `→ ${valueText(v)}` : valueText(v)}`,
    note,
    target,
    style: target ? "link" : "field",
    problem,
    hex: stored ? `${p}.att.${v.attnum}` : v.isnull && bitsPresent ? `${p}.t_bits` : undefined,
  };
}

function heapRows(c: ItemContext, d: DumpPage, it: DumpItem, problems: Finding[], rows: Row[]): void {
  const h = it.heap!;
  const p = `item.${it.lp}`;
  const own = `(${d.block},${it.lp})`;
  rows.push({ key: `${p}.h.header`, text: "tuple header (HeapTupleHeaderData)", style: "heading", hex: `${p}.t_xmin` });
  const f = (name: string, text: string, extra: Partial<Row> = {}): void => {
    rows.push({ key: `${p}.${name}`, label: name, text, style: "field", hex: `${p}.${name}`, ...extra });
  };
  f("t_xmin", `${h.t_xmin}`);
  f("t_xmax", `${h.t_xmax}`);
  f("t_field3", `${h.t_field3}  (t_cid or t_xvac)`);
  const ctidTarget = h.t_ctid !== own ? tidTarget(c.rel, h.t_ctid) : undefined;
  rows.push({ key: `${p}.t_ctid`, label: "t_ctid", text: `${h.t_ctid}${h.t_ctid === own ? "  (itself: latest version)" : "  → newer version"}`, style: ctidTarget ? "link" : "field", target: ctidTarget, hex: `${p}.t_ctid.bi_hi` });
  const raw2 = h.flags.filter((x) => ["HEAP_KEYS_UPDATED", "HEAP_HOT_UPDATED", "HEAP_ONLY_TUPLE"].includes(x));
  const raw1 = h.flags.filter((x) => !raw2.includes(x));
  f("t_infomask2", `${hex(h.t_infomask2, 4)}  natts ${h.natts}${raw2.length ? `  ${raw2.join("|")}` : ""}`);
  f("t_infomask", `${hex(h.t_infomask, 4)}  ${raw1.join("|")}`);
  f("t_hoff", `${h.t_hoff}`, { problem: problems.some((x) => x.location.path === "t_hoff") });
  if (h.t_bits !== undefined) f("t_bits", h.t_bits);
  if (h.state) rows.push({ key: `${p}.state`, label: "state", text: h.state, style: h.state === "live" ? "field" : "dim" });
  if (!h.values) {
    rows.push({ key: `${p}.h.data`, text: "data", style: "heading" });
    const why = problems.length ? "not decoded: see the problem above" : "no descriptor to decode them";
    rows.push({ key: `${p}.data`, label: "data", text: `${Math.max(0, it.lp_len - h.t_hoff)} bytes (${why})`, style: "dim", hex: `${p}.data`, problem: problems.length > 0 });
    return;
  }
  rows.push({ key: `${p}.h.values`, text: `attributes (${h.natts} in the tuple, ${h.values.length} in the descriptor)`, style: "heading" });
  for (const v of h.values) {
    rows.push(valueRow(c, d, it.lp, v, problems, h.t_bits !== undefined));
    problems.filter((x) => x.location.attnum === v.attnum).forEach((x, k) => rows.push(findingRow(`${p}.att.${v.attnum}.finding.${k}`, x)));
  }
}

function btreeRows(c: ItemContext, d: DumpPage, it: DumpItem, page: Uint8Array, rows: Row[]): void {
  const b = it.btree!;
  const p = `item.${it.lp}`;
  const info = page[it.lp_off + 6] | (page[it.lp_off + 7] << 8);
  const flags = [info & INDEX_NULL_MASK ? "HAS_NULLS" : "", info & INDEX_VAR_MASK ? "HAS_VARWIDTHS" : "", info & INDEX_ALT_TID_MASK ? "ALT_TID" : ""].filter(Boolean);
  rows.push({ key: `${p}.h.header`, text: `index tuple (IndexTupleData): ${b.kind}${b.dead ? ", LP_DEAD" : ""}`, style: "heading", hex: `${p}.t_tid.bi_hi` });
  const ctid = parseTid(b.ctid)!;
  const down = (b.kind === "pivot" || b.kind === "minus-infinity") && d.kind !== "leaf";
  let tidText = b.ctid;
  let target: Location | undefined;
  if (down) {
    tidText = `${b.ctid}  downlink → block ${ctid.block}${c.level !== undefined ? ` (level ${c.level - 1})` : ""}`;
    target = at({ view: "page", rel: c.rel, block: ctid.block });
  } else if (b.kind === "posting") tidText = `${b.ctid}  posting list at byte ${ctid.block}, ${b.tids?.length ?? 0} TIDs`;
  else if (b.kind === "highkey" || b.kind === "pivot") tidText = `${b.ctid}  (pivot: key attributes ${ctid.offset & 0x0fff})`;
  else {
    tidText = `${b.ctid}  heap TID → table`;
    target = tidTarget(c.table, b.ctid);
  }
  rows.push({ key: `${p}.t_tid`, label: "t_tid", text: tidText, style: target ? "link" : "field", target, hex: `${p}.t_tid.bi_hi` });
  rows.push({ key: `${p}.t_info`, label: "t_info", text: `${hex(info, 4)}  size ${info & 0x1fff}${flags.length ? `  ${flags.join("|")}` : ""}`, style: "field", hex: `${p}.t_info` });
  if (info & INDEX_NULL_MASK) rows.push({ key: `${p}.bits`, label: "null bitmap", text: "IndexAttributeBitMapData (1 = not null)", style: "field", hex: `${p}.bits` });
  rows.push({ key: `${p}.h.keys`, text: `keys${b.kind === "minus-infinity" ? ": none (minus infinity)" : ""}`, style: "heading" });
  for (const k of b.keys ?? []) {
    rows.push({ key: `${p}.att.${k.attnum}`, label: `${k.attnum} ${k.name}`, text: `${k.type} ${valueText(k)}`, style: "field", hex: k.isnull ? undefined : `${p}.att.${k.attnum}` });
  }
  if (!b.keys && b.kind !== "minus-infinity") rows.push({ key: `${p}.data`, label: "data", text: oneLine(b.data, 200), style: "dim", hex: `${p}.data` });
  if (b.htid && b.kind !== "posting") {
    const isPivot = b.kind === "pivot" || b.kind === "highkey";
    const t = tidTarget(c.table, b.htid);
    rows.push({ key: `${p}.htid`, label: isPivot ? "heap TID (pivot)" : "heap TID", text: `${b.htid}${t ? "  → heap tuple" : ""}`, style: t ? "link" : "field", target: t, hex: isPivot ? `${p}.htid` : `${p}.t_tid.bi_hi` });
  }
  if (b.tids) {
    rows.push({ key: `${p}.h.posting`, text: `posting list (${b.tids.length} heap TIDs)`, style: "heading" });
    b.tids.forEach((tid, k) => {
      const t = tidTarget(c.table, tid);
      rows.push({ key: `${p}.posting.${k}`, label: `posting[${k}]`, text: `${tid}${t ? "  → heap tuple" : ""}`, style: t ? "link" : "field", target: t, hex: `${p}.posting.${k}` });
    });
  }
}

export function itemRows(c: ItemContext, d: DumpPage, page: Uint8Array, n: number): RowsView {
  const rows: Row[] = [];
  const it = d.items.find((x) => x.lp === n);
  const p = `item.${n}`;
  if (!it) {
    rows.push({ key: `${p}.missing`, text: `block ${d.block} has no item ${n} (it has ${d.items.length} line pointers)`, style: "problem", problem: true });
    return { kind: "rows", title: "", rows, defaultCursor: 0, labelWidth: 16 };
  }
  const problems = d.findings.filter((f) => f.location.item === n);
  problems.filter((f) => f.location.attnum === undefined).forEach((f, k) => rows.push(findingRow(`${p}.finding.${k}`, f)));
  rows.push({ key: `${p}.h.lp`, text: `line pointer ${n}`, style: "heading", hex: `lp.${n}` });
  const redirect = it.lp_flags === LP_REDIRECT;
  rows.push({
    key: `${p}.lp`,
    label: `linp[${n}]`,
    text: redirect ? `REDIRECT → lp ${it.lp_off}` : `${it.flag}  lp_off ${it.lp_off}  lp_len ${it.lp_len}`,
    style: redirect ? "link" : "field",
    target: redirect ? at({ view: "item", rel: c.rel, block: d.block, item: it.lp_off }) : undefined,
    hex: `lp.${n}`,
    problem: problems.some((f) => f.location.attnum === undefined && f.code.startsWith("LP_")),
  });
  const firstBody = rows.length;
  if (it.heap) heapRows(c, d, it, problems, rows);
  else if (it.btree) btreeRows(c, d, it, page, rows);
  else if (it.lp_len > 0 && !redirect) {
    rows.push({ key: `${p}.h.data`, text: `item data (${d.am})`, style: "heading" });
    const bytes = page.subarray(it.lp_off, Math.min(page.length, it.lp_off + it.lp_len));
    for (let o = 0; o < bytes.length && o < 512; o += 16) {
      rows.push({ key: o === 0 ? `${p}.data` : `${p}.data.${o}`, label: `+${o}`, text: Buffer.from(bytes.subarray(o, o + 16)).toString("hex").replace(/(..)/g, "$1 "), style: "dim", hex: `${p}.data` });
    }
  }
  // Start on the first value (heap) or key (btree) row when there is one.
  const firstValue = rows.findIndex((r) => r.key.startsWith(`${p}.att.`));
  const firstField = rows.findIndex((r, i) => i >= firstBody && r.style !== "heading");
  return { kind: "rows", title: "", rows, defaultCursor: firstValue >= 0 ? firstValue : firstField >= 0 ? firstField : Math.min(firstBody, rows.length - 1), labelWidth: 18 };
}
