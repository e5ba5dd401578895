// Writing one TOAST value's chunks from its stored bytes S, given as consecutive slices of
// TOAST_MAX_CHUNK_SIZE bytes (the last shorter): as a Direct TOAST value (new-formats.md §1.3:
// single, flat or tree; children before parents, laid out leaves, then level 1, 2, ...) or as
// stock chunks under a chunk_id. Every chunk copies the visibility fields it is given.
import { FormatError } from "../schema/errors.js";
import type { Tid } from "../page/item-pointer.js";
import { directChunkLayout, plainChunkLength, writeDirectChunk, writePlainChunk, type ChunkVisibility } from "./chunk-form.js";
import type { ToastHeapWriter } from "./heap-writer.js";
import { DIRECT_TOAST_FANOUT, sliceCount, sliceLength, tierOf, type DirectTier } from "./tiers.js";

export interface WrittenValue {
  root: Tid;
  tier: DirectTier;
  /** chunk tuples written */
  chunks: number;
}

const EMPTY = new Uint8Array(0);

function nextSlice(slices: Iterator<Uint8Array>, i: number, S: number, maxChunk: number): Uint8Array {
  const r = slices.next();
  const want = sliceLength(i, S, maxChunk);
  if (r.done) throw new FormatError("TOAST_WRITE_SHORT_INPUT", `slice ${i} of a ${S}-byte value is missing from the input`);
  if (r.value.length !== want) throw new FormatError("TOAST_WRITE_BAD_SLICE", `slice ${i} of a ${S}-byte value has ${r.value.length} bytes, expected ${want}`);
  return r.value;
}

function put(w: ToastHeapWriter, vis: ChunkVisibility, seq: number, data: Uint8Array, tids: Tid[] | null, offsets: number[] | null): Tid {
  const len = directChunkLayout(data.length, tids ? tids.length : 0, offsets !== null).length;
  const at = w.place(len, vis.xmax, vis.xactBits);
  writeDirectChunk(at.page, at.off, vis, at.tid, seq, data, tids, offsets);
  return at.tid;
}

/** Write a direct value of `storedSize` bytes; returns its root. */
export function writeDirectValue(w: ToastHeapWriter, storedSize: number, slices: Iterable<Uint8Array>, vis: ChunkVisibility, maxChunk: number): WrittenValue {
  const n = sliceCount(storedSize, maxChunk);
  const tier = tierOf(n);
  const it = slices[Symbol.iterator]();
  if (tier === "single") return { root: put(w, vis, 0, nextSlice(it, 0, storedSize, maxChunk), null, null), tier, chunks: 1 };
  const leaves: Tid[] = [];
  const leafCount = tier === "flat" ? n - 1 : n;
  for (let i = 0; i < leafCount; i++) leaves.push(put(w, vis, i, nextSlice(it, i, storedSize, maxChunk), null, null));
  if (tier === "flat") return { root: put(w, vis, n - 1, nextSlice(it, n - 1, storedSize, maxChunk), leaves, null), tier, chunks: n };
  // tree: group greedily by 50 until one node remains; offsets are each child's first byte in S
  let below = leaves;
  let firstLeaf = leaves.map((_, i) => i);
  let chunks = n;
  for (let level = 1; ; level++) {
    const nodes: Tid[] = [];
    const nodeFirst: number[] = [];
    for (let j = 0; j * DIRECT_TOAST_FANOUT < below.length; j++) {
      const from = j * DIRECT_TOAST_FANOUT;
      const to = Math.min(from + DIRECT_TOAST_FANOUT, below.length);
      const tids = below.slice(from, to);
      const offsets = firstLeaf.slice(from, to).map((l) => l * maxChunk);
      nodes.push(put(w, vis, -level, EMPTY, tids, offsets));
      nodeFirst.push(firstLeaf[from]);
      chunks++;
    }
    if (nodes.length === 1) return { root: nodes[0], tier, chunks };
    below = nodes;
    firstLeaf = nodeFirst;
  }
}

/** Write a value as stock chunks (chunk_id, chunk_seq 0..n-1, chunk_data); returns the chunk count. */
export function writePlainValue(w: ToastHeapWriter, chunkId: number, storedSize: number, slices: Iterable<Uint8Array>, vis: ChunkVisibility, maxChunk: number, onChunk?: (seq: number, tid: Tid) => void): number {
  const n = sliceCount(storedSize, maxChunk);
  const it = slices[Symbol.iterator]();
  for (let i = 0; i < n; i++) {
    const data = nextSlice(it, i, storedSize, maxChunk);
    const at = w.place(plainChunkLength(data.length), vis.xmax, vis.xactBits);
    writePlainChunk(at.page, at.off, vis, at.tid, chunkId, i, data);
    onChunk?.(i, at.tid);
  }
  return n;
}
