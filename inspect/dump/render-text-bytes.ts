// The text dump of PageRecords, written as bytes: the same text TextRenderer gives for the
// equivalent DumpPage (a test holds them equal), without building a string per item.
// Relation headers, findings, values and the summary go through TextRenderer's own wording.
import { Chalk } from "chalk";
import { LP_FLAG_NAMES, LP_DEAD } from "../../formats/page/item-id.js";
import { ascii, constText, putBytes, putConst, putField, putHex4, putHexSpaced, putTidNumbers, type ByteOut, type ConstText } from "./byte-out.js";
import { TextRenderer, type TextOptions } from "./render-text.js";
import { tBitsShown, type BtreeFields, type HeapFields, type ItemRecord, type PageRecord } from "./page-record.js";
import type { DumpEvent } from "./dump.js";
import type { DumpHeader } from "./model.js";
import type { ScratchOut } from "../../formats/datum/text-out.js";
import { STORAGE_NOTES, ValueLineKind, type TextValuePlan, type ValueLines } from "./text-values.js";

/** The escape codes a chalk style puts around text (empty without colour). */
function codes(style: (s: string) => string): [Uint8Array, Uint8Array] {
  const [open = "", close = ""] = style("\u0000").split("\u0000");
  return [ascii(open), ascii(close)];
}

const L = {
  block: constText("Block "),
  openParen: constText(" ("),
  at: constText(" @ "),
  headerLsn: constText("  header  lsn "),
  checksum: constText("  checksum "),
  flags: constText("  flags 0x"),
  lower: constText("\n          lower "),
  upper: constText("  upper "),
  special: constText("  special "),
  size: constText("  size "),
  version: constText("  version "),
  pruneXid: constText("  prune_xid "),
  items: constText("  items "),
  free: constText("  free "),
  lp: constText("  lp "),
  sp2: constText("  "),
  off: constText(" off "),
  len: constText("  len "),
  xmin: constText("  xmin "),
  xmax: constText("  xmax "),
  cid: constText("  cid "),
  ctid: constText("  ctid ("),
  natts: constText(")  natts "),
  hoff: constText("  hoff "),
  infomask: constText("  infomask 0x"),
  infomask2: constText(" infomask2 0x"),
  indent: constText("        "),
  tbits: constText("  t_bits "),
  btCtid: constText("  ctid ("),
  htid: constText(")  htid ("),
  close: constText(")"),
  dead: constText("  dead"),
  nulls: constText("  nulls"),
  vars: constText("  vars"),
  tids: constText("        tids ("),
  more: constText(" ..."),
  data: constText("        data"),
};
const FLAG_TEXT = LP_FLAG_NAMES.map((f) => ascii(f));
const BT_KIND = new Map<string, ConstText>(["pivot", "posting", "tuple", "minus-infinity", "highkey"].map((k) => [k, constText("  " + k)]));
const flagLineCache = new WeakMap<string[], ConstText>();

export class TextByteRenderer {
  private readonly strings: TextRenderer;
  private readonly dim: [Uint8Array, Uint8Array];
  private readonly blockStyle: [Uint8Array, Uint8Array];
  private readonly okText: Uint8Array;
  private readonly red: [Uint8Array, Uint8Array];
  private readonly yellow: [Uint8Array, Uint8Array];
  private readonly stateText = new Map<string, Uint8Array>();
  /** each relation's value line heads (indent, name, type, " = ") */
  private readonly heads = new WeakMap<TextValuePlan, Uint8Array[]>();
  private readonly nullText: Uint8Array;
  /** STORAGE_NOTES as shown after a value */
  private readonly noteText: Uint8Array[];

  constructor(
    readonly out: ByteOut,
    colour: boolean,
    private readonly opts: TextOptions = { values: true },
  ) {
    this.strings = new TextRenderer((s) => out.text(s), colour, opts);
    const c = new Chalk({ level: colour ? 1 : 0 });
    this.dim = codes(c.dim);
    this.blockStyle = codes(c.bold.cyan);
    this.okText = ascii(c.green(" ok"));
    this.red = codes(c.red);
    this.yellow = codes(c.yellow);
    this.nullText = ascii(c.dim("NULL"));
    this.noteText = STORAGE_NOTES.map((n) => (n ? ascii(this.strings.valueNotes([n])) : new Uint8Array(0)));
  }

