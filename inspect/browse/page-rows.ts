// The page view: header fields, the line pointer array with a one-line summary of each item,
// free space, metapage and special-space fields (with btree sibling links), and findings.
import type { Finding } from "../../formats/schema/errors.js";
import { LP_REDIRECT } from "../../formats/page/item-id.js";
import { btpoFlagNames } from "../../formats/nbtree/opaque.js";
import { PageHeaderData } from "../../formats/page/page-header.js";
import type { DumpItem, DumpPage, DumpValue } from "../dump/model.js";
import { fieldValue, STRUCT_FOR_META, STRUCT_FOR_SPECIAL } from "./hex-layout.js";
import { hex, oneLine } from "./format.js";
import { at, type RelRef } from "./navigation.js";
import type { Row, RowsView } from "./rows.js";

/** Special-space and metapage fields that name a block of the same relation. */
const BLOCK_LINKS = new Set(["btpo_prev", "btpo_next", "btm_root", "btm_fastroot", "hasho_prevblkno", "hasho_nextblkno", "rightlink", "lastRevmapPage"]);

export function valueText(v: DumpValue, max = 60): string {
  if (v.isnull) return v.missing ? "NULL (missing)" : "NULL";
  if (v.dropped) return "(dropped)";
  if (v.toast) return `TOAST ${v.toast.tag === "direct" ? `root ${v.toast.root}` : `value ${v.toast.valueid}`}, ${v.toast.extsize} bytes stored`;
  if (v.value === undefined) return v.storage === "external" ? "(external)" : "?";
  return `'${oneLine(v.value, max)}'`;
}

/** One line about an item for the page's list. */
export function itemSummary(it: DumpItem): string {
  if (it.lp_flags === LP_REDIRECT) return `→ lp ${it.lp_off}`;
  if (it.heap) {
    const h = it.heap;
    const vals = (h.values ?? []).filter((v) => !v.dropped).slice(0, 4).map((v) => `${v.name}=${v.isnull ? "NULL" : v.toast ? "TOAST" : oneLine(v.value ?? "?", 16)}`);
    return `xmin ${h.t_xmin} xmax ${h.t_xmax} ${h.state ?? ""} ${h.t_ctid} ${vals.join(" ")}`.replace(/  +/g, " ");
  }
  if (it.btree) {
    const b = it.btree;
    const keys = (b.keys ?? []).map((k) => (k.isnull ? "NULL" : oneLine(k.value ?? "?", 20))).join(", ");
    const where = b.kind === "pivot" || b.kind === "minus-infinity" ? `↓ ${b.ctid.replace(/^\((\d+),.*$/, "block $1")}` : b.tids ? `${b.tids.length} TIDs` : b.htid ?? "";
    return `${b.kind} (${keys}) ${where}`;
  }
  return it.hex ? `${it.lp_len} bytes` : "";
}

function findingLine(f: Finding): string {
  return `${f.severity === "error" ? "!" : "~"} ${f.code}: ${f.message}`;
}

