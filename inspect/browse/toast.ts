// Following a TOAST pointer: where its chunks are (plain TOAST: the TOAST index searched for the
// value's chunk_id, or a scan of the TOAST heap when there is no index; Direct TOAST: the root
// chunk's TID list) and the value they make, read chunk by chunk through the session's cache.
import { FormatError } from "../../formats/schema/errors.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { deformIndexTuple } from "../../formats/heap/index-deform.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { tupleState } from "../../formats/heap/visibility.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { parseTid, tidText, type Tid } from "../../formats/page/item-pointer.js";
import type { ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { readVarlenaHeader } from "../../formats/varlena/varlena.js";
import { decompressTcinfo, methodName } from "../../formats/compression/index.js";
import { toastChunkDesc3, toastChunkDesc5, toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import { datumToText } from "../../formats/datum/index.js";
import type { AttrDesc } from "../../formats/heap/descriptor.js";
import { btreeDescend, keyComparator } from "./btree-search.js";
import type { BrowseSession } from "./session.js";
import { relKey, type RelRef } from "./navigation.js";
import { VARTAG_ONDISK } from "../../formats/varlena/varlena.js";
import { chunkIdAt, chunkSeqAt } from "../../formats/toast/chunk.js";

export interface ToastChunk {
  seq: number;
  tid: Tid;
  /** the index entry is marked dead, or the chunk tuple is not live */
  dead: boolean;
}

export interface ToastChunkList {
  toastRel: RelRef;
  pointer: ToastPointer;
  attr: AttrDesc;
  /** chunks the pointer's stored size calls for */
  expected: number;
  chunks: ToastChunk[];
  method: "toast index" | "toast heap scan" | "direct root chunk";
  pagesVisited: number;
  note?: string;
}

export interface ToastValue {
  text: string;
  /** raw (decompressed) bytes */
  rawBytes: number;
  storedBytes: number;
  chunksRead: number;
  compression?: string;
}

/** The TOAST pointer stored in attribute `attnum` of a heap tuple. */
export function toastPointerAt(session: BrowseSession, ref: RelRef, block: number, item: number, attnum: number): { pointer: ToastPointer; attr: AttrDesc } {
  const h = session.relation(ref);
  const desc = h.ctx.desc;
  if (!desc) throw new FormatError("BROWSE_NO_DESCRIPTOR", `${h.name} has no tuple descriptor (not a table of a cluster)`, {});
  const page = session.readPage(ref, block);
  const dv = pageView(page);
  if (item < 1 || item > maxOffsetNumber(dv)) throw new FormatError("BROWSE_NO_SUCH_ITEM", `block ${block} has no item ${item}`, { block, item });
  const w = itemIdWord(dv, item);
  const tuple = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
  const layout = deformHeapTuple(tuple, desc);
  const k = desc.attrs.findIndex((a) => a.attnum === attnum);
  const slot = layout.attrs[k];
  if (k < 0 || !slot || slot.isnull || slot.missing) throw new FormatError("BROWSE_NOT_TOASTED", `attribute ${attnum} of (${block},${item}) is not stored in the tuple`, { block, item, attnum });
  const d = datumBytes(tuple, slot);
  if (d.kind !== "external") throw new FormatError("BROWSE_NOT_TOASTED", `attribute ${desc.attrs[k].name} of (${block},${item}) is not a TOAST pointer`, { block, item, attnum });
  return { pointer: d.pointer, attr: desc.attrs[k] };
}

function chunkTuple(session: BrowseSession, toastRel: RelRef, tid: Tid): { tuple: Uint8Array; live: boolean } | undefined {
  const page = session.readPage(toastRel, tid.block);
  const dv = pageView(page);
  if (tid.offset < 1 || tid.offset > maxOffsetNumber(dv)) return undefined;
  const w = itemIdWord(dv, tid.offset);
  if (lpFlags(w) !== LP_NORMAL) return undefined;
  const tuple = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
  const t = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
  const live = tupleState(t.getUint32(HTH.t_xmin, true), t.getUint32(HTH.t_xmax, true), t.getUint16(HTH.t_infomask, true), session.relation(toastRel).ctx.clog) === "live";
  return { tuple, live };
}

/** Where the chunks of the value behind a TOAST pointer are. */
export function toastChunks(session: BrowseSession, ref: RelRef, block: number, item: number, attnum: number): ToastChunkList {
  return session.cached(`toast:${relKey(ref)}:${block}:${item}:${attnum}`, () => findChunks(session, ref, block, item, attnum));
}

function findChunks(session: BrowseSession, ref: RelRef, block: number, item: number, attnum: number): ToastChunkList {
  if ("file" in ref) throw new FormatError("BROWSE_NO_CATALOG", "a lone file has no catalog to find its TOAST relation", {});
  const { pointer, attr } = toastPointerAt(session, ref, block, item, attnum);
  const toastRel = session.refFor(ref.db, pointer.va_toastrelid);
  const maxChunk = toastMaxChunkSize(session.relation(toastRel).resolved.geometry.blockSize);
  const expected = pointer.extsize === 0 ? 0 : Math.floor((pointer.extsize - 1) / maxChunk) + 1;
  const base = { toastRel, pointer, attr, expected };
  if (pointer.tag !== 18) {
    // Direct TOAST: the root chunk lists the TIDs of every chunk (new-formats.md §1.2).
    const root = chunkTuple(session, toastRel, pointer.root);
    if (!root) return { ...base, chunks: [{ seq: 0, tid: pointer.root, dead: true }], method: "direct root chunk", pagesVisited: 1, note: `no normal tuple at the root TID ${tidText(pointer.root)}` };
    const l = deformHeapTuple(root.tuple, toastChunkDesc5);
    const tids = l.attrs[3];
    const chunks: ToastChunk[] = [{ seq: 0, tid: pointer.root, dead: !root.live }];
    if (!tids.isnull && !tids.missing) {
      const d = datumBytes(root.tuple, tids);
      if (d.kind === "inline") {
        const text = datumToText(d.bytes, 1010, -1, session.relation(toastRel).types ?? (() => undefined));
        const list = text.replace(/^\{|\}$/g, "").split(/","|",|,"/).map((s) => parseTid(s.replace(/"/g, "")));
        list.forEach((t, i) => t && chunks.push({ seq: i + 1, tid: t, dead: false }));
      }
    }
    return { ...base, chunks, method: "direct root chunk", pagesVisited: 1 };
  }
  const cat = session.catalog(ref.db);
  const index = cat.toastIndexOf(pointer.va_toastrelid);
  if (index) {
    const iref = session.refFor(ref.db, index.indexOid);
    const ih = session.relation(iref);
    const desc = ih.ctx.indexDesc!;
    const c = keyComparator({ desc, typid: 26, collation: 0, option: 0, dbCollate: cat.db.collate }, String(pointer.va_valueid));
    if ("cmp" in c) {
      const r = btreeDescend((b) => session.readPage(iref, b), c.cmp, desc.attrs.length, 1 << 20);
      const chunks = r.matches
        .map((m): ToastChunk => {
          const seqSlot = deformIndexTuple(m.tuple, desc)[1];
          const seq = seqSlot && !seqSlot.isnull ? new DataView(m.tuple.buffer, m.tuple.byteOffset + seqSlot.off, 4).getInt32(0, true) : -1;
          return { seq, tid: m.htids[0], dead: m.dead };
        })
        .sort((a, b) => a.seq - b.seq);
      return { ...base, chunks, method: "toast index", pagesVisited: r.pagesVisited, note: r.truncated ? "more than 2^20 chunks: list truncated" : undefined };
    }
  }
  // No usable index: scan the TOAST heap for the chunk_id.
  const th = session.relation(toastRel);
  const chunks: ToastChunk[] = [];
  for (let b = th.firstBlock; b < th.nblocks; b++) {
    const page = session.readPage(toastRel, b);
    const dv = pageView(page);
    if (pageIsNew(dv)) continue;
    for (let i = 1; i <= maxOffsetNumber(dv); i++) {
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL || lpLen(w) < 32) continue;
      const t = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
      const hoff = t[HTH.t_hoff];
      if (hoff + 8 > t.length) continue;
      if (chunkIdAt(t, hoff) !== pointer.va_valueid) continue;
      chunks.push({ seq: chunkSeqAt(t, hoff), tid: { block: b, offset: i }, dead: false });
    }
  }
  chunks.sort((a, b) => a.seq - b.seq);
  return { ...base, chunks, method: "toast heap scan", pagesVisited: th.nblocks - th.firstBlock, note: "the TOAST relation has no index: its heap was scanned" };
}

/** The value behind a TOAST pointer, as PostgreSQL's text output (first `maxChars` characters). */
export function toastValue(session: BrowseSession, ref: RelRef, block: number, item: number, attnum: number): ToastValue {
  return session.cachedLarge(`toastval:${relKey(ref)}:${block}:${item}:${attnum}`, () => readValue(session, ref, block, item, attnum));
}

function readValue(session: BrowseSession, ref: RelRef, block: number, item: number, attnum: number): ToastValue {
  const list = toastChunks(session, ref, block, item, attnum);
  const p = list.pointer;
  const maxChunk = toastMaxChunkSize(session.relation(list.toastRel).resolved.geometry.blockSize);
  const stored = new Uint8Array(p.extsize);
  let pos = 0;
  let k = 0;
  for (const c of list.chunks) {
    const got = chunkTuple(session, list.toastRel, c.tid);
    if (!got || !got.live) continue;
    const l = deformHeapTuple(got.tuple, p.tag === VARTAG_ONDISK ? toastChunkDesc3 : toastChunkDesc5);
    const data = l.attrs[2];
    if (data.isnull) throw new FormatError("TOAST_CHUNK_NULL_DATA", `chunk ${c.seq} at ${tidText(c.tid)} has NULL chunk_data`, { block: c.tid.block, item: c.tid.offset });
    const vh = data.varlena ?? readVarlenaHeader(got.tuple, data.off);
    const bytes = got.tuple.subarray(data.off + vh.header, data.off + vh.total);
    if (p.tag === VARTAG_ONDISK && c.seq !== k) throw new FormatError("TOAST_CHUNK_MISSING", `toast value ${p.va_valueid}: chunk ${k} is missing (next is ${c.seq})`, { block: c.tid.block, item: c.tid.offset });
    const want = k < list.expected - 1 ? maxChunk : p.extsize - (list.expected - 1) * maxChunk;
    if (bytes.length !== want) throw new FormatError("TOAST_CHUNK_BAD_SIZE", `chunk ${k} at ${tidText(c.tid)} has ${bytes.length} bytes, expected ${want}`, { block: c.tid.block, item: c.tid.offset });
    stored.set(bytes, pos);
    pos += bytes.length;
    k++;
  }
  if (k !== list.expected) throw new FormatError("TOAST_CHUNK_MISSING", `found ${k} live chunks, the pointer's size calls for ${list.expected}`, {});
  const raw = p.compressed ? decompressTcinfo(stored) : stored;
  const h = session.relation(ref);
  const types = h.types ?? (() => undefined);
  const typid = h.decodeAs ? h.decodeAs(list.attr.typid) : list.attr.typid;
  return {
    text: datumToText(raw, typid, list.attr.typmod, types),
    rawBytes: raw.length,
    storedBytes: p.extsize,
    chunksRead: k,
    compression: p.compressed ? methodName(p.method) : undefined,
  };
}
