// Page access for TOAST reads: a small LRU of whole pages per relation (a miss reads one block
// and allocates a fresh buffer, so bytes handed out stay valid), and per-read accounting of the
// distinct pages touched, kept apart for the TOAST heap and the TOAST index.
import type { RelationFork } from "../storage/relfile.js";
import { LP_FLAG_NAMES, LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";

/** What one read cost. Pages are distinct pages touched by that read. */
export interface ToastReadStats {
  /** TOAST heap pages touched (chunk tuples fetched) */
  heapPages: number;
  /** TOAST index pages touched (metapage and descent included) */
  indexPages: number;
  /** chunk tuples read */
  chunksRead: number;
  /** raw bytes produced by decompression */
  bytesDecompressed: number;
  /** heap pages read by a full scan of the TOAST heap (fallback when the index is missing or damaged; once per reader) */
  heapScanPages: number;
  /** how chunks were found: "index", "heap-scan" (fallback), "direct" (by TID) */
  via: string[];
}

export const emptyStats = (): ToastReadStats => ({ heapPages: 0, indexPages: 0, chunksRead: 0, bytesDecompressed: 0, heapScanPages: 0, via: [] });

export function addStats(into: ToastReadStats, s: ToastReadStats): void {
  into.heapPages += s.heapPages;
  into.indexPages += s.indexPages;
  into.chunksRead += s.chunksRead;
  into.bytesDecompressed += s.bytesDecompressed;
  into.heapScanPages += s.heapScanPages;
  for (const v of s.via) if (!into.via.includes(v)) into.via.push(v);
}

/** Per-read accounting: distinct blocks of each relation. */
export class Touch {
  private readonly heap = new Set<number>();
  private readonly index = new Set<number>();
  constructor(readonly stats: ToastReadStats) {}
  heapPage(blk: number): void {
    if (!this.heap.has(blk)) {
      this.heap.add(blk);
      this.stats.heapPages++;
    }
  }
  indexPage(blk: number): void {
    if (!this.index.has(blk)) {
      this.index.add(blk);
      this.stats.indexPages++;
    }
  }
  via(how: string): void {
    if (!this.stats.via.includes(how)) this.stats.via.push(how);
  }
}

/**
 * Whole pages of one fork through a small LRU (Map insertion order). A miss reads `readAhead`
 * consecutive blocks with one call (sequential readers: the converter, whole-value reads) and
 * keeps each as its own view; buffers are never reused, so bytes handed out stay valid.
 */
export class PageCache {
  private readonly pages = new Map<number, Uint8Array>();
  readonly blockSize: number;

  constructor(
    readonly fork: RelationFork,
    readonly capacity = 64,
    readonly readAhead = 1,
  ) {
    this.blockSize = fork.geometry.blockSize;
  }

  get nblocks(): number {
    return this.fork.nblocks;
  }

  /** Block `blk` (throws REL_BLOCK_OUT_OF_RANGE beyond the end). Do not modify the bytes. */
  get(blk: number): Uint8Array {
    const hit = this.pages.get(blk);
    if (hit) {
      this.pages.delete(blk);
      this.pages.set(blk, hit);
      return hit;
    }
    const bs = this.blockSize;
    const want = Math.max(1, Math.min(this.readAhead, this.fork.nblocks - blk));
    let page: Uint8Array;
    if (want === 1) {
      page = this.fork.readBlock(blk, new Uint8Array(bs));
      this.pages.set(blk, page);
    } else {
      const buf = new Uint8Array(want * bs);
      const got = this.fork.readBlocks(blk, want, buf);
      page = buf.subarray(0, bs);
      for (let i = got - 1; i >= 0; i--) if (i === 0 || !this.pages.has(blk + i)) this.pages.set(blk + i, buf.subarray(i * bs, (i + 1) * bs));
      // the requested block is the most recently used
      this.pages.delete(blk);
      this.pages.set(blk, page);
    }
    while (this.pages.size > this.capacity) this.pages.delete(this.pages.keys().next().value as number);
    return page;
  }

  clear(): void {
    this.pages.clear();
  }
}

/** The stored tuple at (block, item) of a heap fork, or why there is none there. */
export function tupleAt(cache: PageCache, block: number, item: number): { tuple: Uint8Array; page: Uint8Array } | { why: string; flags?: number } {
  if (block >= cache.nblocks) return { why: `block ${block} is beyond the end of the relation (${cache.nblocks} blocks)` };
  const page = cache.get(block);
  const dv = pageView(page);
  if (pageIsNew(dv)) return { why: `block ${block} is an empty (new) page` };
  const max = maxOffsetNumber(dv);
  if (item < 1 || item > max) return { why: `item ${item} is beyond the page's ${max} line pointers` };
  const w = itemIdWord(dv, item);
  const flags = lpFlags(w);
  if (flags !== LP_NORMAL) return { why: `line pointer ${item} is ${LP_FLAG_NAMES[flags]}`, flags };
  const off = lpOff(w);
  const len = lpLen(w);
  if (off + len > page.length || off < 24 || len < 24) return { why: `line pointer ${item} (lp_off ${off}, lp_len ${len}) lies outside the page` };
  return { tuple: page.subarray(off, off + len), page };
}
