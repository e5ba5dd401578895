// The chunks of a plain (va_valueid) value, slice range [first, last], in chunk_seq order, with
// heap_fetch_toast_slice's checks: chunk numbers consecutive, each chunk's size exactly what the
// stored size implies, no toasted chunk, nothing missing. Found through the TOAST index; when
// the index is unusable (missing, damaged, or it misses chunks the heap has), through one
// sequential scan of the TOAST heap, resuming at the first chunk not yet delivered.
import { FormatError } from "../schema/errors.js";
import { HTH } from "../heap/tuple-header.js";
import { LP_NORMAL } from "../page/item-id.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { decodeChunk } from "./chunk.js";
import { chunkUsable, type PlainChunkMap } from "./chunk-map.js";
import { tupleAt, type PageCache, type Touch } from "./pages.js";
import { sliceCount, sliceLength } from "./tiers.js";
import type { ToastIndexScanner } from "./toast-index.js";

export interface PlainLookup {
  heap: PageCache;
  maxChunk: number;
  clog?: XactStatusLookup;
  /** the TOAST index, unless missing or found damaged */
  index(): ToastIndexScanner | null;
  /** the heap-scan inventory (built on first use; `touch` is charged for the scan) */
  map(touch: Touch): PlainChunkMap;
  /** the index failed in a way that says it is damaged: stop using it */
  indexFailed(e: FormatError): void;
}

/** Index-path failures after which the heap scan may still find the value. */
const FALL_BACK = new Set(["TOAST_CHUNK_MISSING", "TOAST_CHUNK_UNEXPECTED"]);

function located(e: unknown, file: string, block: number, item: number): unknown {
  return e instanceof FormatError ? new FormatError(e.code, e.message, { file, block, item, offset: e.location.offset, attnum: e.location.attnum }, e.detail) : e;
}

/** The chunk's data after every check heap_fetch_toast_slice makes. */
function chunkData(l: PlainLookup, tuple: Uint8Array, valueId: number, expected: number, extsize: number, block: number, item: number, keySeq?: number): Uint8Array {
  const file = l.heap.fork.basePath;
  const where = { file, block, item };
  let c;
  try {
    c = decodeChunk(tuple);
  } catch (e) {
    throw located(e, file, block, item);
  }
  if (c.id === null) throw new FormatError(keySeq === undefined ? "TOAST_CHUNK_NOT_PLAIN" : "TOAST_INDEX_MISMATCH", `chunk (${block},${item}) has chunk_id NULL (a Direct TOAST chunk), not toast value ${valueId}`, where);
  if (keySeq !== undefined && (c.id !== valueId || c.seq !== keySeq)) {
    throw new FormatError("TOAST_INDEX_MISMATCH", `the TOAST index says (${valueId}, ${keySeq}) is at (${block},${item}), which holds (${c.id}, ${c.seq})`, where);
  }
  if (c.seq === null) throw new FormatError("TOAST_CHUNK_NULL_SEQ", `chunk (${block},${item}) of toast value ${valueId} has chunk_seq NULL`, where);
  const total = sliceCount(extsize, l.maxChunk);
  if (c.seq !== expected) {
    throw new FormatError(
      c.seq < expected ? "TOAST_CHUNK_UNEXPECTED" : "TOAST_CHUNK_MISSING",
      c.seq < expected ? `unexpected chunk number ${c.seq} (expected ${expected}) for toast value ${valueId}` : `missing chunk number ${expected} for toast value ${valueId}`,
      where,
    );
  }
  if (c.data === null) throw new FormatError("TOAST_CHUNK_NULL_DATA", `chunk ${c.seq} of toast value ${valueId} has chunk_data NULL`, where);
  const want = sliceLength(c.seq, extsize, l.maxChunk);
  if (c.seq >= total) throw new FormatError("TOAST_CHUNK_UNEXPECTED", `unexpected chunk number ${c.seq} (out of range 0..${total - 1}) for toast value ${valueId}`, where);
  if (c.data.length !== want) throw new FormatError("TOAST_CHUNK_BAD_SIZE", `unexpected chunk size ${c.data.length} (expected ${want}) in chunk ${c.seq} of ${total} for toast value ${valueId}`, where);
  return c.data;
}

function* viaIndex(l: PlainLookup, ix: ToastIndexScanner, valueId: number, extsize: number, first: number, last: number, touch: Touch, done: { next: number }): Generator<Uint8Array> {
  const file = l.heap.fork.basePath;
  for (const e of ix.scan(valueId, first, last, touch)) {
    const { block, offset: item } = e.tid;
    if (block < l.heap.nblocks) touch.heapPage(block);
    const r = tupleAt(l.heap, block, item);
    if ("why" in r) {
      // a dead or removed tuple the index still names: not part of the value
      if (r.flags !== undefined && r.flags !== LP_NORMAL) continue;
      throw new FormatError("TOAST_INDEX_BAD_TID", `the TOAST index entry (${valueId}, ${e.seq}) names (${block},${item}): ${r.why}`, { file: ix.cache.fork.basePath });
    }
    const dv = new DataView(r.tuple.buffer, r.tuple.byteOffset, r.tuple.byteLength);
    if (!chunkUsable(dv.getUint32(HTH.t_xmin, true), dv.getUint16(HTH.t_infomask, true), l.clog)) continue;
    const data = chunkData(l, r.tuple, valueId, done.next, extsize, block, item, e.seq);
    touch.stats.chunksRead++;
    done.next++;
    yield data;
  }
  if (done.next !== last + 1) throw new FormatError("TOAST_CHUNK_MISSING", `missing chunk number ${done.next} for toast value ${valueId}`, { file });
}

function* viaHeap(l: PlainLookup, valueId: number, extsize: number, last: number, touch: Touch, done: { next: number }): Generator<Uint8Array> {
  const map = l.map(touch);
  const file = l.heap.fork.basePath;
  let k = map.seek(valueId, done.next);
  for (; done.next <= last; k++) {
    if (k >= map.size || map.ids[k] !== valueId || map.seqs[k] !== done.next) {
      throw new FormatError("TOAST_CHUNK_MISSING", `missing chunk number ${done.next} for toast value ${valueId}`, { file });
    }
    const block = map.blocks[k];
    const item = map.items[k];
    touch.heapPage(block);
    const r = tupleAt(l.heap, block, item);
    if ("why" in r) throw new FormatError("TOAST_CHUNK_MISSING", `chunk ${done.next} of toast value ${valueId} at (${block},${item}) is gone: ${r.why}`, { file, block, item });
    const data = chunkData(l, r.tuple, valueId, done.next, extsize, block, item);
    touch.stats.chunksRead++;
    done.next++;
    yield data;
  }
}

/** Chunk data of slices first..last (inclusive) of the plain value `valueId` of `extsize` stored bytes. */
export function* plainSlices(l: PlainLookup, valueId: number, extsize: number, first: number, last: number, touch: Touch): Generator<Uint8Array> {
  const done = { next: first };
  const ix = l.index();
  if (ix) {
    touch.via("index");
    try {
      yield* viaIndex(l, ix, valueId, extsize, first, last, touch, done);
      return;
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      const indexFault = e.code.startsWith("TOAST_INDEX_");
      if (!indexFault && !FALL_BACK.has(e.code)) throw e;
      if (indexFault) l.indexFailed(e);
    }
  }
  touch.via("heap-scan");
  yield* viaHeap(l, valueId, extsize, last, touch, done);
}
