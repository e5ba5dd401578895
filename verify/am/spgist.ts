// Structure of an SP-GiST index (src/backend/access/spgist/README, spgutils.c, spgdoinsert.c,
// spgvacuum.c, spgscan.c): the metapage at block 0, the root at block 1 and the nulls root at
// block 2; every page an SP-GiST page (SPGIST_PAGE_ID) whose opaque counts of redirect and
// placeholder tuples are right; live tuples are inner tuples on inner pages and leaf tuples on
// leaf pages, every other state a SpGistDeadTupleData of SGDTSIZE bytes; each tuple's size is its
// line pointer's length; an inner tuple's nodes fill it exactly and each node's downlink is
// invalid (an empty node) or names a tuple of the same tree (nulls or not); leaf tuples chain
// on one page through nextOffset. The tree is walked from the roots over (block, offset)
// tuples, not pages: many inner tuples share a page, and an inner tuple may point into its own
// page. Each tuple is reached once, and every live tuple is reached.
// One pass records each page's flags and each tuple's state and link in typed arrays (in block
// order); the walk runs over those arrays afterwards.
import { pdSpecial } from "../../formats/page/page.js";
import { tidBlockAt, tidKey, tidOffsetAt } from "../../formats/page/item-pointer.js";
import { IndexTupleData, INDEX_SIZE_MASK, indexTupleSizeAt } from "../../formats/nbtree/index-tuple.js";
import { grown } from "../../formats/schema/bytes.js";
import {
  SGDTSIZE,
  SGITHDRSZ,
  sgitNNodes,
  sgitPrefixSize,
  sgLeafSizeAt,
  sgTupstateAt,
  SPGIST_DEAD,
  SPGIST_DELETED,
  SPGIST_LEAF,
  SPGIST_LIVE,
  SPGIST_MAGIC_NUMBER,
  SPGIST_META,
  SPGIST_META_OFFSET,
  SPGIST_METAPAGE_BLKNO,
  SPGIST_NULL_BLKNO,
  SPGIST_NULLS,
  SPGIST_PAGE_ID,
  SPGIST_PLACEHOLDER,
  SPGIST_REDIRECT,
  SPGIST_ROOT_BLKNO,
  SPGIST_TUPSTATE_NAMES,
  SpGistDeadTupleData,
  SpGistInnerTupleData,
  SpGistLeafTupleData,
  SpGistMetaPageData,
  SpGistPageOpaqueData,
} from "../../formats/am/spgist.js";
import type { VersionProfile } from "../../formats/version/profile.js";
import type { PageVerdict } from "../page-check.js";
import { blockLoc, eachIndexItem, NumList, type AmCheckInput, type AmChecker } from "./checker.js";

const SO = SpGistPageOpaqueData.get;
const INNER = SpGistInnerTupleData.get;
const LEAF = SpGistLeafTupleData.get;
const LEAF_TID = SpGistLeafTupleData.offsets.heapPtr;
const DEAD_PTR = SpGistDeadTupleData.offsets.pointer;
const NODE_TID = IndexTupleData.offsets.t_tid;
/** a slot whose tuple is not there or could not be read (its problem is reported already) */
const NONE = 255;
/** per-block state: 0 not a usable SP-GiST page, a page with tuples, the metapage, a deleted page */
const ITEMS = 1;
const META = 2;
const DELETED = 3;
/** a redirect chain longer than this loops */
const MAX_REDIRECTS = 64;

type Code = Parameters<AmCheckInput["sink"]["add"]>[0];

export class SpgistChecker implements AmChecker {
  readonly name = "spgist";
  private readonly n: number;
  private readonly nextMask: number;
  private readonly kind: Uint8Array;
  private readonly flags: Uint16Array;
  /** the first tuple slot of a block, and its number of line pointers */
  private readonly base: Float64Array;
  private readonly count: Uint16Array;
  private slots = 0;
  /** per slot: tupstate (or NONE); leaf: nextOffset, redirect: its index in redirTo, inner: its first node; inner: nNodes */
  private st = new Uint8Array(1024);
  private link = new Int32Array(1024);
  private nn = new Int32Array(1024);
  /** node downlinks of all inner tuples: block * 65536 + offset, or -1 for an empty node */
  private readonly nodes = new NumList();
  /** redirect targets, block * 65536 + offset (redirects are few) */
  private readonly redirTo = new NumList();

