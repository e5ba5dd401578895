// bt_index_parent_check for a stopped cluster, in two passes over a B-tree index.
// Pass 1 reads every block in order: page checks, the metapage, palloc_btree_page's per-page
// checks, BTP_PREFIX decoding and its invariants, then bt_target_page_check's page-local
// checks (tuple sizes and attribute counts, posting lists, size limits, high key and item
// order) and hands leaf tuples to the heapallindexed collector. Pass 2 walks the tree as
// bt_check_every_level does, level by level from the true root: sibling links, levels, the
// cross-page order check and the parent/child checks (lower bounds, child high keys, missing
// downlinks). Messages are amcheck's; a structural error stops the walk as amcheck's ERROR
// would, order violations are all reported.
import type { Location, Severity } from "../../formats/schema/errors.js";
import { FormatError } from "../../formats/schema/errors.js";
import { BTREE_MAGIC, BTREE_MIN_VERSION, BTREE_VERSION, readBTMeta, type BTMetaPage } from "../../formats/nbtree/meta.js";
import { BT_PIVOT_HEAP_TID_ATTR, P_HIKEY } from "../../formats/nbtree/index.js";
import { btMaxItemSize } from "../../formats/nbtree/prefix.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { readWholeFork, scanPages, type WholeForkBuffer } from "../scan.js";
import { BlockCache } from "../block-cache.js";
import type { FindingSink } from "../findings.js";
import { checkPage } from "../page-check.js";
import { CHECK_BY_CODE } from "../../formats/codes/checks.js";
import { BtPage } from "./bt-page.js";
import { EQUALIMAGE_TYPES } from "../../formats/order/procs.js";
import { btCompare, KeyView, NO_TID, TupleInfo, tidText, type IndexKeys } from "../../formats/nbtree/bt-compare.js";
import { viewOf } from "../page-view.js";
import type { CheckCode } from "../../formats/codes/checks.js";
import { tidKeyAt } from "../../formats/page/item-pointer.js";

export interface LeafCollector {
  /** a non-pivot leaf tuple not marked LP_DEAD (posting tuples included); `kv`: its attributes already walked (all of them), when they were */
  add(t: TupleInfo, blk: number, off: number, kv?: KeyView | null): void;
}

export interface BtreeTarget {
  fork: RelationFork;
  relName: string;
  blockSize: number;
  checksums: boolean;
  checksumSeverity?: Severity;
  /** key layout and comparators; null for a lone file (no descriptor) */
  keys: IndexKeys | null;
  /** opclass input types of the key columns (equalimage check); empty when unknown */
  opcintypes: number[];
  collector?: LeafCollector;
  /** search every leaf tuple from the root (bt_index_parent_check's rootdescend) */
  rootdescend?: boolean;
  /** pages done, for progress (one function for the whole run; see HeapTarget.onPages) */
  onPages?: (n: number) => void;
  /** where an index read whole goes (reused; nothing read from it outlives run()) */
  wholeBuffer?: WholeForkBuffer;
}

export interface BtreeStats {
  pages: number;
  leafTuples: number;
  levels: number;
}

const P_NONE = 0;
const INVALID = -1;
const PAGE_NEW = 1;
const PAGE_OK = 2;

class Stop extends Error {}

/** Indexes up to this size are held in memory for the walk. */
const WHOLE_LIMIT = 256 * 2 ** 20;


export class BtreeVerifier {
  readonly stats: BtreeStats = { pages: 0, leafTuples: 0, levels: 0 };
  private state!: Uint8Array;
  private readonly badItems = new Map<number, Set<number>>();
  private cache!: BlockCache;
  /**
   * Stock pages that passed pass 1, kept for the walk when the index is held in memory (their
   * bytes stay valid): the walk visits each page two or three times and would otherwise parse
   * it again, with the same result (pass 1's broken items are what badItems gives a new one).
   */
  private parsed: (BtPage | undefined)[] | null = null;
  /**
   * orderClean[blk] = 1: pass 1 found every data item of the page usable and each below its right
   * neighbour (judged, none unknown). bt_child_check then needs only the child's first item: the
   * items form an ascending chain in one total order, so a parent key below the first is below all.
   */
  private orderClean!: Uint8Array;
  private meta: BTMetaPage | null = null;
  private heapkeyspace = true;
  private natts = 0;
  private nkeyatts = 0;
  private readonly maxItem: number;
  private readonly maxItemNoHeapTid: number;
  private readonly maxIndexTuples: number;
  // scratch (no allocation per item)
  /** set by invariantL when a comparison could not be judged */
  private unknown = false;
  private readonly A = new TupleInfo();
  private readonly B = new TupleInfo();
  private readonly H = new TupleInfo();
  private readonly av = new KeyView();
  private readonly bv = new KeyView();
  private readonly hv = new KeyView();
  // level walk state
  private target!: BtPage;
  private prevrightlink = INVALID;
  private previncompletesplit = false;
  /** the left sibling's high key (bytes [0, lowkeyLen) of lowkeyBuf, copied: the page's buffer may be reused), -1: none */
  private lowkeyLen = -1;
  private lowkeyBuf = new Uint8Array(256);
  private reportedBlocks = new Set<string>();

  constructor(
    readonly t: BtreeTarget,
    readonly sink: FindingSink,
  ) {
    const bs = t.blockSize;
    this.maxItem = btMaxItemSize(bs);
    // BTMaxItemSizeNoHeapTid: MAXALIGN_DOWN((PageGetPageSize - MAXALIGN(SizeOfPageHeaderData + 3*sizeof(ItemIdData)) - MAXALIGN(sizeof(BTPageOpaqueData))) / 3)
    this.maxItemNoHeapTid = Math.floor((bs - ((24 + 12 + 7) & ~7) - 16) / 3) & ~7;
    this.maxIndexTuples = Math.floor((bs - 24) / (8 + 4));
    if (t.keys) {
      this.natts = t.keys.natts;
      this.nkeyatts = t.keys.nkeyatts;
      this.heapkeyspace = t.keys.heapkeyspace;
    }
  }

  private rel(): string {
    return this.t.relName;
  }

  private at(blk: number, item?: number, extra: Location = {}): Location {
    return { file: this.t.fork.fileOf(blk).path, block: blk, ...(item !== undefined ? { item } : {}), ...extra };
  }

  run(): BtreeStats {
    const t = this.t;
    const n = t.fork.nblocks;
    this.state = new Uint8Array(n);
    this.orderClean = new Uint8Array(n);
    // An index up to WHOLE_LIMIT is read into memory once: pass 2 revisits every page (each
    // leaf through its parent's downlink, and again as a level is walked) without reading again.
    const whole = readWholeFork(t.fork, WHOLE_LIMIT, t.wholeBuffer);
    try {
      return this.checkPages(whole);
    } finally {
      // the pages (and the BtPages over them) are not used after this: the buffer is reused
      this.parsed = null;
      if (whole) t.wholeBuffer?.give(whole);
    }
  }

