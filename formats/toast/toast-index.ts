// Finding a plain value's chunks through its TOAST relation's index, as _bt_search and
// _bt_readpage do: the metapage gives the (fast) root, internal pages are binary-searched for
// the last pivot below the scan key (chunk_id, chunk_seq), moving right past a high key that is
// below the key, down to the leaf, then leaf items are read in key order along the sibling chain
// while chunk_id matches and chunk_seq is in range. Keys compare as PostgreSQL's oid (unsigned)
// and int4 (signed) opclasses; truncated pivot attributes are minus infinity.
import { FormatError } from "../schema/errors.js";
import { lpFlags, lpLen, lpOff, LP_UNUSED } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView, pdSpecial } from "../page/page.js";
import type { Tid } from "../page/item-pointer.js";
import { BTP_LEAF, BTP_META, P_NONE, pFirstDataKey, pIgnore, readBTOpaque, SizeOfBTPageOpaqueData, type BTPageOpaque } from "../nbtree/opaque.js";
import { BTREE_MAGIC, BTREE_MIN_VERSION, BTREE_VERSION, readBTMeta } from "../nbtree/meta.js";
import { BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_SIZE_MASK, SizeOfIndexTupleData, SizeOfItemPointerData } from "../nbtree/index-tuple.js";
import type { PageCache, Touch } from "./pages.js";
import type { Code } from "../codes/index.js";

export interface IndexEntry {
  seq: number;
  tid: Tid;
}

interface Meta {
  root: number;
  level: number;
  heapkeyspace: boolean;
}

interface PageRef {
  blk: number;
  page: Uint8Array;
  dv: DataView;
  op: BTPageOpaque;
  maxoff: number;
}

const cmpU32 = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

/** Reads the (chunk_id, chunk_seq) btree of a TOAST relation. Pages come through `cache`. */
export class ToastIndexScanner {
  private meta?: Meta;

  constructor(readonly cache: PageCache) {}

  private err(code: Code, msg: string, block?: number, item?: number): FormatError {
    return new FormatError(code, msg, { file: this.cache.fork.basePath, block, item });
  }

  private readMeta(touch: Touch): Meta {
    if (this.meta) {
      touch.indexPage(0);
      return this.meta;
    }
    if (this.cache.nblocks === 0) throw this.err("TOAST_INDEX_EMPTY", "the TOAST index has no pages (not even a metapage)");
    const page = this.cache.get(0);
    touch.indexPage(0);
    const dv = pageView(page);
    if (pageIsNew(dv) || pdSpecial(dv) !== page.length - SizeOfBTPageOpaqueData || !(readBTOpaque(dv).btpo_flags & BTP_META)) {
      throw this.err("TOAST_INDEX_BAD_META", "block 0 of the TOAST index is not a btree metapage", 0);
    }
    const m = readBTMeta(page);
    if (m.btm_magic !== BTREE_MAGIC) throw this.err("TOAST_INDEX_BAD_META", `TOAST index metapage has magic 0x${m.btm_magic.toString(16)}, expected 0x${BTREE_MAGIC.toString(16)}`, 0);
    if (m.btm_version < BTREE_MIN_VERSION || m.btm_version > BTREE_VERSION) throw this.err("TOAST_INDEX_BAD_META", `TOAST index metapage has version ${m.btm_version}`, 0);
    const fast = m.btm_fastroot !== P_NONE;
    this.meta = { root: fast ? m.btm_fastroot : m.btm_root, level: fast ? m.btm_fastlevel : m.btm_level, heapkeyspace: m.btm_version >= 4 };
    return this.meta;
  }

  private readPage(blk: number, touch: Touch): PageRef {
    if (blk === 0 || blk >= this.cache.nblocks) throw this.err("TOAST_INDEX_BAD_LINK", `TOAST index link to block ${blk}, outside 1..${this.cache.nblocks - 1}`, blk);
    const page = this.cache.get(blk);
    touch.indexPage(blk);
    const dv = pageView(page);
    if (pageIsNew(dv) || pdSpecial(dv) !== page.length - SizeOfBTPageOpaqueData) throw this.err("TOAST_INDEX_BAD_PAGE", `TOAST index block ${blk} is not a btree page`, blk);
    const op = readBTOpaque(dv);
    if (op.btpo_flags & BTP_META) throw this.err("TOAST_INDEX_BAD_PAGE", `TOAST index block ${blk} is a second metapage`, blk);
    return { blk, page, dv, op, maxoff: maxOffsetNumber(dv) };
  }

