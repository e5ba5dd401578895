// GIN structure checks (PostgreSQL 18 contrib/amcheck verify_gin.c's gin_index_check, and the
// invariants it leaves out): every page's header, checksum and line pointers first, then the
// metapage and pending list, the entry tree level by level from the root (block 1) with its
// right-link chains, key order and parent bounds, each leaf's posting list, and every posting
// tree the same way (PostingItem keys, right bounds, compressed segments); last, pages that no
// walk reached. Pages are read once into memory (or through a block cache); the hot loops over
// tuples and TIDs reuse one key span and one decode buffer.
import type { Location, Severity } from "../../formats/schema/errors.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { InvalidBlockNumber, tidBlockAt, tidKeyText, tidOffsetAt } from "../../formats/page/item-pointer.js";
import { itemIdWord, maxAlign, maxOffsetNumber, pdLower, pdSpecial } from "../../formats/page/page.js";
import { lpLen, lpOff } from "../../formats/page/item-id.js";
import { IndexTupleData, indexTupleSize } from "../../formats/nbtree/index-tuple.js";
import {
  decodeGinPostingList,
  GIN_COMPRESSED,
  GIN_CURRENT_VERSION,
  GIN_DATA,
  GIN_DATA_ITEMS_OFFSET,
  GIN_DATA_RIGHTBOUND_OFFSET,
  GIN_DELETED,
  GIN_INCOMPLETE_SPLIT,
  GIN_LEAF,
  GIN_LIST,
  GIN_META,
  GIN_META_OFFSET,
  GIN_ROOT_BLKNO,
  GIN_TREE_POSTING,
  ginCodeToTidKey,
  ginEntryKey,
  GinKeySpan,
  GinMetaPageData,
  GinPageOpaqueData,
  GinPostingDecode,
  ginPostingListSize,
  ginTidCode,
  ginTupleBlock,
  ginTupleCompressed,
  ginTupleNPosting,
  ginTuplePostingOffset,
  POSTING_ITEM_KEY,
  postingItemChild,
  SizeOfPostingItem,
} from "../../formats/am/gin.js";
import { BlockCache } from "../block-cache.js";
import type { FindingSink } from "../findings.js";
import { checkPage } from "../page-check.js";
import { readWholeFork, scanPages, type WholeForkBuffer } from "../scan.js";
import { viewOf } from "../page-view.js";
import type { GinKeyPlan } from "./gin-keys.js";

const WHOLE_LIMIT = 256 * 2 ** 20;
const GIN_SPECIAL = maxAlign(GinPageOpaqueData.size);
const OP = GinPageOpaqueData.get;
const META = GinMetaPageData.get;

export interface GinVerifyTarget {
  fork: RelationFork;
  relName: string;
  label: string;
  checksums: boolean;
  checksumSeverity?: Severity;
  keys: GinKeyPlan | null;
  onPages?: (n: number) => void;
  wholeBuffer?: WholeForkBuffer;
}

export interface GinStats {
  pages: number;
  entryPages: number;
  entryTuples: number;
  postingTrees: number;
  dataPages: number;
  heapTids: number;
  pendingPages: number;
  [k: string]: number;
}

// page states from the first pass
const ST_NEW = 1;
const ST_USABLE = 2;
// reach marks
const R_META = 1;
const R_ENTRY = 2;
const R_DATA = 3;
const R_LIST = 4;

/** One level of a walk: the pages in downlink order and, per page, where its parent's key is. */
interface Level {
  blocks: number[];
  /** parent block, or -1 */
  pblk: number[];
  /** parent's item (entry tuple offset number, or PostingItem number); 0: no key (+infinity) */
  pitem: number[];
}