  private checkPages(whole: Uint8Array | null): BtreeStats {
    const t = this.t;
    const n = t.fork.nblocks;
    if (whole) this.parsed = new Array<BtPage | undefined>(n);
    if (whole) {
      const first = t.fork.firstBlock;
      const bs = t.blockSize;
      for (let blk = first; blk < n; blk++) {
        this.stats.pages++;
        t.onPages?.(1);
        this.pass1(blk, whole.subarray((blk - first) * bs, (blk - first + 1) * bs));
      }
    } else {
      for (const [blk, raw] of scanPages(t.fork)) {
        this.stats.pages++;
        t.onPages?.(1);
        this.pass1(blk, raw);
      }
    }
    if (!this.meta) return this.stats;
    this.cache = new BlockCache(t.fork, 1024);
    if (whole) this.cache.useWhole(whole, t.fork.firstBlock);
    try {
      this.walk();
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
    }
    return this.stats;
  }

  // ---------------------------------------------------------------- pass 1

  private pass1(blk: number, raw: Uint8Array): void {
    const dv = viewOf(raw);
    const file = this.t.fork.fileOf(blk).path;
    const isMetaBlock = blk === 0;
    const v = checkPage(raw, dv, blk, file, this.sink, { am: "btree", blockSize: this.t.blockSize, checksums: this.t.checksums, checksumSeverity: this.t.checksumSeverity, relName: this.rel(), noItems: isMetaBlock });
    if (v.isNew) {
      this.state[blk] = PAGE_NEW;
      if (isMetaBlock) this.sink.add("BT_META_CORRUPT", `index "${this.rel()}" meta page is corrupt`, this.at(0), "Block 0 is an all-zero page.");
      return;
    }
    if (!v.usable) return;
    if (isMetaBlock) {
      this.checkMeta(raw);
      return;
    }
    if (v.badItems.size) this.badItems.set(blk, v.badItems);
    const p = new BtPage(blk, raw, v.badItems);
    if (!this.pageChecks(p)) {
      if (this.t.collector && p.leaf && !p.ignore && !p.isPrefix) this.collectOnly(p);
      return;
    }
    this.state[blk] = PAGE_OK;
    if (this.parsed && !p.isPrefix) this.parsed[blk] = p;
    if (p.isPrefix && !this.decodePrefix(p)) return;
    if (this.t.keys) this.pageLocalChecks(p);
    // items found broken here stay out of the walk's comparisons too
    let bad: Set<number> | undefined;
    for (let i = 1; i <= p.maxoff; i++) if (p.bad[i] && !(p.prefix && i === p.prefix.directoryOffset)) (bad ??= new Set(v.badItems)).add(i);
    if (bad) this.badItems.set(blk, bad);
  }

  private checkMeta(raw: Uint8Array): void {
    const p = new BtPage(0, raw);
    let m: BTMetaPage;
    try {
      m = readBTMeta(raw);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      this.sink.add("BT_META_CORRUPT", `index "${this.rel()}" meta page is corrupt`, this.at(0), e.message);
      return;
    }
    if (!p.meta || m.btm_magic !== BTREE_MAGIC) {
      this.sink.add("BT_META_CORRUPT", `index "${this.rel()}" meta page is corrupt`, this.at(0, undefined, { offset: 24, path: "btm_magic" }), `btpo_flags 0x${p.flags.toString(16)}, btm_magic 0x${m.btm_magic.toString(16)}.`);
      return;
    }
    if (m.btm_version < BTREE_MIN_VERSION || m.btm_version > BTREE_VERSION) {
      this.sink.add("BT_META_VERSION", `version mismatch in index "${this.rel()}": file version ${m.btm_version | 0}, current version ${BTREE_VERSION}, minimal supported version ${BTREE_MIN_VERSION}`, this.at(0, undefined, { offset: 28, path: "btm_version" }));
      return;
    }
    this.heapkeyspace = m.btm_version >= 4;
    if (this.t.keys) this.t.keys.heapkeyspace = this.heapkeyspace;
    if (m.btm_allequalimage && !this.heapkeyspace) this.sink.add("BT_META_EQUALIMAGE_OLD_VERSION", `index "${this.rel()}" metapage has equalimage field set on unsupported nbtree version`, this.at(0, undefined, { path: "btm_allequalimage" }));
    else if (m.btm_allequalimage && this.t.opcintypes.some((o) => !EQUALIMAGE_TYPES.has(o))) {
      this.sink.add("BT_META_EQUALIMAGE_WRONG", `index "${this.rel()}" metapage incorrectly indicates that deduplication is safe`, this.at(0, undefined, { path: "btm_allequalimage" }), `Key opclass input types: ${this.t.opcintypes.join(", ")}.`);
    }
    this.meta = m;
    this.state[0] = PAGE_OK;
  }

  /** palloc_btree_page's checks; false when the page cannot be used further. */
  private pageChecks(p: BtPage): boolean {
    const blk = p.blk;
    const r = this.rel();
    if (p.meta) {
      this.sink.add("BT_META_PAGE_ELSEWHERE", `invalid meta page found at block ${blk} in index "${r}"`, this.at(blk, undefined, { path: "btpo_flags" }));
      return false;
    }
    if (!p.deleted || p.hasFullXid) {
      if (p.leaf && p.level !== 0) {
        this.sink.add("BT_LEAF_LEVEL_NONZERO", `invalid leaf page level ${p.level} for block ${blk} in index "${r}"`, this.at(blk, undefined, { path: "btpo_level" }));
        return false;
      }
      if (!p.leaf && p.level === 0) {
        this.sink.add("BT_INTERNAL_LEVEL_ZERO", `invalid internal page level 0 for block ${blk} in index "${r}"`, this.at(blk, undefined, { path: "btpo_level" }));
        return false;
      }
    }
    if (p.maxoff > this.maxIndexTuples) {
      this.sink.add("BT_TOO_MANY_ITEMS", `Number of items on block ${blk} of index "${r}" exceeds MaxIndexTuplesPerPage (${this.maxIndexTuples})`, this.at(blk, undefined, { path: "pd_lower" }));
      return false;
    }
    if (!p.leaf && !p.deleted && p.maxoff < p.firstDataKey) {
      this.sink.add("BT_INTERNAL_TOO_FEW_ITEMS", `internal block ${blk} in index "${r}" lacks high key and/or at least one downlink`, this.at(blk));
      return false;
    }
    if (p.leaf && !p.deleted && !p.rightmost && p.maxoff < P_HIKEY) {
      this.sink.add("BT_LEAF_NO_HIGHKEY", `non-rightmost leaf block ${blk} in index "${r}" lacks high key item`, this.at(blk));
      return false;
    }
    if (!p.leaf && p.halfDead) {
      this.sink.add("BT_INTERNAL_HALF_DEAD", `internal page block ${blk} in index "${r}" is half-dead`, this.at(blk, undefined, { path: "btpo_flags" }));
      return false;
    }
    if (!p.leaf && p.hasGarbage) this.sink.add("BT_INTERNAL_HAS_GARBAGE", `internal page block ${blk} in index "${r}" has garbage items`, this.at(blk, undefined, { path: "btpo_flags" }));
    if (p.hasFullXid && !p.deleted) this.sink.add("BT_FULLXID_NOT_DELETED", `full transaction id page flag appears in non-deleted block ${blk} in index "${r}"`, this.at(blk, undefined, { path: "btpo_flags" }));
    if (p.deleted && p.halfDead) {
      this.sink.add("BT_DELETED_HALF_DEAD", `deleted page block ${blk} in index "${r}" is half-dead`, this.at(blk, undefined, { path: "btpo_flags" }));
      return false;
    }
    return true;
  }