  /** Offset and size of item `off` of a page, bounds-checked. */
  private item(p: PageRef, off: number): number {
    const w = itemIdWord(p.dv, off);
    const at = lpOff(w);
    const len = lpLen(w);
    if (lpFlags(w) === LP_UNUSED || len < SizeOfIndexTupleData || at + len > p.page.length) {
      throw this.err("TOAST_INDEX_BAD_ITEM", `TOAST index block ${p.blk} item ${off} (lp_off ${at}, lp_len ${len}) is not an index tuple`, p.blk, off);
    }
    const size = p.dv.getUint16(at + 6, true) & INDEX_SIZE_MASK;
    if (size < SizeOfIndexTupleData || size > len) throw this.err("TOAST_INDEX_BAD_ITEM", `TOAST index block ${p.blk} item ${off} has size ${size} for lp_len ${len}`, p.blk, off);
    return at;
  }

  /**
   * _bt_compare of the scan key (id, seq) against the tuple at page offset `at`: < 0 scan is
   * smaller, 0 equal, > 0 greater. `pivot` tuples may be truncated; a NULL key sorts last.
   */
  private compare(p: PageRef, at: number, id: number, seq: number, pivotPage: boolean, heapkeyspace: boolean): number {
    const dv = p.dv;
    const info = dv.getUint16(at + 6, true);
    const posid = dv.getUint16(at + 4, true);
    const alt = (info & INDEX_ALT_TID_MASK) !== 0;
    const isPivot = pivotPage || (alt && (posid & BT_IS_POSTING) === 0);
    const natts = isPivot && alt ? posid & BT_OFFSET_MASK : 2;
    const nulls = (info & INDEX_NULL_MASK) !== 0;
    const data = nulls ? 16 : 8;
    const size = info & INDEX_SIZE_MASK;
    const isNull = (i: number): boolean => nulls && (p.page[at + 8 + (i >> 3)] & (1 << (i & 7))) === 0;
    if (natts >= 1) {
      if (isNull(0)) return -1;
      if (data + 4 > size) throw this.err("TOAST_INDEX_BAD_ITEM", `TOAST index tuple at offset ${at} of block ${p.blk} is too short for chunk_id`, p.blk);
      const c = cmpU32(id, dv.getUint32(at + data, true));
      if (c) return c;
    }
    if (natts >= 2) {
      if (isNull(1)) return -1;
      if (data + 8 > size) throw this.err("TOAST_INDEX_BAD_ITEM", `TOAST index tuple at offset ${at} of block ${p.blk} is too short for chunk_seq`, p.blk);
      const s = dv.getInt32(at + data + 4, true);
      if (seq !== s) return seq < s ? -1 : 1;
    }
    if (natts < 2) return 1; // truncated attributes are minus infinity
    if (heapkeyspace && isPivot && (!alt || (posid & BT_PIVOT_HEAP_TID_ATTR) === 0)) return 1; // (k, -inf heap TID) < (k, any TID)
    return 0;
  }

