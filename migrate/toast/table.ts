// Converting one table's TOAST values between the stock and the Direct TOAST layout, in the
// output copy (new-formats.md §1.6). Four passes:
//  1. inventory: one sequential scan of the TOAST heap (where every stock chunk is, sizes);
//  2. plan: the parent's pages in order decide every pointer (planPage) and list the values to
//     write in the order they are first met;
//  3. write: a new TOAST heap, whole pages in large batches: direct values (stored bytes copied
//     verbatim, visibility from the stock chunk_seq 0 or the direct root), stock chunks kept
//     (tuple bytes verbatim, t_ctid set to their new place), stock chunks for direct values
//     going back (fresh OIDs), nothing else;
//  4. rewrite: parent pages holding changed pointers re-laid out in place (same line pointer
//     numbers), the TOAST index rebuilt over the stock chunks, the TOAST relation's VM and FSM
//     and the index's FSM removed.
import { FormatError } from "../../formats/schema/errors.js";
import type { DatabaseCatalog, RelationInfo } from "../../formats/catalog/cluster.js";
import { existingSegments, RelationFork, scanBlocks } from "../../formats/storage/relfile.js";
import { RelationWriter } from "../../formats/storage/relwriter.js";
import { relayoutPage } from "../../formats/heap/page-builder.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { writeTid, type Tid } from "../../formats/page/item-pointer.js";
import { pageView } from "../../formats/page/page.js";
import { readBTMeta } from "../../formats/nbtree/meta.js";
import { VARTAG_DIRECT } from "../../formats/varlena/varlena.js";
import { readToastPointer, type ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import { PlainChunkMap } from "../../formats/toast/chunk-map.js";
import { decodeChunk } from "../../formats/toast/chunk.js";
import { chunkVisibility, plainChunkLength, writePlainChunk, type ChunkVisibility } from "../../formats/toast/chunk-form.js";
import { directSlices } from "../../formats/toast/direct-chunks.js";
import { ToastHeapWriter } from "../../formats/toast/heap-writer.js";
import { buildToastIndex } from "../../formats/toast/index-build.js";
import { emptyStats, PageCache, tupleAt, Touch } from "../../formats/toast/pages.js";
import { encodeDirectPointer, encodePlainPointer, reformTuple } from "../../formats/toast/reform.js";
import { sliceCount, type DirectTier } from "../../formats/toast/tiers.js";
import { writeDirectValue, writePlainValue } from "../../formats/toast/value-writer.js";
import { planPage, type KeepReason, type PointerDecision, type TargetFlavour } from "./plan.js";
import type { ClusterOwner } from "../file-owner.js";
import { FIRST_NORMAL_OBJECT_ID } from "../select.js";
import { forkBytes } from "../plan.js";
import { emptyPagesTouched, type MeasurePair, type MeasureSample, type PagesTouched, valueClass } from "./measure.js";
import { StagedBuilder, type StagedSwitch } from "../staged.js";


export interface TableContext {
  /** the output cluster's catalog (files are rewritten here) */
  cat: DatabaseCatalog;
  /** the input cluster's catalog (read only: "before" measurements) */
  inCat: DatabaseCatalog;
  to: TargetFlavour;
  checksums: boolean;
  /** values per class read before and after for the pages-touched figures (0: none) */
  measure: number;
  /** fsync every file written before it is renamed into place (default true) */
  fsync?: boolean;
  /** owner and mode of every file written */
  owner: ClusterOwner;
  progress: (m: string) => void;
}

export interface KeptPlain {
  block: number;
  item: number;
  attnum: number;
  valueId: number;
  reason: KeepReason;
}

export interface TableConversion {
  table: string;
  toastRelation: string;
  toastIndex: string;
  to: TargetFlavour;
  pointers: {
    total: number;
    /** pointers now in the target flavour that were not before */
    converted: number;
    /** pointers already in the target flavour (direct ones relocated) */
    alreadyTarget: number;
    /** stock pointers left stock going to direct, by reason */
    keptPlain: Record<KeepReason, number>;
    /** direct pointers of dead tuples whose value was damaged or gone: now stock pointers naming no chunk */
    brokenDirect: number;
  };
  /** the first kept-plain pointers (at most 100), with their reason */
  keptPlainList: KeptPlain[];
  values: {
    direct: Record<DirectTier, number>;
    /** values stored as stock chunks in the output */
    plain: number;
    /** of those, written from a direct value under a fresh OID */
    newOids: number;
  };
  chunks: {
    before: { plain: number; direct: number };
    after: { plain: number; direct: number };
    /** stock chunks dropped: their value went direct, no pointer named them, or only dead tuples named an incomplete value */
    droppedPlain: { converted: number; unreferenced: number; incomplete: number; unusable: number; duplicate: number };
    /** direct chunks no pointer reached */
    droppedDirect: number;
  };
  toastHeap: { pagesBefore: number; pagesAfter: number; bytesBefore: number; bytesAfter: number };
  toastIndexSize: { pagesBefore: number; pagesAfter: number; bytesBefore: number; bytesAfter: number; levels: number };
  parent: { pages: number; pagesRewritten: number };
  /** chunk_ids present before and absent after */
  oidsNoLongerUsed: { count: number; ranges: string };
  forksRemoved: string[];
  pagesTouched: Record<"single" | "multi" | "tree", PagesTouched>;
  seconds: number;
}

interface Job {
  kind: TargetFlavour;
  sourceKey: string;
  pointer: ToastPointer;
  anyLive: boolean;
  slices: number;
  root?: Tid;
  oid?: number;
  /** a direct source that could not be read (only dead tuples name it) */
  broken?: FormatError;
}

/** Growable (chunk_id, chunk_seq, block, item) lists for the index build. */
class IndexEntries {
  ids = new Uint32Array(1024);
  seqs = new Int32Array(1024);
  blocks = new Uint32Array(1024);
  items = new Uint16Array(1024);
  n = 0;
  push(id: number, seq: number, t: Tid): void {
    if (this.n === this.ids.length) {
      const grow = <T extends Uint32Array | Int32Array | Uint16Array>(a: T, b: T): T => (b.set(a), b);
      const m = this.n * 2;
      this.ids = grow(this.ids, new Uint32Array(m));
      this.seqs = grow(this.seqs, new Int32Array(m));
      this.blocks = grow(this.blocks, new Uint32Array(m));
      this.items = grow(this.items, new Uint16Array(m));
    }
    this.ids[this.n] = id;
    this.seqs[this.n] = seq;
    this.blocks[this.n] = t.block;
    this.items[this.n] = t.offset;
    this.n++;
  }
  *sorted(): Generator<{ chunkId: number; seq: number; tid: Tid }> {
    const order = new Uint32Array(this.n);
    for (let k = 0; k < this.n; k++) order[k] = k;
    const { ids, seqs, blocks, items } = this;
    order.sort((a, b) => ids[a] - ids[b] || seqs[a] - seqs[b] || blocks[a] - blocks[b] || items[a] - items[b]);
    for (const k of order) yield { chunkId: ids[k], seq: seqs[k], tid: { block: blocks[k], offset: items[k] } };
  }
}

class OidAllocator {
  private next = FIRST_NORMAL_OBJECT_ID;
  constructor(private readonly used: Set<number>) {}
  alloc(): number {
    while (this.used.has(this.next)) this.next++;
    if (this.next > 0xffffffff) throw new FormatError("TOAST_OID_EXHAUSTED", "no free OID is left for a toast value");
    this.used.add(this.next);
    return this.next++;
  }
}

/** "16390-16395,16400" */
function oidRanges(oids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < oids.length; ) {
    let j = i;
    while (j + 1 < oids.length && oids[j + 1] === oids[j] + 1) j++;
    out.push(i === j ? String(oids[i]) : `${oids[i]}-${oids[j]}`);
    i = j + 1;
  }
  return out.join(",");
}

