// Structure of a hash index (src/backend/access/hash/README): the metapage (magic, version, the
// bucket masks, the bitmap pages), each bucket's primary page at BUCKET_TO_BLKNO and its overflow
// chain (links both ways, acyclic, every page of the bucket), and every tuple: its size, its hash
// code in the page's bucket and in ascending order on the page, its heap TID in the table.
// One pass over the pages records each page's type, bucket and links; the chains are walked
// over those arrays afterwards.
import { tidBlockAt, tidOffsetAt, InvalidBlockNumber } from "../../formats/page/item-pointer.js";
import { pdSpecial } from "../../formats/page/page.js";
import { IndexTupleData } from "../../formats/nbtree/index-tuple.js";
import {
  HASH_MAGIC,
  HASH_MAX_BITMAPS,
  HASH_META_OFFSET,
  HASH_VERSION,
  HashIndexTupleData,
  HashMetaPageData,
  HashPageOpaqueData,
  LH_BITMAP_PAGE,
  LH_BUCKET_BEING_POPULATED,
  LH_BUCKET_BEING_SPLIT,
  LH_BUCKET_NEEDS_SPLIT_CLEANUP,
  LH_BUCKET_PAGE,
  LH_META_PAGE,
  LH_OVERFLOW_PAGE,
  LH_PAGE_TYPE,
  hashBucketBlock,
  hashKeyBucket,
  hashMapp,
  hashSpares,
  type HashMetaPage,
} from "../../formats/am/hash.js";
import type { PageVerdict } from "../page-check.js";
import { blockLoc, eachIndexItem, NumList, type AmCheckInput, type AmChecker } from "./checker.js";

const HO = HashPageOpaqueData.get;
const TUPLE_MIN = 16; // MAXALIGN(sizeof(IndexTupleData) + sizeof(uint32))
const KEY_AT = HashIndexTupleData.offsets.hashkey;
const TID_AT = IndexTupleData.offsets.t_tid;
/** page types recorded per block: 0xFF = unreadable or new (no special space to trust) */
const NO_TYPE = 0xff;
const SPLITTING = LH_BUCKET_BEING_SPLIT | LH_BUCKET_BEING_POPULATED | LH_BUCKET_NEEDS_SPLIT_CLEANUP;

export class HashChecker implements AmChecker {
  readonly name = "hash";
  private readonly n: number;
  private readonly type: Uint8Array;
  private readonly flags: Uint16Array;
  private readonly bucket: Uint32Array;
  private readonly prev: Uint32Array;
  private readonly next: Uint32Array;
  private meta: HashMetaPage | null = null;
  /** tuples whose hash code maps to another bucket than their page's: block * 65536 + item, and the bucket */
  private readonly wrongBucket = new NumList();
  private readonly wrongBucketOf = new NumList();

  constructor(private readonly in_: AmCheckInput) {
    this.n = in_.fork.nblocks;
    this.type = new Uint8Array(this.n).fill(NO_TYPE);
    this.flags = new Uint16Array(this.n);
    this.bucket = new Uint32Array(this.n);
    this.prev = new Uint32Array(this.n);
    this.next = new Uint32Array(this.n);
  }

  private add(code: Parameters<AmCheckInput["sink"]["add"]>[0], blk: number, msg: string, item?: number): void {
    this.in_.sink.add(code, `index "${this.in_.relName}" ${msg}`, blockLoc(this.in_.fork, blk, item));
  }

  page(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    if (v.isNew || !v.usable) {
      if (blk === 0) this.add("HASH_META_MAGIC", 0, v.isNew ? "block 0 is a new page, not the hash metapage" : "block 0 cannot be read as the hash metapage");
      return;
    }
    const sp = pdSpecial(dv);
    if (sp + HashPageOpaqueData.size > page.length) return;
    const flag = HO.hasho_flag(page, sp);
    const t = flag & LH_PAGE_TYPE;
    this.type[blk] = t;
    this.flags[blk] = flag;
    this.bucket[blk] = HO.hasho_bucket(page, sp);
    this.prev[blk] = HO.hasho_prevblkno(page, sp);
    this.next[blk] = HO.hasho_nextblkno(page, sp);
    if (blk === 0) return this.metapage(page);
    if (t === LH_META_PAGE) return this.add("HASH_PAGE_TYPE", blk, `block ${blk} is a second metapage`);
    if (t !== 0 && t !== LH_OVERFLOW_PAGE && t !== LH_BUCKET_PAGE && t !== LH_BITMAP_PAGE) return this.add("HASH_PAGE_TYPE", blk, `block ${blk} has invalid page type bits 0x${t.toString(16)}`);
    if (t === LH_BUCKET_PAGE || t === LH_OVERFLOW_PAGE) this.tuples(blk, page, dv, v);
  }

