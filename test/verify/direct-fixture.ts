// Direct TOAST files written by the tests themselves (new-formats.md §1.1-1.3), for a table of a
// cluster copy: every plain pointer of the table's live tuples becomes a direct pointer to a
// value whose chunks (single, flat or tree tier) are appended to the TOAST relation in new
// blocks; parent pages are re-laid out with their line pointer numbers kept (a pointer grows
// by 2 bytes and the attributes after it are re-aligned). Plain chunks are left in place.
import { readFileSync } from "node:fs";
import { walkAttributes } from "../../formats/heap/deform.js";
import { HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_KEYS_UPDATED, HEAP_NATTS_MASK, HEAP_XACT_MASK, HTH } from "../../formats/heap/tuple-header.js";
import { LP_DEAD, LP_NORMAL, lpFlags, lpLen, lpOff, makeLp } from "../../formats/page/item-id.js";
import { maxOffsetNumber, pageView } from "../../formats/page/page.js";
import { checkPlainValue } from "../../verify/toast/plain-check.js";
import { ToastRelation } from "../../verify/toast/toast-rel.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { readToastPointer } from "../../formats/varlena/toast-pointer.js";
import { BLCKSZ, type Damager } from "./damage.js";

const MAX_CHUNK = 1996;
const FANOUT = 50;
const THRESHOLD = 100;

export interface DirectValue {
  /** parent tuple and attribute */
  blk: number;
  item: number;
  attnum: number;
  tier: "single" | "flat" | "tree";
  n: number;
  compressed: boolean;
  root: { block: number; item: number };
  /** every chunk's TID: leaves in slice order, then internal nodes bottom-up */
  leaves: { block: number; item: number }[];
  nodes: { block: number; item: number; level: number }[];
}

/** Chunk tuples laid out on fresh heap pages. */
class ChunkPages {
  readonly pages: Uint8Array[] = [];
  private page!: Uint8Array;
  private upper = 0;
  private nitems = 0;

  constructor(readonly firstBlock: number) {
    this.newPage();
  }

  private newPage(): void {
    this.page = new Uint8Array(BLCKSZ);
    const dv = pageView(this.page);
    dv.setUint16(12, 24, true);
    dv.setUint16(14, BLCKSZ, true);
    dv.setUint16(16, BLCKSZ, true);
    dv.setUint16(18, 0x2004, true);
    this.pages.push(this.page);
    this.upper = BLCKSZ;
    this.nitems = 0;
  }

  /** Place a tuple (t_ctid is set to its own TID); returns the TID. */
  add(tuple: Uint8Array): { block: number; item: number } {
    const size = (tuple.length + 7) & ~7;
    if (this.upper - size < 24 + (this.nitems + 1) * 4) this.newPage();
    this.upper -= size;
    this.nitems++;
    const block = this.firstBlock + this.pages.length - 1;
    const dv = pageView(this.page);
    this.page.set(tuple, this.upper);
    dv.setUint16(this.upper + HTH.t_ctid, Math.floor(block / 65536), true);
    dv.setUint16(this.upper + HTH.t_ctid + 2, block & 0xffff, true);
    dv.setUint16(this.upper + HTH.t_ctid + 4, this.nitems, true);
    dv.setUint32(24 + (this.nitems - 1) * 4, makeLp(this.upper, LP_NORMAL, tuple.length), true);
    dv.setUint16(12, 24 + this.nitems * 4, true);
    dv.setUint16(14, this.upper, true);
    return { block, item: this.nitems };
  }
}

interface Visibility {
  xmin: number;
  xmax: number;
  cid: number;
  infomask: number;
  infomask2: number;
}

const align = (n: number, a: number): number => (n + a - 1) & ~(a - 1);

function varlena4(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 4);
  new DataView(out.buffer).setUint32(0, ((payload.length + 4) << 2) >>> 0, true);
  out.set(payload, 4);
  return out;
}