  /** BTP_PREFIX invariants (§2.5); false when the items cannot be decoded. */
  private decodePrefix(p: BtPage): boolean {
    let r;
    try {
      r = p.decodePrefix(this.t.blockSize, this.meta?.btm_version ?? 4);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      // a line pointer the page checks already reported is not reported again
      if (CHECK_BY_CODE.has(e.code)) this.sink.fromError(e, this.at(p.blk));
      else if (e.code !== "LP_OUT_OF_PAGE") this.sink.fromError(e, this.at(p.blk), "PREFIX_PAGE_UNDECODABLE");
      p.undecodable = true;
      this.state[p.blk] = PAGE_OK;
      return false;
    }
    for (const f of r.findings) this.sink.fromError(f, this.at(p.blk));
    const used = new Set(r.items.filter((x) => x.coded).map((x) => x.group));
    for (let g = 0; g < r.directory.groups.length; g++) {
      if (!used.has(g)) this.sink.add("PREFIX_GROUP_EMPTY", `prefix directory group ${g} has no coded item`, this.at(p.blk, r.directoryOffset));
    }
    return true;
  }

  /** Leaf entries of a page the walk cannot use (its opaque fields are damaged) for heapallindexed. */
  private collectOnly(p: BtPage): void {
    for (let off = p.firstDataKey; off <= p.maxoff; off++) {
      if (p.bad[off] || p.dead[off]) continue;
      this.info(p, off, this.A);
      const A = this.A;
      if (!A.broken && !A.pivot && A.heapTid !== NO_TID && (!A.posting || A.postingOff + 6 * A.nposting <= A.size)) this.t.collector!.add(A, p.blk, off);
    }
  }

  private info(p: BtPage, off: number, into: TupleInfo): TupleInfo {
    return into.load(p.buf, p.start[off], p.len[off], this.natts);
  }

  private keyLoad(p: BtPage, off: number, ti: TupleInfo, kv: KeyView): boolean {
    return kv.load(ti, ti.nkeyatts(this.nkeyatts), this.t.keys!.attrs);
  }

  /** _bt_check_natts */
  private nattsOk(p: BtPage, off: number, ti: TupleInfo): boolean {
    if (p.ignore) return true;
    const tupnatts = ti.natts;
    if (!this.heapkeyspace && ti.posting) return false;
    if (ti.posting && ti.tidOff & BT_PIVOT_HEAP_TID_ATTR) return false;
    if (this.natts !== this.nkeyatts && ti.posting) return false;
    if (p.leaf) {
      if (off >= p.firstDataKey) {
        if (ti.pivot) return false;
        return tupnatts === this.natts;
      }
      if (!this.heapkeyspace) return tupnatts === this.nkeyatts;
    } else if (off === p.firstDataKey) {
      if (this.heapkeyspace) return tupnatts === 0;
      return tupnatts === 0 || ti.tidOff === P_HIKEY;
    } else if (!this.heapkeyspace) return tupnatts === this.nkeyatts;
    if (!ti.pivot) return false;
    if (ti.heapTid !== NO_TID && tupnatts !== this.nkeyatts) return false;
    return tupnatts > 0 && tupnatts <= this.nkeyatts;
  }

  private tidDesc(p: BtPage, ti: TupleInfo): string {
    // BTreeTupleGetPointsToTID
    return ti.pivot ? `(${ti.tidBlock},${ti.tidOff})` : tidText(ti.heapTid);
  }