  private metapage(page: Uint8Array): void {
    if (this.type[0] !== LH_META_PAGE) return this.add("HASH_META_MAGIC", 0, `block 0 is not a hash metapage (hasho_flag 0x${this.flags[0]!.toString(16)})`);
    const m = HashMetaPageData.decode(page, HASH_META_OFFSET);
    if (m.hashm_magic !== HASH_MAGIC) return this.add("HASH_META_MAGIC", 0, `is not a hash index: metapage magic 0x${m.hashm_magic.toString(16)}, expected 0x${HASH_MAGIC.toString(16)}`);
    if (m.hashm_version !== HASH_VERSION) return this.add("HASH_META_VERSION", 0, `has wrong hash version ${m.hashm_version}, expected ${HASH_VERSION}`);
    const { hashm_maxbucket: max, hashm_highmask: high, hashm_lowmask: low } = m;
    const pow2 = high !== 0xffffffff && ((high + 1) & high) === 0;
    if (!pow2 || low !== high >>> 1 || max < low || max > high) {
      return this.add("HASH_META_MASKS", 0, `metapage has maxbucket ${max}, highmask 0x${high.toString(16)}, lowmask 0x${low.toString(16)}: not one table size`);
    }
    const last = hashBucketBlock(hashSpares(m), max);
    if (last >= this.n) return this.add("HASH_META_MASKS", 0, `metapage places bucket ${max} at block ${last}, beyond the end of the index (${this.n} blocks)`);
    this.meta = m;
  }

  private tuples(blk: number, page: Uint8Array, dv: DataView, v: PageVerdict): void {
    const m = this.meta;
    const heap = this.in_.heapBlocks;
    const pageBucket = this.bucket[blk]!;
    let prevKey = -1;
    eachIndexItem(page, dv, v, (i, off, len, size) => {
      if (len < TUPLE_MIN || size !== len) return this.add("HASH_TUPLE_SIZE", blk, `block ${blk} item ${i} has size ${size} in t_info but line pointer length ${len} (a hash tuple has ${TUPLE_MIN})`, i);
      const key = (page[off + KEY_AT]! | (page[off + KEY_AT + 1]! << 8) | (page[off + KEY_AT + 2]! << 16) | (page[off + KEY_AT + 3]! << 24)) >>> 0;
      if (key < prevKey) this.add("HASH_TUPLE_ORDER", blk, `block ${blk} item ${i} has hash code 0x${key.toString(16)} below the previous item's 0x${prevKey.toString(16)}`, i);
      prevKey = key;
      if (m) {
        const b = hashKeyBucket(key, m.hashm_maxbucket, m.hashm_highmask, m.hashm_lowmask);
        if (b !== pageBucket) {
          this.wrongBucket.push(blk * 65536 + i);
          this.wrongBucketOf.push(b);
        }
      }
      if (heap !== undefined) {
        const hb = tidBlockAt(page, off + TID_AT);
        const ho = tidOffsetAt(page, off + TID_AT);
        if (hb >= heap || ho === 0) this.add("HASH_TID_OUT_OF_RANGE", blk, `block ${blk} item ${i} points to heap tuple (${hb},${ho}), beyond the table's ${heap} blocks or at offset 0`, i);
      }
    });
  }

