// Structure of a BRIN index (src/backend/access/brin/README): the metapage, the revmap pages
// (blocks 1..lastRevmapPage, contiguous), and the range summaries on the regular pages after
// them: each revmap TID names an LP_NORMAL summary whose bt_blkno is its range's first heap
// block, no two entries name one summary, every summary fits its line pointer, and a summary no
// entry names is reported as an orphan (scans never see it). One pass records the revmap entries
// and the summaries in block order; they are matched after the last page.
import { itemIdWord, pdSpecial } from "../../formats/page/page.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { ItemPointerData, tidBlockAt, tidOffsetAt } from "../../formats/page/item-pointer.js";
import {
  BRIN_CURRENT_VERSION,
  BRIN_META_MAGIC,
  BRIN_META_OFFSET,
  BRIN_OFFSET_MASK,
  BRIN_PAGETYPE_META,
  BRIN_PAGETYPE_REGULAR,
  BRIN_PAGETYPE_REVMAP,
  BRIN_REVMAP_OFFSET,
  BrinMetaPageData,
  BrinSpecialSpace,
  BrinTupleData,
  SizeOfBrinTuple,
  brinPageTypeName,
  brinRevmapMaxItems,
} from "../../formats/am/brin.js";
import type { PageVerdict } from "../page-check.js";
import { blockLoc, NumList, type AmCheckInput, type AmChecker } from "./checker.js";

const BS = BrinSpecialSpace.get;
const BM = BrinMetaPageData.get;
const BT = BrinTupleData.get;
const TID_SIZE = ItemPointerData.size;
/** the most heap pages one range may summarise (BRIN_MAX_PAGES_PER_RANGE) */
const MAX_PAGES_PER_RANGE = 131072;

export class BrinChecker implements AmChecker {
  readonly name = "brin";
  private readonly n: number;
  private readonly maxItems: number;
  /** page type per block (0: new or unreadable) and the line pointer count of regular pages */
  private readonly type: Uint16Array;
  private readonly maxoff: Uint16Array;
  private pagesPerRange = 0;
  private lastRevmap = -1;
  /** revmap entries: target TID key (block * 65536 + offset) and range number */
  private readonly revTid = new NumList();
  private readonly revRange = new NumList();
  /** LP_NORMAL summaries on regular pages, ascending: TID key, bt_blkno */
  private readonly sumTid = new NumList();
  private readonly sumBlkno = new NumList();

  constructor(private readonly in_: AmCheckInput) {
    this.n = in_.fork.nblocks;
    this.maxItems = brinRevmapMaxItems(in_.fork.geometry.blockSize);
    this.type = new Uint16Array(this.n);
    this.maxoff = new Uint16Array(this.n);
  }