function arrayPayload(elemtype: number, elems: Uint8Array[], elemSize: number): Uint8Array {
  const out = new Uint8Array(20 + elems.length * elemSize);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, 1, true);
  dv.setInt32(4, 0, true);
  dv.setUint32(8, elemtype, true);
  dv.setInt32(12, elems.length, true);
  dv.setInt32(16, 1, true);
  elems.forEach((e, i) => out.set(e, 20 + i * elemSize));
  return out;
}

export function tidBytes(t: { block: number; item: number }): Uint8Array {
  const b = new Uint8Array(6);
  const dv = new DataView(b.buffer);
  dv.setUint16(0, Math.floor(t.block / 65536), true);
  dv.setUint16(2, t.block & 0xffff, true);
  dv.setUint16(4, t.item, true);
  return b;
}
const int8Bytes = (v: number): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, BigInt(v), true);
  return b;
};

/** A direct chunk tuple (§1.2): natts 5, t_hoff 24, the bitmap for the attributes present. */
export function chunkTuple(vis: Visibility, seq: number, data: Uint8Array, tids: { block: number; item: number }[] | null, offsets: number[] | null): Uint8Array {
  const parts: [number, Uint8Array][] = [];
  let pos = 24;
  const put = (al: number, b: Uint8Array): void => {
    pos = align(pos, al);
    parts.push([pos, b]);
    pos += b.length;
  };
  const seqB = new Uint8Array(4);
  new DataView(seqB.buffer).setInt32(0, seq, true);
  put(4, seqB);
  put(4, varlena4(data));
  let bits = 0x06;
  if (tids) {
    put(4, varlena4(arrayPayload(27, tids.map(tidBytes), 6)));
    bits |= 0x08;
  }
  if (offsets) {
    put(8, varlena4(arrayPayload(20, offsets.map(int8Bytes), 8)));
    bits |= 0x10;
  }
  const t = new Uint8Array(pos);
  const dv = new DataView(t.buffer);
  dv.setUint32(HTH.t_xmin, vis.xmin, true);
  dv.setUint32(HTH.t_xmax, vis.xmax, true);
  dv.setUint32(HTH.t_field3, vis.cid, true);
  dv.setUint16(HTH.t_infomask2, 5 | (vis.infomask2 & HEAP_KEYS_UPDATED), true);
  dv.setUint16(HTH.t_infomask, (vis.infomask & HEAP_XACT_MASK) | HEAP_HASNULL | HEAP_HASVARWIDTH, true);
  t[HTH.t_hoff] = 24;
  t[23] = bits;
  for (const [at, b] of parts) t.set(b, at);
  return t;
}

/** Lay out the value's chunks (§1.3) and return the root and every chunk's TID. */
function writeValue(pages: ChunkPages, vis: Visibility, S: Uint8Array): Pick<DirectValue, "tier" | "n" | "root" | "leaves" | "nodes"> {
  const n = Math.ceil(S.length / MAX_CHUNK);
  const slice = (i: number): Uint8Array => S.subarray(i * MAX_CHUNK, Math.min((i + 1) * MAX_CHUNK, S.length));
  if (n === 1) {
    const root = pages.add(chunkTuple(vis, 0, S, null, null));
    return { tier: "single", n, root, leaves: [root], nodes: [] };
  }
  if (n <= THRESHOLD) {
    const leaves = [];
    for (let i = 0; i < n - 1; i++) leaves.push(pages.add(chunkTuple(vis, i, slice(i), null, null)));
    const root = pages.add(chunkTuple(vis, n - 1, slice(n - 1), leaves, null));
    return { tier: "flat", n, root, leaves: [...leaves, root], nodes: [] };
  }
  const leaves = [];
  for (let i = 0; i < n; i++) leaves.push(pages.add(chunkTuple(vis, i, slice(i), null, null)));
  let level: { tid: { block: number; item: number }; start: number }[] = leaves.map((tid, i) => ({ tid, start: i * MAX_CHUNK }));
  const nodes: DirectValue["nodes"] = [];
  for (let lv = 1; level.length > 1 || lv === 1; lv++) {
    const up: typeof level = [];
    for (let j = 0; j < level.length; j += FANOUT) {
      const kids = level.slice(j, j + FANOUT);
      const tid = pages.add(chunkTuple(vis, -lv, new Uint8Array(0), kids.map((k) => k.tid), kids.map((k) => k.start)));
      nodes.push({ ...tid, level: lv });
      up.push({ tid, start: kids[0].start });
    }
    level = up;
    if (level.length === 1) break;
  }
  return { tier: "tree", n, root: level[0].tid, leaves, nodes };
}

