// Direct TOAST (new-formats.md §1.1-1.5), checked over the TOAST heap's bytes: the pointer's
// own invariants, then a walk from the root chunk named by va_tid through the value's tier
// (single, flat, tree) checking every chunk's shape, slice sizes, arrays and offsets, the total
// size, and that the stored bytes decompress to va_rawsize - 4. The walk stops at a value's
// first structural error so one damage gives one finding. Chunks reached are remembered per
// relation: a chunk reached from two roots, or a live direct chunk reached from none, is found.
import type { Location, Severity } from "../../formats/schema/errors.js";
import { FormatError } from "../../formats/schema/errors.js";
import { VARLENA_EXTSIZE_MASK } from "../../formats/varlena/toast-pointer.js";
import type { FindingSink } from "../findings.js";
import { chunkFields, type ChunkFields } from "./chunk-fields.js";
import { checkDecompresses } from "./plain-check.js";
import { tidKey, tidOf, type ToastRelation } from "./toast-rel.js";
import { DIRECT_TOAST_FANOUT, DIRECT_TOAST_TREE_THRESHOLD, treeLevels } from "../../formats/toast/tiers.js";
import type { CheckCode } from "../../formats/codes/index.js";
import { tidKeyAt } from "../../formats/page/item-pointer.js";
import { i32At, u32At } from "../../formats/schema/bytes.js";
import { ArrayTypeHeader } from "../../formats/datum/arrays.js";
import { ARRAY_DATA_AT, ARRAY_DIMS_AT, ARRAY_LBOUND_AT, INT8_ELEM_SIZE, INT8_TYPE_OID, TID_ELEM_SIZE, TID_TYPE_OID } from "../../formats/toast/chunk.js";
import type { DirectPointerFields } from "../../formats/varlena/toast-pointer.js";


/** A direct pointer's fields (formats/varlena/toast-pointer.ts reads them). */
export type DirectPointer = DirectPointerFields;

/** Per-relation memory of the walks: which root each chunk was reached from, and each root's pointer. */
export class DirectState {
  readonly rootOf = new Map<number, number>();
  readonly rootSig = new Map<number, string>();
  /** roots whose walk finished (a second pointer naming them is not walked again) */
  readonly walked = new Set<number>();
}

const extsizeOf = (p: DirectPointer): number => p.extinfo & VARLENA_EXTSIZE_MASK;
const methodOf = (p: DirectPointer): number => p.extinfo >>> 30;
const isCompressed = (p: DirectPointer): boolean => extsizeOf(p) < p.rawsize - 4;

/** The pointer invariants of §1.5 that need no chunk. Returns false when the value cannot be walked. */
export function checkDirectPointer(p: DirectPointer, expectedRelid: number, where: Location, sink: FindingSink): boolean {
  let ok = true;
  const S = extsizeOf(p);
  const what = `direct toast value at (${p.rootBlock},${p.rootItem})`;
  if (p.rawsize > 0x3fffffff) {
    sink.add("TOAST_RAWSIZE_TOO_LARGE", `${what} rawsize ${p.rawsize} exceeds limit ${0x3fffffff}`, where);
    ok = false;
  }
  if (S < 1 || S > p.rawsize - 4) {
    sink.add("DTOAST_POINTER_BAD_SIZE", `${what} has stored size ${S}, outside 1..va_rawsize - 4 = ${p.rawsize - 4}`, where);
    ok = false;
  }
  const m = methodOf(p);
  if (isCompressed(p) ? m > 1 : m !== 0) {
    sink.add("DTOAST_POINTER_BAD_METHOD", `${what} has compression method bits ${m}${isCompressed(p) ? " (only 0 pglz and 1 lz4 exist)" : " on an uncompressed value"}`, where);
    ok = false;
  }
  if (p.toastrelid !== expectedRelid) {
    sink.add("TOAST_POINTER_BAD_RELID", `${what} names TOAST relation ${p.toastrelid}, the table's is ${expectedRelid}`, where);
    ok = false;
  }
  return ok;
}

class Stop extends Error {}

interface Walk {
  p: DirectPointer;
  rel: ToastRelation;
  where: Location;
  sink: FindingSink | null;
  state: DirectState;
  rootKey: number;
  S: number;
  n: number;
  out: Uint8Array;
  pos: number;
  visited: Set<number>;
  warnedShort: boolean;
}