  /** The per-tuple checks of bt_target_page_check that need no other page. */
  private pageLocalChecks(p: BtPage): void {
    if (p.ignore || p.undecodable) return;
    const blk = p.blk;
    const r = this.rel();
    const A = this.A;
    const kind = p.leaf ? "heap" : "index";
    if (!p.rightmost && !p.bad[P_HIKEY]) {
      this.info(p, P_HIKEY, this.H);
      if (this.H.broken || !this.nattsOk(p, P_HIKEY, this.H)) {
        this.sink.add("BT_HIGHKEY_NATTS", `wrong number of high key index tuple attributes in index "${r}"`, this.at(blk, P_HIKEY), `Index block=${blk} natts=${this.H.natts} block type=${kind} page lsn=${p.lsn}.`);
        p.bad[P_HIKEY] = 1;
      } else if (!this.keyLoad(p, P_HIKEY, this.H, this.hv)) {
        this.sink.add("BT_TUPLE_UNDECODABLE", `high key of block ${blk} in index "${r}" cannot be walked with the index's key attributes`, this.at(blk, P_HIKEY));
        p.bad[P_HIKEY] = 1;
      }
    }
    // A clean leaf's order is judged in this same pass (see orderedAfter for why comparing
    // each item with its right neighbour, and the last one and posting tuples with the high key,
    // is enough): the item read for the item checks is the one compared, so each is read once
    const hk = !p.rightmost && !p.bad[P_HIKEY];
    let ordered = p.leaf && this.heapkeyspace && !!this.t.keys && p.firstDataKey <= p.maxoff;
    let a = A;
    let av = this.av;
    let b = this.B;
    let bv = this.bv;
    for (let off = p.firstDataKey; off <= p.maxoff; off++) {
      if (p.bad[off]) {
        ordered = false;
        continue;
      }
      this.info(p, off, a);
      this.itemChecks(p, off, a, kind, av);
      // heapallindexed sees every leaf entry whose key and heap TIDs can be read, whatever else is
      // wrong with it (a wrong lp_len: the tuple's own size still says where its bytes end)
      let reloaded = false;
      if (!a.broken && a.size > p.len[off] && p.start[off] + a.size <= p.buf.length && !p.coded[off]) {
        a.load(p.buf, p.start[off], a.size, this.natts);
        reloaded = true;
      }
      if (p.leaf && !a.broken && !a.pivot && !p.dead[off] && (!a.posting || a.postingOff + 6 * a.nposting <= a.size) && a.heapTid !== NO_TID) {
        this.stats.leafTuples++;
        // itemChecks walked the key attributes into av; with no INCLUDE columns those are all of them
        this.t.collector?.add(a, blk, off, !reloaded && !p.bad[off] && this.natts === this.nkeyatts ? av : null);
      }
      if (!ordered) continue;
      if (p.bad[off]) {
        ordered = false;
        continue;
      }
      if (off > p.firstDataKey && !this.orderedAfter(p, b, bv, off, a, av, hk)) ordered = false;
      if (ordered && off === p.maxoff && hk && !this.belowHighKey(a, av)) ordered = false;
      // this item is the left neighbour of the next
      const t = a;
      a = b;
      b = t;
      const tv = av;
      av = bv;
      bv = tv;
    }
    if (ordered) {
      this.orderClean[blk] = 1;
      return;
    }
    // order: every item against the high key and its right neighbour
    let clean = true;
    this.unknown = false;
    for (let off = p.firstDataKey; off <= p.maxoff; off++) {
      if (p.bad[off]) clean = false;
      if (p.bad[off] || p.negInf(off)) continue;
      this.info(p, off, A);
      this.keyLoad(p, off, A, this.av);
      const keysz = A.nkeyatts(this.nkeyatts);
      const scantid = this.heapkeyspace ? A.heapTid : NO_TID;
      if (hk) {
        const maxTid = A.maxTid; // read for every tuple: the first posting tuple must not reach code without feedback
        const st = this.heapkeyspace && A.posting ? maxTid : scantid;
        const ok = p.leaf ? leq(btCompare(this.t.keys!, A, this.av, keysz, st, this.H, this.hv)) : this.invariantL(A, this.av, keysz, scantid, p, P_HIKEY, this.H, this.hv);
        if (!ok) this.sink.add("BT_HIGHKEY_VIOLATED", `high key invariant violated for index "${r}"`, this.at(blk, off), `Index tid=(${blk},${off}) points to ${p.leaf ? "heap" : "index"} tid=${this.tidDesc(p, A)} page lsn=${p.lsn}.`);
      }
      const nx = off + 1;
      if (nx <= p.maxoff && !p.bad[nx]) {
        this.info(p, nx, this.B);
        this.keyLoad(p, nx, this.B, this.bv);
        if (!this.invariantL(A, this.av, keysz, scantid, p, nx, this.B, this.bv)) {
          clean = false;
          this.sink.add(
            "BT_ITEM_ORDER",
            `item order invariant violated for index "${r}"`,
            this.at(blk, off),
            `Lower index tid=(${blk},${off}) (points to ${p.leaf ? "heap" : "index"} tid=${this.tidDesc(p, A)}) higher index tid=(${blk},${nx}) (points to ${p.leaf ? "heap" : "index"} tid=${this.tidDesc(p, this.B)}) page lsn=${p.lsn}.`,
          );
        }
      }
    }
    if (clean && !this.unknown) this.orderClean[blk] = 1;
  }

  // The order checks of a clean leaf, with fewer comparisons: when every data item is usable and
  // each is below its right neighbour (invariantL, judged, not unknown), A < B and B <= high key
  // give A <= high key, so the high key is compared with the last item only (and with each
  // posting tuple's greatest TID, which the neighbour check does not see). False from either:
  // the item-by-item loop runs and reports what it finds.

  /** Item `x` (the left neighbour, posting tuples checked against the high key) below item `off` (y). */
  private orderedAfter(p: BtPage, x: TupleInfo, xv: KeyView, off: number, y: TupleInfo, yv: KeyView, hk: boolean): boolean {
    if (hk && x.posting && !this.belowHighKey(x, xv)) return false;
    this.unknown = false;
    return this.invariantL(x, xv, x.nkeyatts(this.nkeyatts), x.heapTid, p, off, y, yv) && !this.unknown;
  }

  /** A leaf item (its greatest heap TID for a posting tuple) at or below the high key (this.H). */
  private belowHighKey(x: TupleInfo, xv: KeyView): boolean {
    const maxTid = x.maxTid;
    const heapTid = x.heapTid;
    const c = btCompare(this.t.keys!, x, xv, x.nkeyatts(this.nkeyatts), x.posting ? maxTid : heapTid, this.H, this.hv);
    return !Number.isNaN(c) && c <= 0;
  }

  /** Tuple checks of one data item; marks it bad when later comparisons cannot use it. */
  private itemChecks(p: BtPage, off: number, A: TupleInfo, kind: string, av: KeyView): void {
    const blk = p.blk;
    const r = this.rel();
    if (A.broken || (!p.coded[off] && A.size !== p.len[off])) {
      this.sink.add("BT_TUPLE_SIZE_LP_LEN", `index tuple size does not equal lp_len in index "${r}"`, this.at(blk, off), `Index tid=(${blk},${off}) tuple size=${A.broken ? "?" : A.size} lp_len=${p.len[off]} page lsn=${p.lsn}.`);
      p.bad[off] = 1;
      return;
    }
    if (!this.nattsOk(p, off, A)) {
      this.sink.add("BT_TUPLE_NATTS", `wrong number of index tuple attributes in index "${r}"`, this.at(blk, off), `Index tid=(${blk},${off}) natts=${A.natts} points to ${kind} tid=${this.tidDesc(p, A)} page lsn=${p.lsn}.`);
      p.bad[off] = 1;
      return;
    }
    if (p.negInf(off)) return;
    if (A.posting) {
      if (A.nposting < 1 || A.postingOff + 6 * A.nposting > A.size) {
        this.sink.add("BT_POSTING_OUT_OF_TUPLE", `posting list of ${A.nposting} TIDs at offset ${A.postingOff} does not fit the ${A.size}-byte tuple in index "${r}"`, this.at(blk, off));
        p.bad[off] = 1;
        return;
      }
      let last = -1;
      for (let i = 0; i < A.nposting; i++) {
        const tid = tidKeyAt(p.buf, A.start + A.postingOff + 6 * i);
        if (i > 0 && tid <= last) {
          this.sink.add("BT_POSTING_MISPLACED_TID", `posting list contains misplaced TID in index "${r}"`, this.at(blk, off), `Index tid=(${blk},${off}) posting list offset=${i} page lsn=${p.lsn}.`);
          p.bad[off] = 1;
          return;
        }
        last = tid;
      }
    }
    const lower = this.heapkeyspace && (p.leaf || A.heapTid === NO_TID);
    if (A.size > (lower ? this.maxItem : this.maxItemNoHeapTid)) {
      this.sink.add("BT_TUPLE_TOO_LARGE", `index row size ${A.size} exceeds maximum for index "${r}"`, this.at(blk, off), `Index tid=(${blk},${off}) points to ${kind} tid=${this.tidDesc(p, A)} page lsn=${p.lsn}.`);
    }
    // the offset is the TID's low 16 bits (& truncates the double to its low 32 bits: no fmod)
    if (p.leaf && (A.heapTid === NO_TID || (A.heapTid & 0xffff) === 0)) {
      this.sink.add("BT_NON_PIVOT_NO_HEAP_TID", `block ${blk} or its right sibling block or child block in index "${r}" contains non-pivot tuple that lacks a heap TID`, this.at(blk, off));
      p.bad[off] = 1;
      return;
    }
    if (!this.keyLoad(p, off, A, av)) {
      this.sink.add("BT_TUPLE_UNDECODABLE", `index tuple (${blk},${off}) in index "${r}" cannot be walked with the index's key attributes`, this.at(blk, off));
      p.bad[off] = 1;
    }
  }