function directPointer(rawsize: number, extinfo: number, toastrelid: number, root: { block: number; item: number }): Uint8Array {
  const b = new Uint8Array(20);
  const dv = new DataView(b.buffer);
  b[0] = 0x01;
  b[1] = 19;
  dv.setInt32(2, rawsize, true);
  dv.setUint32(6, extinfo, true);
  dv.setUint32(10, toastrelid, true);
  dv.setUint16(14, Math.floor(root.block / 65536), true);
  dv.setUint16(16, root.block & 0xffff, true);
  dv.setUint16(18, root.item, true);
  return b;
}

/** Re-form a heap tuple with attribute `attnum`'s datum replaced, re-aligning what follows. */
function reformTuple(tuple: Uint8Array, d: Damager, table: string, attnum: number, datum: Uint8Array): Uint8Array {
  const desc = d.cat.descriptor(d.rel(table).oid);
  const dv = pageView(tuple);
  const natts = dv.getUint16(HTH.t_infomask2, true) & HEAP_NATTS_MASK;
  const hoff = tuple[HTH.t_hoff];
  const bits = dv.getUint16(HTH.t_infomask, true) & HEAP_HASNULL ? tuple.subarray(23, 23 + ((natts + 7) >> 3)) : undefined;
  const { attrs } = walkAttributes(tuple, hoff, bits, natts, desc);
  const out = new Uint8Array(tuple.length + 64);
  out.set(tuple.subarray(0, hoff));
  let pos = hoff;
  for (let i = 0; i < natts; i++) {
    const s = attrs[i];
    if (s.isnull || s.missing) continue;
    const a = desc.attrs[i];
    const bytes = i + 1 === attnum ? datum : tuple.subarray(s.off, s.off + s.len);
    const al = a.align === "d" ? 8 : a.align === "i" ? 4 : a.align === "s" ? 2 : 1;
    // 1-byte-header varlenas (short and external) are not aligned
    if (!(a.len === -1 && bytes[0] !== 0 && bytes[0] & 1)) pos = align(pos, al);
    out.set(bytes, pos);
    pos += bytes.length;
  }
  return out.slice(0, pos);
}

/** Lay out a page's items again from the end, keeping item numbers; null if they do not fit. */
function relayout(page: Uint8Array, replace: Map<number, Uint8Array>): Uint8Array<ArrayBuffer> | null {
  const dv = pageView(page);
  const n = maxOffsetNumber(dv);
  const out = new Uint8Array(BLCKSZ);
  out.set(page.subarray(0, 24 + n * 4));
  const odv = pageView(out);
  let upper = BLCKSZ;
  for (let i = 1; i <= n; i++) {
    const w = dv.getUint32(24 + (i - 1) * 4, true);
    const f = lpFlags(w);
    if ((f !== LP_NORMAL && f !== LP_DEAD) || lpLen(w) === 0) continue;
    const bytes = replace.get(i) ?? page.subarray(lpOff(w), lpOff(w) + lpLen(w));
    upper -= (bytes.length + 7) & ~7;
    if (upper < 24 + n * 4) return null;
    out.set(bytes, upper);
    odv.setUint32(24 + (i - 1) * 4, makeLp(upper, f, bytes.length), true);
  }
  odv.setUint16(14, upper, true);
  return out;
}

/**
 * Convert the table's plain pointers (of live, xmax-free tuples) to Direct TOAST. Returns the
 * values written; `only` limits the conversion to the first few values.
 */