/**
 * Walk one direct value. With a sink, problems become findings (located at the parent attribute)
 * and null comes back; without one, the first problem throws. Returns the stored bytes S.
 */
export function checkDirectValue(p: DirectPointer, rel: ToastRelation, where: Location, sink: FindingSink | null, state: DirectState, decompress: boolean): Uint8Array | null {
  const rootKey = tidKey(p.rootBlock, p.rootItem);
  const sig = `${p.rawsize}/${p.extinfo}/${p.toastrelid}`;
  const prev = state.rootSig.get(rootKey);
  if (prev !== undefined && prev !== sig) {
    emit(sink, "DTOAST_ROOT_SHARED", `two pointers name root (${p.rootBlock},${p.rootItem}) with different values (${prev} vs ${sig}, as rawsize/extinfo/toastrelid)`, where, rel);
    return null;
  }
  state.rootSig.set(rootKey, sig);
  if (sink && state.walked.has(rootKey)) return null; // same value named again (an UPDATE that kept the column)
  const S = extsizeOf(p);
  const n = Math.ceil(S / rel.maxChunk);
  const w: Walk = { p, rel, where, sink, state, rootKey, S, n, out: new Uint8Array(S), pos: 0, visited: new Set(), warnedShort: false };
  try {
    const root = readChunk(w, rootKey, true);
    if (n === 1) leaf(w, root, 0, rootKey);
    else if (n <= DIRECT_TOAST_TREE_THRESHOLD) flat(w, root, rootKey);
    else tree(w, root, rootKey);
    if (w.pos !== S) fail(w, "DTOAST_TOTAL_SIZE", `the value's slices hold ${w.pos} bytes, its pointer says ${S}`, rootKey);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    claimRest(w);
    return null;
  } finally {
    state.walked.add(rootKey);
  }
  if (!isCompressed(p)) return w.out;
  const tc = S >= 4 ? u32At(w.out, 0) : 0;
  if (S < 5 || (tc & VARLENA_EXTSIZE_MASK) !== p.rawsize - 4 || tc >>> 30 !== methodOf(p)) {
    emit(sink, "DTOAST_POINTER_BAD_TCINFO", `compressed direct value's va_tcinfo (raw size ${tc & VARLENA_EXTSIZE_MASK}, method ${tc >>> 30}) disagrees with its pointer (raw size ${p.rawsize - 4}, method ${methodOf(p)}, stored ${S})`, where, rel, rootKey);
    return null;
  }
  if (decompress && !checkDecompresses(w.out, p.rawsize - 4, `direct toast value at (${p.rootBlock},${p.rootItem})`, where, sink)) return null;
  return w.out;
}

function emit(sink: FindingSink | null, code: CheckCode, msg: string, where: Location, rel: ToastRelation, key?: number, severity?: Severity): void {
  const t = key === undefined ? undefined : tidOf(key);
  const detail = t ? `TOAST relation ${rel.label}, chunk tuple (${t.block},${t.item}).` : `TOAST relation ${rel.label}.`;
  if (!sink) throw new FormatError(code, msg, where, detail);
  sink.add(code, msg, where, detail, severity);
}

function fail(w: Walk, code: CheckCode, msg: string, key: number): never {
  emit(w.sink, code, msg, w.where, w.rel, key);
  throw new Stop();
}

