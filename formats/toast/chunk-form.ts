// Writing TOAST chunk tuples: stock three-attribute chunks (as toast_save_datum forms them) and
// five-attribute Direct TOAST chunks exactly as new-formats.md §1.2 lays them out: t_hoff 24,
// HEAP_HASNULL | HEAP_HASVARWIDTH, null bitmap 0x06 / 0x0E / 0x1E, 4-byte varlena headers,
// chunk_tids int-aligned, chunk_tid_offsets 8-aligned, arrays as PostgreSQL lays out a 1-D array
// without NULLs (elements 24 bytes after the header). Visibility comes from a model chunk.
import { HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_KEYS_UPDATED, HEAP_XACT_MASK, HTH } from "../heap/tuple-header.js";
import { writeTid, type Tid } from "../page/item-pointer.js";
import { ArrayTypeHeader } from "../datum/arrays.js";
import { ARRAY_DATA_AT, ARRAY_DIMS_AT, ARRAY_LBOUND_AT, INT8_ELEM_SIZE, INT8_TYPE_OID, TID_ELEM_SIZE, TID_TYPE_OID } from "./chunk.js";

/** The visibility fields a chunk copies from its model (§1.2 and §1.6). */
export interface ChunkVisibility {
  xmin: number;
  xmax: number;
  /** t_cid / t_xvac */
  field3: number;
  /** t_infomask & HEAP_XACT_MASK */
  xactBits: number;
  /** t_infomask2 & HEAP_KEYS_UPDATED */
  keysUpdated: number;
}

/** The visibility fields of an existing tuple (its header bytes). */
export function chunkVisibility(t: Uint8Array): ChunkVisibility {
  const dv = new DataView(t.buffer, t.byteOffset, t.byteLength);
  return {
    xmin: dv.getUint32(HTH.t_xmin, true),
    xmax: dv.getUint32(HTH.t_xmax, true),
    field3: dv.getUint32(HTH.t_field3, true),
    xactBits: dv.getUint16(HTH.t_infomask, true) & HEAP_XACT_MASK,
    keysUpdated: dv.getUint16(HTH.t_infomask2, true) & HEAP_KEYS_UPDATED,
  };
}

const HOFF = 24;
const align4 = (n: number): number => (n + 3) & ~3;
const align8 = (n: number): number => (n + 7) & ~7;

function writeHeader(dv: DataView, off: number, vis: ChunkVisibility, self: Tid, natts: number, dataBits: number): void {
  dv.setUint32(off + HTH.t_xmin, vis.xmin, true);
  dv.setUint32(off + HTH.t_xmax, vis.xmax, true);
  dv.setUint32(off + HTH.t_field3, vis.field3, true);
  writeTid(dv, off + HTH.t_ctid, self);
  dv.setUint16(off + HTH.t_infomask2, natts | vis.keysUpdated, true);
  dv.setUint16(off + HTH.t_infomask, vis.xactBits | dataBits, true);
  dv.setUint8(off + HTH.t_hoff, HOFF);
}

/** Bytes of a stock chunk tuple holding `dataLen` bytes: header 24 + oid + int4 + 4-byte varlena. */
export const plainChunkLength = (dataLen: number): number => HOFF + 4 + 4 + 4 + dataLen;

/** Write a stock (natts 3) chunk tuple at out[off]; the bytes there must be zero. */
export function writePlainChunk(out: Uint8Array, off: number, vis: ChunkVisibility, self: Tid, chunkId: number, seq: number, data: Uint8Array): number {
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  writeHeader(dv, off, vis, self, 3, HEAP_HASVARWIDTH);
  dv.setUint32(off + HOFF, chunkId, true);
  dv.setInt32(off + HOFF + 4, seq, true);
  dv.setUint32(off + HOFF + 8, ((data.length + 4) << 2) >>> 0, true);
  out.set(data, off + HOFF + 12);
  return plainChunkLength(data.length);
}

/** Where each attribute of a direct chunk goes (offsets within the tuple) and its length. */
export interface DirectChunkLayout {
  dataAt: number;
  tidsAt: number;
  offsetsAt: number;
  length: number;
}

/** Layout of a direct chunk with `dataLen` bytes of chunk_data and `ntids` children (0: none). */
export function directChunkLayout(dataLen: number, ntids: number, withOffsets: boolean): DirectChunkLayout {
  const dataAt = HOFF + 4; // chunk_seq at 24, chunk_data int-aligned right after
  let end = dataAt + 4 + dataLen;
  let tidsAt = -1;
  let offsetsAt = -1;
  if (ntids > 0) {
    tidsAt = align4(end);
    end = tidsAt + 4 + ARRAY_DATA_AT + TID_ELEM_SIZE * ntids;
    if (withOffsets) {
      offsetsAt = align8(end);
      end = offsetsAt + 4 + ARRAY_DATA_AT + INT8_ELEM_SIZE * ntids;
    }
  }
  return { dataAt, tidsAt, offsetsAt, length: end };
}

function writeArrayHeader(dv: DataView, at: number, elemType: number, elemSize: number, n: number): number {
  dv.setUint32(at, ((4 + ARRAY_DATA_AT + elemSize * n) << 2) >>> 0, true);
  const p = at + 4;
  dv.setInt32(p + ArrayTypeHeader.offsets.ndim, 1, true);
  dv.setInt32(p + ArrayTypeHeader.offsets.dataoffset, 0, true);
  dv.setUint32(p + ArrayTypeHeader.offsets.elemtype, elemType, true);
  dv.setInt32(p + ARRAY_DIMS_AT, n, true);
  dv.setInt32(p + ARRAY_LBOUND_AT, 1, true);
  return p + ARRAY_DATA_AT;
}

/**
 * Write a direct (natts 5) chunk at out[off] (zeroed bytes): chunk_id NULL, chunk_seq, chunk_data
 * (possibly empty), and for a flat root chunk_tids, for an internal node chunk_tids and
 * chunk_tid_offsets. Returns its length.
 */
export function writeDirectChunk(out: Uint8Array, off: number, vis: ChunkVisibility, self: Tid, seq: number, data: Uint8Array, tids: readonly Tid[] | null, offsets: readonly number[] | null): number {
  const n = tids ? tids.length : 0;
  if (offsets && (!tids || offsets.length !== n)) throw new RangeError("chunk_tid_offsets needs as many elements as chunk_tids");
  const lay = directChunkLayout(data.length, n, offsets !== null);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const bitmap = offsets ? 0x1e : tids ? 0x0e : 0x06;
  writeHeader(dv, off, vis, self, 5, HEAP_HASNULL | HEAP_HASVARWIDTH);
  out[off + 23] = bitmap;
  dv.setInt32(off + HOFF, seq, true);
  dv.setUint32(off + lay.dataAt, ((data.length + 4) << 2) >>> 0, true);
  out.set(data, off + lay.dataAt + 4);
  if (tids) {
    let p = writeArrayHeader(dv, off + lay.tidsAt, TID_TYPE_OID, TID_ELEM_SIZE, n);
    for (const t of tids) {
      writeTid(dv, p, t);
      p += TID_ELEM_SIZE;
    }
  }
  if (offsets) {
    let p = writeArrayHeader(dv, off + lay.offsetsAt, INT8_TYPE_OID, INT8_ELEM_SIZE, n);
    for (const v of offsets) {
      dv.setUint32(p, v % 4294967296, true);
      dv.setInt32(p + 4, Math.floor(v / 4294967296), true);
      p += INT8_ELEM_SIZE;
    }
  }
  return lay.length;
}