export function convertToDirect(d: Damager, table: string, only = Infinity): DirectValue[] {
  const rel = d.rel(table);
  const trel = d.relByOid(rel.toastRelid);
  const tpath = d.path(trel);
  const ppath = d.path(rel);
  const reader = new ToastRelation(new RelationFork(tpath, d.cluster.geometry), trel.oid, trel.name, () => true, false);
  const firstNew = d.nblocks(tpath);
  const pages = new ChunkPages(firstNew);
  const values: DirectValue[] = [];
  const buf = new Uint8Array(readFileSync(ppath));
  const desc = d.cat.descriptor(rel.oid);
  const vis = firstChunkVisibilities(d, tpath);
  for (let blk = 0; blk < buf.length / BLCKSZ && values.length < only; blk++) {
    let page: Uint8Array<ArrayBuffer> = buf.slice(blk * BLCKSZ, (blk + 1) * BLCKSZ);
    const dv = pageView(page);
    if (dv.getUint16(14, true) === 0) continue;
    let changed = false;
    for (let i = 1; i <= maxOffsetNumber(dv) && values.length < only; i++) {
      const pdv = pageView(page);
      const w = pdv.getUint32(24 + (i - 1) * 4, true);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const t = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
      const tdv = pageView(t);
      if (!(tdv.getUint16(HTH.t_infomask, true) & 0x0800)) continue; // live rows only (HEAP_XMAX_INVALID)
      const natts = tdv.getUint16(HTH.t_infomask2, true) & HEAP_NATTS_MASK;
      const bits = tdv.getUint16(HTH.t_infomask, true) & HEAP_HASNULL ? t.subarray(23, 23 + ((natts + 7) >> 3)) : undefined;
      const { attrs } = walkAttributes(t, t[HTH.t_hoff], bits, natts, desc);
      let tuple: Uint8Array = t;
      for (const s of attrs) {
        if (s.isnull || s.missing || s.varlena?.kind !== "1b_e" || tuple[s.off + 1] !== 18) continue;
        const ptr = readToastPointer(t, s.off);
        if (ptr.tag !== 18) continue;
        const S = checkPlainValue({ valueId: ptr.va_valueid, rawsize: ptr.va_rawsize, extsize: ptr.extsize, compressed: ptr.compressed }, reader, {}, null, false).stored!;
        const first = vis.get(ptr.va_valueid)!;
        const placed = writeValue(pages, first, S);
        const datum = directPointer(ptr.va_rawsize, ptr.va_extinfo, trel.oid, placed.root);
        const next = reformTuple(tuple, d, table, s.attnum, datum);
        const laid = relayout(page, new Map([[i, next]]));
        if (!laid) break;
        page = laid;
        tuple = next;
        changed = true;
        values.push({ blk, item: i, attnum: s.attnum, compressed: ptr.compressed, ...placed });
      }
    }
    if (changed) d.writeBlocks(ppath, blk, [page]);
  }
  reader.fork.close();
  d.writeBlocks(tpath, firstNew, pages.pages);
  return values;
}

/** The visibility fields of each value's plain chunk with chunk_seq 0 (§1.2), by value OID. */
function firstChunkVisibilities(d: Damager, tpath: string): Map<number, Visibility> {
  const out = new Map<number, Visibility>();
  d.items(
    tpath,
    (p, dv, x) => {
      const hasnull = dv.getUint16(x.off + HTH.t_infomask, true) & HEAP_HASNULL;
      if (hasnull && !(p[x.off + 23] & 1)) return false;
      const hoff = p[x.off + HTH.t_hoff];
      if (dv.getInt32(x.off + hoff + 4, true) !== 0) return false;
      out.set(dv.getUint32(x.off + hoff, true), {
        xmin: dv.getUint32(x.off + HTH.t_xmin, true),
        xmax: dv.getUint32(x.off + HTH.t_xmax, true),
        cid: dv.getUint32(x.off + HTH.t_field3, true),
        infomask: dv.getUint16(x.off + HTH.t_infomask, true),
        infomask2: dv.getUint16(x.off + HTH.t_infomask2, true),
      });
      return false;
    },
    Infinity,
  );
  return out;
}