  event(e: DumpEvent): void {
    if (e.type === "record") this.record(e.record);
    else this.strings.event(e);
  }

  record(r: PageRecord): void {
    const s = this.strings;
    const o = this.out;
    if (r.isNew || !r.header) s.pageHead(r);
    else this.pageHead(r, r.header);
    for (let i = 0; i < r.n; i++) this.item(r.page, r.items[i]!, r.valueBytes);
    for (const f of r.findings) o.text("  " + s.finding(f) + "\n");
    o.byte(10);
  }

  private lastFile = "";
  private fileText: Uint8Array = new Uint8Array(0);
  private kindText = new Map<string, Uint8Array>();

  /** TextRenderer.pageHead's text for a page with a header, as bytes. */
  private pageHead(r: PageRecord, h: DumpHeader): void {
    const o = this.out;
    if (r.file !== this.lastFile) {
      this.lastFile = r.file;
      this.fileText = ascii(r.file);
    }
    let kind = this.kindText.get(r.am + "/" + r.kind);
    if (!kind) this.kindText.set(r.am + "/" + r.kind, (kind = ascii(`  ${r.am}/${r.kind}\n`)));
    // one reservation covers the page head (the short texts below write inside it: buf stays put)
    o.reserve(1024 + this.fileText.length);
    const b = o.buf;
    const dv = o.dv;
    let p = o.pos;
    p = putBytes(b, p, this.blockStyle[0]);
    p = putField(dv, b, p, L.block, r.block);
    p = putBytes(b, p, this.blockStyle[1]);
    p = putBytes(b, p, this.dim[0]);
    p = putConst(dv, b, p, L.openParen);
    p = putBytes(b, p, this.fileText);
    p = putField(dv, b, p, L.at, r.fileOffset);
    b[p++] = 41;
    p = putBytes(b, p, this.dim[1]);
    p = putBytes(b, p, kind);
    p = putConst(dv, b, p, L.headerLsn);
    o.pos = p;
    o.text(h.lsn);
    p = o.pos;
    p = putField(dv, b, p, L.checksum, h.pd_checksum);
    o.pos = p;
    if (h.checksum) {
      if (h.checksum.ok) o.bytes(this.okText);
      else o.text(this.strings.checksumMismatch(h.checksum.computed));
    }
    p = o.pos;
    p = putConst(dv, b, p, L.flags);
    p = putHex4(b, p, h.pd_flags);
    o.pos = p;
    if (h.flagNames.length) o.text(` (${h.flagNames.join("|")})`);
    p = o.pos;
    p = putField(dv, b, p, L.lower, h.pd_lower);
    p = putField(dv, b, p, L.upper, h.pd_upper);
    p = putField(dv, b, p, L.special, h.pd_special);
    p = putField(dv, b, p, L.size, h.pageSize);
    p = putField(dv, b, p, L.version, h.layoutVersion);
    p = putField(dv, b, p, L.pruneXid, h.pd_prune_xid);
    p = putField(dv, b, p, L.items, h.items);
    p = putField(dv, b, p, L.free, h.freeSpace);
    b[p++] = 10;
    o.pos = p;
    if (r.meta || r.special || r.ginData || r.revmap) this.strings.metaAndSpecial(r);
  }

