// Rebuilding a TOAST index (pg_toast_<oid>_index: unique btree on (chunk_id oid_ops, chunk_seq
// int4_ops)) from its chunks, the way CREATE INDEX lays it out: leaf tuples
// (heap TID, t_info 16, chunk_id, chunk_seq) in key order go through formats/nbtree's builder.
// Unique, so no deduplication.
import type { Tid } from "../page/item-pointer.js";
import type { TupleDesc } from "../heap/descriptor.js";
import { buildBtree, type BuildResult, type PageSink } from "../nbtree/build.js";
import type { KeySpec } from "../nbtree/pivot.js";

export interface IndexEntryIn {
  chunkId: number;
  seq: number;
  tid: Tid;
}

export const TOAST_INDEX_TUPLE_SIZE = 16;

/** The stock descriptor of a TOAST index (index_create copies the table's two key columns). */
export const toastIndexDesc: TupleDesc = {
  attrs: [
    { attnum: 1, name: "chunk_id", typid: 26, typmod: -1, len: 4, byval: true, align: "i", storage: "p", dropped: false },
    { attnum: 2, name: "chunk_seq", typid: 23, typmod: -1, len: 4, byval: true, align: "i", storage: "p", dropped: false },
  ],
};

/** A leaf tuple: t_tid = heap TID, t_info = 16 (no nulls, no varwidth), oid, int4. */
export function toastIndexTuple(e: IndexEntryIn): Uint8Array {
  const t = new Uint8Array(TOAST_INDEX_TUPLE_SIZE);
  const dv = new DataView(t.buffer);
  dv.setUint16(0, Math.floor(e.tid.block / 65536), true);
  dv.setUint16(2, e.tid.block & 0xffff, true);
  dv.setUint16(4, e.tid.offset, true);
  dv.setUint16(6, TOAST_INDEX_TUPLE_SIZE, true);
  dv.setUint32(8, e.chunkId, true);
  dv.setInt32(12, e.seq, true);
  return t;
}

/** Key order: chunk_id (unsigned), chunk_seq (signed), heap TID. */
export function compareIndexEntries(a: IndexEntryIn, b: IndexEntryIn): number {
  return a.chunkId - b.chunkId || a.seq - b.seq || a.tid.block - b.tid.block || a.tid.offset - b.tid.offset;
}

/**
 * Build the index from entries already in key order; pages go to `sink` in completion order
 * (the metapage, block 0, last). `allequalimage` is what the index's metapage said (true for
 * oid/int4 opclasses).
 */
export function buildToastIndex(entries: Iterable<IndexEntryIn>, o: { blockSize: number; allequalimage: boolean; fillfactor?: number }, sink: PageSink): BuildResult {
  const spec: KeySpec = { desc: toastIndexDesc, nkeyatts: 2, eq: ["image", "image"] };
  const tuples = (function* () {
    for (const e of entries) yield toastIndexTuple(e);
  })();
  return buildBtree(tuples, { blcksz: o.blockSize, spec, leafFillfactor: o.fillfactor, deduplicate: false, allequalimage: o.allequalimage }, sink);
}
