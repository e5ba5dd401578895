// Lay out a btree from a sorted stream of leaf tuples exactly as CREATE INDEX does (nbtsort.c;
// pg-format-facts.md §7.9): deduplication into posting lists, leaf pages filled to the leaf
// fillfactor, suffix-truncated high keys, upper levels filled to 70%, blocks numbered in allocation
// order, the metapage last. With `prefix`, leaf pages are filled in coded sizes and written as
// BTP_PREFIX pages (new-formats.md §2.6 rebuild); a page that would not save enough is laid out as
// the stock build would have laid it out from the same item. Pages go to a sink in completion
// order (not block order); the caller puts them in place.
import { FormatError } from "../schema/errors.js";
import { LP_NORMAL, SizeOfItemIdData } from "../page/item-id.js";
import { maxAlign } from "../page/page.js";
import { BTO, BTP_LEAF, BTP_PREFIX, BTP_ROOT, P_NONE, SizeOfBTPageOpaqueData } from "./opaque.js";
import { BT_IS_POSTING, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK, SizeOfIndexTupleData, tInfoRaw } from "./index-tuple.js";
import { attrSlots, formPivot, keepNatts, keysImageEqual, type KeySpec } from "./pivot.js";
import type { AttrSlot } from "../heap/deform.js";
import { buildMaxPostingSize, expandPosting, formPostingPacked, isPostingTuple } from "./posting.js";
import { grown } from "../schema/bytes.js";
import { buildMetaPage, initBtreePage, StockPage } from "./stock-page.js";
import { btMaxItemSize, computeC, encodeDirectory, highKeyTerm, mayShrinkCoded, prefixSavesEnough, prefixTerm, prefixUsable, splitFitOk } from "./prefix.js";
import { codableKey, pagePlanner, type LeadPolicy, type PagePlanner } from "./prefix-policy.js";
import { layoutLeafPage } from "./prefix-page.js";

export const BTREE_DEFAULT_FILLFACTOR = 90;
export const BTREE_MIN_FILLFACTOR = 10;
export const BTREE_NONLEAF_FILLFACTOR = 70;

export interface BuildOptions {
  blcksz?: number;
  spec: KeySpec;
  /** the index's fillfactor reloption (leaf pages), default 90 */
  leafFillfactor?: number;
  /** deduplicate into posting lists: non-unique, allequalimage, deduplicate_items on, no INCLUDE */
  deduplicate: boolean;
  /** btm_allequalimage for the metapage */
  allequalimage: boolean;
  /** write BTP_PREFIX leaf pages with this lead policy */
  prefix?: { policy: LeadPolicy } | null;
}

/** One leaf page as written. Sizes count items with their line pointers. */
export interface LeafPageStat {
  block: number;
  coded: boolean;
  /** data items (not the high key, not the directory) */
  items: number;
  postings: number;
  groups: number;
  /** T: what the data items take uncoded */
  plainBytes: number;
  /** C: what they take coded, directory included (= plainBytes on a plain page) */
  codedBytes: number;
}

export interface BuildResult {
  /** blocks written, metapage included */
  nblocks: number;
  root: number;
  level: number;
  /** pages per level, leaf first */
  pagesPerLevel: number[];
  /** leaf data items written (posting tuples count once) */
  leafItems: number;
  /** heap TIDs in the leaf level */
  heapTids: number;
  postingTuples: number;
  leafCoded: number;
  leafPlain: number;
  /** high keys kept with more attributes than PostgreSQL might, because a key type could not be compared exactly */
  uncertainPivots: number;
}

export type PageSink = (blkno: number, page: Uint8Array) => void;

/**
 * Leaf tuples in index order, pulled one at a time as (buf, off, len) references: the builder's
 * input without an object or a subarray per tuple (the loader hands out its tuple store's buffer).
 */
export interface LeafSource {
  /** Point `out` at the next tuple and return true, or return false at the end. */
  next(out: TupleRef): boolean;
}

/** Where one tuple lies: buf[off, off + len). Reused for every tuple. */
export class TupleRef {
  buf: Uint8Array = new Uint8Array(0);
  off = 0;
  len = 0;
}

/** A LeafSource over tuples given one array each. */
export function arraySource(tuples: Iterable<Uint8Array>): LeafSource {
  const it = tuples[Symbol.iterator]();
  return {
    next(out: TupleRef): boolean {
      const r = it.next();
      if (r.done) return false;
      out.buf = r.value;
      out.off = 0;
      out.len = r.value.length;
      return true;
    },
  };
}