  /** invariant_l_offset / invariant_l_nontarget_offset: X < the item Y at (yPage, yOff). */
  private invariantL(x: TupleInfo, xv: KeyView, keysz: number, scantid: number, yPage: BtPage, yOff: number, y: TupleInfo, yv: KeyView): boolean {
    if (yPage.negInf(yOff)) return true; // _bt_compare: X > negative infinity... X < it is never asked
    const cmp = btCompare(this.t.keys!, x, xv, keysz, scantid, y, yv);
    if (Number.isNaN(cmp)) {
      this.unknown = true;
      return true;
    }
    if (!this.heapkeyspace) return cmp <= 0;
    if (cmp === 0) {
      const nonpivot = yPage.leaf && yOff >= yPage.firstDataKey;
      const upp = y.nkeyatts(this.nkeyatts);
      const rtid = this.heapTidCareful(yPage, yOff, y, nonpivot);
      if (keysz === upp) return scantid === NO_TID && rtid !== NO_TID;
      return keysz < upp;
    }
    return cmp < 0;
  }

  /** BTreeTupleGetHeapTIDCareful */
  private heapTidCareful(p: BtPage, off: number, y: TupleInfo, nonpivot: boolean): number {
    const r = this.rel();
    if (y.pivot && nonpivot) this.once("BT_UNEXPECTED_PIVOT", p.blk, off, `block ${this.target?.blk ?? p.blk} or its right sibling block or child block in index "${r}" has unexpected pivot tuple`);
    else if (!y.pivot && !nonpivot) this.once("BT_UNEXPECTED_NON_PIVOT", p.blk, off, `block ${this.target?.blk ?? p.blk} or its right sibling block or child block in index "${r}" has unexpected non-pivot tuple`);
    else if (nonpivot && (y.heapTid === NO_TID || (y.heapTid & 0xffff) === 0)) this.once("BT_NON_PIVOT_NO_HEAP_TID", p.blk, off, `block ${p.blk} or its right sibling block or child block in index "${r}" contains non-pivot tuple that lacks a heap TID`);
    return y.heapTid;
  }

  private once(code: CheckCode, blk: number, item: number, msg: string, detail?: string): void {
    const key = `${code}/${blk}/${item}`;
    if (this.reportedBlocks.has(key)) return;
    this.reportedBlocks.add(key);
    this.sink.add(code, msg, this.at(blk, item), detail);
  }

  // ---------------------------------------------------------------- pass 2

  /** A page for the walk; null (after reporting what amcheck would) when it cannot be used. */
  private page(blk: number, from: string): BtPage | null {
    if (blk >= this.state.length) {
      this.once("BT_LINK_OUT_OF_RANGE", this.target?.blk ?? 0, 0, `${from} names block ${blk} beyond the end of index "${this.rel()}" (${this.state.length} blocks)`);
      throw new Stop();
    }
    const st = this.state[blk];
    if (st === PAGE_NEW) {
      this.sink.add("BT_ZERO_PAGE", `index "${this.rel()}" contains unexpected zero page at block ${blk}`, this.at(blk), `Reached by ${from}.`);
      throw new Stop();
    }
    if (st !== PAGE_OK) throw new Stop(); // reported by pass 1
    const kept = this.parsed?.[blk];
    if (kept) return kept;
    const p = new BtPage(blk, this.cache.get(blk), this.badItems.get(blk));
    if (p.isPrefix) {
      try {
        p.decodePrefix(this.t.blockSize, this.meta!.btm_version);
      } catch {
        p.undecodable = true;
      }
    }
    return p;
  }

  private walk(): void {
    const m = this.meta!;
    let level = m.btm_level;
    let leftmost = m.btm_root;
    let trueRoot = true;
    let previous = -1;
    while (leftmost !== P_NONE) {
      const next = this.checkLevel(leftmost, level, trueRoot);
      this.stats.levels++;
      if (next.leftmost === INVALID) {
        this.sink.add("BT_NO_PAGES_ON_LEVEL", `index "${this.rel()}" has no valid pages on level below ${previous === -1 ? 4294967295 : previous} or first level`, this.at(0));
        return;
      }
      previous = level;
      level = next.level;
      leftmost = next.leftmost;
      trueRoot = false;
    }
  }

