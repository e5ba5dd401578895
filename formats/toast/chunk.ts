// One TOAST chunk tuple read straight from its bytes (hot path: no descriptor walk, no
// allocation beyond the result): chunk_id, chunk_seq, chunk_data and the Direct TOAST arrays
// chunk_tids / chunk_tid_offsets (new-formats.md §1.2). Readers accept natts 1 to 5 (missing
// attributes are NULL) and short (1-byte header, unaligned) varlena forms; whether the shape
// suits the chunk's role (plain chunk, leaf, root, internal node) is the caller's decision.
import { FormatError } from "../schema/errors.js";
import { i32At, u32At } from "../schema/bytes.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "../heap/tuple-header.js";
import { ArrayTypeHeader } from "../datum/arrays.js";
import type { Tid } from "../page/item-pointer.js";
import { readVarlenaHeader } from "../varlena/varlena.js";
import type { Code } from "../codes/index.js";

export const TID_TYPE_OID = 27;
export const INT8_TYPE_OID = 20;
export const TID_ELEM_SIZE = 6;
export const INT8_ELEM_SIZE = 8;
/** chunk_id (oid) and chunk_seq (int4) are the first two columns: offsets from t_hoff (no NULLs before them). */
export const CHUNK_ID_AT = 0;
export const CHUNK_SEQ_AT = 4;
/** chunk_id of the chunk tuple whose data starts at `dataAt` (its t_hoff), when not NULL. */
export const chunkIdAt = (t: Uint8Array, dataAt: number): number => u32At(t, dataAt + CHUNK_ID_AT);
/** chunk_seq of the chunk tuple whose data starts at `dataAt`, when neither column is NULL. */
export const chunkSeqAt = (t: Uint8Array, dataAt: number): number => i32At(t, dataAt + CHUNK_SEQ_AT);
/** A 1-D NULL-free array, offsets after the varlena header: ArrayType, dims[0], lbound[0], then data. */
export const ARRAY_DIMS_AT = ArrayTypeHeader.size; // 12
export const ARRAY_LBOUND_AT = ARRAY_DIMS_AT + 4; // 16
/** ARR_DATA_OFFSET of a 1-D array without NULLs is MAXALIGN(24) from the 4-byte header: 20 after it. */
export const ARRAY_DATA_AT = 20;

/** A decoded chunk_tids or chunk_tid_offsets array: its payload (after the varlena header) and length. */
export interface ChunkArray {
  payload: Uint8Array;
  count: number;
}

export interface Chunk {
  natts: number;
  /** NULL for direct chunks */
  id: number | null;
  seq: number | null;
  /** chunk_data without its varlena header */
  data: Uint8Array | null;
  tids: ChunkArray | null;
  offsets: ChunkArray | null;
  /** some varlena column was stored with a 1-byte header */
  shortForm: boolean;
}

const bad = (code: Code, msg: string, offset?: number, attnum?: number): FormatError => new FormatError(code, msg, { offset, attnum });

/** Payload of the varlena at `off` (after alignment), or a precise error. Returns [start, end, next, short]. */
function varlenaAt(t: Uint8Array, off: number, align: number, attnum: number, name: string): [number, number, number, boolean] {
  if (off < t.length && t[off] === 0) off = (off + align - 1) & ~(align - 1);
  if (off >= t.length) throw bad("TOAST_CHUNK_TRUNCATED", `${name} (attribute ${attnum}) at offset ${off} lies past the end of the ${t.length}-byte chunk tuple`, off, attnum);
  let vh;
  try {
    vh = readVarlenaHeader(t, off, t.length);
  } catch (e) {
    throw e instanceof FormatError ? new FormatError("TOAST_CHUNK_BAD_VARLENA", `${name} (attribute ${attnum}): ${e.message}`, { offset: off, attnum }) : e;
  }
  if (vh.kind === "4b_c" || vh.kind === "1b_e") {
    // heap_fetch_toast_slice: "found toasted toast chunk"
    throw bad("TOAST_CHUNK_TOASTED", `${name} (attribute ${attnum}) at offset ${off} is ${vh.kind === "4b_c" ? "compressed" : "an external pointer"}: a toasted toast chunk`, off, attnum);
  }
  return [off + vh.header, off + vh.total, off + vh.total, vh.kind === "1b"];
}

