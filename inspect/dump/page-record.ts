// The compact form of a dumped page: the same facts as DumpPage, held in item slots that are
// reused from page to page, with numbers where DumpPage has strings (TIDs, hex, t_bits).
// Scanning millions of items into it allocates nothing per item unless values are decoded;
// the text renderer formats it straight to bytes, and recordToDumpPage gives the plain
// DumpPage that JSON and the terminal UI show.
import { LP_FLAG_NAMES } from "../../formats/page/item-id.js";
import { btPostingTids, hexSpaced, type BtItemFields } from "../../formats/nbtree/page-items.js";
import { tidText } from "../../formats/page/item-pointer.js";
import type { Finding } from "../../formats/schema/errors.js";
import { ScratchOut } from "../../formats/datum/text-out.js";
import type { ValueLines } from "./text-values.js";
import type { BtreeItemDump, DumpHeader, DumpItem, DumpPage, BrinItemDump, DumpValue, GinDataPageDump, HeapItemDump, IndexItemDump } from "./model.js";

export interface HeapFields {
  t_xmin: number;
  t_xmax: number;
  t_field3: number;
  ctidBlock: number;
  ctidOffset: number;
  t_infomask2: number;
  t_infomask: number;
  t_hoff: number;
  natts: number;
  /** infomask flag names (shared lists; never modify) */
  flags: string[];
  /** HEAP_HASNULL: t_bits follows the fixed header */
  hasBits: boolean;
  state?: string;
  values?: DumpValue[];
  /** the value lines written as bytes (ScanOptions.textValues) instead of values */
  lines?: ValueLines;
  /** lines holds this tuple's value lines */
  hasLines: boolean;
}

export interface BtreeFields extends BtItemFields {
  kind: BtreeItemDump["kind"];
  keys?: DumpValue[];
  /** the keys as value lines of bytes (ScanOptions.textValues) instead of keys */
  lines?: ValueLines;
  /** lines holds this item's keys */
  hasLines: boolean;
}

export interface ItemRecord {
  lp: number;
  lp_off: number;
  lp_flags: number;
  lp_len: number;
  /** the decoded heap tuple header (points at heapBox) or null */
  heap: HeapFields | null;
  btree: BtreeFields | null;
  /** a GiST or hash item (a fresh object: these pages are not the hot path) or null */
  index: IndexItemDump | null;
  /** a BRIN range summary, or null */
  brin: BrinItemDump | null;
  hex?: string;
  readonly heapBox: HeapFields;
  readonly btreeBox: BtreeFields;
}

const newHeapFields = (): HeapFields => ({ t_xmin: 0, t_xmax: 0, t_field3: 0, ctidBlock: 0, ctidOffset: 0, t_infomask2: 0, t_infomask: 0, t_hoff: 0, natts: 0, flags: [], hasBits: false, state: undefined, values: undefined, lines: undefined, hasLines: false });
// A plain literal (not a spread): every slot gets the same fast object shape.
const newBtreeFields = (): BtreeFields => ({
  tidBlock: 0,
  tidOffset: 0,
  itemlen: 0,
  nulls: false,
  vars: false,
  dataStart: 0,
  dataLen: 0,
  dead: null,
  htidBlock: -1,
  htidOffset: 0,
  postingStart: 0,
  postingCount: -1,
  kind: "tuple",
  keys: undefined,
  lines: undefined,
  hasLines: false,
});

/** One page's dump, in reusable slots: valid until the next scan into the same record. */
export class PageRecord {
  page: Uint8Array = new Uint8Array(0);
  block = 0;
  file = "";
  fileOffset = 0;
  am = "unknown";
  kind = "unknown";
  isNew = false;
  header: DumpHeader | undefined = undefined;
  special: Record<string, unknown> | undefined = undefined;
  meta: Record<string, unknown> | undefined = undefined;
  ginData: GinDataPageDump | undefined = undefined;
  revmap: string[] | undefined = undefined;
  findings: Finding[] = [];
  /** items in use: items[0 .. n) */
  n = 0;
  readonly items: ItemRecord[] = [];
  /** the value bytes of the items' value lines (HeapFields.lines) */
  readonly valueBytes = new ScratchOut();