const qualified = (r: RelationInfo): string => `${r.namespaceName}.${r.name}`;

/**
 * One table's conversion, staged: every new file written (and fsynced) under its temporary name,
 * nothing switched. The switch (switchStaged) renames the new TOAST heap in first, then the TOAST
 * index and the parent, and removes the forks that no longer describe them; the pages-touched
 * figures are read after it (measureStaged), from the files then in place.
 */
export interface StagedTable {
  result: TableConversion;
  staged: StagedSwitch;
  /** the sampled values, before and after, for measureStaged */
  samples: MeasurePair[];
}

export function convertTable(t: TableContext, rel: RelationInfo): StagedTable {
  const t0 = performance.now();
  const { cat } = t;
  const cluster = cat.cluster;
  const geometry = cluster.geometry;
  const bs = geometry.blockSize;
  const mc = toastMaxChunkSize(bs);
  const clog = cluster.clog;
  const name = qualified(rel);
  const toast = cat.classes.get(rel.toastRelid);
  if (!toast || toast.filenode === 0) throw new FormatError("TOAST_RELATION_MISSING", `table ${name} names TOAST relation ${rel.toastRelid}, which has no storage`, {});
  const ixInfo = cat.toastIndexOf(toast.oid);
  const ixRel = ixInfo ? cat.classes.get(ixInfo.indexOid) : undefined;
  if (!ixRel || ixRel.filenode === 0) throw new FormatError("TOAST_INDEX_MISSING", `TOAST relation ${qualified(toast)} of ${name} has no index to rebuild`, {});
  const parentPath = cat.path(rel);
  const toastPath = cat.path(toast);
  const ixPath = cat.path(ixRel);
  const desc = cat.descriptor(rel.oid);

  // 1. inventory
  t.progress(`${name}: scanning TOAST relation ${qualified(toast)}`);
  const toastFork = new RelationFork(toastPath, geometry);
  const toastPagesBefore = toastFork.nblocks;
  const toastBytesBefore = forkBytes(toastPath);
  const ixBytesBefore = forkBytes(ixPath);
  const ixFork = new RelationFork(ixPath, geometry);
  const ixPagesBefore = ixFork.nblocks;
  let allequalimage = true;
  try {
    if (ixFork.nblocks > 0) allequalimage = readBTMeta(ixFork.readBlock(0)).btm_allequalimage;
  } catch {
    // an unreadable metapage: the rebuild writes a fresh one
  }
  ixFork.close();
  const map = PlainChunkMap.build(toastFork, clog);

  // 2. plan
  t.progress(`${name}: planning (${map.size} stock chunks, ${map.stats.directChunks} direct chunks)`);
  const incompleteCache = new Map<number, string | null>();
  const plainIncomplete = (id: number, extsize: number): string | null => {
    let r = incompleteCache.get(id);
    if (r === undefined) {
      const c = map.complete(id, extsize, mc);
      r = "why" in c ? c.why : null;
      incompleteCache.set(id, r);
    }
    return r;
  };
  const parentFork = new RelationFork(parentPath, geometry);
  const parentPages = parentFork.nblocks;
  const jobs = new Map<string, Job>();
  const order: Job[] = [];
  const decisionsByPage = new Map<number, PointerDecision[]>();
  const keptPlain: Record<KeepReason, number> = { "does-not-fit": 0, "chunks-missing": 0 };
  const keptPlainList: KeptPlain[] = [];
  const pointedPlainIds = new Set<number>();
  const samples: MeasureSample[] = [];
  const sampleCount = { single: 0, multi: 0, tree: 0 };
  let pointers = 0;
  let alreadyTarget = 0;
  for (const [blk, page] of scanBlocks(parentFork)) {
    const plan = planPage(page, blk, { to: t.to, desc, clog, maxChunk: mc, file: parentPath, plainIncomplete });
    if (!plan.decisions.length) continue;
    decisionsByPage.set(blk, plan.decisions);
    for (const d of plan.decisions) {
      pointers++;
      const fromDirect = d.pointer.tag === VARTAG_DIRECT;
      if (d.pointer.tag !== VARTAG_DIRECT) pointedPlainIds.add(d.pointer.va_valueid);
      if (d.reason) {
        keptPlain[d.reason]++;
        if (keptPlainList.length < 100) keptPlainList.push({ block: blk, item: d.lp, attnum: d.att + 1, valueId: fromDirect ? 0 : (d.pointer as { va_valueid: number }).va_valueid, reason: d.reason });
      }
      if ((d.target === "direct") === fromDirect) alreadyTarget++;
      if (d.reason === "chunks-missing") continue;
      const key = `${d.target}:${d.sourceKey}`;
      let job = jobs.get(key);
      if (!job) {
        job = { kind: d.target, sourceKey: d.sourceKey, pointer: d.pointer, anyLive: false, slices: d.slices };
        jobs.set(key, job);
        order.push(job);
      }
      job.anyLive ||= d.parentLive;
      const cls = valueClass(d.slices);
      if (d.parentLive && t.measure > 0 && sampleCount[cls] < t.measure) {
        sampleCount[cls]++;
        samples.push({ cls, before: d.pointer, jobKey: key });
      }
    }
  }

  // 3. the new TOAST heap
  t.progress(`${name}: writing ${order.length} values (${t.to === "direct" ? "direct where they fit" : "stock"})`);
  const used = new Set<number>([...map.valueIds(), ...map.stats.otherIds, ...pointedPlainIds]);
  const oids = new OidAllocator(used);
  const heapWriter = new RelationWriter(toastPath, { geometry, checksums: t.checksums, fsync: t.fsync, owner: t.owner });
  const hw = new ToastHeapWriter(bs, (page) => heapWriter.append(page));
  const src = new PageCache(toastFork, 1024, 32);
  const entries = new IndexEntries();
  const direct: Record<DirectTier, number> = { single: 0, flat: 0, tree: 0 };
  const copiedIds = new Set<number>();
  const convertedIds = new Set<number>();
  const reachedDirect = new Set<number>();
  let plainValues = 0;
  let newOids = 0;
  let directChunksAfter = 0;
  let plainChunksAfter = 0;
  let brokenDirect = 0;
  let parentWriter: RelationWriter | null = null;
  let ixWriter: RelationWriter | null = null;
  try {
    /** Data of chunk k of a complete stock value (entry index e), checked again on the way. */
    const plainChunk = (e: number, id: number, seq: number, extsize: number): { tuple: Uint8Array; data: Uint8Array } => {
      const r = tupleAt(src, map.blocks[e], map.items[e]);
      if ("why" in r) throw new FormatError("TOAST_CHUNK_MISSING", `chunk ${seq} of toast value ${id}: ${r.why}`, { file: toastPath, block: map.blocks[e], item: map.items[e] });
      const c = decodeChunk(r.tuple);
      const want = Math.min(mc, extsize - seq * mc);
      if (c.id !== id || c.seq !== seq || !c.data || c.data.length !== want) {
        throw new FormatError("TOAST_CHUNK_CHANGED", `chunk (${map.blocks[e]},${map.items[e]}) is not chunk ${seq} of toast value ${id} of ${want} bytes`, { file: toastPath, block: map.blocks[e], item: map.items[e] });
      }
      return { tuple: r.tuple, data: c.data };
    };
    const copyPlainEntry = (e: number): void => {
      const r = tupleAt(src, map.blocks[e], map.items[e]);
      if ("why" in r) throw new FormatError("TOAST_CHUNK_MISSING", `chunk (${map.blocks[e]},${map.items[e]}): ${r.why}`, { file: toastPath });
      const dv = new DataView(r.tuple.buffer, r.tuple.byteOffset, r.tuple.byteLength);
      const natts = dv.getUint16(HTH.t_infomask2, true) & 0x07ff;
      if (t.to === "plain" && natts !== 3) {
        // a stock chunk a patched server wrote with five attributes: a stock server needs three
        const c = decodeChunk(r.tuple);
        if (c.data === null || c.id === null || c.seq === null) throw new FormatError("TOAST_CHUNK_MALFORMED", `chunk (${map.blocks[e]},${map.items[e]}) has no chunk_data`, { file: toastPath, block: map.blocks[e], item: map.items[e] });
        const vis = chunkVisibility(r.tuple);
        const at = hw.place(plainChunkLength(c.data.length), vis.xmax, vis.xactBits);
        writePlainChunk(at.page, at.off, vis, at.tid, c.id, c.seq, c.data);
        entries.push(map.ids[e], map.seqs[e], at.tid);
        plainChunksAfter++;
        return;
      }
      const at = hw.place(r.tuple.length, dv.getUint32(HTH.t_xmax, true), dv.getUint16(HTH.t_infomask, true));
      at.page.set(r.tuple, at.off);
      writeTid(pageView(at.page), at.off + HTH.t_ctid, at.tid);
      entries.push(map.ids[e], map.seqs[e], at.tid);
      plainChunksAfter++;
    };
    const directRead = (job: Job, visit?: (tid: Tid, tuple: Uint8Array, role: string) => void): Generator<Uint8Array> => {
      const p = job.pointer as Extract<ToastPointer, { tag: 19 }>;
      const S = p.va_extinfo & 0x3fffffff;
      return directSlices({ heap: src, maxChunk: mc, touch: new Touch(emptyStats()), visit: visit ? (tid, tuple, _c, role) => visit(tid, tuple, role) : undefined }, p.root, S, 0, sliceCount(S, mc) - 1);
    };
    for (const job of order) {
      const p = job.pointer;
      const S = p.va_extinfo & 0x3fffffff;
      if (p.tag !== VARTAG_DIRECT) {
        const id = p.va_valueid;
        const start = (map.complete(id, S, mc) as { start: number }).start;
        if (job.kind === "direct") {
          const vis = chunkVisibility(plainChunk(start, id, 0, S).tuple);
          const slices = (function* () {
            for (let k = 0; k < job.slices; k++) yield plainChunk(start + k, id, k, S).data;
          })();
          const w = writeDirectValue(hw, S, slices, vis, mc);
          job.root = w.root;
          direct[w.tier]++;
          directChunksAfter += w.chunks;
          convertedIds.add(id);
        } else {
          for (let k = 0; k < job.slices; k++) copyPlainEntry(start + k);
          copiedIds.add(id);
          plainValues++;
        }
        continue;
      }
      // a direct source: walk it once to check it (and learn the root's visibility), then copy
      let vis: ChunkVisibility | null = null;
      const reached: number[] = [];
      try {
        for (const _ of directRead(job, (tid, tuple, role) => {
          reached.push(tid.block * 65536 + tid.offset);
          if (role === "root") vis = chunkVisibility(tuple);
        }));
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        if (job.anyLive) throw new FormatError("TOAST_VALUE_DAMAGED", `a live tuple of ${name} names a direct toast value that cannot be read: ${e.message}`, e.location, e.detail);
        job.broken = e;
        job.oid = oids.alloc();
        brokenDirect++;
        continue;
      }
      for (const k of reached) reachedDirect.add(k);
      if (job.kind === "direct") {
        const w = writeDirectValue(hw, S, directRead(job), vis!, mc);
        job.root = w.root;
        direct[w.tier]++;
        directChunksAfter += w.chunks;
      } else {
        const oid = oids.alloc();
        job.oid = oid;
        const n = writePlainValue(hw, oid, S, directRead(job), vis!, mc, (seq, tid) => entries.push(oid, seq, tid));
        plainChunksAfter += n;
        plainValues++;
        newOids++;
      }
    }
    if (t.to === "plain") {
      // going back keeps every stock chunk (the index is rebuilt over all of them)
      for (let e = 0; e < map.size; e++) if (!copiedIds.has(map.ids[e])) copyPlainEntry(e);
      for (const id of map.valueIds()) if (!copiedIds.has(id)) {
        copiedIds.add(id);
        plainValues++;
      }
    }
    const toastPagesAfter = hw.finish();

    // 4a. the parent: pages with changed pointers re-laid out in place
    const replacement = (d: PointerDecision): Uint8Array | null => {
      if (d.reason === "chunks-missing") return null;
      const job = jobs.get(`${d.target}:${d.sourceKey}`)!;
      if (job.broken) return encodePlainPointer(d.pointer, job.oid!);
      if (job.kind === "direct") return encodeDirectPointer(d.pointer, job.root!);
      return d.pointer.tag === VARTAG_DIRECT ? encodePlainPointer(d.pointer, job.oid!) : null;
    };
    let pagesRewritten = 0;
    let converted = 0;
    const changed = [...decisionsByPage.values()].some((ds) => ds.some((d) => replacement(d) !== null));
    if (changed) {
      t.progress(`${name}: rewriting the parent's pages`);
      parentWriter = new RelationWriter(parentPath, { geometry, checksums: t.checksums, fsync: t.fsync, owner: t.owner });
      for (const [blk, page] of scanBlocks(parentFork)) {
        const ds = decisionsByPage.get(blk);
        const byLp = new Map<number, Map<number, Uint8Array>>();
        for (const d of ds ?? []) {
          const r = replacement(d);
          if (!r) continue;
          if ((d.pointer.tag === VARTAG_DIRECT) !== (r[1] === VARTAG_DIRECT)) converted++;
          let m = byLp.get(d.lp);
          if (!m) byLp.set(d.lp, (m = new Map()));
          m.set(d.att, r);
        }
        if (!byLp.size) {
          parentWriter.appendVerbatim(page);
          continue;
        }
        const plan = planPage(page, blk, { to: t.to, desc, clog, maxChunk: mc, file: parentPath, plainIncomplete });
        const tuples = new Map<number, Uint8Array>();
        for (const [lp, m] of byLp) {
          const tp = plan.tuples.get(lp)!;
          tuples.set(lp, reformTuple(tp.tuple, tp.layout, desc, m));
        }
        const out = relayoutPage(page, tuples);
        if (!out) throw new FormatError("TOAST_PAGE_OVERFLOW", `block ${blk} of ${name} no longer fits after its pointers changed (a planning error)`, { file: parentPath, block: blk });
        parentWriter.append(out);
        pagesRewritten++;
      }
    }

    // 4b. the TOAST index over the stock chunks
    t.progress(`${name}: rebuilding TOAST index ${qualified(ixRel)} (${entries.n} entries)`);
    const ixPages = new Map<number, Uint8Array>();
    const built = buildToastIndex(entries.sorted(), { blockSize: bs, allequalimage }, (blk, page) => ixPages.set(blk, page.slice()));
    ixWriter = new RelationWriter(ixPath, { geometry, checksums: t.checksums, fsync: t.fsync, owner: t.owner });
    for (let b = 0; b < built.nblocks; b++) {
      const page = ixPages.get(b);
      if (!page) throw new FormatError("BT_BUILD_MISSING_BLOCK", `the TOAST index build produced no block ${b}`, { block: b });
      ixWriter.append(page);
    }

    // staged: the switch renames the files into place, then removes the forks that no longer describe them
    const staged = new StagedBuilder();
    const heapBytesAfter = staged.add(heapWriter.stage());
    staged.faultHere("toast-heap-committed");
    const ixBytesAfter = staged.add(ixWriter.stage());
    if (parentWriter) staged.add(parentWriter.stage());
    const forksRemoved = [...existingSegments(cat.path(toast, "vm")), ...existingSegments(cat.path(toast, "fsm")), ...existingSegments(cat.path(ixRel, "fsm"))];
    for (const f of forksRemoved) staged.remove(f);

    // figures
    const gone: number[] = [];
    for (const id of map.valueIds()) if (!copiedIds.has(id)) gone.push(id);
    let droppedConverted = 0;
    let droppedUnreferenced = 0;
    let droppedIncomplete = 0;
    for (let e = 0; e < map.size; e++) {
      const id = map.ids[e];
      if (copiedIds.has(id)) continue;
      if (convertedIds.has(id)) droppedConverted++;
      else if (pointedPlainIds.has(id)) droppedIncomplete++;
      else droppedUnreferenced++;
    }
    const pairs = samples.map((s): MeasurePair => {
      const job = jobs.get(s.jobKey)!;
      const after = job.broken ? null : job.kind === "direct" ? readToastPointer(encodeDirectPointer(s.before, job.root!), 0) : s.before.tag === VARTAG_DIRECT ? readToastPointer(encodePlainPointer(s.before, job.oid!), 0) : s.before;
      return { cls: s.cls, before: s.before, after };
    });
    const result: TableConversion = {
      table: name,
      toastRelation: qualified(toast),
      toastIndex: qualified(ixRel),
      to: t.to,
      pointers: { total: pointers, converted, alreadyTarget, keptPlain, brokenDirect },
      keptPlainList,
      values: { direct, plain: plainValues, newOids },
      chunks: {
        before: { plain: map.stats.plainChunks, direct: map.stats.directChunks },
        after: { plain: plainChunksAfter, direct: directChunksAfter },
        droppedPlain: { converted: droppedConverted, unreferenced: droppedUnreferenced, incomplete: droppedIncomplete, unusable: map.stats.unusable, duplicate: map.stats.duplicates },
        droppedDirect: map.stats.directChunks - reachedDirect.size,
      },
      toastHeap: { pagesBefore: toastPagesBefore, pagesAfter: toastPagesAfter, bytesBefore: toastBytesBefore, bytesAfter: heapBytesAfter },
      toastIndexSize: { pagesBefore: ixPagesBefore, pagesAfter: built.nblocks, bytesBefore: ixBytesBefore, bytesAfter: ixBytesAfter, levels: built.root === 0 ? 0 : built.level + 1 },
      parent: { pages: parentPages, pagesRewritten },
      oidsNoLongerUsed: { count: gone.length, ranges: oidRanges(gone) },
      forksRemoved,
      pagesTouched: emptyPagesTouched(),
      seconds: (performance.now() - t0) / 1000,
    };
    return { result, staged: staged.done(), samples: pairs };
  } catch (e) {
    heapWriter.abort();
    parentWriter?.abort();
    ixWriter?.abort();
    throw e;
  } finally {
    toastFork.close();
    parentFork.close();
  }
}
