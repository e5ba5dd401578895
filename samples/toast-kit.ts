// Offline reads of a table's stored tuples and TOAST pointers, for tests and benches: every
// LP_NORMAL tuple with its place, every TOAST pointer with its liveness, a TOAST reader.
import type { DatabaseCatalog, RelationInfo } from "../formats/catalog/cluster.js";
import { RelationFork, scanBlocks } from "../formats/storage/relfile.js";
import { deformHeapTuple } from "../formats/heap/deform.js";
import { tupleState } from "../formats/heap/visibility.js";
import { HTH } from "../formats/heap/tuple-header.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../formats/page/page.js";
import { readToastPointer, type ToastPointer } from "../formats/varlena/toast-pointer.js";
import { ToastReader } from "../formats/toast/reader.js";

export interface PointerAt {
  block: number;
  item: number;
  attnum: number;
  pointer: ToastPointer;
  live: boolean;
  /** the raw bytes of the datum */
  bytes: Uint8Array;
}

/** Every LP_NORMAL tuple of a table, read offline, with its place. */
export function* storedTuples(cat: DatabaseCatalog, rel: RelationInfo): Generator<{ block: number; item: number; tuple: Uint8Array }> {
  const fork = new RelationFork(cat.path(rel), cat.cluster.geometry);
  try {
    for (const [block, page] of scanBlocks(fork)) {
      const dv = pageView(page);
      if (pageIsNew(dv)) continue;
      for (let item = 1; item <= maxOffsetNumber(dv); item++) {
        const w = itemIdWord(dv, item);
        if (lpFlags(w) !== LP_NORMAL) continue;
        yield { block, item, tuple: page.slice(lpOff(w), lpOff(w) + lpLen(w)) };
      }
    }
  } finally {
    fork.close();
  }
}

/** Every TOAST pointer of a table's tuples, in line pointer and attribute order. */
export function pointersOf(cat: DatabaseCatalog, rel: RelationInfo): PointerAt[] {
  const desc = cat.descriptor(rel.oid);
  const out: PointerAt[] = [];
  for (const { block, item, tuple: t } of storedTuples(cat, rel)) {
    const tv = new DataView(t.buffer);
    const live = tupleState(tv.getUint32(HTH.t_xmin, true), tv.getUint32(HTH.t_xmax, true), tv.getUint16(HTH.t_infomask, true), cat.cluster.clog) === "live";
    deformHeapTuple(t, desc).attrs.forEach((s, k) => {
      if (s.isnull || s.missing || s.varlena?.kind !== "1b_e") return;
      out.push({ block, item, attnum: k + 1, pointer: readToastPointer(t, s.off), live, bytes: t.slice(s.off, s.off + s.len) });
    });
  }
  return out;
}

/** A TOAST reader of a table (its TOAST relation and index). */
export function toastReaderOf(cat: DatabaseCatalog, rel: RelationInfo, withIndex = true): ToastReader {
  const toast = cat.classes.get(rel.toastRelid)!;
  const ix = cat.toastIndexOf(toast.oid);
  const ixRel = ix ? cat.classes.get(ix.indexOid) : undefined;
  const g = cat.cluster.geometry;
  return new ToastReader({ heap: new RelationFork(cat.path(toast), g), index: withIndex && ixRel ? new RelationFork(cat.path(ixRel), g) : null, clog: cat.cluster.clog, toastRelid: toast.oid });
}