  private item(page: Uint8Array, it: ItemRecord, valueBytes: ScratchOut): void {
    const o = this.out;
    const h = it.heap;
    const bt = it.btree;
    // Everything but values fits in this bound: fixed text, numbers, t_bits, key hex, 8 TIDs.
    o.reserve(768 + (h ? h.natts : 0) + (bt ? bt.dataLen * 3 : 0) + (it.hex ? it.hex.length : 0));
    const b = o.buf;
    const dv = o.dv;
    let p = o.pos;
    p = putField(dv, b, p, L.lp, it.lp, 3);
    p = putConst(dv, b, p, L.sp2);
    const flag = FLAG_TEXT[it.lp_flags]!;
    const style = it.lp_flags === 1 ? undefined : it.lp_flags === LP_DEAD ? this.red : this.yellow;
    if (style) p = putBytes(b, p, style[0]);
    p = putBytes(b, p, flag);
    if (style) p = putBytes(b, p, style[1]);
    for (let k = flag.length; k < 8; k++) b[p++] = 32;
    p = putField(dv, b, p, L.off, it.lp_off, 4);
    p = putField(dv, b, p, L.len, it.lp_len, 4);
    if (h) {
      o.pos = this.heapLine(b, p, page, it, h);
      if (this.opts.values && h.hasLines) this.valueLines(h.lines!, valueBytes);
      else if (this.opts.values && h.values) for (const v of h.values) o.text(`        ${this.strings.value(v)}\n`);
      return;
    }
    if (bt) {
      o.pos = this.btreeLine(b, p, page, bt);
      if (this.opts.values && bt.hasLines) this.valueLines(bt.lines!, valueBytes);
      else if (bt.keys && this.opts.values) for (const v of bt.keys) o.text(`        ${this.strings.value(v)}\n`);
      return;
    }
    o.pos = p;
    if (it.index) return o.text(this.strings.indexItemTail(it.index, it.hex));
    if (it.brin) return o.text(this.strings.brinItemTail(it.brin, it.hex));
    if (it.hex) this.dimmed(ascii(`  ${it.hex}`));
    o.byte(10);
  }

  /** A tuple's value lines (TextValuePlan.write), as TextRenderer.value writes them. */
  private valueLines(lines: ValueLines, valueBytes: ScratchOut): void {
    const o = this.out;
    const plan = lines.plan!;
    let heads = this.heads.get(plan);
    if (!heads) {
      heads = plan.names.map((name, k) => ascii(`        ${this.strings.valueHead(name, plan.typeNames[k]!)} = `));
      this.heads.set(plan, heads);
    }
    const src = valueBytes.buf;
    for (let k = 0; k < lines.n; k++) {
      const kind = lines.kind[k];
      if (kind === ValueLineKind.Value) {
        o.text(`        ${this.strings.value(lines.fallback[k]!)}\n`);
        continue;
      }
      const head = heads[k]!;
      const start = lines.start[k]!;
      const end = lines.end[k]!;
      const note = kind === ValueLineKind.Null ? this.nullText : this.noteText[lines.note[k]!]!;
      o.reserve(head.length + (kind === ValueLineKind.Null ? 0 : end - start) + note.length + 1);
      const b = o.buf;
      b.set(head, o.pos);
      let p = o.pos + head.length;
      if (kind === ValueLineKind.Bytes) {
        // a short value is cheaper copied by hand than through a subarray and set()
        if (end - start <= 16) for (let i = start; i < end; i++) b[p++] = src[i]!;
        else {
          b.set(src.subarray(start, end), p);
          p += end - start;
        }
      }
      if (note.length) {
        b.set(note, p);
        p += note.length;
      }
      b[p++] = 10;
      o.pos = p;
    }
  }

  private heapLine(b: Uint8Array, p: number, page: Uint8Array, it: ItemRecord, h: HeapFields): number {
    const dim = this.dim;
    const dv = this.out.dv;
    p = putField(dv, b, p, L.xmin, h.t_xmin);
    p = putField(dv, b, p, L.xmax, h.t_xmax);
    p = putField(dv, b, p, L.cid, h.t_field3);
    p = putConst(dv, b, p, L.ctid);
    p = putTidNumbers(b, p, h.ctidBlock, h.ctidOffset);
    p = putField(dv, b, p, L.natts, h.natts);
    p = putField(dv, b, p, L.hoff, h.t_hoff);
    p = putConst(dv, b, p, L.infomask);
    p = putHex4(b, p, h.t_infomask);
    p = putConst(dv, b, p, L.infomask2);
    p = putHex4(b, p, h.t_infomask2);
    if (h.state !== undefined && h.state !== "live") {
      p = putBytes(b, p, dim[0]);
      p = putBytes(b, p, this.stateBytes(h.state));
      p = putBytes(b, p, dim[1]);
    }
    b[p++] = 10;
    if (h.flags.length) {
      p = putBytes(b, p, dim[0]);
      p = putConst(dv, b, p, L.indent);
      p = putConst(dv, b, p, this.flagLine(h.flags));
      p = putBytes(b, p, dim[1]);
      const nbits = h.hasBits ? tBitsShown(it) : 0;
      if (nbits > 0) {
        // tBitsText, as bytes
        p = putBytes(b, p, dim[0]);
        p = putConst(dv, b, p, L.tbits);
        const at = it.lp_off + 23;
        for (let k = 0; k < nbits; k++) b[p++] = (page[at + (k >> 3)]! >> (k & 7)) & 1 ? 49 : 48;
        p = putBytes(b, p, dim[1]);
      }
      b[p++] = 10;
    }
    return p;
  }

