// TOAST relation tuple descriptors: the stock three attributes (src/backend/catalog/toasting.c)
// and the two Direct TOAST attributes of new-formats.md §1.2, which always have this
// descriptor whatever the catalog says.
import type { AttrDesc, TupleDesc } from "../heap/descriptor.js";

const a = (attnum: number, name: string, typid: number, len: number, byval: boolean, align: AttrDesc["align"]): AttrDesc => ({ attnum, name, typid, typmod: -1, len, byval, align, storage: "p", dropped: false });

export const TOAST_MAX_CHUNK_SIZE_8K = 1996;

export const toastChunkDesc3: TupleDesc = {
  attrs: [a(1, "chunk_id", 26, 4, true, "i"), a(2, "chunk_seq", 23, 4, true, "i"), a(3, "chunk_data", 17, -1, false, "i")],
};

export const toastChunkDesc5: TupleDesc = {
  attrs: [...toastChunkDesc3.attrs, a(4, "chunk_tids", 1010, -1, false, "i"), a(5, "chunk_tid_offsets", 1016, -1, false, "d")],
};

/** TOAST_MAX_CHUNK_SIZE for a block size (heaptoast.h: EXTERN_TUPLE_MAX_SIZE - header - oid - int4 - VARHDRSZ). */
export function toastMaxChunkSize(blockSize: number): number {
  const perTuple = ((blockSize - ((24 + 4 * 4 + 7) & ~7)) / 4) & ~7; // MaximumBytesPerTuple(4)
  return perTuple - 24 - 4 - 4 - 4;
}
