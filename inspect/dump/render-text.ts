// Human-readable dump text. Colour only when the caller asks (a TTY). Renders engine data only.
import { Chalk, type ChalkInstance } from "chalk";
import type { Finding } from "../../formats/schema/errors.js";
import { describeLocation } from "../../formats/schema/errors.js";
import type { DumpEvent } from "./dump.js";
import type { BrinItemDump, DumpItem, DumpPage, DumpSummary, DumpTarget, DumpValue, IndexItemDump } from "./model.js";
import { quoteForText } from "./text-values.js";

export interface TextOptions {
  /** show decoded values and keys */
  values: boolean;
  /** show index key bytes in hex when keys are not shown (always when values are on) */
  hex?: boolean;
}

export class TextRenderer {
  private readonly c: ChalkInstance;
  constructor(
    private readonly write: (s: string) => void,
    colour: boolean,
    private readonly opts: TextOptions = { values: true },
  ) {
    this.c = new Chalk({ level: colour ? 1 : 0 });
  }

  event(e: DumpEvent): void {
    switch (e.type) {
      case "relation":
        return this.relation(e.target);
      case "page":
        return this.page(e.page);
      case "finding":
        return this.write(this.finding(e.finding) + "\n");
      case "end":
        return this.summary(e.summary);
    }
  }


  relation(t: DumpTarget): void {
    const c = this.c;
    const what = t.relation ? `${t.relation} (${t.am ?? "?"}${t.relkind ? `, relkind ${t.relkind}` : ""}, ${t.fork} fork)` : `${t.file} (${t.fork} fork)`;
    this.write(c.bold(`Relation ${what}`) + `\n  file ${t.file}\n  blocks ${t.blocks[0]}..${t.blocks[1] - 1} of ${t.nblocks}` + (t.database ? `, database ${t.database}` : "") + "\n\n");
  }

  page(p: DumpPage): void {
    this.pageHead(p);
    for (const it of p.items) this.item(it);
    for (const f of p.findings) this.write("  " + this.finding(f) + "\n");
    this.write("\n");
  }

  /** The block line, page header, metapage and special space of a page. */
  pageHead(p: Pick<DumpPage, "block" | "file" | "fileOffset" | "am" | "kind" | "isNew" | "header" | "meta" | "special" | "ginData" | "revmap">): void {
    const c = this.c;
    let s = c.bold.cyan(`Block ${p.block}`) + c.dim(` (${p.file} @ ${p.fileOffset})`) + `  ${p.am}/${p.kind}\n`;
    if (p.isNew) {
      s += "  new page (all zero)\n";
    } else if (p.header) {
      const h = p.header;
      const ck = h.checksum ? (h.checksum.ok ? c.green(" ok") : this.checksumMismatch(h.checksum.computed)) : "";
      s +=
        `  header  lsn ${h.lsn}  checksum ${h.pd_checksum}${ck}  flags 0x${hex4(h.pd_flags)}${h.flagNames.length ? ` (${h.flagNames.join("|")})` : ""}\n` +
        `          lower ${h.pd_lower}  upper ${h.pd_upper}  special ${h.pd_special}  size ${h.pageSize}  version ${h.layoutVersion}  prune_xid ${h.pd_prune_xid}  items ${h.items}  free ${h.freeSpace}\n`;
    }
    this.write(s);
    this.metaAndSpecial(p);
  }

  checksumMismatch(computed: number): string {
    return this.c.red(` MISMATCH, computed ${computed}`);
  }

  metaAndSpecial(p: Pick<DumpPage, "meta" | "special" | "ginData" | "revmap">): void {
    if (p.meta) this.write(`  meta    ${kv(p.meta)}\n`);
    if (p.special) this.write(`  special ${kv(p.special)}\n`);
    if (p.revmap) this.write(`  revmap  ${p.revmap.length} entries  ${p.revmap.join(" ")}\n`);
    const g = p.ginData;
    if (!g) return;
    let s = `  right bound ${g.rightBound}\n`;
    g.segments?.forEach((seg, k) => (s += `  segment ${k + 1}  first_tid ${seg.first_tid}  nbytes ${seg.nbytes}  ${seg.tids.length} tids  ${seg.tids.join(" ")}\n`));
    g.postingItems?.forEach((pi, k) => (s += `  downlink ${k + 1}  child ${pi.child}  key ${pi.key}\n`));
    this.write(s);
  }