  /** The first leaf position whose key is >= (id, seq), after a descent from the root. */
  private descend(id: number, seq: number, touch: Touch): { p: PageRef; pos: number } | null {
    const meta = this.readMeta(touch);
    if (meta.root === P_NONE) return null;
    let blk = meta.root;
    let level = -1;
    for (let steps = 0; ; steps++) {
      if (steps > this.cache.nblocks + 64) throw this.err("TOAST_INDEX_LOOP", "the TOAST index descent does not end (a link cycle)", blk);
      const p = this.readPage(blk, touch);
      if (pIgnore(p.op.btpo_flags)) {
        if (p.op.btpo_next === P_NONE) throw this.err("TOAST_INDEX_BAD_LINK", `TOAST index block ${blk} is deleted and has no right sibling`, blk);
        blk = p.op.btpo_next;
        continue;
      }
      if (level >= 0 && p.op.btpo_level !== level) throw this.err("TOAST_INDEX_BAD_LEVEL", `TOAST index block ${blk} is at level ${p.op.btpo_level}, its parent expects ${level}`, blk);
      level = p.op.btpo_level;
      const isLeaf = (p.op.btpo_flags & BTP_LEAF) !== 0;
      if (isLeaf !== (level === 0)) throw this.err("TOAST_INDEX_BAD_LEVEL", `TOAST index block ${blk} has level ${level} but is${isLeaf ? "" : " not"} a leaf`, blk);
      // _bt_moveright: the key is beyond this page's high key
      if (p.op.btpo_next !== P_NONE && p.maxoff >= 1 && this.compare(p, this.item(p, 1), id, seq, true, meta.heapkeyspace) > 0) {
        blk = p.op.btpo_next;
        continue;
      }
      const first = pFirstDataKey(p.op);
      if (isLeaf) {
        // first item >= key
        let lo = first;
        let hi = p.maxoff + 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (this.compare(p, this.item(p, mid), id, seq, false, meta.heapkeyspace) > 0) lo = mid + 1;
          else hi = mid;
        }
        return { p, pos: lo };
      }
      if (p.maxoff < first) throw this.err("TOAST_INDEX_BAD_PAGE", `TOAST internal page ${blk} has no downlinks`, blk);
      // last item < key; the first data item of an internal page is minus infinity
      let lo = first;
      let hi = p.maxoff;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (this.compare(p, this.item(p, mid), id, seq, true, meta.heapkeyspace) > 0) lo = mid;
        else hi = mid - 1;
      }
      const at = this.item(p, lo);
      blk = p.dv.getUint16(at, true) * 65536 + p.dv.getUint16(at + 2, true);
      level -= 1;
    }
  }

  /**
   * Heap TIDs of the leaf items with key (id, seq), lo <= seq <= hi, in key order. Lazy: pages
   * are read as the consumer pulls.
   */
  *scan(id: number, lo: number, hi: number, touch: Touch): Generator<IndexEntry> {
    const start = this.descend(id, lo, touch);
    if (!start) return;
    let { p, pos } = start;
    const limit = this.cache.nblocks + 1;
    for (let pages = 0; ; ) {
      for (; pos <= p.maxoff; pos++) {
        const at = this.item(p, pos);
        const info = p.dv.getUint16(at + 6, true);
        if (info & INDEX_NULL_MASK) return; // NULL keys sort after every chunk_id
        const kid = p.dv.getUint32(at + 8, true);
        if (kid !== id) {
          if (cmpU32(kid, id) < 0) throw this.err("TOAST_INDEX_ORDER", `TOAST index block ${p.blk} item ${pos} (chunk_id ${kid}) is out of order after the search for ${id}`, p.blk, pos);
          return;
        }
        const seq = p.dv.getInt32(at + 12, true);
        if (seq > hi) return;
        if (seq < lo) continue;
        const posid = p.dv.getUint16(at + 4, true);
        if (info & INDEX_ALT_TID_MASK && posid & BT_IS_POSTING) {
          const n = posid & BT_OFFSET_MASK;
          const base = at + p.dv.getUint16(at, true) * 65536 + p.dv.getUint16(at + 2, true);
          if (base - at + n * SizeOfItemPointerData > (info & INDEX_SIZE_MASK)) throw this.err("TOAST_INDEX_BAD_ITEM", `posting list of TOAST index block ${p.blk} item ${pos} extends beyond its tuple`, p.blk, pos);
          for (let k = 0; k < n; k++) {
            const q = base + k * SizeOfItemPointerData;
            yield { seq, tid: { block: p.dv.getUint16(q, true) * 65536 + p.dv.getUint16(q + 2, true), offset: p.dv.getUint16(q + 4, true) } };
          }
        } else {
          yield { seq, tid: { block: p.dv.getUint16(at, true) * 65536 + p.dv.getUint16(at + 2, true), offset: posid } };
        }
      }
      let next = p.op.btpo_next;
      for (;;) {
        if (next === P_NONE) return;
        if (pages > limit) throw this.err("TOAST_INDEX_LOOP", "the TOAST index leaf chain does not end (a link cycle)", next);
        p = this.readPage(next, touch);
        pages++;
        if (!pIgnore(p.op.btpo_flags)) break;
        next = p.op.btpo_next;
      }
      if (!(p.op.btpo_flags & BTP_LEAF)) throw this.err("TOAST_INDEX_BAD_LEVEL", `right sibling ${p.blk} of a TOAST index leaf is not a leaf`, p.blk);
      pos = pFirstDataKey(p.op);
    }
  }
}
