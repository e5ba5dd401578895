// Pages touched per value read, before and after a conversion, by value class (single-chunk,
// multi-chunk, tree-sized): each sampled value is read whole through the TOAST reader on the
// input (its stock index or direct TIDs) and on the output, and the distinct TOAST heap and
// TOAST index pages each read touched are counted.
import type { RelationInfo } from "../../formats/catalog/cluster.js";
import type { DatabaseCatalog } from "../../formats/catalog/cluster.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import type { ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { emptyStats } from "../../formats/toast/pages.js";
import { ToastReader } from "../../formats/toast/reader.js";
import { DIRECT_TOAST_TREE_THRESHOLD } from "../../formats/toast/tiers.js";
import type { TableContext } from "./table.js";

export type ValueClass = "single" | "multi" | "tree";

/** single: 1 chunk; multi: 2..100; tree: more than 100 (a tree when direct). */
export const valueClass = (slices: number): ValueClass => (slices <= 1 ? "single" : slices <= DIRECT_TOAST_TREE_THRESHOLD ? "multi" : "tree");

export interface MeasureSample {
  cls: ValueClass;
  before: ToastPointer;
  jobKey: string;
}

export interface Quantiles {
  /** heap + index pages per read */
  median: number;
  p99: number;
  heapMedian: number;
  indexMedian: number;
  chunksMedian: number;
}

export interface PagesTouched {
  values: number;
  before: Quantiles | null;
  after: Quantiles | null;
}

/** Nearest-rank quantile of a sorted list. */
const rank = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

function quantiles(reads: { heap: number; index: number; chunks: number }[]): Quantiles | null {
  if (!reads.length) return null;
  const s = (f: (r: { heap: number; index: number; chunks: number }) => number): number[] => reads.map(f).sort((a, b) => a - b);
  const total = s((r) => r.heap + r.index);
  return { median: rank(total, 0.5), p99: rank(total, 0.99), heapMedian: rank(s((r) => r.heap), 0.5), indexMedian: rank(s((r) => r.index), 0.5), chunksMedian: rank(s((r) => r.chunks), 0.5) };
}

function reader(cat: DatabaseCatalog, toast: RelationInfo, ix: RelationInfo | undefined): ToastReader {
  const g = cat.cluster.geometry;
  return new ToastReader({ heap: new RelationFork(cat.path(toast), g), index: ix ? new RelationFork(cat.path(ix), g) : null, clog: cat.cluster.clog, toastRelid: toast.oid });
}

function readAll(r: ToastReader, ptrs: ToastPointer[]): { heap: number; index: number; chunks: number }[] {
  return ptrs.map((p) => {
    const st = emptyStats();
    for (const piece of r.iterate(p, { stats: st })) void piece;
    return { heap: st.heapPages + st.heapScanPages, index: st.indexPages, chunks: st.chunksRead };
  });
}

/** A sampled value: its pointer before the conversion and after it (null: its value was damaged, not measured). */
export interface MeasurePair {
  cls: ValueClass;
  before: ToastPointer;
  after: ToastPointer | null;
}

export const emptyPagesTouched = (): Record<ValueClass, PagesTouched> => ({ single: { values: 0, before: null, after: null }, multi: { values: 0, before: null, after: null }, tree: { values: 0, before: null, after: null } });

/** Read the sampled values on the input (before) and on the converted files in place (after). */
export function measureClasses(t: Pick<TableContext, "cat" | "inCat">, samples: readonly MeasurePair[], rels: { toast: RelationInfo; ixRel: RelationInfo }): Record<ValueClass, PagesTouched> {
  const out = emptyPagesTouched();
  if (!samples.length) return out;
  const inToast = t.inCat.classes.get(rels.toast.oid);
  const rb = inToast ? reader(t.inCat, inToast, t.inCat.classes.get(rels.ixRel.oid)) : null;
  const ra = reader(t.cat, rels.toast, rels.ixRel);
  try {
    for (const cls of ["single", "multi", "tree"] as const) {
      const pairs = samples.filter((s): s is MeasurePair & { after: ToastPointer } => s.cls === cls && s.after !== null);
      out[cls] = { values: pairs.length, before: rb ? quantiles(readAll(rb, pairs.map((x) => x.before))) : null, after: quantiles(readAll(ra, pairs.map((x) => x.after))) };
    }
  } finally {
    rb?.close();
    ra.close();
  }
  return out;
}