  private checkLevel(leftmostBlk: number, level: number, trueRoot: boolean): { leftmost: number; level: number } {
    const r = this.rel();
    const next = { leftmost: INVALID, level: INVALID };
    let leftcurrent = P_NONE;
    let current = leftmostBlk;
    this.prevrightlink = INVALID;
    this.previncompletesplit = false;
    this.lowkeyLen = -1;
    const seen = new Set<number>();
    do {
      const p = this.page(current, leftcurrent === P_NONE ? (trueRoot ? "the metapage's btm_root" : "a leftmost downlink") : `the right link of block ${leftcurrent}`)!;
      this.target = p;
      if (seen.has(current)) {
        this.sink.add("BT_CIRCULAR_LINK", `circular link chain found in block ${current} of index "${r}"`, this.at(current));
        throw new Stop();
      }
      seen.add(current);
      if (p.ignore) {
        if (p.deleted) this.sink.add("BT_DELETED_REACHED", `downlink or sibling link points to deleted block in index "${r}"`, this.at(current), `Block=${current} left block=${leftcurrent} left link from block=${p.prev}.`);
        if (p.rightmost) {
          this.sink.add("BT_FELL_OFF_END", `block ${current} fell off the end of index "${r}"`, this.at(current));
          throw new Stop();
        }
      } else {
        if (next.leftmost === INVALID) {
          if (!this.leftmostIgnoringHalfDead(current, p)) this.sink.add("BT_NOT_LEFTMOST", `block ${current} is not leftmost in index "${r}"`, this.at(current, undefined, { path: "btpo_prev" }), `btpo_prev ${p.prev}.`);
          if (trueRoot && !p.root && !p.incompleteSplit) this.sink.add("BT_NOT_TRUE_ROOT", `block ${current} is not true root in index "${r}"`, this.at(current, undefined, { path: "btpo_flags" }));
          if (!p.leaf) {
            if (p.bad[p.firstDataKey]) throw new Stop();
            this.info(p, p.firstDataKey, this.A);
            next.leftmost = this.A.tidBlock;
            next.level = p.level - 1;
          } else {
            next.leftmost = P_NONE;
            next.level = INVALID;
          }
        }
        if (p.prev !== leftcurrent && leftcurrent !== P_NONE) {
          this.sink.add("BT_SIBLING_MISMATCH", `left link/right link pair in index "${r}" not in agreement`, this.at(current, undefined, { path: "btpo_prev" }), `Block=${current} left block=${leftcurrent} left link from block=${p.prev}.`);
        }
        if (level !== p.level) {
          this.sink.add("BT_LEVEL_MISMATCH", `leftmost down link for level points to block in index "${r}" whose level is not one level down`, this.at(current, undefined, { path: "btpo_level" }), `Block pointed to=${current} expected level=${level} level in pointed to block=${p.level}.`);
          throw new Stop();
        }
        this.targetChecks(p);
      }
      if (current === leftcurrent || current === p.prev) {
        this.sink.add("BT_CIRCULAR_LINK", `circular link chain found in block ${current} of index "${r}"`, this.at(current));
        throw new Stop();
      }
      leftcurrent = current;
      current = p.next;
      this.keepLowkey(p);
    } while (current !== P_NONE);
    return next;
  }

  /** bt_leftmost_ignoring_half_dead */
  private leftmostIgnoringHalfDead(start: number, p: BtPage): boolean {
    let reached = p.prev;
    let from = start;
    let allHalfDead = true;
    const seen = new Set<number>();
    while (reached !== P_NONE && allHalfDead) {
      if (reached >= this.state.length || this.state[reached] !== PAGE_OK || seen.has(reached)) return false;
      seen.add(reached);
      const q = new BtPage(reached, this.cache.get(reached));
      allHalfDead = q.halfDead && reached !== start && reached !== from && q.next === from;
      if (allHalfDead) {
        from = reached;
        reached = q.prev;
      }
    }
    return allHalfDead;
  }

  /** The cross-page and parent/child parts of bt_target_page_check. */
  private targetChecks(p: BtPage): void {
    if (!this.t.keys || p.undecodable) return;
    const r = this.rel();
    if (p.leaf && this.t.rootdescend && this.heapkeyspace) this.rootDescend(p);
    // cross page: last item < the right sibling's first item
    if (!p.rightmost && p.maxoff >= p.firstDataKey && !p.negInf(p.maxoff) && !p.bad[p.maxoff]) {
      const right = this.rightFirstItem(p);
      if (right) {
        const [rp, roff] = right;
        this.info(rp, roff, this.B);
        if (this.keyLoad(rp, roff, this.B, this.bv)) {
          this.info(p, p.maxoff, this.A);
          this.keyLoad(p, p.maxoff, this.A, this.av);
          const cmp = btCompare(this.t.keys, this.B, this.bv, this.B.nkeyatts(this.nkeyatts), this.heapkeyspace ? this.B.heapTid : NO_TID, this.A, this.av);
          const ok = Number.isNaN(cmp) || (this.heapkeyspace ? cmp > 0 : cmp >= 0);
          if (!ok) this.sink.add("BT_CROSS_PAGE_ORDER", `cross page item order invariant violated for index "${r}"`, this.at(p.blk, p.maxoff), `Last item on page tid=(${p.blk},${p.maxoff}) page lsn=${p.lsn}.`);
        }
      }
    }
    if (p.leaf) return;
    for (let off = p.firstDataKey; off <= p.maxoff; off++) {
      if (p.bad[off]) continue;
      if (p.negInf(off)) this.childHighkeyCheck(p, off, null);
      else this.childCheck(p, off);
    }
    if (p.rightmost) this.childHighkeyCheck(p, 0, null);
  }

  /** bt_rootdescend for every data item of leaf `p`: a search from the root must find it. */
  private rootDescend(p: BtPage): void {
    const X = new TupleInfo();
    const xv = new KeyView();
    for (let off = p.firstDataKey; off <= p.maxoff; off++) {
      if (p.bad[off]) continue;
      X.load(p.buf, p.start[off], p.len[off], this.natts);
      if (!xv.load(X, X.nkeyatts(this.nkeyatts), this.t.keys!.attrs)) continue;
      const found = this.search(X, xv);
      if (found === false) {
        this.sink.add("BT_ROOTDESCEND_NOT_FOUND", `could not find tuple using search from root page in index "${this.rel()}"`, this.at(p.blk, off), `Index tid=(${p.blk},${off}) points to heap tid=${tidText(X.heapTid)} page lsn=${p.lsn}.`);
      }
    }
  }

  /**
   * _bt_search + _bt_binsrch_insert with the tuple's own key (heap TID included): descend from
   * the fast root, moving right past high keys below the key, then the first leaf item >= key
   * must equal it. Null when the comparison cannot be decided offline.
   */
  private search(X: TupleInfo, xv: KeyView): boolean | null {
    const k = this.t.keys!;
    const keysz = X.nkeyatts(this.nkeyatts);
    const Y = this.B;
    const yv = this.bv;
    const cmpAt = (q: BtPage, off: number): number => {
      if (q.negInf(off)) return 1;
      Y.load(q.buf, q.start[off], q.len[off], this.natts);
      if (!yv.load(Y, Y.nkeyatts(this.nkeyatts), k.attrs)) return NaN;
      return btCompare(k, X, xv, keysz, X.heapTid, Y, yv);
    };
    let blk = this.meta!.btm_fastroot;
    for (let depth = 0; depth < 64; depth++) {
      let q = this.page(blk, "a search from the root")!;
      // _bt_moveright: past pages whose high key is below the key
      for (let hops = 0; !q.rightmost && hops < this.state.length; hops++) {
        if (q.ignore) {
          q = this.page(q.next, "a search from the root")!;
          continue;
        }
        const c = cmpAt(q, P_HIKEY);
        if (Number.isNaN(c)) return null;
        if (c <= 0) break;
        q = this.page(q.next, "a search from the root")!;
      }
      // first item >= key
      let lo = q.firstDataKey;
      let hi = q.maxoff + 1;
      while (hi > lo) {
        const mid = (lo + hi) >>> 1;
        const c = cmpAt(q, mid);
        if (Number.isNaN(c)) return null;
        if (c > 0) lo = mid + 1;
        else hi = mid;
      }
      if (q.leaf) {
        if (lo > q.maxoff) return false;
        const c = cmpAt(q, lo);
        return Number.isNaN(c) ? null : c === 0;
      }
      // internal: the last item < key leads down
      const down = Math.max(q.firstDataKey, lo - 1);
      if (q.bad[down]) return null;
      Y.load(q.buf, q.start[down], q.len[down], this.natts);
      blk = Y.tidBlock;
    }
    return null;
  }