  item(it: DumpItem): void {
    const c = this.c;
    const flag = it.flag === "NORMAL" ? it.flag : it.flag === "DEAD" ? c.red(it.flag) : c.yellow(it.flag);
    // padded on the visible name, so colour codes do not shift the columns
    let line = `  lp ${String(it.lp).padStart(3)}  ${flag}${" ".repeat(Math.max(0, 8 - it.flag.length))} off ${String(it.lp_off).padStart(4)}  len ${String(it.lp_len).padStart(4)}`;
    if (it.heap) {
      const h = it.heap;
      line += `  xmin ${h.t_xmin}  xmax ${h.t_xmax}  cid ${h.t_field3}  ctid ${h.t_ctid}  natts ${h.natts}  hoff ${h.t_hoff}  infomask 0x${hex4(h.t_infomask)} infomask2 0x${hex4(h.t_infomask2)}`;
      if (h.state && h.state !== "live") line += c.dim(`  [${h.state}]`);
      this.write(line + "\n");
      if (h.flags.length) this.write(c.dim(`        ${h.flags.join("|")}`) + (h.t_bits ? c.dim(`  t_bits ${h.t_bits}`) : "") + "\n");
      if (this.opts.values && h.values) for (const v of h.values) this.write(`        ${this.value(v)}\n`);
      return;
    }
    if (it.btree) {
      const b = it.btree;
      line += `  ${b.kind}  ctid ${b.ctid}${b.htid ? `  htid ${b.htid}` : ""}${b.dead ? c.red("  dead") : ""}${b.nulls ? "  nulls" : ""}${b.vars ? "  vars" : ""}`;
      this.write(line + "\n");
      if (b.tids && b.tids.length) this.write(c.dim(`        tids (${b.tids.length}) ${b.tids.slice(0, 8).join(" ")}${b.tids.length > 8 ? " ..." : ""}`) + "\n");
      if (b.keys && this.opts.values) for (const v of b.keys) this.write(`        ${this.value(v)}\n`);
      else if (b.data && (this.opts.values || this.opts.hex)) this.write(c.dim(`        data ${b.data}`) + "\n");
      return;
    }
    if (it.index) {
      this.write(line + this.indexItemTail(it.index, it.hex));
      return;
    }
    if (it.brin) {
      this.write(line + this.brinItemTail(it.brin, it.hex));
      return;
    }
    this.write(line + (it.hex ? c.dim(`  ${it.hex}`) : "") + "\n");
  }

  /** A GiST or hash item after its line pointer: the header fields, the hex, then one line per key. */
  indexItemTail(ix: IndexItemDump, hex: string | undefined): string {
    const c = this.c;
    const g = ix.gin;
    // a GIN entry's t_tid is its posting list's place and count, or a downlink: its own fields say what it holds
    let s = g ? `  size ${ix.size}${ix.nulls ? "  nulls" : ""}` : `  ctid ${ix.ctid}  size ${ix.size}${ix.nulls ? "  nulls" : ""}${ix.vars ? "  vars" : ""}`;
    if (g) {
      if (g.attnum !== 1) s += `  column ${g.attnum}`;
      if (g.category !== "key") s += `  ${g.category}`;
      if (g.child !== undefined) s += `  child ${g.child}`;
      else if (g.postingTree !== undefined) s += `  posting tree ${g.postingTree}`;
      else if (g.tids) s += `  ${g.tids.length} tids${g.compressed ? " (compressed)" : ""}  ${g.tids.join(" ")}`;
      else s += `  ctid ${ix.ctid}`;
    }
    s += `${hex ? c.dim(`  ${hex}`) : ""}\n`;
    if (ix.keys && this.opts.values) for (const v of ix.keys) s += `        ${this.value(v)}\n`;
    return s;
  }

  /** A BRIN range summary after its line pointer: its first heap block and flags, then one line per column. */
  brinItemTail(b: BrinItemDump, hex: string | undefined): string {
    const c = this.c;
    let s = `  blknum ${b.blknum}${b.placeholder ? "  placeholder" : ""}${b.empty ? "  empty" : ""}${hex ? c.dim(`  ${hex}`) : ""}\n`;
    if (this.opts.values)
      for (const col of b.columns) s += `        column ${col.attnum}${col.allnulls ? "  allnulls" : ""}${col.hasnulls ? "  hasnulls" : ""}${col.value !== null ? `  ${col.value}` : ""}\n`;
    return s;
  }

  /** The start of a value's line: column name and type. */
  valueHead(name: string, type: string): string {
    return `${this.c.blue(name)} ${this.c.dim(type)}`;
  }

  /** A storage note after a value ("short", "compressed pglz", a TOAST pointer ...). */
  valueNotes(notes: readonly string[]): string {
    return this.c.dim(`  [${notes.join("; ")}]`);
  }

  value(v: DumpValue): string {
    const c = this.c;
    const head = this.valueHead(v.name, v.type);
    if (v.dropped) return `${head} ${c.dim("(dropped column)")}`;
    if (v.isnull) return `${head} = ${c.dim("NULL")}${v.missing ? c.dim(" (beyond natts)") : ""}`;
    const notes: string[] = [];
    if (v.missing) notes.push("attmissingval");
    if (v.storage && v.storage !== "fixed") notes.push(v.storage + (v.compression ? ` ${v.compression}` : ""));
    if (v.toast) {
      const t = v.toast;
      notes.push(`${t.tag === "direct" ? `direct root ${t.root}` : `value ${t.valueid}`} toastrel ${t.toastrelid} raw ${t.rawsize} ext ${t.extsize}${t.compressed ? ` ${t.method}` : ""}`);
    }
    const val = v.value === undefined ? c.dim("(not detoasted; use --detoast)") : quoteForText(v.value, v.truncated ? (v.fullLength ?? -1) : v.value.length);
    return `${head} = ${val}${notes.length ? this.valueNotes(notes) : ""}`;
  }

  finding(f: Finding): string {
    const c = this.c;
    const sev = f.severity === "error" ? c.red.bold("ERROR") : f.severity === "warning" ? c.yellow("WARNING") : c.dim("INFO");
    return `${sev} ${c.bold(f.code)} ${describeLocation(f.location)}: ${f.message}`;
  }

  summary(s: DumpSummary): void {
    this.write(`${s.pages} pages (${s.newPages} new), ${s.items} items, ${s.errors} errors, ${s.warnings} warnings\n`);
  }
}

const hex4 = (n: number): string => n.toString(16).padStart(4, "0");

function kv(o: Record<string, unknown>): string {
  return Object.entries(o)
    .map(([k, v]) => `${k} ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
    .join("  ");
}

