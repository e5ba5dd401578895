// The attributes of one TOAST chunk tuple, walked with the five-attribute chunk descriptor
// (new-formats.md §1.2: attnums 4 and 5 always have that descriptor; stock chunks stop at 3).
import { walkAttributes, type AttrSlot } from "../../formats/heap/deform.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "../../formats/heap/tuple-header.js";
import { toastChunkDesc5 } from "../../formats/toast/chunk-desc.js";
import { readVarlenaHeader, type VarlenaKind } from "../../formats/varlena/varlena.js";
import { chunkIdAt, chunkSeqAt } from "../../formats/toast/chunk.js";

/** t_hoff of a tuple without a null bitmap (MAXALIGN of the 23-byte header) */
const STOCK_HOFF = 24;
/** where chunk_data starts in a stock chunk tuple without NULLs (after two int4 columns) */
const STOCK_DATA = STOCK_HOFF + 8;

export interface ChunkFields {
  natts: number;
  /** chunk_id, null when NULL */
  id: number | null;
  seq: number | null;
  /** chunk_data payload (header stripped), null when NULL */
  data: Uint8Array | null;
  /** chunk_data's varlena form */
  dataKind: VarlenaKind | null;
  /** raw first word of chunk_data (for the "invalid varlena header %0x" message) */
  dataHeader: number;
  /** chunk_tids / chunk_tid_offsets payloads (header stripped), null when NULL or absent */
  tids: Uint8Array | null;
  offsets: Uint8Array | null;
  /** some varlena column used a 1-byte header */
  shortForm: boolean;
  /** chunk_tids starts int-aligned and chunk_tid_offsets 8-aligned within the tuple */
  aligned: boolean;
}

/** Walk a chunk tuple (`tuple` = its lp_len bytes). Throws FormatError when it does not fit. */
export function chunkFields(tuple: Uint8Array): ChunkFields {
  const dv = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
  const infomask = dv.getUint16(HTH.t_infomask, true);
  const natts = dv.getUint16(HTH.t_infomask2, true) & HEAP_NATTS_MASK;
  const hoff = tuple[HTH.t_hoff];
  // A stock chunk (chunk_id, chunk_seq, chunk_data; no NULLs) is read in place: the same
  // offsets the descriptor walk finds (int4 at hoff, int4 at hoff + 4, int-aligned varlena).
  if (natts === 3 && !(infomask & HEAP_HASNULL) && hoff === STOCK_HOFF && tuple.length > STOCK_DATA && tuple[STOCK_DATA] !== 0) {
    const vh = readVarlenaHeader(tuple, STOCK_DATA, tuple.length);
    let header = 0;
    for (let k = 0; k < 4 && STOCK_DATA + k < tuple.length; k++) header |= tuple[STOCK_DATA + k]! << (8 * k);
    return {
      natts,
      id: chunkIdAt(tuple, hoff),
      seq: chunkSeqAt(tuple, hoff),
      data: tuple.subarray(STOCK_DATA + vh.header, STOCK_DATA + vh.total),
      dataKind: vh.kind,
      dataHeader: header >>> 0,
      tids: null,
      offsets: null,
      shortForm: vh.kind === "1b",
      aligned: true,
    };
  }
  const bits = infomask & HEAP_HASNULL ? tuple.subarray(SizeofHeapTupleHeader, SizeofHeapTupleHeader + ((natts + 7) >> 3)) : undefined;
  const { attrs } = walkAttributes(tuple, hoff, bits, Math.min(natts, 5), toastChunkDesc5);
  const present = (i: number): AttrSlot | null => (attrs[i] && !attrs[i].isnull && !attrs[i].missing ? attrs[i] : null);
  const payload = (s: AttrSlot | null): Uint8Array | null => (s && s.varlena ? tuple.subarray(s.off + s.varlena.header, s.off + s.varlena.total) : null);
  const id = present(0);
  const seq = present(1);
  const data = present(2);
  const tids = present(3);
  const offs = present(4);
  let shortForm = false;
  for (const s of [data, tids, offs]) if (s?.varlena?.kind === "1b") shortForm = true;
  const aligned = (!tids || tids.varlena?.kind !== "4b" || (tids.off - hoff) % 4 === 0) && (!offs || offs.varlena?.kind !== "4b" || (offs.off - hoff) % 8 === 0);
  return {
    natts,
    id: id ? dv.getUint32(id.off, true) : null,
    seq: seq ? dv.getInt32(seq.off, true) : null,
    data: payload(data),
    dataKind: data?.varlena?.kind ?? null,
    dataHeader: data ? dv.getUint32(data.off, true) : 0,
    tids: payload(tids),
    offsets: payload(offs),
    shortForm,
    aligned,
  };
}