  private btreeLine(b: Uint8Array, p: number, page: Uint8Array, bt: BtreeFields): number {
    const dim = this.dim;
    const dv = this.out.dv;
    p = putConst(dv, b, p, BT_KIND.get(bt.kind)!);
    p = putConst(dv, b, p, L.btCtid);
    p = putTidNumbers(b, p, bt.tidBlock, bt.tidOffset);
    if (bt.htidBlock >= 0) {
      p = putConst(dv, b, p, L.htid);
      p = putTidNumbers(b, p, bt.htidBlock, bt.htidOffset);
    }
    b[p++] = 41;
    if (bt.dead) {
      p = putBytes(b, p, this.red[0]);
      p = putConst(dv, b, p, L.dead);
      p = putBytes(b, p, this.red[1]);
    }
    if (bt.nulls) p = putConst(dv, b, p, L.nulls);
    if (bt.vars) p = putConst(dv, b, p, L.vars);
    b[p++] = 10;
    if (bt.postingCount > 0) {
      p = putBytes(b, p, dim[0]);
      p = putField(dv, b, p, L.tids, bt.postingCount);
      b[p++] = 41;
      const shown = Math.min(8, bt.postingCount);
      for (let k = 0; k < shown; k++) {
        const at = bt.postingStart + 6 * k;
        b[p++] = 32;
        b[p++] = 40;
        p = putTidNumbers(b, p, (page[at]! | (page[at + 1]! << 8)) * 65536 + (page[at + 2]! | (page[at + 3]! << 8)), page[at + 4]! | (page[at + 5]! << 8));
        b[p++] = 41;
      }
      if (bt.postingCount > 8) p = putConst(dv, b, p, L.more);
      p = putBytes(b, p, dim[1]);
      b[p++] = 10;
    }
    if ((bt.keys || bt.hasLines) && this.opts.values) return p;
    if (bt.dataLen > 0 && (this.opts.values || this.opts.hex)) {
      p = putBytes(b, p, dim[0]);
      p = putConst(dv, b, p, L.data);
      p = putHexSpaced(b, p, page, bt.dataStart, bt.dataLen);
      p = putBytes(b, p, dim[1]);
      b[p++] = 10;
    }
    return p;
  }

  private dimmed(b: Uint8Array): void {
    this.out.bytes(this.dim[0]);
    this.out.bytes(b);
    this.out.bytes(this.dim[1]);
  }

  private stateBytes(state: string): Uint8Array {
    let b = this.stateText.get(state);
    if (!b) this.stateText.set(state, (b = ascii(`  [${state}]`)));
    return b;
  }

  /** flag lists are shared between tuples with the same masks, so their text is cached by identity */
  private lastFlags: string[] | undefined;
  private lastFlagLine: ConstText = constText("");
  private flagLine(flags: string[]): ConstText {
    // neighbouring tuples mostly share their masks
    if (flags === this.lastFlags) return this.lastFlagLine;
    let b = flagLineCache.get(flags);
    if (!b) flagLineCache.set(flags, (b = constText(flags.join("|"))));
    this.lastFlags = flags;
    this.lastFlagLine = b;
    return b;
  }
}
