// Damage injection for the verify tests: patch bytes of a relation file in a private cluster
// copy, recompute the page checksum (so only the intended problem shows), and restore the file
// afterwards. Finders locate real tuples, pointers, chunks and index items to damage.
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { setPageChecksum } from "../../formats/page/checksum.js";
import { LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { maxOffsetNumber, pageView } from "../../formats/page/page.js";
import type { ForkName } from "../../formats/storage/relfile.js";
import { HEAP_HASNULL, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_XMAX_INVALID, HEAP_XMIN_COMMITTED, HTH } from "../../formats/heap/tuple-header.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { readBTOpaque } from "../../formats/nbtree/opaque.js";

export const BLCKSZ = 8192;

export interface Item {
  blk: number;
  item: number;
  off: number;
  len: number;
}

export class Damager {
  readonly cluster: Cluster;
  readonly cat: DatabaseCatalog;
  private readonly saved = new Map<string, Uint8Array>();

  constructor(
    readonly pgdata: string,
    db = "pgdisk_sample",
  ) {
    this.cluster = new Cluster(pgdata);
    this.cat = this.cluster.database(db);
  }

  rel(name: string): RelationInfo {
    return this.cat.findRelation(name);
  }
  relByOid(oid: number): RelationInfo {
    return this.cat.classes.get(oid)!;
  }
  path(name: string | RelationInfo, fork: ForkName = "main"): string {
    return this.cat.path(typeof name === "string" ? this.rel(name) : name, fork);
  }
  toastOf(table: string): RelationInfo {
    return this.relByOid(this.rel(table).toastRelid);
  }

  /** Keep the file's bytes so restore() can put them back. */
  private keep(path: string): void {
    if (!this.saved.has(path)) this.saved.set(path, new Uint8Array(readFileSync(path)));
  }

  restore(): void {
    for (const [p, b] of this.saved) writeFileSync(p, b);
    this.saved.clear();
  }

  /** The current bytes of block `blk`. */
  page(path: string, blk: number): Uint8Array {
    const b = new Uint8Array(readFileSync(path));
    return b.slice(blk * BLCKSZ, (blk + 1) * BLCKSZ);
  }

  nblocks(path: string): number {
    return readFileSync(path).length / BLCKSZ;
  }

  /** Patch one block; the checksum is recomputed unless `keepChecksum`. */
  patch(path: string, blk: number, f: (page: Uint8Array, dv: DataView) => void, keepChecksum = false): void {
    this.keep(path);
    const buf = new Uint8Array(readFileSync(path));
    const page = buf.subarray(blk * BLCKSZ, (blk + 1) * BLCKSZ);
    f(page, pageView(page));
    if (!keepChecksum) setPageChecksum(page, blk);
    writeFileSync(path, buf);
  }

  /** Replace or append whole blocks (checksums set). */
  writeBlocks(path: string, first: number, pages: Uint8Array[]): void {
    this.keep(path);
    const buf = new Uint8Array(readFileSync(path));
    const end = Math.max(buf.length, (first + pages.length) * BLCKSZ);
    const out = new Uint8Array(end);
    out.set(buf);
    pages.forEach((p, i) => {
      setPageChecksum(p, first + i);
      out.set(p, (first + i) * BLCKSZ);
    });
    writeFileSync(path, out);
  }

  truncate(path: string, size: number): void {
    this.keep(path);
    truncateSync(path, size);
  }

  /** Every LP_NORMAL item of a relation, page by page. */
  items(path: string, pred: (page: Uint8Array, dv: DataView, it: Item) => boolean, limit = 1): Item[] {
    const buf = new Uint8Array(readFileSync(path));
    const out: Item[] = [];
    for (let blk = 0; blk < buf.length / BLCKSZ; blk++) {
      const page = buf.subarray(blk * BLCKSZ, (blk + 1) * BLCKSZ);
      const dv = pageView(page);
      if (dv.getUint16(14, true) === 0) continue;
      for (let i = 1; i <= maxOffsetNumber(dv); i++) {
        const w = dv.getUint32(24 + (i - 1) * 4, true);
        if (lpFlags(w) !== LP_NORMAL) continue;
        const it = { blk, item: i, off: lpOff(w), len: lpLen(w) };
        if (pred(page, dv, it)) {
          out.push(it);
          if (out.length >= limit) return out;
        }
      }
    }
    return out;
  }

  /**
   * Add `delta` to the first column (an int8 key) of a live, committed tuple without NULLs of
   * block `blk` of `table` that is not part of a HOT chain: the key changes behind its indexes'
   * back. Returns the tuple.
   */
  shiftFirstInt8(table: string, blk: number, delta: bigint): Item {
    const path = this.path(table);
    const it = this.item(path, (_p, dv, x) => {
      if (x.blk !== blk) return false;
      const im = dv.getUint16(x.off + HTH.t_infomask, true);
      const im2 = dv.getUint16(x.off + HTH.t_infomask2, true);
      const noNulls = dv.getUint8(x.off + HTH.t_hoff) === 24; // the first column right after the header
      return noNulls && (im & (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED)) === (HEAP_XMAX_INVALID | HEAP_XMIN_COMMITTED) && !(im2 & (HEAP_ONLY_TUPLE | HEAP_HOT_UPDATED));
    });
    this.patch(path, blk, (_p, dv) => dv.setBigInt64(it.off + 24, dv.getBigInt64(it.off + 24, true) + delta, true));
    return it;
  }

  item(path: string, pred: (page: Uint8Array, dv: DataView, it: Item) => boolean): Item {
    const [it] = this.items(path, pred, 1);
    if (!it) throw new Error(`no item in ${path} matches`);
    return it;
  }
}

// ---- heap tuple helpers (offsets within the page)
export const infomask = (dv: DataView, it: Item): number => dv.getUint16(it.off + HTH.t_infomask, true);
export const infomask2 = (dv: DataView, it: Item): number => dv.getUint16(it.off + HTH.t_infomask2, true);
export const setInfomask = (dv: DataView, it: Item, v: number): void => dv.setUint16(it.off + HTH.t_infomask, v, true);
export const setInfomask2 = (dv: DataView, it: Item, v: number): void => dv.setUint16(it.off + HTH.t_infomask2, v, true);
export const xmin = (dv: DataView, it: Item): number => dv.getUint32(it.off + HTH.t_xmin, true);
export const xmax = (dv: DataView, it: Item): number => dv.getUint32(it.off + HTH.t_xmax, true);
export const lpWord = (dv: DataView, n: number): number => dv.getUint32(24 + (n - 1) * 4, true);
export const setLpWord = (dv: DataView, n: number, w: number): void => dv.setUint32(24 + (n - 1) * 4, w >>> 0, true);
export { makeLp, LP_NORMAL, LP_REDIRECT, LP_UNUSED, lpFlags, lpOff, lpLen, HEAP_HASNULL, HEAP_ONLY_TUPLE, HEAP_HOT_UPDATED };

/** Offset (in the page) of attribute `attnum` of a heap tuple, walked with the table's descriptor. */
export function attrOffset(d: Damager, table: string, page: Uint8Array, it: Item, attnum: number): { off: number; len: number } {
  const desc = d.cat.descriptor(d.rel(table).oid);
  const layout = deformHeapTuple(page.subarray(it.off, it.off + it.len), desc);
  const s = layout.attrs[attnum - 1];
  if (s.isnull || s.missing) throw new Error(`attribute ${attnum} is null`);
  return { off: it.off + s.off, len: s.len };
}

/** Leaf pages of a B-tree index, left to right. */
export function leafPages(d: Damager, index: string): number[] {
  const path = d.path(index);
  const n = d.nblocks(path);
  const leaves: { blk: number; prev: number }[] = [];
  for (let blk = 1; blk < n; blk++) {
    const p = d.page(path, blk);
    const o = readBTOpaque(pageView(p));
    if (o.btpo_flags & 1 && !(o.btpo_flags & 0x14)) leaves.push({ blk, prev: o.btpo_prev });
  }
  // order by following btpo_next from the leftmost
  const byBlk = new Map(leaves.map((l) => [l.blk, l]));
  let cur = leaves.find((l) => l.prev === 0)?.blk;
  const out: number[] = [];
  while (cur !== undefined && cur !== 0 && byBlk.has(cur)) {
    out.push(cur);
    cur = readBTOpaque(pageView(d.page(path, cur))).btpo_next;
  }
  return out;
}

/** The key bytes of an index tuple (data area, posting list excluded) as hex, for "distinct" tests. */
export function keyBytes(page: Uint8Array, w: number): string {
  const off = w & 0x7fff;
  const info = page[off + 6] | (page[off + 7] << 8);
  const start = info & 0x8000 ? 16 : 8;
  let end = info & 0x1fff;
  const posid = page[off + 4] | (page[off + 5] << 8);
  if (info & 0x2000 && posid & 0x2000) end = page[off + 2] | (page[off + 3] << 8);
  return Buffer.from(page.subarray(off + start, off + end)).toString("hex") + (info & 0x8000 ? `/${page[off + 8]}` : "");
}

/** Swap the line pointers of the first two adjacent data items with distinct key bytes on a leaf of the btree at `path`; false when none. */
export function swapAdjacentDistinct(d: Damager, path: string): boolean {
  for (let blk = 1; blk < d.nblocks(path); blk++) {
    const page = d.page(path, blk);
    const dv = pageView(page);
    const o = readBTOpaque(dv);
    if (!(o.btpo_flags & 1)) continue;
    const first = o.btpo_next === 0 ? 1 : 2;
    const max = maxOffsetNumber(dv);
    for (let i = first; i < max; i++) {
      const a = lpWord(dv, i);
      const b = lpWord(dv, i + 1);
      if (keyBytes(page, a) === keyBytes(page, b)) continue;
      d.patch(path, blk, (_p, v) => {
        setLpWord(v, i, b);
        setLpWord(v, i + 1, a);
      });
      return true;
    }
  }
  return false;
}