/**
 * A pull-through window over the leaf item stream, by absolute index, dropped once used: each
 * item is buf[off, off + len) with its posting-list bytes (_bt_buildadd's truncextra, 0 for a
 * plain tuple), held in columns (no object per item).
 */
class Lookahead {
  private bufs: Uint8Array[] = [];
  private offs = new Int32Array(1024);
  private lens = new Int32Array(1024);
  private extras = new Int32Array(1024);
  /** items held: [head, end) of the columns are items [base, base + end - head) */
  private head = 0;
  private end = 0;
  private base = 0;
  private done = false;
  constructor(private readonly items: LeafItems) {}

  /** Append an item (LeafItems calls this). */
  push(buf: Uint8Array, off: number, len: number, extra: number): void {
    if (this.end === this.offs.length) {
      if (this.head > 0) {
        // slide the window down to the start of the columns
        const n = this.end - this.head;
        this.offs.copyWithin(0, this.head, this.end);
        this.lens.copyWithin(0, this.head, this.end);
        this.extras.copyWithin(0, this.head, this.end);
        this.bufs.copyWithin(0, this.head, this.end);
        this.head = 0;
        this.end = n;
      }
      if (this.end === this.offs.length) {
        this.offs = grown(this.offs, this.end + 1);
        this.lens = grown(this.lens, this.end + 1);
        this.extras = grown(this.extras, this.end + 1);
      }
    }
    const k = this.end++;
    this.bufs[k] = buf;
    this.offs[k] = off;
    this.lens[k] = len;
    this.extras[k] = extra;
  }
  /** The column slot of item i, or -1 past the end of the stream. */
  slot(i: number): number {
    let k = i - this.base + this.head;
    while (k >= this.end) {
      if (this.done) return -1;
      if (!this.items.next(this)) this.done = true;
      k = i - this.base + this.head;
    }
    return k;
  }
  has(i: number): boolean {
    return this.slot(i) >= 0;
  }
  /** Its length (t_info's size). */
  len(i: number): number {
    return this.lens[this.slot(i)]!;
  }
  extra(i: number): number {
    return this.extras[this.slot(i)]!;
  }
  buf(i: number): Uint8Array {
    return this.bufs[this.slot(i)]!;
  }
  off(i: number): number {
    return this.offs[this.slot(i)]!;
  }
  /** Item i as an array of its own bytes (a view: for the once-per-page paths). */
  tuple(i: number): Uint8Array {
    const k = this.slot(i);
    const o = this.offs[k]!;
    return this.bufs[k]!.subarray(o, o + this.lens[k]!);
  }
  /** Is item i a posting-list tuple (isPostingTuple)? */
  isPosting(i: number): boolean {
    const k = this.slot(i);
    const b = this.bufs[k]!;
    const o = this.offs[k]!;
    return ((b[o + 6]! | (b[o + 7]! << 8)) & INDEX_ALT_TID_MASK) !== 0 && ((b[o + 4]! | (b[o + 5]! << 8)) & BT_IS_POSTING) !== 0;
  }
  /** The heap TIDs of item i (a posting list's count, else 1). */
  heapTids(i: number): number {
    if (!this.isPosting(i)) return 1;
    const k = this.slot(i);
    const b = this.bufs[k]!;
    const o = this.offs[k]!;
    return b[o + 4]! | ((b[o + 5]! & 0x0f) << 8);
  }
  release(upTo: number): void {
    const drop = upTo - this.base;
    // the dropped items' arrays are let go (a posting list is its own array)
    for (let k = this.head; k < this.head + drop && k < this.end; k++) this.bufs[k] = EMPTY;
    this.head += drop;
    this.base = upTo;
  }
}