function readChunk(w: Walk, key: number, isRoot: boolean): ChunkFields {
  const { block, item } = tidOf(key);
  if (w.visited.has(key)) fail(w, "DTOAST_TID_REVISITED", `chunk (${block},${item}) is visited twice within one value`, key);
  const owner = w.state.rootOf.get(key);
  if (owner !== undefined && owner !== w.rootKey) {
    const o = tidOf(owner);
    fail(w, "DTOAST_CHUNK_SHARED", `chunk (${block},${item}) is reached from root (${o.block},${o.item}) and from root (${tidOf(w.rootKey).block},${tidOf(w.rootKey).item})`, key);
  }
  const at = w.rel.tupleAt(block, item);
  if ("why" in at) fail(w, isRoot ? "DTOAST_ROOT_INVALID" : "DTOAST_CHILD_INVALID", `${isRoot ? "va_tid" : "chunk_tids entry"} (${block},${item}) does not name a chunk: ${at.why}`, key);
  w.visited.add(key);
  w.state.rootOf.set(key, w.rootKey);
  let f: ChunkFields;
  try {
    f = chunkFields(at.page.subarray(at.off, at.off + at.len));
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    fail(w, "DTOAST_CHUNK_BAD_TUPLE", `chunk (${block},${item}) cannot be walked with the chunk descriptor: ${e.message}`, key);
  }
  if (f.id !== null) {
    if (f.id !== 0) fail(w, "DTOAST_CHUNK_HAS_ID", `chunk (${block},${item}) has chunk_id ${f.id}; direct chunks have chunk_id NULL`, key);
    emit(w.sink, "DTOAST_CHUNK_ID_ZERO", `chunk (${block},${item}) has chunk_id 0 (the v1 convention)${w.rel.indexPartial ? "; the TOAST index is partial on chunk_id IS NOT NULL, so REINDEX would fail on duplicate (0, chunk_seq) keys" : ""}`, w.where, w.rel, key, w.rel.indexPartial ? "error" : "warning");
  }
  if (f.natts < 3 || f.natts > 5) fail(w, "DTOAST_CHUNK_BAD_NATTS", `chunk (${block},${item}) has ${f.natts} attributes, expected 3 to 5`, key);
  if (f.shortForm && !w.warnedShort) {
    w.warnedShort = true;
    emit(w.sink, "DTOAST_SHORT_VARLENA", `chunk (${block},${item}) stores a column with a 1-byte varlena header`, w.where, w.rel, key);
  }
  return f;
}

function sliceLen(w: Walk, i: number, key: number): number {
  if (i >= w.n) fail(w, "DTOAST_TOTAL_SIZE", `slice ${i} is beyond the value's ${w.n} slices (stored size ${w.S})`, key);
  return Math.min(w.rel.maxChunk, w.S - i * w.rel.maxChunk);
}

function take(w: Walk, data: Uint8Array): void {
  w.out.set(data, w.pos);
  w.pos += data.length;
}

function leaf(w: Walk, f: ChunkFields, i: number, key: number): void {
  const { block, item } = tidOf(key);
  if (f.tids !== null || f.offsets !== null) fail(w, "DTOAST_TIER_MISMATCH", `chunk (${block},${item}) should be leaf slice ${i} but has chunk_tids or chunk_tid_offsets`, key);
  if (f.seq !== i) fail(w, "DTOAST_CHUNK_BAD_SEQ", `chunk (${block},${item}) has chunk_seq ${f.seq}, slice ${i} expected`, key);
  const want = sliceLen(w, i, key);
  if (f.data === null || f.data.length !== want) fail(w, "DTOAST_SLICE_BAD_SIZE", `chunk (${block},${item}) holds ${f.data === null ? "NULL" : `${f.data.length} bytes of`} chunk_data, slice ${i} has ${want}`, key);
  take(w, f.data);
}

function flat(w: Walk, root: ChunkFields, key: number): void {
  const { block, item } = tidOf(key);
  if (root.natts < 4) fail(w, "DTOAST_CHUNK_BAD_NATTS", `flat root (${block},${item}) has ${root.natts} attributes, a root needs at least 4`, key);
  if (root.tids === null || root.offsets !== null) fail(w, "DTOAST_TIER_MISMATCH", `root (${block},${item}) of a ${w.n}-slice value should be a flat root (chunk_tids, no chunk_tid_offsets)`, key);
  if (root.seq !== w.n - 1) fail(w, "DTOAST_CHUNK_BAD_SEQ", `flat root (${block},${item}) has chunk_seq ${root.seq}, expected ${w.n - 1}`, key);
  const tids = tidArray(w, root.tids, key);
  if (tids.length !== w.n - 1) fail(w, "DTOAST_FLAT_ROOT_TID_COUNT", `flat root (${block},${item}) lists ${tids.length} TIDs, expected ${w.n - 1}`, key);
  for (let i = 0; i < tids.length; i++) leaf(w, readChunk(w, tids[i], false), i, tids[i]);
  const want = sliceLen(w, w.n - 1, key);
  if (root.data === null || root.data.length !== want) fail(w, "DTOAST_SLICE_BAD_SIZE", `flat root (${block},${item}) holds ${root.data === null ? "NULL" : `${root.data.length} bytes of`} chunk_data, its slice has ${want}`, key);
  take(w, root.data);
}

