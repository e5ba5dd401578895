// One B-tree page as the checks see it: opaque fields, and each item's bytes by offset number.
// A BTP_PREFIX leaf (new-formats.md §2) is decoded first: its data items become their stock
// tuples, laid out 8-aligned in a buffer of their own, so every later check works on stock
// tuples whatever the leaf's format; the directory slot is not an item.
import { LP_DEAD, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxAlign, maxOffsetNumber } from "../../formats/page/page.js";
import { BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_HAS_GARBAGE, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, BTP_PREFIX, BTP_ROOT, P_FIRSTKEY, P_HIKEY, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { readPrefixLeafPage, type PrefixLeafPage } from "../../formats/nbtree/prefix-page.js";
import { viewOf } from "../page-view.js";
import { lsnText, PageHeaderData } from "../../formats/page/page-header.js";

/** Pages' item arrays are cut from this, SLAB bytes at a time (a slab is freed with its last page). */
const SLAB = 256 * 1024;
let slab = new ArrayBuffer(0);
// full: the first page takes the new-slab branch, so it has run before V8 optimises the code
// around it (a first run after that was a deoptimisation of the whole B-tree pass per thread)
let slabUsed = SLAB;

/** Offset of `bytes` zeroed bytes in `slab` (a new slab when they do not fit). */
function slabTake(bytes: number): number {
  if (bytes > SLAB / 4) {
    slab = new ArrayBuffer(bytes);
    slabUsed = SLAB; // a page of its own; the next page starts a new slab
    return 0;
  }
  if (slabUsed + bytes > SLAB) {
    slab = new ArrayBuffer(SLAB);
    slabUsed = 0;
  }
  const at = slabUsed;
  slabUsed = (slabUsed + bytes + 7) & ~7;
  return at;
}

export class BtPage {
  /** item bytes live here (the page itself, or the decoded items of a BTP_PREFIX leaf) */
  buf: Uint8Array;
  readonly start: Int32Array;
  readonly len: Int32Array;
  /** 1: do not read this item (broken line pointer or tuple) */
  readonly bad: Uint8Array;
  readonly dead: Uint8Array;
  /** decoded from a coded BTP_PREFIX item (lp_len is the coded length) */
  readonly coded: Uint8Array;
  readonly flags: number;
  readonly prev: number;
  readonly next: number;
  readonly level: number;
  readonly maxoff: number;
  readonly firstDataKey: number;
  private lsnText?: string;
  prefix: PrefixLeafPage | null = null;
  /** the BTP_PREFIX page could not be decoded: its data items are unknown */
  undecodable = false;

  constructor(
    readonly blk: number,
    readonly raw: Uint8Array,
    badItems?: ReadonlySet<number>,
  ) {
    const dv = viewOf(raw);
    const o = readBTOpaque(dv);
    this.flags = o.btpo_flags;
    this.prev = o.btpo_prev;
    this.next = o.btpo_next;
    this.level = o.btpo_level;
    this.maxoff = this.flags & BTP_DELETED ? 0 : maxOffsetNumber(dv);
    const n = this.maxoff + 1;
    // the five arrays share a slab with other pages' (an ArrayBuffer per page cost an allocation,
    // and the walk keeps thousands of pages: the scavenger copied and swept them all)
    const words = (n + 3) & ~3;
    const at = slabTake(words * 11);
    const store = slab;
    this.start = new Int32Array(store, at, n);
    this.len = new Int32Array(store, at + words * 4, n);
    this.bad = new Uint8Array(store, at + words * 8, n);
    this.dead = new Uint8Array(store, at + words * 9, n);
    this.coded = new Uint8Array(store, at + words * 10, n);
    this.buf = raw;
    // a page nearly always has no broken line pointer: no Set lookup per item then
    const anyBad = badItems !== undefined && badItems.size > 0;
    for (let i = 1; i <= this.maxoff; i++) {
      const w = itemIdWord(dv, i);
      this.start[i] = lpOff(w);
      this.len[i] = lpLen(w);
      this.dead[i] = lpFlags(w) === LP_DEAD ? 1 : 0;
      if ((anyBad && badItems.has(i)) || lpOff(w) + lpLen(w) > raw.length) this.bad[i] = 1;
    }
    const stockFirst = this.next === 0 ? P_HIKEY : P_FIRSTKEY;
    this.firstDataKey = this.flags & BTP_PREFIX ? stockFirst + 1 : stockFirst;
  }

  /** pd_lsn as PostgreSQL prints it (for messages; formatted when asked) */
  get lsn(): string {
    if (this.lsnText === undefined) {
      this.lsnText = lsnText({ pd_lsn_xlogid: PageHeaderData.get.pd_lsn_xlogid(this.raw, 0), pd_lsn_xrecoff: PageHeaderData.get.pd_lsn_xrecoff(this.raw, 0) });
    }
    return this.lsnText;
  }

  get leaf(): boolean {
    return (this.flags & BTP_LEAF) !== 0;
  }
  get rightmost(): boolean {
    return this.next === 0;
  }
  get leftmost(): boolean {
    return this.prev === 0;
  }
  get deleted(): boolean {
    return (this.flags & BTP_DELETED) !== 0;
  }
  get halfDead(): boolean {
    return (this.flags & BTP_HALF_DEAD) !== 0;
  }
  /** P_IGNORE */
  get ignore(): boolean {
    return (this.flags & (BTP_DELETED | BTP_HALF_DEAD)) !== 0;
  }
  get root(): boolean {
    return (this.flags & BTP_ROOT) !== 0;
  }
  get meta(): boolean {
    return (this.flags & BTP_META) !== 0;
  }
  get incompleteSplit(): boolean {
    return (this.flags & BTP_INCOMPLETE_SPLIT) !== 0;
  }
  get hasGarbage(): boolean {
    return (this.flags & BTP_HAS_GARBAGE) !== 0;
  }
  get hasFullXid(): boolean {
    return (this.flags & BTP_HAS_FULLXID) !== 0;
  }
  get isPrefix(): boolean {
    return (this.flags & BTP_PREFIX) !== 0;
  }
  /** offset_is_negative_infinity */
  negInf(off: number): boolean {
    return !this.leaf && off === this.firstDataKey;
  }

  /**
   * Decode a BTP_PREFIX leaf into stock tuples. Throws the codec's FormatError when the page's
   * prefix structure is broken (the caller reports it and treats the items as unknown).
   */
  decodePrefix(blcksz: number, btmVersion: number): PrefixLeafPage {
    const r = readPrefixLeafPage(this.raw, { blcksz, btmVersion });
    let total = 8;
    if (r.highKey) total += maxAlign(r.highKey.length);
    for (const it of r.items) total += maxAlign(it.tuple.length);
    const buf = new Uint8Array(total);
    let pos = 8;
    const place = (off: number, t: Uint8Array, coded: boolean): void => {
      buf.set(t, pos);
      this.start[off] = pos;
      this.len[off] = t.length;
      this.coded[off] = coded ? 1 : 0;
      pos += maxAlign(t.length);
    };
    if (r.highKey) place(P_HIKEY, r.highKey, false);
    this.bad[r.directoryOffset] = 1; // the directory is not an index tuple
    for (const it of r.items) place(it.offset, it.tuple, it.coded);
    this.buf = buf;
    this.prefix = r;
    return r;
  }
}