const EMPTY = new Uint8Array(0);
const sizeOf = (t: Uint8Array): number => tInfoRaw(t) & INDEX_SIZE_MASK;
const sizeAt = (b: Uint8Array, o: number): number => (b[o + 6]! | (b[o + 7]! << 8)) & INDEX_SIZE_MASK;
/** Same t_info and the same key bytes (everything after the header). */
function keyBytesEqualAt(a: Uint8Array, ao: number, b: Uint8Array, bo: number): boolean {
  if (a[ao + 6] !== b[bo + 6] || a[ao + 7] !== b[bo + 7]) return false;
  const n = sizeAt(a, ao);
  for (let i = SizeOfIndexTupleData; i < n; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

/**
 * The tuples CREATE INDEX would add to the leaf level: plain tuples, or posting lists (_bt_load),
 * each plain one no larger than `maxItem` (BTMaxItemSize), pushed into the lookahead one at a
 * time. No object per tuple: the plain ones are referenced where the source keeps them, a posting
 * list is one new array. This is the per-entry path of every build.
 */
class LeafItems {
  private readonly maxPosting: number;
  private readonly fixedOnly: boolean;
  private readonly ref = new TupleRef();
  /** the pending posting base: buf[off, off + len) */
  private baseBuf: Uint8Array | null = null;
  private baseOff = 0;
  private baseLen = 0;
  private baseSlots: AttrSlot[] | null = null;
  /** heap TIDs of the base's members (base first), six bytes each */
  private tids = new Uint8Array(6 * 256);
  private members = 0;
  /** the rest of an expanded posting-list input */
  private expanded: Uint8Array[] | null = null;
  private expandedAt = 0;
  private ended = false;

  constructor(
    private readonly src: LeafSource,
    private readonly o: BuildOptions,
    blcksz: number,
    private readonly maxItem: number,
  ) {
    this.maxPosting = buildMaxPostingSize(blcksz);
    this.fixedOnly = o.spec.desc.attrs.slice(0, o.spec.nkeyatts).every((a) => a.len > 0);
  }

  /** The next input tuple (posting lists expanded) into this.ref; false at the end. */
  private input(): boolean {
    const r = this.ref;
    if (this.expanded) {
      const t = this.expanded[this.expandedAt++]!;
      if (this.expandedAt === this.expanded.length) this.expanded = null;
      r.buf = t;
      r.off = 0;
      r.len = t.length;
    } else {
      if (!this.src.next(r)) return false;
      if (r.len < SizeOfIndexTupleData) throw new FormatError("BT_BUILD_BAD_TUPLE", `leaf tuple of ${r.len} bytes`);
      const info = r.buf[r.off + 6]! | (r.buf[r.off + 7]! << 8);
      if (info & INDEX_ALT_TID_MASK) {
        const input = r.buf.subarray(r.off, r.off + r.len);
        if (!isPostingTuple(input)) throw new FormatError("BT_BUILD_PIVOT_INPUT", "a pivot tuple is not a leaf tuple");
        const ex = expandPosting(input);
        this.expanded = ex.length > 1 ? ex : null;
        this.expandedAt = 1;
        r.buf = ex[0]!;
        r.off = 0;
        r.len = ex[0]!.length;
      }
    }
    const size = sizeAt(r.buf, r.off);
    if (maxAlign(size) > this.maxItem) throw new FormatError("BT_BUILD_TUPLE_TOO_LARGE", `index row of ${size} bytes exceeds the btree maximum ${this.maxItem}`);
    r.len = size;
    return true;
  }

  /** The pending base as a leaf item: itself, or the posting list of its members. */
  private finish(la: Lookahead): void {
    const b = this.baseBuf!;
    if (this.members === 1) la.push(b, this.baseOff, this.baseLen, 0);
    else {
      const p = formPostingPacked(b, this.baseOff, this.tids, this.members);
      la.push(p, 0, p.length, p.length - this.baseLen);
    }
    this.baseBuf = null;
  }

  /** Push at least one item into `la`; false when the stream has ended (nothing pushed). */
  next(la: Lookahead): boolean {
    if (this.ended) return false;
    const r = this.ref;
    if (!this.o.deduplicate) {
      if (!this.input()) {
        this.ended = true;
        return false;
      }
      la.push(r.buf, r.off, r.len, 0);
      return true;
    }
    for (;;) {
      if (!this.input()) {
        this.ended = true;
        if (!this.baseBuf) return false;
        this.finish(la);
        return true;
      }
      const t = r.buf;
      const to = r.off;
      let equal = false;
      let tSlots: AttrSlot[] | null = null;
      if (this.baseBuf) {
        if (keyBytesEqualAt(this.baseBuf, this.baseOff, t, to)) equal = true;
        else if (!this.fixedOnly) {
          // different bytes are different images unless a compressed copy hides an equal value
          const base = this.baseBuf.subarray(this.baseOff, this.baseOff + this.baseLen);
          const tt = t.subarray(to, to + r.len);
          this.baseSlots ??= attrSlots(base, this.o.spec.desc, this.o.spec.nkeyatts).slots;
          tSlots = attrSlots(tt, this.o.spec.desc, this.o.spec.nkeyatts).slots;
          if (compressed(this.baseSlots) || compressed(tSlots)) equal = keysImageEqual(base, tt, this.o.spec, this.baseSlots, tSlots);
        }
      }
      if (equal && maxAlign(this.baseLen + (this.members + 1) * 6) <= this.maxPosting) {
        this.addTid(t, to);
        continue;
      }
      const had = this.baseBuf !== null;
      if (had) this.finish(la);
      this.baseBuf = t;
      this.baseOff = to;
      this.baseLen = r.len;
      this.baseSlots = tSlots;
      this.members = 0;
      this.addTid(t, to);
      if (had) return true;
    }
  }

  private addTid(t: Uint8Array, at: number): void {
    if (this.tids.length < (this.members + 1) * 6) this.tids = grown(this.tids, (this.members + 1) * 6);
    const d = this.members++ * 6;
    for (let k = 0; k < 6; k++) this.tids[d + k] = t[at + k]!;
  }
}

const compressed = (slots: AttrSlot[]): boolean => slots.some((x) => x.varlena?.kind === "4b_c");

const minusInfinity = (from: Uint8Array | null): Uint8Array => {
  const m = new Uint8Array(SizeOfIndexTupleData);
  if (from) m.set(from.subarray(0, 4)); // the block (downlink) survives; the offset becomes natts 0
  m[6] = SizeOfIndexTupleData;
  m[7] = INDEX_ALT_TID_MASK >> 8;
  return m;
};
const setDownlink = (t: Uint8Array, blk: number): void => {
  const dv = new DataView(t.buffer, t.byteOffset, t.byteLength);
  dv.setUint16(0, Math.floor(blk / 65536), true);
  dv.setUint16(2, blk & 0xffff, true);
};

class Builder {
  readonly bs: number;
  private alloced = 1; // block 0 is the metapage
  readonly pagesPerLevel: number[] = [];
  constructor(
    readonly o: BuildOptions,
    readonly sink: PageSink,
  ) {
    this.bs = o.blcksz ?? 8192;
  }
  alloc(level: number): number {
    this.pagesPerLevel[level] = (this.pagesPerLevel[level] ?? 0) + 1;
    return this.alloced++;
  }
  get nblocks(): number {
    return this.alloced;
  }
}

/** One upper level: _bt_buildadd for level > 0 on a real page image. */
class UpperLevel {
  page: StockPage;
  blkno: number;
  lowkey: Uint8Array | null = null;
  lastOff = 1; // P_HIKEY: the next item goes to P_FIRSTKEY
  parent: UpperLevel | null = null;
  private readonly full: number;

  constructor(
    private readonly b: Builder,
    readonly level: number,
  ) {
    this.page = new StockPage(b.bs, level);
    this.blkno = b.alloc(level);
    this.full = Math.floor((b.bs * (100 - BTREE_NONLEAF_FILLFACTOR)) / 100);
  }

  add(itup: Uint8Array): void {
    const sz = maxAlign(sizeOf(itup));
    const free = this.page.freeSpace;
    if (free < sz || (free < this.full && this.lastOff > 2)) {
      const opage = this.page;
      const oblk = this.blkno;
      const npage = new StockPage(this.b.bs, this.level);
      const nblk = this.b.alloc(this.level);
      const moved = opage.item(this.lastOff).slice();
      npage.add(minusInfinity(moved), SizeOfIndexTupleData);
      opage.moveLastToHighKey();
      this.parent ??= new UpperLevel(this.b, this.level + 1);
      setDownlink(this.lowkey!, oblk);
      this.parent.add(this.lowkey!);
      this.lowkey = moved.slice(0, sizeOf(moved));
      opage.setNext(nblk);
      npage.setPrev(oblk);
      this.b.sink(oblk, opage.page);
      this.page = npage;
      this.blkno = nblk;
      this.lastOff = 2;
    }
    if (this.lastOff === 1) this.lowkey = minusInfinity(null);
    this.lastOff++;
    if (this.lastOff === 2) this.page.add(minusInfinity(itup), SizeOfIndexTupleData);
    else this.page.add(itup, sz);
  }
}

/** A leaf page's content: items [start, end) of the stream; `moved` is the next page's first item. */
interface LeafPlan {
  start: number;
  end: number;
  /** index of the item that moves right (= end), or -1 on the rightmost page */
  moved: number;
}

class LeafLevel {
  private readonly la: Lookahead;
  private readonly full: number;
  private readonly usable: number;
  parent: UpperLevel | null = null;
  blkno = P_NONE;
  prev = P_NONE;
  lowkey: Uint8Array | null = null;
  leafItems = 0;
  heapTids = 0;
  postingTuples = 0;
  coded = 0;
  plain = 0;
  uncertainPivots = 0;
  /** the one page planner of a prefix build, reset for every page */
  private planner: PagePlanner | null = null;

  constructor(
    private readonly b: Builder,
    items: LeafItems,
    private readonly onLeaf?: (s: LeafPageStat) => void,
  ) {
    this.la = new Lookahead(items);
    const ff = b.o.leafFillfactor ?? BTREE_DEFAULT_FILLFACTOR;
    if (!Number.isInteger(ff) || ff < BTREE_MIN_FILLFACTOR || ff > 100) throw new FormatError("BT_BUILD_BAD_FILLFACTOR", `fillfactor ${ff} is outside 10..100`);
    this.full = Math.floor((b.bs * (100 - ff)) / 100);
    this.usable = prefixUsable(b.bs);
  }

  private size(i: number): number {
    return maxAlign(this.la.len(i));
  }

  /** Where the stock build ends a page that starts with item s. */
  private stockPlan(s: number): LeafPlan {
    let n = 1;
    let sum = this.size(s);
    const la = this.la;
    for (let j = s + 1; ; j++) {
      if (!la.has(j)) return { start: s, end: j, moved: -1 };
      const room = this.usable - SizeOfItemIdData * (n + 1) - sum;
      const free = room < SizeOfItemIdData ? 0 : room - SizeOfItemIdData;
      const sz = maxAlign(la.len(j));
      if (n >= 2 && (free < sz + 8 || free + la.extra(j - 1) < this.full)) return { start: s, end: j - 1, moved: j - 1 };
      n++;
      sum += sz;
    }
  }

  /** Does some item of the plan shrink when coded (mayShrinkCoded)? */
  private mayShrink(p: LeafPlan): boolean {
    for (let i = p.start; i < p.end; i++) if (mayShrinkCoded(this.la.tuple(i))) return true;
    return false;
  }

  /** The next codable key after item i in the stream (for the "lead" policy's choice). */
  private nextKey(i: number): Uint8Array | null {
    for (let k = i + 1; ; k++) {
      if (!this.la.has(k)) return null;
      const key = codableKey(this.la.tuple(k));
      if (key) return key;
    }
  }

  /**
   * Fill a page with coded items (new-formats.md §2.6 rebuild). The stock rule with the page's
   * free space measured as it stands coded: free = U - 4 (n + 2) - D - sum(MAXALIGN(coded)) - 4
   * (n data items, the directory's and the high key's line pointers, PageGetFreeSpace's one more;
   * D the directory's length). Before item x the page is finished when it holds at least two items
   * and free < MAXALIGN(x) + 8 (room for the high key x will become), or free + truncextra <
   * the fillfactor threshold, or the page finished with x's high key (at most MAXALIGN(x) + 8
   * bytes) would break the split-fit bound. The caller still checks the finished page (16 C <=
   * 15 T, split-fit with the real high key, physical fit) and falls back to the stock layout.
   */
  private codedPlan(s: number, policy: LeadPolicy): { plan: LeafPlan; planner: PagePlanner } {
    const planner = (this.planner ??= pagePlanner(policy));
    planner.reset();
    let T = 0;
    let M = 0;
    const push = (j: number): void => {
      const t = this.la.tuple(j);
      planner.push(t, () => this.nextKey(j));
      const term = prefixTerm(sizeOf(t));
      T += term;
      if (term > M) M = term;
    };
    push(s);
    for (let j = s + 1; ; j++) {
      if (!this.la.has(j)) return { plan: { start: s, end: j, moved: -1 }, planner };
      const n = j - s;
      const room = this.usable - SizeOfItemIdData * (n + 2) - planner.bytes;
      const free = room < SizeOfItemIdData ? 0 : room - SizeOfItemIdData;
      const sz = maxAlign(this.la.len(j));
      const hBound = sz + 8 + SizeOfItemIdData;
      if (n >= 2 && (free < sz + 8 || free + this.la.extra(j - 1) < this.full || !splitFitOk(T, hBound, M, this.b.bs))) {
        return { plan: { start: s, end: j - 1, moved: j - 1 }, planner };
      }
      push(j);
    }
  }

  /** The high key between the page's last item and the moved one. */
  private highKey(p: LeafPlan): { pivot: Uint8Array | null; uncertain: boolean } {
    if (p.moved < 0) return { pivot: null, uncertain: false };
    const lastleft = this.la.tuple(p.end - 1);
    const firstright = this.la.tuple(p.moved);
    const d = keepNatts(lastleft, firstright, this.b.o.spec);
    return { pivot: formPivot(lastleft, firstright, d, this.b.o.spec), uncertain: d.uncertain };
  }

  /** Replay the stock page operations for a plain page. */
  private stockPage(p: LeafPlan, hikey: Uint8Array | null): StockPage {
    const page = new StockPage(this.b.bs, 0);
    const last = p.moved >= 0 ? p.moved : p.end - 1;
    const la = this.la;
    for (let i = p.start; i <= last; i++) {
      const n = la.len(i);
      page.addFrom(la.buf(i), la.off(i), n, maxAlign(n));
    }
    if (hikey) {
      page.moveLastToHighKey();
      page.overwrite(1, hikey);
    } else page.slideLeft();
    return page;
  }

  /** A BTP_PREFIX page for the plan, or null when it must stay plain. */
  private prefixPage(p: LeafPlan, hikey: Uint8Array | null, planner: PagePlanner): { page: Uint8Array; stat: Omit<LeafPageStat, "block"> } | null {
    const n = p.end - p.start;
    let T = 0;
    let M = 0;
    for (let k = 0; k < n; k++) {
      const term = prefixTerm(this.la.len(p.start + k));
      T += term;
      if (term > M) M = term;
    }
    // what the planner says the items and directory take (C = that + their line pointers) is
    // what they take coded: a page that would not save enough is not coded at all
    if (!prefixSavesEnough(planner.bytesAt(n) + SizeOfItemIdData * (n + 1), T)) return null;
    const c = planner.finish(n);
    const ngroups = c.groups.length;
    if (ngroups === 0) return null; // only posting tuples
    let dir: Uint8Array;
    try {
      dir = encodeDirectory(c.groups, T, M);
    } catch {
      return null;
    }
    const items = c.coded;
    const C = computeC(items.map((x) => x.length), dir.length);
    if (!prefixSavesEnough(C, T)) return null;
    if (!splitFitOk(T, highKeyTerm(hikey ? hikey.length : null), M, this.b.bs)) return null;
    const template = initBtreePage(this.b.bs, 0, BTP_LEAF | BTP_PREFIX);
    const list = [...(hikey ? [{ lpFlags: LP_NORMAL, tuple: hikey }] : []), { lpFlags: LP_NORMAL, tuple: dir }, ...items.map((tuple) => ({ lpFlags: LP_NORMAL, tuple }))];
    const page = layoutLeafPage(template, list, BTP_LEAF | BTP_PREFIX);
    if (!page) return null;
    let postings = 0;
    for (let k = 0; k < n; k++) if (c.groupOf[k]! < 0) postings++;
    return { page, stat: { coded: true, items: n, postings, groups: ngroups, plainBytes: T, codedBytes: C } };
  }

  run(): void {
    const o = this.b.o;
    let s = 0;
    if (!this.la.has(0)) return;
    this.blkno = this.b.alloc(0);
    this.lowkey = minusInfinity(null);
    for (;;) {
      let chosen: { plan: LeafPlan; hk: { pivot: Uint8Array | null; uncertain: boolean }; page: Uint8Array; stat: Omit<LeafPageStat, "block"> } | null = null;
      // the stock page from item s: the layout without prefix, and the fallback with it
      const stock = this.stockPlan(s);
      // a coded page never holds more items than the stock page (its items never take less than
      // plain, line pointers and directory aside), so when no item there can shrink coded, the
      // coded page would fail 16 C <= 15 T: no need to plan it
      if (o.prefix && this.mayShrink(stock)) {
        const c = this.codedPlan(s, o.prefix.policy);
        const hk = this.highKey(c.plan);
        const pp = this.prefixPage(c.plan, hk.pivot, c.planner);
        if (pp) chosen = { plan: c.plan, hk, page: pp.page, stat: pp.stat };
      }
      if (!chosen) {
        // the stock layout (with prefix: measured coded, but it must stay plain, so laid out from the same first item as the stock build would)
        const plan = stock;
        const hk = this.highKey(plan);
        let T = 0;
        let postings = 0;
        for (let i = plan.start; i < plan.end; i++) {
          T += prefixTerm(this.la.len(i));
          if (this.la.isPosting(i)) postings++;
        }
        chosen = { plan, hk, page: this.stockPage(plan, hk.pivot).page, stat: { coded: false, items: plan.end - plan.start, postings, groups: 0, plainBytes: T, codedBytes: T } };
      }
      const { plan, hk, page, stat } = chosen;
      if (hk.uncertain) this.uncertainPivots++;
      for (let i = plan.start; i < plan.end; i++) {
        this.leafItems++;
        if (this.la.isPosting(i)) {
          this.postingTuples++;
          this.heapTids += this.la.heapTids(i);
        } else this.heapTids++;
      }
      if (stat.coded) this.coded++;
      else this.plain++;
      const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
      const special = page.length - SizeOfBTPageOpaqueData;
      dv.setUint32(special + BTO.btpo_prev, this.prev, true);
      if (plan.moved < 0) {
        // the rightmost leaf: _bt_uppershutdown links it to its parent, or makes it the root
        if (this.parent) {
          setDownlink(this.lowkey!, this.blkno);
          this.parent.add(this.lowkey!);
        } else dv.setUint16(special + BTO.btpo_flags, dv.getUint16(special + BTO.btpo_flags, true) | BTP_ROOT, true);
        this.onLeaf?.({ block: this.blkno, ...stat });
        this.b.sink(this.blkno, page);
        return;
      }
      const next = this.b.alloc(0);
      this.parent ??= new UpperLevel(this.b, 1);
      setDownlink(this.lowkey!, this.blkno);
      this.parent.add(this.lowkey!);
      this.lowkey = hk.pivot!.slice();
      dv.setUint32(special + BTO.btpo_next, next, true);
      this.onLeaf?.({ block: this.blkno, ...stat });
      this.b.sink(this.blkno, page);
      this.prev = this.blkno;
      this.blkno = next;
      s = plan.moved;
      this.la.release(s);
    }
  }
}

/**
 * Build an index from leaf tuples in index order (key order, then heap TID), one heap TID each
 * (posting tuples are expanded first). Pages reach `sink` as they are finished; block 0, the
 * metapage, comes last. Returns the shape of what was written.
 */
export function buildBtree(tuples: Iterable<Uint8Array> | LeafSource, o: BuildOptions, sink: PageSink, onLeaf?: (s: LeafPageStat) => void): BuildResult {
  const b = new Builder(o, sink);
  const maxItem = btMaxItemSize(b.bs);
  const src = Symbol.iterator in tuples ? arraySource(tuples) : tuples;
  const leaf = new LeafLevel(b, new LeafItems(src, o, b.bs, maxItem), onLeaf);
  leaf.run();
  let root = P_NONE;
  let level = 0;
  if (leaf.blkno !== P_NONE) {
    if (!leaf.parent) root = leaf.blkno;
    for (let lvl = leaf.parent; lvl; lvl = lvl.parent) {
      if (!lvl.parent) {
        lvl.page.orFlags(BTP_ROOT);
        root = lvl.blkno;
        level = lvl.level;
      } else {
        setDownlink(lvl.lowkey!, lvl.blkno);
        lvl.parent.add(lvl.lowkey!);
      }
      lvl.page.slideLeft();
      sink(lvl.blkno, lvl.page.page);
    }
  }
  sink(0, buildMetaPage(b.bs, root, level, o.allequalimage));
  return {
    nblocks: b.nblocks,
    root,
    level,
    pagesPerLevel: b.pagesPerLevel,
    leafItems: leaf.leafItems,
    heapTids: leaf.heapTids,
    postingTuples: leaf.postingTuples,
    leafCoded: leaf.coded,
    leafPlain: leaf.plain,
    uncertainPivots: leaf.uncertainPivots,
  };
}