function tree(w: Walk, root: ChunkFields, key: number): void {
  const L = treeLevels(w.n);
  const { block, item } = tidOf(key);
  if (root.tids === null || root.offsets === null) fail(w, "DTOAST_TIER_MISMATCH", `root (${block},${item}) of a ${w.n}-slice value should be a tree node (chunk_tids and chunk_tid_offsets)`, key);
  if (root.seq !== -L) fail(w, "DTOAST_NODE_BAD_LEVEL", `tree root (${block},${item}) has chunk_seq ${root.seq}; ${w.n} slices need ${L} levels (chunk_seq ${-L})`, key);
  const next = { slice: 0 };
  node(w, root, L, key, next);
  if (next.slice !== w.n) fail(w, "DTOAST_TOTAL_SIZE", `the tree holds ${next.slice} slices, the value has ${w.n}`, key);
}

function node(w: Walk, f: ChunkFields, level: number, key: number, next: { slice: number }): void {
  const { block, item } = tidOf(key);
  if (f.natts !== 5) fail(w, "DTOAST_CHUNK_BAD_NATTS", `internal node (${block},${item}) has ${f.natts} attributes, expected 5`, key);
  if (f.data === null || f.data.length !== 0) fail(w, "DTOAST_SLICE_BAD_SIZE", `internal node (${block},${item}) holds ${f.data === null ? "NULL" : f.data.length} chunk_data bytes, expected none`, key);
  if (f.tids === null || f.offsets === null) fail(w, "DTOAST_ARRAY_MALFORMED", `internal node (${block},${item}) lacks chunk_tids or chunk_tid_offsets`, key);
  const tids = tidArray(w, f.tids, key);
  const offs = int8Array(w, f.offsets, key);
  if (offs.length !== tids.length) fail(w, "DTOAST_ARRAY_MALFORMED", `internal node (${block},${item}) has ${tids.length} chunk_tids but ${offs.length} chunk_tid_offsets`, key);
  if (tids.length < 1 || tids.length > DIRECT_TOAST_FANOUT) fail(w, "DTOAST_NODE_FANOUT", `internal node (${block},${item}) has ${tids.length} children, expected 1 to ${DIRECT_TOAST_FANOUT}`, key);
  for (let k = 0; k < tids.length; k++) {
    if (k > 0 && offs[k] <= offs[k - 1]) fail(w, "DTOAST_OFFSETS_BAD", `internal node (${block},${item}) chunk_tid_offsets[${k}] = ${offs[k]} does not exceed offsets[${k - 1}] = ${offs[k - 1]}`, key);
    if (offs[k] !== w.pos) fail(w, "DTOAST_OFFSETS_BAD", `internal node (${block},${item}) chunk_tid_offsets[${k}] = ${offs[k]}, but child ${k} starts at byte ${w.pos}`, key);
    const ck = tids[k];
    const c = readChunk(w, ck, false);
    if (level === 1) {
      if (c.seq !== null && c.seq < 0) fail(w, "DTOAST_NODE_BAD_LEVEL", `child (${tidOf(ck).block},${tidOf(ck).item}) of level-1 node (${block},${item}) is an internal node (chunk_seq ${c.seq}); leaves belong at depth ${treeLevels(w.n)}`, ck);
      leaf(w, c, next.slice++, ck);
    } else {
      if (c.seq !== -(level - 1)) fail(w, "DTOAST_NODE_BAD_LEVEL", `child (${tidOf(ck).block},${tidOf(ck).item}) of level-${level} node (${block},${item}) has chunk_seq ${c.seq}, expected ${-(level - 1)}`, ck);
      node(w, c, level - 1, ck, next);
    }
  }
}