export function pageRows(rel: RelRef, page: Uint8Array, d: DumpPage): RowsView {
  const rows: Row[] = [];
  const itemProblems = new Map<number, Finding[]>();
  for (const f of d.findings) if (f.location.item !== undefined) itemProblems.set(f.location.item, [...(itemProblems.get(f.location.item) ?? []), f]);
  const pageFindings = d.findings.filter((f) => f.location.item === undefined);
  const headerRange = (path: string): [number, number] => {
    const fs = PageHeaderData.layout().filter((f) => f.path === path || f.path.startsWith(`${path}_`));
    return fs.length ? [fs[0].offset, fs[fs.length - 1].offset + fs[fs.length - 1].size] : [-1, -1];
  };
  const headerProblem = (path: string): boolean =>
    pageFindings.some((f) => {
      const l = f.location;
      if (l.path !== undefined) return l.path === path || l.path.startsWith(`${path}_`);
      const [a, b] = headerRange(path);
      return l.offset !== undefined && l.offset >= a && l.offset < b;
    });
  pageFindings.forEach((f, k) => rows.push({ key: `finding.${k}`, text: findingLine(f), style: "problem", problem: true }));
  if (d.isNew || !d.header) {
    rows.push({ key: "hdr.new", label: "new page", text: "pd_upper is 0: an empty, never-initialised page", hex: "hdr.pd_upper" });
    return { kind: "rows", title: "", rows, defaultCursor: 0, labelWidth: 20 };
  }
  const h = d.header;
  rows.push({ key: "h.header", text: `page header (${d.am}/${d.kind}, file offset ${d.fileOffset})`, style: "heading", hex: "hdr.pd_lsn_xlogid" });
  const field = (path: string, text: string, hexKey = `hdr.${path}`): void => {
    rows.push({ key: `hdr.${path}`, label: path, text, style: "field", hex: hexKey, problem: headerProblem(path) });
  };
  field("pd_lsn", h.lsn, "hdr.pd_lsn_xlogid");
  field("pd_checksum", `${h.pd_checksum}${h.checksum ? (h.checksum.ok ? "  ok" : `  MISMATCH: computed ${h.checksum.computed}`) : ""}`);
  field("pd_flags", `${hex(h.pd_flags, 4)} ${h.flagNames.join("|")}`);
  field("pd_lower", `${h.pd_lower}${d.items.length || h.pd_lower === 24 ? `  (${d.items.length} line pointers)` : "  (end of the metadata)"}`);
  field("pd_upper", String(h.pd_upper));
  field("pd_special", `${h.pd_special}${h.pd_special < h.pageSize ? `  (${h.pageSize - h.pd_special} bytes of special space)` : ""}`);
  field("pd_pagesize_version", `${hex(h.pd_pagesize_version, 4)}  size ${h.pageSize}, layout version ${h.layoutVersion}`);
  field("pd_prune_xid", String(h.pd_prune_xid));
  const meta = d.kind === "meta" ? STRUCT_FOR_META[d.am] : undefined;
  if (meta) {
    rows.push({ key: "h.meta", text: `metapage (${meta.name})`, style: "heading" });
    for (const f of meta.layout("", 24)) {
      if (f.type.startsWith("bytes")) {
        rows.push({ key: `meta.${f.path}`, label: f.path, text: `${f.size} bytes`, style: "dim", hex: `meta.${f.path}` });
        continue;
      }
      const v = fieldValue(page, f);
      const link = BLOCK_LINKS.has(f.path) && Number(v) !== 0 ? at({ view: "page", rel, block: Number(v) }) : undefined;
      rows.push({ key: `meta.${f.path}`, label: f.path, text: `${v}${link ? "  →" : ""}`, style: link ? "link" : "field", target: link, hex: `meta.${f.path}` });
    }
  } else if (d.meta) {
    rows.push({ key: "h.meta", text: "metapage", style: "heading" });
    for (const [k, v] of Object.entries(d.meta)) if (typeof v !== "object") rows.push({ key: `meta.${k}`, label: k, text: String(v), style: "field" });
  }
  rows.push({ key: "h.items", text: `line pointers and items (${d.items.length})`, style: "heading", hex: d.items.length ? "lp.1" : undefined });
  const firstItemRow = rows.length;
  for (const it of d.items) {
    const problems = itemProblems.get(it.lp) ?? [];
    const target =
      it.lp_flags === LP_REDIRECT ? at({ view: "item", rel, block: d.block, item: it.lp_off }) : at({ view: "item", rel, block: d.block, item: it.lp });
    rows.push({
      key: `item.${it.lp}`,
      label: `lp ${String(it.lp).padStart(3)} ${it.flag.padEnd(8)}`,
      text: `off ${String(it.lp_off).padStart(4)} len ${String(it.lp_len).padStart(4)}  ${itemSummary(it)}`,
      target,
      hex: `lp.${it.lp}`,
      problem: problems.length > 0,
      style: "link",
    });
    problems.forEach((f, k) => rows.push({ key: `item.${it.lp}.finding.${k}`, text: `    ${findingLine(f)}`, style: "problem", problem: true, target: at({ view: "item", rel, block: d.block, item: it.lp }) }));
  }
  rows.push({ key: "free", label: "free space", text: `${h.freeSpace} bytes usable (pd_lower ${h.pd_lower} .. pd_upper ${h.pd_upper})`, style: "dim", hex: h.pd_upper > h.pd_lower ? "free" : undefined });
  const spec = STRUCT_FOR_SPECIAL[d.am];
  if (h.pd_special < h.pageSize) {
    rows.push({ key: "h.special", text: `special space (${spec ? spec.name : `${h.pageSize - h.pd_special} bytes`})`, style: "heading", hex: spec ? undefined : "special" });
    if (spec && h.pd_special + spec.size <= page.length) {
      for (const f of spec.layout("", h.pd_special)) {
        const v = fieldValue(page, f);
        const n = Number(v);
        const link = BLOCK_LINKS.has(f.path) && n !== 0 && n !== 0xffffffff ? at({ view: "page", rel, block: n }) : undefined;
        let text = v;
        if (f.path === "btpo_flags") text = `${hex(n, 4)} ${btpoNames(n)}`;
        if (f.path === "btpo_prev" || f.path === "btpo_next") text = n === 0 ? "0 (none)" : `${n}  → ${f.path === "btpo_prev" ? "left" : "right"} sibling`;
        rows.push({ key: `special.${f.path}`, label: f.path, text, style: link ? "link" : "field", target: link, hex: `special.${f.path}` });
      }
    }
  }
  return { kind: "rows", title: "", rows, defaultCursor: d.items.length ? firstItemRow : 0, labelWidth: 21 };
}

const btpoNames = (n: number): string => btpoFlagNames(n).join("|");
