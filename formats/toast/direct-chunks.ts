// The slices of a Direct TOAST value (new-formats.md §1.3-1.4), found by TID from the root named
// by va_tid: single (the root is the one slice), flat (the root lists the TIDs of slices
// 0..n-2 and holds slice n-1: a slice is one array lookup away), tree (internal nodes list their
// children's TIDs and start offsets in S; a slice range is found by binary search at each
// level, touching only the nodes on the way). Every chunk met is checked against its role, so a
// damaged value gives an error, never wrong bytes.
import { FormatError } from "../schema/errors.js";
import type { Tid } from "../page/item-pointer.js";
import { decodeChunk, offsetAt, tidAt, type Chunk } from "./chunk.js";
import { tupleAt, type PageCache, type Touch } from "./pages.js";
import { DIRECT_TOAST_FANOUT, sliceCount, sliceLength, tierOf, treeLevels } from "./tiers.js";
import type { Code } from "../codes/index.js";

export type DirectRole = "root" | "node" | "leaf";

export interface DirectContext {
  heap: PageCache;
  maxChunk: number;
  touch: Touch;
  /** sees every chunk fetched (the converter copies visibility from the root, counts chunks) */
  visit?: (tid: Tid, tuple: Uint8Array, chunk: Chunk, role: DirectRole) => void;
}

interface Walk extends DirectContext {
  root: Tid;
  S: number;
  n: number;
  seen: Set<number>;
}

const key = (t: Tid): number => t.block * 65536 + t.offset;

function fail(w: Walk, code: Code, msg: string, t?: Tid): never {
  throw new FormatError(code, `direct toast value at (${w.root.block},${w.root.offset}): ${msg}`, { file: w.heap.fork.basePath, block: t?.block, item: t?.offset });
}

function fetch(w: Walk, t: Tid, role: DirectRole): Chunk {
  const k = key(t);
  if (w.seen.has(k)) fail(w, "DTOAST_TID_REVISITED", `chunk (${t.block},${t.offset}) is reached twice`, t);
  w.seen.add(k);
  if (t.block < w.heap.nblocks) w.touch.heapPage(t.block);
  const r = tupleAt(w.heap, t.block, t.offset);
  if ("why" in r) fail(w, role === "root" ? "DTOAST_ROOT_INVALID" : "DTOAST_CHILD_INVALID", `${role === "root" ? "va_tid" : "chunk_tids entry"} (${t.block},${t.offset}) names no chunk: ${r.why}`, t);
  let c: Chunk;
  try {
    c = decodeChunk(r.tuple);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    fail(w, e.code, `chunk (${t.block},${t.offset}): ${e.message}`, t);
  }
  if (c.id !== null && c.id !== 0) fail(w, "DTOAST_CHUNK_HAS_ID", `chunk (${t.block},${t.offset}) has chunk_id ${c.id}; direct chunks have chunk_id NULL`, t);
  w.touch.stats.chunksRead++;
  w.visit?.(t, r.tuple, c, role);
  return c;
}

function leafData(w: Walk, c: Chunk, i: number, t: Tid): Uint8Array {
  if (c.natts < 3) fail(w, "DTOAST_CHUNK_BAD_NATTS", `chunk (${t.block},${t.offset}) has ${c.natts} attributes, at least 3 needed`, t);
  if (c.tids !== null || c.offsets !== null) fail(w, "DTOAST_TIER_MISMATCH", `chunk (${t.block},${t.offset}) should be slice ${i} but has chunk_tids or chunk_tid_offsets`, t);
  if (c.seq !== i) fail(w, "DTOAST_CHUNK_BAD_SEQ", `chunk (${t.block},${t.offset}) has chunk_seq ${c.seq}, slice ${i} expected`, t);
  const want = sliceLength(i, w.S, w.maxChunk);
  if (c.data === null || c.data.length !== want) fail(w, "DTOAST_SLICE_BAD_SIZE", `chunk (${t.block},${t.offset}) holds ${c.data === null ? "NULL" : c.data.length + " bytes of"} chunk_data, slice ${i} has ${want}`, t);
  return c.data;
}