/** Check a 1-D, lower-bound-1, NULL-free array of `elemType`; returns its element count. */
export function checkChunkArray(payload: Uint8Array, elemType: number, elemSize: number, name: string): number {
  const why = (s: string): FormatError => bad("TOAST_CHUNK_ARRAY_MALFORMED", `${name} ${s}`);
  if (payload.length < ARRAY_DATA_AT) throw why(`has ${payload.length} bytes, less than a 1-D array header (${ARRAY_DATA_AT})`);
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const ndim = dv.getInt32(ArrayTypeHeader.offsets.ndim, true);
  const dataoffset = dv.getInt32(ArrayTypeHeader.offsets.dataoffset, true);
  const elemtype = dv.getUint32(ArrayTypeHeader.offsets.elemtype, true);
  if (ndim !== 1) throw why(`has ${ndim} dimensions, expected 1`);
  if (dataoffset !== 0) throw why(`has a NULL bitmap (dataoffset ${dataoffset})`);
  if (elemtype !== elemType) throw why(`has element type ${elemtype}, expected ${elemType}`);
  const n = dv.getInt32(ARRAY_DIMS_AT, true);
  const lbound = dv.getInt32(ARRAY_LBOUND_AT, true);
  if (lbound !== 1) throw why(`has lower bound ${lbound}, expected 1`);
  if (n < 1) throw why(`has ${n} elements, expected at least 1`);
  if (payload.length !== ARRAY_DATA_AT + n * elemSize) throw why(`is ${payload.length} bytes, ${n} elements need ${ARRAY_DATA_AT + n * elemSize}`);
  return n;
}

/**
 * Decode a chunk tuple (the item's lp_len bytes). Throws FormatError (offset and attnum within
 * the tuple) when its bytes cannot be a chunk; callers add file, block and item.
 */
export function decodeChunk(t: Uint8Array): Chunk {
  if (t.length < SizeofHeapTupleHeader + 1) throw bad("TOAST_CHUNK_TRUNCATED", `chunk tuple of ${t.length} bytes is shorter than a tuple header`, 0);
  const infomask = t[HTH.t_infomask] | (t[HTH.t_infomask + 1] << 8);
  const natts = (t[HTH.t_infomask2] | (t[HTH.t_infomask2 + 1] << 8)) & HEAP_NATTS_MASK;
  const hoff = t[HTH.t_hoff];
  const hasnull = (infomask & HEAP_HASNULL) !== 0;
  if (natts < 1 || natts > 5) throw bad("TOAST_CHUNK_BAD_NATTS", `chunk tuple has ${natts} attributes; TOAST chunks have 3 (plain) to 5 (direct)`, HTH.t_infomask2);
  const want = (SizeofHeapTupleHeader + (hasnull ? 1 : 0) + 7) & ~7;
  if (hoff !== want || hoff > t.length) throw bad("TOAST_CHUNK_BAD_HOFF", `chunk tuple data should begin at byte ${want}, but begins at byte ${hoff}`, HTH.t_hoff);
  const bits = hasnull ? t[SizeofHeapTupleHeader] : 0xff;
  const present = (i: number): boolean => i < natts && (bits & (1 << i)) !== 0;
  const dv = new DataView(t.buffer, t.byteOffset, t.byteLength);
  let off = hoff;
  const c: Chunk = { natts, id: null, seq: null, data: null, tids: null, offsets: null, shortForm: false };
  if (present(0)) {
    off = (off + 3) & ~3;
    if (off + 4 > t.length) throw bad("TOAST_CHUNK_TRUNCATED", `chunk_id at offset ${off} lies past the end of the ${t.length}-byte chunk tuple`, off, 1);
    c.id = dv.getUint32(off, true);
    off += 4;
  }
  if (present(1)) {
    off = (off + 3) & ~3;
    if (off + 4 > t.length) throw bad("TOAST_CHUNK_TRUNCATED", `chunk_seq at offset ${off} lies past the end of the ${t.length}-byte chunk tuple`, off, 2);
    c.seq = dv.getInt32(off, true);
    off += 4;
  }
  if (present(2)) {
    const [s, e, next, short] = varlenaAt(t, off, 4, 3, "chunk_data");
    c.data = t.subarray(s, e);
    c.shortForm ||= short;
    off = next;
  }
  if (present(3)) {
    const [s, e, next, short] = varlenaAt(t, off, 4, 4, "chunk_tids");
    const payload = t.subarray(s, e);
    c.tids = { payload, count: checkChunkArray(payload, TID_TYPE_OID, TID_ELEM_SIZE, "chunk_tids") };
    c.shortForm ||= short;
    off = next;
  }
  if (present(4)) {
    const [s, e, , short] = varlenaAt(t, off, 8, 5, "chunk_tid_offsets");
    const payload = t.subarray(s, e);
    c.offsets = { payload, count: checkChunkArray(payload, INT8_TYPE_OID, INT8_ELEM_SIZE, "chunk_tid_offsets") };
    c.shortForm ||= short;
  }
  return c;
}

/** chunk_tids[i] (0-based). */
export function tidAt(a: ChunkArray, i: number): Tid {
  const p = a.payload;
  const k = ARRAY_DATA_AT + TID_ELEM_SIZE * i;
  return { block: (p[k] | (p[k + 1] << 8)) * 65536 + (p[k + 2] | (p[k + 3] << 8)), offset: p[k + 4] | (p[k + 5] << 8) };
}

/** chunk_tid_offsets[i] (0-based); int8, exact up to 2^53. */
export function offsetAt(a: ChunkArray, i: number): number {
  const p = a.payload;
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const k = ARRAY_DATA_AT + INT8_ELEM_SIZE * i;
  return dv.getInt32(k + 4, true) * 4294967296 + dv.getUint32(k, true);
}