export class GinVerifier {
  private n = 0;
  private state!: Uint8Array;
  private flags!: Uint16Array;
  private reached!: Uint8Array;
  private bad = new Map<number, Set<number>>();
  private cache!: BlockCache;
  private readonly span = new GinKeySpan();
  private readonly span2 = new GinKeySpan();
  private readonly dec = new GinPostingDecode();
  private readonly stats: GinStats = { pages: 0, entryPages: 0, entryTuples: 0, postingTrees: 0, dataPages: 0, heapTids: 0, pendingPages: 0 };
  private postingRoots: number[] = [];
  private postingFrom: number[] = [];
  private stamp!: Uint32Array;
  private stampNo = 0;

  constructor(
    private readonly t: GinVerifyTarget,
    private readonly sink: FindingSink,
  ) {}

  private at(blk: number, item?: number, offset?: number): Location {
    return { file: this.t.fork.fileOf(blk).path, block: blk, ...(item !== undefined ? { item } : {}), ...(offset !== undefined ? { offset } : {}) };
  }

  run(): GinStats {
    const t = this.t;
    const n = (this.n = t.fork.nblocks);
    this.state = new Uint8Array(n);
    this.flags = new Uint16Array(n);
    this.reached = new Uint8Array(n);
    this.stamp = new Uint32Array(n);
    const whole = readWholeFork(t.fork, WHOLE_LIMIT, t.wholeBuffer);
    try {
      if (whole) {
        const first = t.fork.firstBlock;
        const bs = t.fork.geometry.blockSize;
        for (let blk = first; blk < n; blk++) this.pass1(blk, whole.subarray((blk - first) * bs, (blk - first + 1) * bs));
      } else for (const [blk, page] of scanPages(t.fork)) this.pass1(blk, page);
      this.cache = new BlockCache(t.fork, 1024);
      if (whole) this.cache.useWhole(whole, t.fork.firstBlock);
      if (n > 0) this.checkMeta();
      if (n > GIN_ROOT_BLKNO) {
        this.walkEntryTree();
        for (let i = 0; i < this.postingRoots.length; i++) this.walkPostingTree(this.postingRoots[i]!, this.postingFrom[i]!);
        this.unreachable();
      }
    } finally {
      if (whole) t.wholeBuffer?.give(whole);
    }
    return this.stats;
  }

  private pass1(blk: number, page: Uint8Array): void {
    const t = this.t;
    this.stats.pages++;
    t.onPages?.(1);
    const dv = viewOf(page);
    const v = checkPage(page, dv, blk, t.fork.fileOf(blk).path, this.sink, { am: "gin", blockSize: t.fork.geometry.blockSize, checksums: t.checksums, checksumSeverity: t.checksumSeverity, relName: t.label });
    if (v.isNew) {
      this.state[blk] = ST_NEW;
      return;
    }
    if (!v.usable || page.length - pdSpecial(dv) !== GIN_SPECIAL) return;
    this.state[blk] = ST_USABLE;
    if (v.badItems.size) this.bad.set(blk, v.badItems);
    const f = OP.flags(page, pdSpecial(dv));
    this.flags[blk] = f;
    // only posting tree pages are deleted (ginvacuum.c; the pending list's pages are GIN_DELETED alone)
    if (f & GIN_DELETED && f & GIN_DATA && !(f & GIN_LEAF)) this.sink.add("GIN_DELETED_PAGE", `index "${t.relName}" has deleted internal page ${blk}`, this.at(blk));
  }

  private page(blk: number): Uint8Array {
    return this.cache.get(blk);
  }
  private rightlink(page: Uint8Array): number {
    return OP.rightlink(page, page.length - GIN_SPECIAL);
  }

  // ---- metapage and pending list -------------------------------------------------------------