/** An internal node's shape: natts 5, empty data, 1..50 children, offsets from `start` strictly increasing below `end`. */
function checkNode(w: Walk, c: Chunk, level: number, start: number, end: number, t: Tid): number {
  const at = `internal node (${t.block},${t.offset})`;
  if (c.natts !== 5) fail(w, "DTOAST_CHUNK_BAD_NATTS", `${at} has ${c.natts} attributes, expected 5`, t);
  if (c.seq !== -level) fail(w, "DTOAST_NODE_BAD_LEVEL", `${at} has chunk_seq ${c.seq}, level ${level} expected (chunk_seq ${-level})`, t);
  if (c.data === null || c.data.length !== 0) fail(w, "DTOAST_SLICE_BAD_SIZE", `${at} holds ${c.data === null ? "NULL" : c.data.length} chunk_data bytes, expected none`, t);
  if (c.tids === null || c.offsets === null) fail(w, "DTOAST_TIER_MISMATCH", `${at} lacks chunk_tids or chunk_tid_offsets`, t);
  const n = c.tids.count;
  if (c.offsets.count !== n) fail(w, "DTOAST_ARRAY_MALFORMED", `${at} has ${n} chunk_tids but ${c.offsets.count} chunk_tid_offsets`, t);
  if (n > DIRECT_TOAST_FANOUT) fail(w, "DTOAST_NODE_FANOUT", `${at} has ${n} children, at most ${DIRECT_TOAST_FANOUT} allowed`, t);
  if (offsetAt(c.offsets, 0) !== start) fail(w, "DTOAST_OFFSETS_BAD", `${at} starts at byte ${offsetAt(c.offsets, 0)}, its parent says ${start}`, t);
  let prev = start;
  for (let k = 1; k < n; k++) {
    const o = offsetAt(c.offsets, k);
    if (o <= prev || o >= end) fail(w, "DTOAST_OFFSETS_BAD", `${at} chunk_tid_offsets[${k}] = ${o} is not in (${prev}, ${end})`, t);
    prev = o;
  }
  return n;
}

/** Last child k whose start offset is <= pos (offsets[0] <= pos). */
function childAt(offsets: NonNullable<Chunk["offsets"]>, n: number, pos: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsetAt(offsets, mid) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Leaves of the subtree of `c` (a checked node spanning [start, end)) covering bytes [a, b). */
function* subtree(w: Walk, c: Chunk, level: number, start: number, end: number, a: number, b: number): Generator<Uint8Array> {
  const offs = c.offsets!;
  const tids = c.tids!;
  const n = tids.count;
  const k0 = childAt(offs, n, Math.max(a, start));
  const k1 = childAt(offs, n, Math.min(b, end) - 1);
  for (let k = k0; k <= k1; k++) {
    const cs = offsetAt(offs, k);
    const ce = k + 1 < n ? offsetAt(offs, k + 1) : end;
    const t = tidAt(tids, k);
    if (level === 1) {
      const i = cs / w.maxChunk;
      if (!Number.isInteger(i) || ce - cs !== sliceLength(i, w.S, w.maxChunk)) {
        fail(w, "DTOAST_OFFSETS_BAD", `child ${k} spans bytes [${cs}, ${ce}), which is not one slice`, t);
      }
      yield leafData(w, fetch(w, t, "leaf"), i, t);
    } else {
      const child = fetch(w, t, "node");
      checkNode(w, child, level - 1, cs, ce, t);
      yield* subtree(w, child, level - 1, cs, ce, a, b);
    }
  }
}

/**
 * Chunk data of slices first..last (inclusive) of the direct value whose root is `root` and
 * whose stored size is `extsize`, in order.
 */
export function* directSlices(ctx: DirectContext, root: Tid, extsize: number, first: number, last: number): Generator<Uint8Array> {
  const n = sliceCount(extsize, ctx.maxChunk);
  const w: Walk = { ...ctx, root, S: extsize, n, seen: new Set() };
  ctx.touch.via("direct");
  const r = fetch(w, root, "root");
  const tier = tierOf(n);
  if (tier === "single") {
    if (r.natts < 3) fail(w, "DTOAST_CHUNK_BAD_NATTS", `root has ${r.natts} attributes, at least 3 needed`, root);
    yield leafData(w, r, 0, root);
    return;
  }
  if (tier === "flat") {
    if (r.natts < 4) fail(w, "DTOAST_CHUNK_BAD_NATTS", `flat root has ${r.natts} attributes, a root needs at least 4`, root);
    if (r.tids === null || r.offsets !== null) fail(w, "DTOAST_TIER_MISMATCH", `root of a ${n}-slice value should be a flat root (chunk_tids, no chunk_tid_offsets)`, root);
    if (r.seq !== n - 1) fail(w, "DTOAST_CHUNK_BAD_SEQ", `flat root has chunk_seq ${r.seq}, expected ${n - 1}`, root);
    if (r.tids.count !== n - 1) fail(w, "DTOAST_FLAT_ROOT_TID_COUNT", `flat root lists ${r.tids.count} TIDs, expected ${n - 1}`, root);
    const want = sliceLength(n - 1, extsize, ctx.maxChunk);
    if (r.data === null || r.data.length !== want) fail(w, "DTOAST_SLICE_BAD_SIZE", `flat root holds ${r.data === null ? "NULL" : r.data.length + " bytes of"} chunk_data, its slice has ${want}`, root);
    for (let i = first; i <= Math.min(last, n - 2); i++) {
      const t = tidAt(r.tids, i);
      yield leafData(w, fetch(w, t, "leaf"), i, t);
    }
    if (last === n - 1) yield r.data;
    return;
  }
  const L = treeLevels(n);
  if (r.seq !== -L) fail(w, "DTOAST_NODE_BAD_LEVEL", `tree root has chunk_seq ${r.seq}; ${n} slices need ${L} levels (chunk_seq ${-L})`, root);
  checkNode(w, r, L, 0, extsize, root);
  yield* subtree(w, r, L, 0, extsize, first * ctx.maxChunk, Math.min((last + 1) * ctx.maxChunk, extsize));
}