  /** bt_right_page_check_scankey: the first data item of the first live page to the right. */
  private rightFirstItem(p: BtPage): [BtPage, number] | null {
    let nb = p.next;
    let rp: BtPage | null = null;
    const seen = new Set<number>();
    for (;;) {
      if (nb >= this.state.length || this.state[nb] !== PAGE_OK || seen.has(nb)) return null;
      seen.add(nb);
      rp = this.page(nb, `the right link of block ${p.blk}`);
      if (!rp || !rp.ignore || rp.rightmost) break;
      nb = rp.next;
    }
    if (!rp || rp.undecodable) return null;
    let off: number;
    if (rp.leaf && rp.maxoff >= rp.firstDataKey) off = rp.firstDataKey;
    else if (!rp.leaf && rp.maxoff >= rp.firstDataKey + 1) off = rp.firstDataKey + 1;
    else return null;
    return rp.bad[off] ? null : [rp, off];
  }

  /** bt_child_check for the downlink at `off` of target `p`. */
  private childCheck(p: BtPage, off: number): void {
    const r = this.rel();
    this.info(p, off, this.A);
    const childBlk = this.A.tidBlock;
    const child = this.page(childBlk, `the downlink at (${p.blk},${off})`)!;
    this.childHighkeyCheck(p, off, child);
    if (child.deleted) {
      this.sink.add("BT_DOWNLINK_TO_DELETED", `downlink to deleted page found in index "${r}"`, this.at(p.blk, off), `Parent block=${p.blk} child block=${childBlk} parent page lsn=${p.lsn}.`);
      return;
    }
    if (child.undecodable) return;
    this.info(p, off, this.A);
    if (!this.keyLoad(p, off, this.A, this.av)) return;
    const keysz = this.A.nkeyatts(this.nkeyatts);
    const scantid = this.heapkeyspace ? this.A.heapTid : NO_TID;
    if (this.orderClean[childBlk] && this.heapkeyspace && this.lowerBoundOfFirst(child, keysz, scantid)) return;
    for (let o = child.firstDataKey; o <= child.maxoff; o++) {
      if (child.negInf(o) || child.bad[o]) continue;
      this.info(child, o, this.B);
      if (this.B.broken || !this.keyLoad(child, o, this.B, this.bv)) continue;
      if (!this.invariantL(this.A, this.av, keysz, scantid, child, o, this.B, this.bv)) {
        this.sink.add("BT_DOWNLINK_LOWER_BOUND", `down-link lower bound invariant violated for index "${r}"`, this.at(p.blk, off), `Parent block=${p.blk} child index tid=(${childBlk},${o}) parent page lsn=${p.lsn}.`);
      }
    }
  }

  /**
   * The parent key (this.A, this.av) is below the first data item of a child whose items pass 1
   * found in ascending order, so below all of them (the same findings as the item-by-item loop,
   * which runs whenever this is not true or not judged).
   */
  private lowerBoundOfFirst(child: BtPage, keysz: number, scantid: number): boolean {
    let o = child.firstDataKey;
    if (child.negInf(o)) o++;
    if (o > child.maxoff) return true;
    if (child.bad[o]) return false;
    this.info(child, o, this.B);
    if (this.B.broken || !this.keyLoad(child, o, this.B, this.bv)) return false;
    this.unknown = false;
    return this.invariantL(this.A, this.av, keysz, scantid, child, o, this.B, this.bv) && !this.unknown;
  }