  reset(page: Uint8Array, block: number, file: string, fileOffset: number, am: string): void {
    this.page = page;
    this.block = block;
    this.file = file;
    this.fileOffset = fileOffset;
    this.am = am;
    this.kind = "unknown";
    this.isNew = false;
    this.header = undefined;
    this.special = undefined;
    this.meta = undefined;
    this.ginData = undefined;
    this.revmap = undefined;
    this.findings = [];
    this.n = 0;
    this.valueBytes.pos = 0;
  }

  /** The next item slot, with its line pointer set and no decoded content. */
  addItem(lp: number, lp_off: number, lp_flags: number, lp_len: number): ItemRecord {
    let it = this.items[this.n];
    if (!it) {
      it = { lp: 0, lp_off: 0, lp_flags: 0, lp_len: 0, heap: null, btree: null, index: null, brin: null, hex: undefined, heapBox: newHeapFields(), btreeBox: newBtreeFields() };
      this.items.push(it);
    }
    this.n++;
    it.lp = lp;
    it.lp_off = lp_off;
    it.lp_flags = lp_flags;
    it.lp_len = lp_len;
    it.heap = null;
    it.btree = null;
    it.index = null;
    it.brin = null;
    it.hex = undefined;
    return it;
  }
}

/** How many t_bits characters pageinspect shows: every bit of the bitmap's bytes that lie inside the tuple. */
export function tBitsShown(it: ItemRecord): number {
  return Math.max(0, Math.min(((it.heap!.natts + 7) >> 3) * 8, (it.lp_len - 23) * 8));
}

/** pageinspect's t_bits: one character per attribute bit, '1' = present. */
export function tBitsText(page: Uint8Array, it: ItemRecord): string {
  let s = "";
  for (let k = 0, n = tBitsShown(it); k < n; k++) s += (page[it.lp_off + 23 + (k >> 3)]! >> (k & 7)) & 1 ? "1" : "0";
  return s;
}

/** The plain DumpPage of a record (a deep copy: it stays valid after the record is reused). */
export function recordToDumpPage(r: PageRecord): DumpPage {
  const dv = new DataView(r.page.buffer, r.page.byteOffset, r.page.byteLength);
  const items: DumpItem[] = new Array(r.n);
  for (let i = 0; i < r.n; i++) items[i] = toDumpItem(r.page, dv, r.items[i]!);
  const out: DumpPage = { block: r.block, file: r.file, fileOffset: r.fileOffset, am: r.am, kind: r.kind, isNew: r.isNew, items, findings: r.findings };
  if (r.header) out.header = r.header;
  if (r.special) out.special = r.special;
  if (r.meta) out.meta = r.meta;
  if (r.ginData) out.ginData = r.ginData;
  if (r.revmap) out.revmap = r.revmap;
  return out;
}

function toDumpItem(page: Uint8Array, dv: DataView, it: ItemRecord): DumpItem {
  const d: DumpItem = { lp: it.lp, lp_off: it.lp_off, lp_flags: it.lp_flags, flag: LP_FLAG_NAMES[it.lp_flags]!, lp_len: it.lp_len };
  const h = it.heap;
  if (h) {
    const heap: HeapItemDump = {
      t_xmin: h.t_xmin,
      t_xmax: h.t_xmax,
      t_field3: h.t_field3,
      t_ctid: `(${h.ctidBlock},${h.ctidOffset})`,
      t_infomask2: h.t_infomask2,
      t_infomask: h.t_infomask,
      t_hoff: h.t_hoff,
      natts: h.natts,
      flags: h.flags,
    };
    if (h.hasBits) heap.t_bits = tBitsText(page, it);
    if (h.state !== undefined) heap.state = h.state;
    if (h.values) heap.values = h.values;
    d.heap = heap;
  }
  const b = it.btree;
  if (b) {
    const tids = btPostingTids(dv, b);
    d.btree = {
      ctid: `(${b.tidBlock},${b.tidOffset})`,
      nulls: b.nulls,
      vars: b.vars,
      data: hexSpaced(page, b.dataStart, b.dataLen),
      dead: b.dead,
      htid: b.htidBlock < 0 ? null : `(${b.htidBlock},${b.htidOffset})`,
      tids: tids ? tids.map(tidText) : null,
      kind: b.kind,
    };
    if (b.keys) d.btree.keys = b.keys;
  }
  if (it.index) d.index = it.index;
  if (it.brin) d.brin = it.brin;
  if (it.hex !== undefined) d.hex = it.hex;
  return d;
}