  finish(): void {
    const m = this.meta;
    if (!m) return;
    const n = this.n;
    // bitmap pages
    if (m.hashm_nmaps > HASH_MAX_BITMAPS) this.add("HASH_META_BITMAPS", 0, `metapage has ${m.hashm_nmaps} bitmap pages, more than ${HASH_MAX_BITMAPS}`);
    else {
      const mapp = hashMapp(m);
      for (let i = 0; i < m.hashm_nmaps; i++) {
        const b = mapp[i]!;
        if (b >= n) this.add("HASH_META_BITMAPS", 0, `metapage names bitmap page ${i} at block ${b}, beyond the end of the index (${n} blocks)`);
        else if (this.type[b] !== LH_BITMAP_PAGE) this.add("HASH_META_BITMAPS", b, `metapage names block ${b} as bitmap page ${i}, but it is ${typeName(this.type[b]!)}`);
      }
    }
    // bucket chains
    const spares = hashSpares(m);
    const reached = new Uint8Array(n);
    const splitting = new Uint8Array(m.hashm_maxbucket + 1);
    for (let b = 0; b <= m.hashm_maxbucket; b++) {
      const blk = hashBucketBlock(spares, b);
      if (this.type[blk] !== LH_BUCKET_PAGE || this.bucket[blk] !== b || this.prev[blk]! > m.hashm_maxbucket) {
        const what = this.type[blk] !== LH_BUCKET_PAGE ? typeName(this.type[blk]!) : this.bucket[blk] !== b ? `a page of bucket ${this.bucket[blk]}` : `a bucket page whose hasho_prevblkno ${this.prev[blk]} (maxbucket at its last split) exceeds maxbucket ${m.hashm_maxbucket}`;
        this.add("HASH_BUCKET_PAGE", blk, `block ${blk}, the primary page of bucket ${b}, is ${what}`);
        if (this.type[blk] !== LH_BUCKET_PAGE) continue;
      }
      if (this.flags[blk]! & SPLITTING) {
        splitting[b] = 1;
        this.add("HASH_BUCKET_SPLITTING", blk, `bucket ${b} (block ${blk}) takes part in an unfinished split: its tuples' buckets are not checked`);
      }
      reached[blk] = 1;
      let from = blk;
      let at = this.next[blk]!;
      while (at !== InvalidBlockNumber) {
        if (at >= n) {
          this.add("HASH_OVERFLOW_LINK", from, `block ${from} of bucket ${b} links to block ${at}, beyond the end of the index (${n} blocks)`);
          break;
        }
        if (reached[at]) {
          this.add("HASH_OVERFLOW_LINK", from, `block ${from} of bucket ${b} links to block ${at}, which is already on a chain (a cycle or a shared page)`);
          break;
        }
        if (this.type[at] !== LH_OVERFLOW_PAGE) {
          this.add("HASH_OVERFLOW_LINK", from, `block ${from} of bucket ${b} links to block ${at}, which is ${typeName(this.type[at]!)}, not an overflow page`);
          break;
        }
        reached[at] = 1;
        if (this.bucket[at] !== b) this.add("HASH_OVERFLOW_LINK", at, `overflow block ${at} on the chain of bucket ${b} says it belongs to bucket ${this.bucket[at]}`);
        if (this.prev[at] !== from) this.add("HASH_OVERFLOW_LINK", at, `overflow block ${at} has hasho_prevblkno ${this.prev[at]}, but block ${from} links to it`);
        from = at;
        at = this.next[at]!;
      }
    }
    for (let blk = 1; blk < n; blk++) {
      if (this.type[blk] === LH_OVERFLOW_PAGE && !reached[blk]) this.add("HASH_OVERFLOW_ORPHAN", blk, `overflow block ${blk} (bucket ${this.bucket[blk]}) is on no bucket's chain`);
    }
    for (let j = 0; j < this.wrongBucket.n; j++) {
      const key = this.wrongBucket.a[j]!;
      const blk = Math.floor(key / 65536);
      const pb = this.bucket[blk]!;
      if (pb <= m.hashm_maxbucket && splitting[pb]) continue;
      const item = key % 65536;
      this.add("HASH_TUPLE_BUCKET", blk, `block ${blk} item ${item} has a hash code of bucket ${this.wrongBucketOf.a[j]}, but its page belongs to bucket ${pb}`, item);
    }
  }
}

function typeName(t: number): string {
  switch (t) {
    case NO_TYPE:
      return "a new or unreadable page";
    case 0:
      return "an unused page";
    case LH_OVERFLOW_PAGE:
      return "an overflow page";
    case LH_BUCKET_PAGE:
      return "a bucket page";
    case LH_BITMAP_PAGE:
      return "a bitmap page";
    case LH_META_PAGE:
      return "a metapage";
    default:
      return `a page of type 0x${t.toString(16)}`;
  }
}