  private add(code: Parameters<AmCheckInput["sink"]["add"]>[0], blk: number, msg: string, item?: number, offset?: number): void {
    const loc = blockLoc(this.in_.fork, blk, item);
    if (offset !== undefined) loc.offset = offset;
    this.in_.sink.add(code, `index "${this.in_.relName}" ${msg}`, loc);
  }

  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    const last = this.lastRevmap;
    if (v.isNew || !v.usable) {
      if (blk === 0) this.add("BRIN_META_MAGIC", 0, v.isNew ? "block 0 is a new page, not the BRIN metapage" : "block 0 cannot be read as the BRIN metapage");
      else if (blk <= last) this.add("BRIN_PAGE_TYPE", blk, `block ${blk} should be revmap page ${blk} but is ${v.isNew ? "a new page" : "unreadable"}`);
      return;
    }
    const sp = pdSpecial(dv);
    if (sp + BrinSpecialSpace.size > page.length) return;
    const type = BS.type(page, sp);
    this.type[blk] = type;
    if (blk === 0) return this.metapage(page, type);
    if (blk <= last) {
      if (type !== BRIN_PAGETYPE_REVMAP) return this.add("BRIN_PAGE_TYPE", blk, `block ${blk} should be revmap page ${blk} (lastRevmapPage ${last}) but is a ${brinPageTypeName(type)} page`);
      return this.revmap(blk, page);
    }
    if (type !== BRIN_PAGETYPE_REGULAR) return this.add("BRIN_PAGE_TYPE", blk, `block ${blk} after the revmap (lastRevmapPage ${last}) is a ${brinPageTypeName(type)} page, not a regular page`);
    this.maxoff[blk] = v.maxoff;
    for (let i = 1; i <= v.maxoff; i++) {
      if (v.badItems.has(i)) continue;
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const off = lpOff(w);
      const len = lpLen(w);
      if (len < SizeOfBrinTuple) {
        this.add("BRIN_TUPLE_SIZE", blk, `block ${blk} item ${i} has length ${len}, shorter than a BrinTuple header (${SizeOfBrinTuple})`, i);
        continue;
      }
      const dataOff = BT.bt_info(page, off) & BRIN_OFFSET_MASK;
      if (dataOff < SizeOfBrinTuple || dataOff & 7 || dataOff > len) this.add("BRIN_TUPLE_SIZE", blk, `block ${blk} item ${i} has data offset ${dataOff}, outside [${SizeOfBrinTuple}, ${len}] or not MAXALIGNed`, i);
      this.sumTid.push(blk * 65536 + i);
      this.sumBlkno.push(BT.bt_blkno(page, off));
    }
  }

  private metapage(page: Uint8Array, type: number): void {
    const at = BRIN_META_OFFSET;
    if (type !== BRIN_PAGETYPE_META) return this.add("BRIN_META_MAGIC", 0, `block 0 is a ${brinPageTypeName(type)} page, not the BRIN metapage`);
    const magic = BM.brinMagic(page, at);
    if (magic !== BRIN_META_MAGIC) return this.add("BRIN_META_MAGIC", 0, `is not a BRIN index: metapage magic 0x${magic.toString(16)}, expected 0x${BRIN_META_MAGIC.toString(16)}`);
    const version = BM.brinVersion(page, at);
    if (version !== BRIN_CURRENT_VERSION) return this.add("BRIN_META_VERSION", 0, `has wrong BRIN version ${version}, expected ${BRIN_CURRENT_VERSION}`);
    const ppr = BM.pagesPerRange(page, at);
    const last = BM.lastRevmapPage(page, at);
    if (ppr === 0 || ppr > MAX_PAGES_PER_RANGE) return this.add("BRIN_META_FIELDS", 0, `metapage has pagesPerRange ${ppr}, outside [1, ${MAX_PAGES_PER_RANGE}]`);
    if (last >= this.n) return this.add("BRIN_META_FIELDS", 0, `metapage has lastRevmapPage ${last}, beyond the end of the index (${this.n} blocks)`);
    this.pagesPerRange = ppr;
    this.lastRevmap = last;
  }

  private revmap(blk: number, page: Uint8Array): void {
    const base = (blk - 1) * this.maxItems;
    for (let i = 0, at = BRIN_REVMAP_OFFSET; i < this.maxItems; i++, at += TID_SIZE) {
      const off = tidOffsetAt(page, at);
      if (off === 0) continue; // !ItemPointerIsValid: range not summarised
      this.revTid.push(tidBlockAt(page, at) * 65536 + off);
      this.revRange.push(base + i);
    }
  }

  finish(): void {
    if (this.lastRevmap < 0) return;
    const marked = new Uint8Array(this.sumTid.n);
    for (let j = 0; j < this.revTid.n; j++) {
      const key = this.revTid.a[j]!;
      const range = this.revRange.a[j]!;
      const tb = Math.floor(key / 65536);
      const to = key % 65536;
      const rblk = 1 + Math.floor(range / this.maxItems);
      const entry = `revmap block ${rblk} entry ${range % this.maxItems} (range at heap block ${range * this.pagesPerRange})`;
      const at = BRIN_REVMAP_OFFSET + (range % this.maxItems) * TID_SIZE;
      const k = this.sumTid.find(key);
      if (k < 0) {
        const why =
          tb >= this.n ? `beyond the end of the index (${this.n} blocks)`
          : tb <= this.lastRevmap ? "inside the metapage or revmap"
          : this.type[tb] !== BRIN_PAGETYPE_REGULAR ? "on a page that is not a regular page"
          : to > this.maxoff[tb]! ? `beyond the page's ${this.maxoff[tb]} line pointers`
          : "at a line pointer that is not LP_NORMAL";
        this.add("BRIN_REVMAP_TID", rblk, `${entry} points to (${tb},${to}), ${why}`, undefined, at);
        continue;
      }
      if (marked[k]) this.add("BRIN_REVMAP_DUPLICATE", rblk, `${entry} points to (${tb},${to}), which another revmap entry names too`, undefined, at);
      marked[k] = 1;
      const want = range * this.pagesPerRange;
      const have = this.sumBlkno.a[k]!;
      if (have !== want) this.add("BRIN_TUPLE_BLKNO", tb, `block ${tb} item ${to} has bt_blkno ${have}, but ${entry} names it`, to);
    }
    for (let k = 0; k < this.sumTid.n; k++) {
      if (marked[k]) continue;
      const key = this.sumTid.a[k]!;
      const blk = Math.floor(key / 65536);
      const item = key % 65536;
      this.add("BRIN_TUPLE_ORPHAN", blk, `block ${blk} item ${item} (range at heap block ${this.sumBlkno.a[k]}) is named by no revmap entry`, item);
    }
  }
}