  /** bt_child_highkey_check: walk the child level from the previous downlink to this one. */
  private childHighkeyCheck(target: BtPage, downOff: number, loaded: BtPage | null): void {
    const r = this.rel();
    let blkno = this.prevrightlink;
    let rightsplit = this.previncompletesplit;
    let first = true;
    let downlink = P_NONE;
    if (downOff) {
      this.info(target, downOff, this.A);
      downlink = this.A.tidBlock;
    }
    if (blkno === INVALID) {
      blkno = downlink;
      rightsplit = false;
    }
    // blocks visited, for a circular chain: nearly always just the child itself, so the set is
    // made only when a rightlink is followed (one per downlink otherwise)
    let firstSeen = INVALID;
    let seen: Set<number> | null = null;
    for (;;) {
      if (blkno === P_NONE && downlink === P_NONE) {
        this.prevrightlink = INVALID;
        this.previncompletesplit = false;
        return;
      }
      if (blkno === P_NONE) {
        this.sink.add("BT_CANT_TRAVERSE", `can't traverse from downlink ${this.prevrightlink >>> 0} to downlink ${downlink} of index "${r}"`, this.at(target.blk, downOff || undefined));
        throw new Stop();
      }
      if (blkno === firstSeen || seen?.has(blkno)) {
        this.sink.add("BT_CIRCULAR_LINK", `circular link chain found in block ${blkno} of index "${r}"`, this.at(blkno));
        throw new Stop();
      }
      if (firstSeen === INVALID) firstSeen = blkno;
      else (seen ??= new Set()).add(blkno);
      const page = blkno === downlink && loaded ? loaded : this.page(blkno, `the child level of block ${target.blk}`)!;
      if (first && this.prevrightlink === INVALID && !this.leftmostIgnoringHalfDead(blkno, page)) {
        this.sink.add("BT_FIRST_CHILD_NOT_LEFTMOST", `the first child of leftmost target page is not leftmost of its level in index "${r}"`, this.at(blkno, undefined, { path: "btpo_prev" }), `Target block=${target.blk} child block=${blkno} target page lsn=${target.lsn}.`);
      }
      if ((!page.deleted || page.hasFullXid) && page.level !== target.level - 1) {
        this.sink.add("BT_CHILD_LEVEL_INVALID", `block found while following rightlinks from child of index "${r}" has invalid level`, this.at(blkno, undefined, { path: "btpo_level" }), `Block pointed to=${blkno} expected level=${target.level - 1} level in pointed to block=${page.level}.`);
        throw new Stop();
      }
      if ((!first && blkno === this.prevrightlink) || blkno === page.prev) {
        this.sink.add("BT_CIRCULAR_LINK", `circular link chain found in block ${blkno} of index "${r}"`, this.at(blkno));
        throw new Stop();
      }
      if (blkno !== downlink && !page.ignore) this.downlinkMissingCheck(rightsplit, blkno, page);
      rightsplit = page.incompleteSplit;
      if (!rightsplit && !page.rightmost && !page.halfDead && !page.bad[P_HIKEY]) {
        let pivotOff = blkno === downlink ? downOff + 1 : downOff;
        // the parent's pivot as bytes [pivotAt, pivotAt + pivotLen) of pivotBuf (no view made per child)
        let pivotBuf: Uint8Array | null = null;
        let pivotAt = 0;
        let pivotLen = 0;
        if (pivotOff && !target.negInf(pivotOff)) {
          if (pivotOff > target.maxoff) {
            if (target.rightmost) {
              this.sink.add("BT_CHILD_HIGHKEY_GT_PARENT", `child high key is greater than rightmost pivot key on target level in index "${r}"`, this.at(blkno, P_HIKEY), `Target block=${target.blk} child block=${blkno} target page lsn=${target.lsn}.`);
              throw new Stop();
            }
            pivotOff = P_HIKEY;
          }
          if (!target.bad[pivotOff]) {
            pivotBuf = target.buf;
            pivotAt = target.start[pivotOff];
            pivotLen = target.len[pivotOff];
          }
        } else if (pivotOff) {
          if (this.lowkeyLen < 0) {
            this.sink.add("BT_NO_LEFT_SIBLING_HIGHKEY", `can't find left sibling high key in index "${r}"`, this.at(blkno, P_HIKEY), `Target block=${target.blk} child block=${blkno} target page lsn=${target.lsn}.`);
            throw new Stop();
          }
          pivotBuf = this.lowkeyBuf;
          pivotLen = this.lowkeyLen;
        }
        if (pivotBuf && !pivotIdentical(this.heapkeyspace, page.buf, page.start[P_HIKEY], page.len[P_HIKEY], pivotBuf, pivotAt, pivotLen)) {
          this.sink.add("BT_PARENT_HIGHKEY_MISMATCH", `mismatch between parent key and child high key in index "${r}"`, this.at(blkno, P_HIKEY), `Target block=${target.blk} child block=${blkno} target page lsn=${target.lsn}.`);
        }
      }
      if (blkno === downlink) {
        this.prevrightlink = page.next;
        this.previncompletesplit = rightsplit;
        return;
      }
      blkno = page.next;
      first = false;
    }
  }

  /** Keep p's high key as the next page's "low key" (a copy into one reused buffer: no allocation per page). */
  private keepLowkey(p: BtPage): void {
    if (p.rightmost || p.bad[P_HIKEY]) {
      this.lowkeyLen = -1;
      return;
    }
    const n = p.len[P_HIKEY];
    if (n > this.lowkeyBuf.length) this.lowkeyBuf = new Uint8Array(Math.max(n, this.lowkeyBuf.length * 2));
    const b = this.lowkeyBuf;
    const src = p.buf;
    const from = p.start[P_HIKEY];
    for (let i = 0; i < n; i++) b[i] = src[from + i];
    this.lowkeyLen = n;
  }

  /** bt_downlink_missing_check */
  private downlinkMissingCheck(rightsplit: boolean, blkno: number, page: BtPage): void {
    const r = this.rel();
    if (page.root || rightsplit) return;
    if (page.leaf) {
      this.sink.add("BT_LEAF_LACKS_DOWNLINK", `leaf index block lacks downlink in index "${r}"`, this.at(blkno), `Block=${blkno} page lsn=${page.lsn}.`);
      return;
    }
    let level = page.level;
    if (page.bad[page.firstDataKey]) return;
    this.info(page, page.firstDataKey, this.B);
    let childBlk = this.B.tidBlock;
    let child: BtPage;
    const seen = new Set<number>();
    for (;;) {
      if (seen.has(childBlk)) return;
      seen.add(childBlk);
      child = this.page(childBlk, `the first downlink under block ${blkno}`)!;
      if (child.leaf) break;
      if (child.level !== level - 1) {
        this.sink.add("BT_DOWNLINK_LEVEL", `downlink points to block in index "${r}" whose level is not one level down`, this.at(blkno), `Top parent/under check block=${blkno} block pointed to=${childBlk} expected level=${level - 1} level in pointed to block=${child.level}.`);
        return;
      }
      level = child.level;
      if (child.bad[child.firstDataKey]) return;
      this.info(child, child.firstDataKey, this.B);
      childBlk = this.B.tidBlock;
    }
    if (child.deleted) {
      this.sink.add("BT_DOWNLINK_TO_DELETED_LEAF", `downlink to deleted leaf page found in index "${r}"`, this.at(blkno), `Top parent/target block=${blkno} leaf block=${childBlk} top parent/under check lsn=${page.lsn}.`);
      return;
    }
    if (child.halfDead && !child.rightmost && !child.bad[P_HIKEY]) {
      this.info(child, P_HIKEY, this.B);
      if (this.B.tidBlock === blkno) return; // BTreeTupleGetTopParent
    }
    this.sink.add("BT_INTERNAL_LACKS_DOWNLINK", `internal index block lacks downlink in index "${r}"`, this.at(blkno), `Block=${blkno} level=${page.level} page lsn=${page.lsn}.`);
  }
}

const leq = (c: number): boolean => Number.isNaN(c) || c <= 0;

/** bt_pivot_tuple_identical: same size, same bytes from ip_posid (heapkeyspace) or t_info on. */
function pivotIdentical(heapkeyspace: boolean, a: Uint8Array, aAt: number, aLen: number, b: Uint8Array, bAt: number, bLen: number): boolean {
  // t_info's size bits (a tuple shorter than t_info reads as size 0 there)
  const sa = ((aLen > 6 ? a[aAt + 6] : 0) | (aLen > 7 ? a[aAt + 7] << 8 : 0)) & 0x1fff;
  const sb = ((bLen > 6 ? b[bAt + 6] : 0) | (bLen > 7 ? b[bAt + 7] << 8 : 0)) & 0x1fff;
  if (sa !== sb || sa > aLen || sb > bLen) return false;
  for (let i = heapkeyspace ? 4 : 6; i < sa; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}