/** A 1-D, lower-bound-1, NULL-free array of `elemType`; returns its data offset and count. */
function arrayShape(w: Walk, payload: Uint8Array, elemType: number, elemSize: number, dataAt: number, what: string, key: number): number {
  const { block, item } = tidOf(key);
  const bad = (why: string): never => fail(w, "DTOAST_ARRAY_MALFORMED", `${what} of chunk (${block},${item}) ${why}`, key);
  if (payload.length < ARRAY_DATA_AT) bad(`has ${payload.length} bytes, less than a 1-D array header`);
  const ndim = ArrayTypeHeader.get.ndim(payload, 0);
  const dataoffset = ArrayTypeHeader.get.dataoffset(payload, 0);
  const elemtype = ArrayTypeHeader.get.elemtype(payload, 0);
  if (ndim !== 1) bad(`has ${ndim} dimensions, expected 1`);
  if (dataoffset !== 0) bad(`has a NULL bitmap (dataoffset ${dataoffset})`);
  if (elemtype !== elemType) bad(`has element type ${elemtype}, expected ${elemType}`);
  const n = i32At(payload, ARRAY_DIMS_AT);
  const lbound = i32At(payload, ARRAY_LBOUND_AT);
  if (lbound !== 1) bad(`has lower bound ${lbound}, expected 1`);
  if (n < 1) bad(`has ${n} elements`);
  if (payload.length !== dataAt + n * elemSize) bad(`is ${payload.length} bytes, ${n} elements need ${dataAt + n * elemSize}`);
  return n;
}

function tidArray(w: Walk, payload: Uint8Array, key: number): number[] {
  const n = arrayShape(w, payload, TID_TYPE_OID, TID_ELEM_SIZE, ARRAY_DATA_AT, "chunk_tids", key);
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = tidKeyAt(payload, ARRAY_DATA_AT + TID_ELEM_SIZE * i);
  }
  return out;
}

function int8Array(w: Walk, payload: Uint8Array, key: number): number[] {
  // ARR_OVERHEAD_NONULLS(1) = MAXALIGN(24) from the varlena start: the data follows the 20-byte header
  const n = arrayShape(w, payload, INT8_TYPE_OID, INT8_ELEM_SIZE, ARRAY_DATA_AT, "chunk_tid_offsets", key);
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = Number(dv.getBigInt64(ARRAY_DATA_AT + INT8_ELEM_SIZE * i, true));
  return out;
}

/**
 * After a walk stopped at an error: the chunks this root still names (following whatever
 * chunk_tids can be read) belong to it, so they are not reported again as unreachable.
 */
function claimRest(w: Walk): void {
  claimFrom(w.rel, w.state, w.rootKey);
}

/** A pointer that cannot be walked (its own fields are wrong) still owns the chunks under its root. */
export function claimValue(rel: ToastRelation, state: DirectState, p: DirectPointer): void {
  const key = tidKey(p.rootBlock, p.rootItem);
  if (!state.rootOf.has(key)) claimFrom(rel, state, key);
}

function claimFrom(rel: ToastRelation, state: DirectState, rootKey: number): void {
  const w = { rel, state, rootKey };
  const todo = [w.rootKey];
  const seen = new Set<number>();
  while (todo.length) {
    const key = todo.pop()!;
    if (seen.has(key) || seen.size > 1_000_000) continue;
    seen.add(key);
    if (!w.state.rootOf.has(key)) w.state.rootOf.set(key, w.rootKey);
    else if (w.state.rootOf.get(key) !== w.rootKey) continue;
    const { block, item } = tidOf(key);
    const at = w.rel.tupleAt(block, item);
    if ("why" in at) continue;
    let f: ChunkFields;
    try {
      f = chunkFields(at.page.subarray(at.off, at.off + at.len));
    } catch {
      continue;
    }
    const t = f.tids;
    if (!t || t.length < ARRAY_DATA_AT) continue;
    const n = Math.min(Math.floor((t.length - ARRAY_DATA_AT) / TID_ELEM_SIZE), 100000);
    for (let i = 0; i < n; i++) todo.push(tidKeyAt(t, ARRAY_DATA_AT + TID_ELEM_SIZE * i));
  }
}

/** After every pointer of the parent was walked: direct chunks nobody reached. */
export function checkUnreachable(rel: ToastRelation, state: DirectState, sink: FindingSink): void {
  for (const c of rel.directChunks()) {
    if (state.rootOf.has(c.key)) continue;
    const { block, item } = tidOf(c.key);
    const loc: Location = { file: rel.fork.fileOf(block).path, block, item };
    if (c.live) sink.add("DTOAST_UNREACHABLE_LIVE", `live direct TOAST chunk (${block},${item}) is reached from no TOAST pointer`, loc);
    else sink.add("DTOAST_UNREACHABLE_DEAD", `dead direct TOAST chunk (${block},${item}) is reached from no TOAST pointer (VACUUM removes it)`, loc);
  }
}