  private checkMeta(): void {
    const name = this.t.relName;
    this.reached[0] = R_META;
    if (this.state[0] !== ST_USABLE || !(this.flags[0]! & GIN_META)) {
      this.sink.add("GIN_META_INVALID", `index "${name}": block 0 is not a GIN metapage (flags ${this.flags[0]})`, this.at(0));
      return;
    }
    const p = this.page(0);
    const m = GIN_META_OFFSET;
    const version = META.ginVersion(p, m);
    if (version !== GIN_CURRENT_VERSION) this.sink.add("GIN_META_VERSION", `index "${name}" has GIN version ${version}, not ${GIN_CURRENT_VERSION}`, this.at(0, undefined, m + GinMetaPageData.offsets.ginVersion));
    const total = META.nTotalPages(p, m);
    const entry = META.nEntryPages(p, m);
    const data = META.nDataPages(p, m);
    if (total > this.n || (total > 0 && entry + data > total))
      this.sink.add("GIN_META_STATS", `index "${name}": metapage counts ${total} total, ${entry} entry and ${data} data pages, the file has ${this.n} blocks`, this.at(0, undefined, m + GinMetaPageData.offsets.nTotalPages));
    const head = META.head(p, m);
    const tail = META.tail(p, m);
    const npending = META.nPendingPages(p, m);
    const loc = this.at(0, undefined, m);
    if (head === InvalidBlockNumber) {
      if (tail !== InvalidBlockNumber || npending !== 0) this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list has no head but tail ${tail} and ${npending} pages`, loc);
      return;
    }
    if (tail === InvalidBlockNumber) this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list has head ${head} but no tail`, loc);
    let blk = head;
    let count = 0;
    let last = InvalidBlockNumber;
    const s = ++this.stampNo;
    while (blk !== InvalidBlockNumber) {
      if (blk >= this.n || blk <= GIN_ROOT_BLKNO) {
        this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list ${count ? `page ${last} links` : "head links"} to block ${blk}, outside the list's possible pages (${this.n} blocks)`, count ? this.at(last) : loc);
        return;
      }
      if (this.stamp[blk] === s) {
        this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list loops back to block ${blk} from block ${last}`, this.at(last));
        return;
      }
      this.stamp[blk] = s;
      const f = this.flags[blk]!;
      if (this.state[blk] !== ST_USABLE || !(f & GIN_LIST) || f & GIN_DELETED) {
        this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list page ${blk} is not a live GIN_LIST page (flags ${f})`, this.at(blk));
        return;
      }
      this.reached[blk] = R_LIST;
      count++;
      this.stats.pendingPages++;
      last = blk;
      blk = this.rightlink(this.page(blk));
    }
    if (last !== tail) this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list ends at block ${last}, the metapage's tail is ${tail}`, this.at(last));
    if (count !== npending) this.sink.add("GIN_PENDING_LIST", `index "${name}": pending list has ${count} pages, the metapage says ${npending}`, loc);
  }

  // ---- the walks -------------------------------------------------------------------------------

  /** The page `blk` reached from `from` as a `what` page: false when it must not be read as one. */
  private enter(blk: number, from: number, mark: number, data: boolean): boolean {
    const name = this.t.relName;
    if (blk >= this.n || blk === 0 || (data && blk === GIN_ROOT_BLKNO)) {
      this.sink.add("GIN_DOWNLINK_INVALID", `index "${name}": block ${from} links to block ${blk}, outside the index's ${this.n} blocks or not a ${data ? "posting tree" : "entry tree"} page`, this.at(from));
      return false;
    }
    if (this.reached[blk]) {
      this.sink.add("GIN_DOWNLINK_DUPLICATE", `index "${name}": block ${blk} is reached again from block ${from}`, this.at(blk));
      return false;
    }
    this.reached[blk] = mark;
    if (this.state[blk] === ST_NEW) {
      this.sink.add("GIN_PAGE_ZERO", `index "${name}" contains unexpected zero page at block ${blk}`, this.at(blk));
      return false;
    }
    if (this.state[blk] !== ST_USABLE) {
      this.sink.add("GIN_PAGE_KIND", `index "${name}" contains corrupted page at block ${blk}`, this.at(blk));
      return false;
    }
    const f = this.flags[blk]!;
    if (f & GIN_DELETED) {
      this.sink.add("GIN_DELETED_REACHABLE", `index "${name}": block ${from} leads to deleted page ${blk}`, this.at(blk));
      return false;
    }
    if (f & (GIN_META | GIN_LIST) || !!(f & GIN_DATA) !== data) {
      this.sink.add("GIN_PAGE_KIND", `index "${name}": ${data ? "posting tree" : "entry tree"} page ${blk} has flags ${f}${data ? " without GIN_DATA" : ""}`, this.at(blk));
      return false;
    }
    return true;
  }

  /**
   * Level by level from `root`: `visit` checks a page and adds its children to the next level;
   * the right-link chain of each level must be its pages in downlink order.
   */
  private walkLevels(root: number, from: number, data: boolean, visit: (blk: number, pblk: number, pitem: number, depth: number, next: Level) => void): void {
    const name = this.t.relName;
    const mark = data ? R_DATA : R_ENTRY;
    let level: Level = { blocks: [root], pblk: [-1], pitem: [0] };
    let leafDepth = -1;
    for (let depth = 0; level.blocks.length; depth++) {
      const next: Level = { blocks: [], pblk: [], pitem: [] };
      // the level's pages that may be read, and whether the level is the leaf level (by majority)
      const ok: boolean[] = level.blocks.map((b, i) => this.enter(b, i === 0 && depth === 0 ? from : level.pblk[i]!, mark, data));
      let leaves = 0;
      let live = 0;
      level.blocks.forEach((b, i) => {
        if (!ok[i]) return;
        live++;
        if (this.flags[b]! & GIN_LEAF) leaves++;
      });
      const leafLevel = leaves * 2 > live;
      if (leafLevel && leafDepth === -1) leafDepth = depth;
      for (let i = 0; i < level.blocks.length; i++) {
        if (!ok[i]) continue;
        const b = level.blocks[i]!;
        const isLeaf = (this.flags[b]! & GIN_LEAF) !== 0;
        if (isLeaf !== leafLevel || (isLeaf && leafDepth !== depth)) {
          this.sink.add("GIN_LEAF_DEPTH", `index "${name}": internal pages traversal encountered ${isLeaf ? "leaf" : "internal"} page unexpectedly on block ${b}`, this.at(b, undefined, this.t.fork.geometry.blockSize - GIN_SPECIAL + GinPageOpaqueData.offsets.flags));
          continue;
        }
        visit(b, level.pblk[i]!, level.pitem[i]!, depth, next);
      }
      this.chain(level, ok);
      level = next;
    }
  }

  /** The right-link chain of a level from its leftmost page, against the pages in downlink order. */
  private chain(level: Level, ok: boolean[]): void {
    const name = this.t.relName;
    const s = ++this.stampNo;
    for (let i = 0; i < level.blocks.length; i++) {
      const b = level.blocks[i]!;
      if (!ok[i]) continue;
      this.stamp[b] = s;
      const rl = this.rightlink(this.page(b));
      const want = i + 1 < level.blocks.length ? level.blocks[i + 1]! : InvalidBlockNumber;
      if (rl === want) continue;
      const loc = this.at(b, undefined, this.t.fork.geometry.blockSize - GIN_SPECIAL + GinPageOpaqueData.offsets.rightlink);
      if (rl !== InvalidBlockNumber && (rl >= this.n || rl <= GIN_ROOT_BLKNO)) {
        this.sink.add("GIN_RIGHTLINK_INVALID", `index "${name}": block ${b} has right link ${rl}, outside the index's ${this.n} blocks or a fixed page`, loc);
        continue;
      }
      if (rl !== InvalidBlockNumber && this.stamp[rl] === s) {
        this.sink.add("GIN_RIGHTLINK_CYCLE", `index "${name}": right link of block ${b} leads back to block ${rl} on its level`, loc);
        continue;
      }
      // an interrupted split: the right half has no downlink yet (ginbtree.c finishes it later)
      if (this.flags[b]! & GIN_INCOMPLETE_SPLIT && rl !== InvalidBlockNumber) continue;
      this.sink.add("GIN_SIBLING_MISMATCH", `index "${name}": block ${b} has right link ${rl === InvalidBlockNumber ? "InvalidBlockNumber" : rl}, the parent's next downlink is ${want === InvalidBlockNumber ? "none" : want}`, loc);
    }
  }

  // ---- entry tree ------------------------------------------------------------------------------

  private walkEntryTree(): void {
    const keys = this.t.keys;
    if (keys?.notComparable.length) this.sink.add("GIN_ORDER_NOT_CHECKED", `entry key order of index "${this.t.label}" is not checked for ${keys.notComparable.join(", ")}: no on-disk comparator`, { file: this.t.fork.basePath });
    this.walkLevels(GIN_ROOT_BLKNO, 0, false, (blk, pblk, pitem, _depth, next) => this.entryPage(blk, pblk, pitem, next));
  }

  /** ginCompareAttEntries of two key spans (over buffers a and b); NaN when not comparable. */
  private compare(a: Uint8Array, x: GinKeySpan, b: Uint8Array, y: GinKeySpan): number {
    if (x.attnum !== y.attnum) return x.attnum - y.attnum;
    if (x.category !== y.category) return x.category - y.category;
    if (x.category !== 0) return 0;
    const cmp = this.t.keys?.cmps[x.attnum - 1];
    if (!cmp) return NaN;
    return cmp(a, x.off, x.len, b, y.off, y.len);
  }

  private readKey(page: Uint8Array, item: number, span: GinKeySpan): boolean {
    const keys = this.t.keys;
    if (!keys) return false;
    const w = itemIdWord(viewOf(page), item);
    return ginEntryKey(page, lpOff(w), lpLen(w), keys.oneCol, keys.keyLen, keys.keyAlign, span);
  }

  private entryPage(blk: number, pblk: number, pitem: number, next: Level): void {
    const name = this.t.relName;
    const page = this.page(blk);
    const dv = viewOf(page);
    const maxoff = maxOffsetNumber(dv);
    const rl = this.rightlink(page);
    const leaf = (this.flags[blk]! & GIN_LEAF) !== 0;
    const bad = this.bad.get(blk);
    this.stats.entryPages++;
    if (!leaf && maxoff === 0) {
      this.sink.add("GIN_INTERNAL_EMPTY", `index "${name}": internal entry page ${blk} has no downlink`, this.at(blk));
      return;
    }
    const cur = this.span;
    const prev = this.span2;
    let havePrev = false;
    const parent = pblk >= 0 && pitem > 0 ? this.page(pblk) : null;
    for (let i = 1; i <= maxoff; i++) {
      if (bad?.has(i)) {
        havePrev = false;
        continue;
      }
      const w = itemIdWord(dv, i);
      const off = lpOff(w);
      const len = lpLen(w);
      this.stats.entryTuples++;
      if (len < IndexTupleData.size) {
        havePrev = false;
        continue; // the line pointer checks named it
      }
      const size = indexTupleSize(IndexTupleData.get.t_info(page, off));
      if (maxAlign(len) !== maxAlign(size)) {
        this.sink.add("GIN_TUPLE_SIZE", `index "${name}" has inconsistent tuple sizes, block ${blk}, offset ${i}`, this.at(blk, i, off));
        havePrev = false;
        continue;
      }
      const keyOk = this.t.keys ? ginEntryKey(page, off, len, this.t.keys.oneCol, this.t.keys.keyLen, this.t.keys.keyAlign, cur) : false;
      if (this.t.keys && !keyOk) this.sink.add("GIN_TUPLE_CORRUPT", `index "${name}": entry tuple at block ${blk}, offset ${i} has a key that does not fit the tuple`, this.at(blk, i, off));
      if (keyOk) {
        const lastInfinite = i === maxoff && rl === InvalidBlockNumber && !leaf;
        if (havePrev && !lastInfinite && this.compare(page, prev, page, cur) >= 0)
          this.sink.add("GIN_ENTRY_ORDER", `index "${name}" has wrong tuple order on entry tree page, block ${blk}, offset ${i}, rightlink ${rl}`, this.at(blk, i, off));
        if (parent && i === maxoff && this.readKey(parent, pitem, prev) && this.compare(page, cur, parent, prev) > 0)
          this.sink.add("GIN_PARENT_KEY", `index "${name}" has inconsistent records on page ${blk} offset ${i}`, this.at(blk, i, off));
        // cur becomes prev: swap the spans' contents
        prev.attnum = cur.attnum;
        prev.category = cur.category;
        prev.off = cur.off;
        prev.len = cur.len;
        havePrev = true;
      } else havePrev = false;
      if (!leaf) {
        next.blocks.push(ginTupleBlock(page, off));
        next.pblk.push(blk);
        next.pitem.push(i === maxoff && rl === InvalidBlockNumber ? 0 : i);
        continue;
      }
      const np = ginTupleNPosting(page, off);
      if (np === GIN_TREE_POSTING) {
        this.postingRoots.push(ginTupleBlock(page, off));
        this.postingFrom.push(blk);
        continue;
      }
      this.entryPosting(page, blk, i, off, len, np);
    }
  }

  /** The posting list of leaf entry tuple `i` (at `off`, `len` bytes) with `np` TIDs. */
  private entryPosting(page: Uint8Array, blk: number, i: number, off: number, len: number, np: number): void {
    const name = this.t.relName;
    if (np === 0) return;
    const p = off + ginTuplePostingOffset(page, off);
    const end = off + len;
    const d = this.dec;
    d.n = 0;
    d.truncated = false;
    if (ginTupleCompressed(page, off)) {
      if (p + 8 > end || p + ginPostingListSize(page, p) > end) {
        this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting list of the entry tuple at block ${blk}, offset ${i} runs past the tuple`, this.at(blk, i, p - off));
        return;
      }
      decodeGinPostingList(page, p, end, d);
      if (d.truncated) this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting list of the entry tuple at block ${blk}, offset ${i} ends inside a varbyte delta`, this.at(blk, i, d.stopAt));
      else if (d.n !== np) this.sink.add("GIN_POSTING_COUNT", `number of items mismatch in GIN entry tuple, ${np} in tuple header, ${d.n} decoded`, this.at(blk, i, off));
    } else {
      if (p + np * 6 > end) {
        this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting list of the entry tuple at block ${blk}, offset ${i} runs past the tuple`, this.at(blk, i, p - off));
        return;
      }
      for (let k = 0; k < np; k++) d.push(ginTidCode(tidBlockAt(page, p + 6 * k), tidOffsetAt(page, p + 6 * k)));
    }
    this.tidRun(blk, i, off, -1);
  }

  /** The decoded TIDs (this.dec) strictly increasing, after `after` (a ginTidCode, or -1), with valid offsets; returns the last. */
  private tidRun(blk: number, item: number | undefined, off: number, after: number): number {
    const name = this.t.relName;
    const d = this.dec;
    let prev = after;
    let orderSaid = false;
    let tidSaid = false;
    for (let k = 0; k < d.n; k++) {
      const c = d.codes[k]!;
      if (c <= prev && !orderSaid) {
        const key = ginCodeToTidKey(c);
        this.sink.add("GIN_POSTING_ORDER", `index "${name}": heap TID ${tidKeyText(key)} at block ${blk}${item !== undefined ? `, offset ${item}` : ""} is not above the TID before it`, this.at(blk, item, off));
        orderSaid = true;
      }
      if (c % 2048 === 0 && !tidSaid) {
        this.sink.add("GIN_POSTING_INVALID_TID", `index "${name}": posting list contains invalid heap pointer on block ${blk}`, this.at(blk, item, off));
        tidSaid = true;
      }
      prev = c;
    }
    this.stats.heapTids += d.n;
    return prev;
  }

  // ---- posting trees ---------------------------------------------------------------------------

  private walkPostingTree(root: number, from: number): void {
    this.stats.postingTrees++;
    let lastTid = -1;
    this.walkLevels(root, from, true, (blk, pblk, pitem, _depth, next) => {
      const last = this.dataPage(blk, pblk, pitem, next, lastTid);
      if (last !== null) lastTid = last;
    });
  }

  /** The parent's key for a posting tree page: its PostingItem's key as a ginTidCode, or -1 (none / +infinity). */
  private parentKey(pblk: number, pitem: number): number {
    if (pblk < 0 || pitem <= 0) return -1;
    const p = this.page(pblk);
    const at = GIN_DATA_ITEMS_OFFSET + (pitem - 1) * SizeOfPostingItem + POSTING_ITEM_KEY;
    const off = tidOffsetAt(p, at);
    return off === 0 ? -1 : ginTidCode(tidBlockAt(p, at), off);
  }

  /** Checks one posting tree page; for a leaf, returns its last TID (for the order across leaves). */
  private dataPage(blk: number, pblk: number, pitem: number, next: Level, lastTid: number): number | null {
    const name = this.t.relName;
    const page = this.page(blk);
    const dv = viewOf(page);
    const rl = this.rightlink(page);
    const f = this.flags[blk]!;
    const maxoff = OP.maxoff(page, page.length - GIN_SPECIAL);
    const pkey = this.parentKey(pblk, pitem);
    const bound = ginTidCode(tidBlockAt(page, GIN_DATA_RIGHTBOUND_OFFSET), tidOffsetAt(page, GIN_DATA_RIGHTBOUND_OFFSET));
    const lower = pdLower(dv);
    this.stats.dataPages++;
    const tidText = (c: number): string => `(${Math.floor(c / 2048)}, ${c % 2048})`;
    if (pkey >= 0 && rl !== InvalidBlockNumber && bound !== pkey)
      this.sink.add("GIN_DATA_HIGHKEY", `index "${name}": posting tree page's high key ${tidText(bound)} doesn't match the downlink on block ${blk} (parent blk ${pblk}, key ${tidText(pkey)})`, this.at(blk, undefined, GIN_DATA_RIGHTBOUND_OFFSET));
    if (!(f & GIN_LEAF)) {
      if ((lower - GIN_DATA_ITEMS_OFFSET) / SizeOfPostingItem !== maxoff || lower > page.length - GIN_SPECIAL) {
        this.sink.add("GIN_DATA_PD_LOWER", `index "${name}" has unexpected pd_lower ${lower} in posting tree block ${blk} with maxoff ${maxoff})`, this.at(blk, undefined, 12));
        return null;
      }
      if (maxoff === 0) {
        this.sink.add("GIN_INTERNAL_EMPTY", `index "${name}": internal posting tree page ${blk} has no downlink`, this.at(blk));
        return null;
      }
      let prev = -1;
      for (let i = 1; i <= maxoff; i++) {
        const at = GIN_DATA_ITEMS_OFFSET + (i - 1) * SizeOfPostingItem;
        const k = at + POSTING_ITEM_KEY;
        const kb = tidBlockAt(page, k);
        const ko = tidOffsetAt(page, k);
        const key = ginTidCode(kb, ko);
        if (i === maxoff && rl === InvalidBlockNumber) {
          if (kb !== 0 || ko !== 0) this.sink.add("GIN_DATA_RIGHTMOST_KEY", `index "${name}": rightmost posting tree page (blk ${blk}) has unexpected last key (${kb}, ${ko})`, this.at(blk, i, k));
        } else if (i > 1 && key < prev) this.sink.add("GIN_DATA_ITEM_ORDER", `index "${name}" has wrong tuple order in posting tree, block ${blk}, offset ${i}`, this.at(blk, i, k));
        if (i === maxoff && pkey >= 0 && pkey < key) this.sink.add("GIN_DATA_PARENT_KEY", `index "${name}": posting item exceeds parent's high key in postingTree internal page on block ${blk} offset ${i}`, this.at(blk, i, k));
        prev = key;
        next.blocks.push(postingItemChild(page, at));
        next.pblk.push(blk);
        next.pitem.push(i === maxoff && rl === InvalidBlockNumber ? 0 : i);
      }
      return null;
    }
    // a leaf: compressed segments up to pd_lower, or (pre-9.4) maxoff plain TIDs
    const d = this.dec;
    d.n = 0;
    d.truncated = false;
    if (f & GIN_COMPRESSED) {
      const end = lower;
      if (end < GIN_DATA_ITEMS_OFFSET || end > page.length - GIN_SPECIAL) {
        this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting tree leaf ${blk} has pd_lower ${lower} outside its posting list area`, this.at(blk, undefined, 12));
        return null;
      }
      let p = GIN_DATA_ITEMS_OFFSET;
      while (p < end) {
        if (p + 8 > end || p + ginPostingListSize(page, p) > end) {
          this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting list segment at offset ${p} of posting tree leaf ${blk} runs past pd_lower ${lower}`, this.at(blk, undefined, p));
          break;
        }
        decodeGinPostingList(page, p, end, d);
        if (d.truncated) {
          this.sink.add("GIN_POSTING_TRUNCATED", `index "${name}": posting list segment at offset ${p} of posting tree leaf ${blk} ends inside a varbyte delta`, this.at(blk, undefined, d.stopAt));
          break;
        }
        p += ginPostingListSize(page, p);
      }
      lastTid = this.tidRun(blk, undefined, GIN_DATA_ITEMS_OFFSET, lastTid);
    } else {
      for (let k = 0; k < maxoff && GIN_DATA_ITEMS_OFFSET + 6 * (k + 1) <= page.length - GIN_SPECIAL; k++) {
        const at = GIN_DATA_ITEMS_OFFSET + 6 * k;
        d.push(ginTidCode(tidBlockAt(page, at), tidOffsetAt(page, at)));
      }
      lastTid = this.tidRun(blk, undefined, GIN_DATA_ITEMS_OFFSET, lastTid);
    }
    if (d.n > 0) {
      const lastOnPage = d.codes[d.n - 1]!;
      if (pkey >= 0 && lastOnPage > pkey) this.sink.add("GIN_DATA_PARENT_KEY", `index "${name}": tid exceeds parent's high key in postingTree leaf on block ${blk}`, this.at(blk, undefined, GIN_DATA_ITEMS_OFFSET));
      if (rl !== InvalidBlockNumber && tidOffsetAt(page, GIN_DATA_RIGHTBOUND_OFFSET) !== 0 && lastOnPage > bound)
        this.sink.add("GIN_DATA_RIGHTBOUND", `index "${name}": posting tree leaf ${blk} holds TID ${tidText(lastOnPage)} above its right bound ${tidText(bound)}`, this.at(blk, undefined, GIN_DATA_RIGHTBOUND_OFFSET));
    }
    return lastTid;
  }

  // ---- what no walk reached --------------------------------------------------------------------

  private unreachable(): void {
    for (let blk = 1; blk < this.n; blk++) {
      if (this.reached[blk] || this.state[blk] !== ST_USABLE) continue;
      const f = this.flags[blk]!;
      if (f & GIN_DELETED) continue;
      this.sink.add("GIN_PAGE_UNREACHABLE", `index "${this.t.relName}": page ${blk} (flags ${f}) is reached by no downlink, right link, posting tree or pending list`, this.at(blk));
    }
  }
}