  constructor(
    private readonly in_: AmCheckInput,
    profile: VersionProfile,
  ) {
    this.n = in_.fork.nblocks;
    this.nextMask = profile.spgistLeafNextOffsetMask;
    this.kind = new Uint8Array(this.n);
    this.flags = new Uint16Array(this.n);
    this.base = new Float64Array(this.n);
    this.count = new Uint16Array(this.n);
  }

  private add(code: Code, blk: number, msg: string, item?: number, severity?: "warning"): void {
    this.in_.sink.add(code, `index "${this.in_.relName}" ${msg}`, blockLoc(this.in_.fork, blk, item), undefined, severity);
  }

  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    if (v.isNew || !v.usable) return;
    const sp = pdSpecial(dv);
    if (sp + SpGistPageOpaqueData.size !== page.length) return; // the page checks report the special size
    const id = SO.spgist_page_id(page, sp);
    if (id !== SPGIST_PAGE_ID) return this.add("SPGIST_PAGE_ID", blk, `block ${blk} has page id 0x${id.toString(16)} in its special space, not SPGIST_PAGE_ID 0xff82`);
    const flags = SO.flags(page, sp);
    this.flags[blk] = flags;
    if (blk === SPGIST_METAPAGE_BLKNO) {
      this.kind[blk] = META;
      if (!(flags & SPGIST_META)) return this.add("SPGIST_META", blk, `block 0 is not a metapage (flags 0x${flags.toString(16)})`);
      const magic = SpGistMetaPageData.get.magicNumber(page, SPGIST_META_OFFSET);
      if (magic !== SPGIST_MAGIC_NUMBER) this.add("SPGIST_META", blk, `metapage has magic number 0x${magic.toString(16)}, not 0xba0babee`);
      return;
    }
    if (flags & SPGIST_META) {
      this.kind[blk] = META;
      return this.add("SPGIST_META", blk, `block ${blk} is marked a metapage; only block 0 is one`);
    }
    if (flags & SPGIST_DELETED) {
      this.kind[blk] = DELETED;
      return;
    }
    this.kind[blk] = ITEMS;
    this.base[blk] = this.slots;
    this.count[blk] = v.maxoff;
    const first = this.slots;
    this.slots += v.maxoff;
    this.st = grown(this.st, this.slots, first);
    this.link = grown(this.link, this.slots, first);
    this.nn = grown(this.nn, this.slots, first);
    this.st.fill(NONE, first, this.slots);
    const isLeaf = (flags & SPGIST_LEAF) !== 0;
    const rootLeaf = isLeaf && (blk === SPGIST_ROOT_BLKNO || blk === SPGIST_NULL_BLKNO);
    const heap = this.in_.heapBlocks;
    const maxoff = v.maxoff;
    let redirects = 0;
    let placeholders = 0;
    eachIndexItem(page, dv, v, (i, off, len) => {
      const slot = first + i - 1;
      const state = len < 4 ? -1 : sgTupstateAt(page, off);
      if (state === SPGIST_REDIRECT) redirects++;
      else if (state === SPGIST_PLACEHOLDER) placeholders++;
      if (state !== SPGIST_LIVE) {
        // redirect, dead and placeholder tuples are all SpGistDeadTupleData (spgFormDeadTuple)
        const size = len < 4 ? -1 : sgLeafSizeAt(page, off);
        if (len !== SGDTSIZE || size !== SGDTSIZE) return this.add("SPGIST_TUPLE_SIZE", blk, `block ${blk} item ${i} is a ${state < 0 ? "(short)" : SPGIST_TUPSTATE_NAMES[state]} tuple of size ${size < 0 ? "(none)" : size} and line pointer length ${len}, not SGDTSIZE ${SGDTSIZE}`, i);
        if (state === SPGIST_REDIRECT) {
          const tb = tidBlockAt(page, off + DEAD_PTR);
          const to = tidOffsetAt(page, off + DEAD_PTR);
          if (tb >= this.n || to === 0) return this.add("SPGIST_REDIRECT", blk, `block ${blk} item ${i} redirects to (${tb},${to}), ${to === 0 ? "an invalid pointer" : `beyond the end of the index (${this.n} blocks)`}`, i);
          this.link[slot] = this.redirTo.n;
          this.redirTo.push(tidKey(tb, to));
        }
        this.st[slot] = state;
        return;
      }
      if (isLeaf) {
        const size = len < SpGistLeafTupleData.size ? -1 : sgLeafSizeAt(page, off);
        if (size !== len || len < SGDTSIZE) return this.add("SPGIST_TUPLE_SIZE", blk, `block ${blk} item ${i} is a leaf tuple of size ${size < 0 ? "(none)" : size} and line pointer length ${len}${len < SGDTSIZE ? `, below SGDTSIZE ${SGDTSIZE}` : ""}`, i);
        const next = LEAF.t_info(page, off) & this.nextMask;
        if (heap !== undefined) {
          const tb = tidBlockAt(page, off + LEAF_TID);
          const to = tidOffsetAt(page, off + LEAF_TID);
          if (tb >= heap || to === 0) this.add("SPGIST_TID_OUT_OF_RANGE", blk, `block ${blk} item ${i} points to heap tuple (${tb},${to}), beyond the table's ${heap} blocks or at offset 0`, i);
        }
        this.st[slot] = SPGIST_LIVE;
        this.link[slot] = 0;
        // the root's leaf tuples are not chained (spgist_private.h: nextOffset is always 0 there)
        if (rootLeaf && next !== 0) return this.add("SPGIST_LEAF_CHAIN", blk, `block ${blk} item ${i} is a leaf tuple of the root page with nextOffset ${next}, not 0`, i);
        if (next > maxoff) return this.add("SPGIST_LEAF_CHAIN", blk, `block ${blk} item ${i} has nextOffset ${next}, beyond the page's ${maxoff} line pointers`, i);
        this.link[slot] = next;
        return;
      }
      const size = len < SpGistInnerTupleData.size ? -1 : INNER.size(page, off);
      if (size !== len) return this.add("SPGIST_TUPLE_SIZE", blk, `block ${blk} item ${i} is an inner tuple of size ${size < 0 ? "(none)" : size} and line pointer length ${len}`, i);
      const w = INNER.header(page, off);
      const nNodes = sgitNNodes(w);
      const end = off + size;
      let p = off + SGITHDRSZ + sgitPrefixSize(w);
      if (nNodes === 0) return this.add("SPGIST_INNER_TUPLE", blk, `block ${blk} item ${i} is an inner tuple without nodes`, i);
      if (p > end) return this.add("SPGIST_INNER_TUPLE", blk, `block ${blk} item ${i} is an inner tuple whose prefix (${sgitPrefixSize(w)} bytes) runs past its ${size} bytes`, i);
      const start = this.nodes.n;
      for (let k = 0; k < nNodes; k++) {
        const nsize = p + IndexTupleData.size <= end ? indexTupleSizeAt(page, p) : -1;
        if (nsize < IndexTupleData.size || p + nsize > end) {
          this.nodes.n = start;
          return this.add("SPGIST_INNER_TUPLE", blk, `block ${blk} item ${i} is an inner tuple whose node ${k + 1} of ${nNodes} (at byte ${p - off}, size ${nsize < 0 ? "(none)" : nsize & INDEX_SIZE_MASK}) runs past its ${size} bytes`, i);
        }
        // ItemPointerIsValid: an empty node has an invalid downlink (offset 0)
        const to = tidOffsetAt(page, p + NODE_TID);
        this.nodes.push(to === 0 ? -1 : tidKey(tidBlockAt(page, p + NODE_TID), to));
        p += nsize;
      }
      if (p !== end) {
        this.nodes.n = start;
        return this.add("SPGIST_INNER_TUPLE", blk, `block ${blk} item ${i} is an inner tuple whose ${nNodes} nodes end at byte ${p - off}, not at its size ${size}`, i);
      }
      this.st[slot] = SPGIST_LIVE;
      this.link[slot] = start;
      this.nn[slot] = nNodes;
    });
    const haveR = SO.nRedirection(page, sp);
    const haveP = SO.nPlaceholder(page, sp);
    if (haveR !== redirects || haveP !== placeholders) this.add("SPGIST_PAGE_COUNTS", blk, `block ${blk} says it holds ${haveR} redirect and ${haveP} placeholder tuples; it holds ${redirects} and ${placeholders}`);
  }

  finish(): void {
    if (this.n === 0) return;
    const reached = new Uint32Array(this.slots);
    const todo = new NumList(); // pairs: target key, parent key
    let walk = 0;
    /** per tree (0 the main one, 1 the nulls tree): its root could be walked */
    const walked = [false, false];
    for (const root of [SPGIST_ROOT_BLKNO, SPGIST_NULL_BLKNO]) {
      const nulls = root === SPGIST_NULL_BLKNO ? SPGIST_NULLS : 0;
      const what = nulls ? "the nulls root" : "the root";
      if (root >= this.n) {
        this.add("SPGIST_ROOT", this.n - 1, `has ${this.n} blocks: ${what}, block ${root}, is missing`);
        continue;
      }
      if (this.kind[root] !== ITEMS) {
        this.add("SPGIST_ROOT", root, `${what}, block ${root}, is ${this.kind[root] === DELETED ? "a deleted page" : this.kind[root] === META ? "a metapage" : "not a usable SP-GiST page"}`);
        continue;
      }
      if ((this.flags[root]! & SPGIST_NULLS) !== nulls) {
        this.add("SPGIST_ROOT", root, `${what}, block ${root}, ${nulls ? "lacks" : "has"} the SPGIST_NULLS flag`);
        continue;
      }
      walked[nulls ? 1 : 0] = true;
      if (this.flags[root]! & SPGIST_LEAF) {
        // a leaf root: all its tuples are the tree's leaves
        for (let s = this.base[root]!, e = s + this.count[root]!; s < e; s++) if (this.st[s] === SPGIST_LIVE) reached[s] = ++walk;
        continue;
      }
      // an inner root: its one inner tuple is at FirstOffsetNumber (spgscan.c starts there)
      const s0 = this.base[root]!;
      if (this.count[root] === 0 || this.st[s0] !== SPGIST_LIVE) {
        this.add("SPGIST_ROOT", root, `${what}, block ${root}, is an inner page whose item 1 is ${this.count[root] === 0 ? "missing" : this.st[s0] === NONE ? "unreadable" : `a ${SPGIST_TUPSTATE_NAMES[this.st[s0]!]} tuple`}, not the root inner tuple`, 1);
        walked[nulls ? 1 : 0] = false;
        continue;
      }
      todo.push(tidKey(root, 1));
      todo.push(-1);
      while (todo.n > 0) {
        const from = todo.a[--todo.n]!;
        let to = todo.a[--todo.n]!;
        const pb = from < 0 ? root : Math.floor(from / 65536);
        const pi = from < 0 ? 1 : from % 65536;
        const via = from < 0 ? `${what}'s inner tuple` : `block ${pb} item ${pi}`;
        for (let hops = 0; ; hops++) {
          const b = Math.floor(to / 65536);
          const o = to % 65536;
          const bad = this.target(b, o, nulls);
          if (bad) {
            this.add("SPGIST_DOWNLINK", pb, `${via} has a downlink${hops ? ` (through ${hops} redirects)` : ""} to (${b},${o}), ${bad}`, pi);
            break;
          }
          const s = this.base[b]! + o - 1;
          const state = this.st[s]!;
          if (state === NONE || state === SPGIST_DEAD) break; // unreadable (reported), or a dead chain head
          if (state === SPGIST_PLACEHOLDER) {
            this.add("SPGIST_DOWNLINK", pb, `${via} has a downlink to (${b},${o}), a placeholder tuple (a free slot)`, pi);
            break;
          }
          if (state === SPGIST_REDIRECT) {
            if (hops >= MAX_REDIRECTS) {
              this.add("SPGIST_REDIRECT", b, `block ${b} item ${o} is on a chain of more than ${MAX_REDIRECTS} redirects (a loop)`, o);
              break;
            }
            to = this.redirTo.a[this.link[s]!]!;
            continue;
          }
          if (this.flags[b]! & SPGIST_LEAF) this.chain(b, o, ++walk, reached, pb, pi);
          else if (reached[s]) this.add("SPGIST_REACHED", b, `block ${b} item ${o}, an inner tuple, is reached again from block ${pb} item ${pi} (a cycle, or two parents)`, o);
          else {
            reached[s] = ++walk;
            const at = this.link[s]!;
            for (let k = this.nn[s]! - 1; k >= 0; k--) {
              const down = this.nodes.a[at + k]!;
              if (down < 0) continue;
              todo.push(down);
              todo.push(tidKey(b, o));
            }
          }
          break;
        }
      }
    }
    this.orphans(reached, walked);
  }

  /** Why (b, o) cannot be a downlink's target in the tree with SPGIST_NULLS `nulls`, or "" */
  private target(b: number, o: number, nulls: number): string {
    if (b >= this.n) return `beyond the end of the index (${this.n} blocks)`;
    const k = this.kind[b];
    if (k !== ITEMS) return k === DELETED ? "a deleted page" : k === META ? "a metapage" : "not a usable SP-GiST page";
    if ((this.flags[b]! & SPGIST_NULLS) !== nulls) return nulls ? "a page outside the nulls tree" : "a page of the nulls tree";
    if (o > this.count[b]!) return `beyond the page's ${this.count[b]} line pointers`;
    return "";
  }

  /** Walk the leaf chain that starts at (b, o), a leaf tuple reached from block pb item pi. */
  private chain(b: number, o: number, walk: number, reached: Uint32Array, pb: number, pi: number): void {
    const base = this.base[b]!;
    for (let cur = o; cur !== 0; ) {
      const s = base + cur - 1;
      const state = this.st[s]!;
      if (state === NONE) return;
      if (state !== SPGIST_LIVE) return this.add("SPGIST_LEAF_CHAIN", b, `block ${b} item ${cur}, a ${SPGIST_TUPSTATE_NAMES[state]} tuple, is on the leaf chain that starts at item ${o}`, cur);
      if (reached[s] === walk) return this.add("SPGIST_LEAF_CHAIN", b, `block ${b} item ${cur} is reached twice on the leaf chain that starts at item ${o} (a cycle)`, cur);
      if (reached[s]) return this.add("SPGIST_REACHED", b, `block ${b} item ${cur}, a leaf tuple, is reached again from block ${pb} item ${pi} (two parents, or two chains joined)`, cur);
      reached[s] = walk;
      cur = this.link[s]!;
    }
  }

  /** Live tuples the walk did not reach, one finding per page (not in a tree whose root is broken). */
  private orphans(reached: Uint32Array, walked: boolean[]): void {
    for (let b = 0; b < this.n; b++) {
      if (this.kind[b] !== ITEMS || !walked[this.flags[b]! & SPGIST_NULLS ? 1 : 0]) continue;
      let first = 0;
      let k = 0;
      for (let o = 1; o <= this.count[b]!; o++) {
        const s = this.base[b]! + o - 1;
        if (this.st[s] !== SPGIST_LIVE || reached[s]) continue;
        if (!k) first = o;
        k++;
      }
      if (k) this.add("SPGIST_ORPHAN", b, `block ${b} holds ${k} live ${this.flags[b]! & SPGIST_LEAF ? "leaf" : "inner"} tuple${k > 1 ? "s" : ""} (the first at item ${first}) that no downlink from the root reaches`, first);
    }
  }
}
