// Structure of a GiST index (src/backend/access/gist/README): the root at block 0, every
// downlink of an internal page naming a live GiST page of the file, each page reached once from
// the root, internal and leaf pages never mixed at one depth and every leaf at the same depth,
// right links inside the file, every tuple's size equal to its line pointer's length and every
// leaf tuple's heap TID inside the table. One pass records each page's flags and its downlinks
// (in block order); the tree is walked over those arrays afterwards.
import { pdSpecial } from "../../formats/page/page.js";
import { InvalidBlockNumber, tidBlockAt, tidOffsetAt } from "../../formats/page/item-pointer.js";
import { IndexTupleData } from "../../formats/nbtree/index-tuple.js";
import { F_DELETED, F_LEAF, GIST_PAGE_ID, GISTPageOpaqueData } from "../../formats/am/gist.js";
import type { PageVerdict } from "../page-check.js";
import { blockLoc, eachIndexItem, NumList, type AmCheckInput, type AmChecker } from "./checker.js";

const GO = GISTPageOpaqueData.get;
const TID_AT = IndexTupleData.offsets.t_tid;
/** per-block state: 0 not a usable GiST page (new, unreadable, another page id), a live page, a deleted page */
const LIVE = 1;
const DELETED = 2;

export class GistChecker implements AmChecker {
  readonly name = "gist";
  private readonly n: number;
  private readonly state: Uint8Array;
  private readonly leaf: Uint8Array;
  /** downlinks in block order: parent block * 65536 + item, and the child block */
  private readonly downFrom = new NumList();
  private readonly downTo = new NumList();

  constructor(private readonly in_: AmCheckInput) {
    this.n = in_.fork.nblocks;
    this.state = new Uint8Array(this.n);
    this.leaf = new Uint8Array(this.n);
  }

  private add(code: Parameters<AmCheckInput["sink"]["add"]>[0], blk: number, msg: string, item?: number): void {
    this.in_.sink.add(code, `index "${this.in_.relName}" ${msg}`, blockLoc(this.in_.fork, blk, item));
  }

  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    if (v.isNew || !v.usable) return;
    const sp = pdSpecial(dv);
    if (sp + GISTPageOpaqueData.size !== page.length || GO.gist_page_id(page, sp) !== GIST_PAGE_ID) return;
    const flags = GO.flags(page, sp);
    if (flags & F_DELETED) {
      this.state[blk] = DELETED;
      return;
    }
    this.state[blk] = LIVE;
    const isLeaf = (flags & F_LEAF) !== 0;
    this.leaf[blk] = isLeaf ? 1 : 0;
    const right = GO.rightlink(page, sp);
    if (right !== InvalidBlockNumber && right >= this.n) this.add("GIST_RIGHTLINK", blk, `block ${blk} has right link ${right}, beyond the end of the index (${this.n} blocks)`);
    const heap = this.in_.heapBlocks;
    eachIndexItem(page, dv, v, (i, off, len, size) => {
      if (size !== len) return this.add("GIST_TUPLE_SIZE", blk, `block ${blk} item ${i} has size ${size < 0 ? "(none)" : size} in t_info but line pointer length ${len}`, i);
      const tb = tidBlockAt(page, off + TID_AT);
      if (!isLeaf) {
        this.downFrom.push(blk * 65536 + i);
        this.downTo.push(tb);
      } else if (heap !== undefined) {
        const to = tidOffsetAt(page, off + TID_AT);
        if (tb >= heap || to === 0) this.add("GIST_TID_OUT_OF_RANGE", blk, `block ${blk} item ${i} points to heap tuple (${tb},${to}), beyond the table's ${heap} blocks or at offset 0`, i);
      }
    });
  }

  finish(): void {
    if (this.n === 0) return;
    if (this.state[0] !== LIVE) return this.add("GIST_ROOT", 0, `root block 0 is ${this.state[0] === DELETED ? "a deleted page" : "not a GiST page"}`);
    // downlinks grouped by parent: [first[b], first[b + 1]) in downFrom/downTo
    const first = new Uint32Array(this.n + 1);
    for (let j = 0; j < this.downFrom.n; j++) first[Math.floor(this.downFrom.a[j]! / 65536) + 1]!++;
    for (let b = 0; b < this.n; b++) first[b + 1]! += first[b]!;
    const depth = new Int32Array(this.n).fill(-1);
    depth[0] = 0;
    let level: number[] = [0];
    let leafDepth = -1;
    for (let d = 0; level.length > 0; d++) {
      const leaves = level.filter((b) => this.leaf[b]).length;
      if (leaves > 0 && leaves < level.length) this.add("GIST_LEVEL", level.find((b) => this.leaf[b])!, `has leaf and internal pages at depth ${d} (${leaves} of ${level.length} pages are leaves)`);
      if (leaves > 0 && leafDepth < 0) leafDepth = d;
      else if (leaves > 0 && leafDepth !== d) this.add("GIST_LEVEL", level.find((b) => this.leaf[b])!, `has leaves at depth ${leafDepth} and at depth ${d}`);
      const next: number[] = [];
      for (const parent of level) {
        if (this.leaf[parent]) continue;
        if (first[parent] === first[parent + 1]) this.add("GIST_LEVEL", parent, `internal block ${parent} has no downlinks`);
        for (let j = first[parent]!; j < first[parent + 1]!; j++) {
          const child = this.downTo.a[j]!;
          const item = this.downFrom.a[j]! % 65536;
          if (child >= this.n) this.add("GIST_DOWNLINK", parent, `block ${parent} item ${item} has a downlink to block ${child}, beyond the end of the index (${this.n} blocks)`, item);
          else if (this.state[child] !== LIVE) this.add("GIST_DOWNLINK", parent, `block ${parent} item ${item} has a downlink to block ${child}, which is ${this.state[child] === DELETED ? "a deleted page" : "not a GiST page"}`, item);
          else if (child === 0 || depth[child]! >= 0) this.add("GIST_LEVEL", parent, `block ${parent} item ${item} has a downlink to block ${child}, which is already reached at depth ${depth[child]} (a cycle, or two parents)`, item);
          else {
            depth[child] = d + 1;
            next.push(child);
          }
        }
      }
      level = next;
    }
  }
}
