// heapallindexed: the heap TID compared exactly, the key bytes through a 64-bit fingerprint
// (fingerprint.ts). The B-tree walk hands over every live leaf tuple; each is normalised
// (posting lists split into plain tuples as _bt_form_posting does, compressed values
// decompressed, 4-byte headers on short values packed: index-form.ts) and its fingerprint
// stored under each of its heap TIDs. Then every live heap tuple (xmin committed, not deleted
// by a committed transaction: what a fresh MVCC snapshot sees, which is what amcheck's CREATE
// INDEX-style scan probes) gets its expected index tuple formed from its key columns, under the
// TID of its HOT chain's root, and an entry with that TID and that tuple's fingerprint must be
// present. Expression and partial indexes are reported as skipped.
import type { Location } from "../../formats/schema/errors.js";
import { FormatError } from "../../formats/schema/errors.js";
import type { TupleDesc, AttrDesc } from "../../formats/heap/descriptor.js";
import { decompressTcinfo } from "../../formats/compression/index.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, HEAP_XMAX_IS_MULTI } from "../../formats/heap/tuple-header.js";
import { INDEX_ALT_TID_MASK, INDEX_SIZE_MASK } from "../../formats/nbtree/index-tuple.js";
import { LP_NORMAL, LP_REDIRECT, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pdLower, pdSpecial, pdUpper } from "../../formats/page/page.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import { unsafeHeapItems } from "../heap/item-sanity.js";
import type { FindingSink } from "../findings.js";
import type { MultiXactReader } from "../heap/multixact.js";
import { ctidOffset, isHotUpdated, T_HOFF, T_INFOMASK, T_INFOMASK2, T_XMAX, tupleXmin, xmaxLockedOnly } from "../heap/tuple-walk.js";
import type { XidContext } from "../heap/xid.js";
import { live } from "../heap/liveness.js";
import { checkPlainValue } from "../toast/plain-check.js";
import { checkDirectValue, DirectState } from "../toast/direct-check.js";
import type { ToastRelation } from "../toast/toast-rel.js";
import { FormBuffer, formFromHeap, formIndexTuple, HeapFormPlan, IndexValues, VAL_CSTRING, VAL_FIXED, VAL_NULL, VAL_VARLENA } from "../../formats/nbtree/index-form.js";
import type { LeafCollector } from "./btree-verify.js";
import { KeyView, type TupleInfo } from "../../formats/nbtree/bt-compare.js";
import { TidFingerprints, fingerprint, fingerprintInPage, FP, hashableFormBytes, unstagePage, type SharedFingerprints } from "./fingerprint.js";
import { viewOf } from "../page-view.js";
import { decodeExprValue, type ExprValue } from "../../formats/expr/evaluate.js";
import { setExprResult, type IndexExprs } from "../../formats/expr/index-exprs.js";
import { tidBlockAt, tidKeyText, tidOffsetAt } from "../../formats/page/item-pointer.js";
import { readDirectPointerFields, readExternalPointerFields, VARLENA_EXTSIZE_MASK } from "../../formats/varlena/toast-pointer.js";
import { varsize4BAt, VARHDRSZ, VARTAG_ONDISK } from "../../formats/varlena/varlena.js";
import { setU32At, u32At } from "../../formats/schema/bytes.js";
import { AttrSpans } from "../../formats/heap/attr-spans.js";

const NAMEOID = 19;

/**
 * The index side: a fingerprint of each normalised leaf tuple, by heap TID (fingerprint.ts).
 * Exact mode also keeps each normalised tuple's bytes (t_info, then bytes 8 on), and a heap
 * tuple matches only an entry with its TID and those very bytes; the fingerprint only picks the
 * entries to compare.
 */
export class IndexEntries implements LeafCollector {
  private readonly set: TidFingerprints;
  /** exact mode: the normalised tuples */
  private kept: KeptTuples | null = null;
  private readonly kv = new KeyView();
  private readonly vals = new IndexValues();
  private readonly out = new FormBuffer();
  entries = 0;

  constructor(
    readonly attrs: AttrDesc[],
    readonly sink: FindingSink,
    readonly relName: string,
    readonly fileOf: (blk: number) => string,
    /** about how many entries to expect (the table's reltuples) */
    expected = 0,
    /** entries another thread collected and shared (share()), probed here; nothing is added */
    shared?: { table: SharedFingerprints; entries: number },
    /** the index's page size (tuples are hashed page by page) */
    readonly pageSize = 8192,
    /** compare the tuples' bytes themselves, not only their fingerprints (keeps them all in memory) */
    readonly exact = false,
  ) {
    unstagePage(); // a new index: the last one's buffers may hold other pages now
    if (exact && shared) throw new Error("exact entries are not shared between threads");
    this.set = shared ? TidFingerprints.fromShared(shared.table) : new TidFingerprints(expected, undefined, exact);
    if (exact) this.kept = new KeptTuples();
    if (shared) this.entries = shared.entries;
  }

  add(t: TupleInfo, blk: number, off: number, walked?: KeyView | null): void {
    const keyEnd = t.posting ? t.postingOff : t.size;
    if (keyEnd > t.len || keyEnd < 8) return;
    let ref = 0;
    if (this.needsNormalising(t, blk, off, walked)) {
      const size = this.reform(t);
      if (size < 0) return;
      const b = this.out.bytes;
      const info = b[6] | (b[7] << 8);
      fingerprint(b, 0, size, info);
      if (this.kept) ref = this.kept.keep(b, 0, size, info);
    } else {
      // the plain tuple of one heap TID: size = MAXALIGN(key size), INDEX_ALT_TID_MASK clear;
      // hashed within its page, which is copied into the hash module's memory once
      const len = (keyEnd + 7) & ~7;
      const info = (t.tinfo & ~(INDEX_SIZE_MASK | INDEX_ALT_TID_MASK)) | len;
      const from = t.start - (t.start % this.pageSize);
      fingerprintInPage(t.buf, blk, from, Math.min(this.pageSize, t.buf.length - from), t.start, len, info);
      if (this.kept) ref = this.kept.keep(t.buf, t.start, len, info);
    }
    const hi = FP[0];
    const lo = FP[1];
    if (t.posting) {
      const b = t.buf;
      for (let i = 0; i < t.nposting; i++) {
        const p = t.start + t.postingOff + 6 * i;
        this.set.add(tidBlockAt(b, p), tidOffsetAt(b, p), hi, lo, ref);
      }
      this.entries += t.nposting;
    } else {
      this.set.add(t.tidBlock, t.tidOff, hi, lo, ref);
      this.entries++;
    }
  }

  /** Any compressed value, or a 4-byte header index_form_tuple would have packed? */
  private needsNormalising(t: TupleInfo, blk: number, off: number, walked?: KeyView | null): boolean {
    if (!(t.tinfo & 0x4000)) return false; // no varwidth attributes
    let kv = this.kv;
    if (walked && walked.n === this.attrs.length && walked.buf === t.buf) kv = walked;
    else if (!kv.load(t, this.attrs.length, this.attrs)) return false;
    let need = false;
    for (let i = 0; i < this.attrs.length; i++) {
      if (kv.isnull[i] || this.attrs[i].len !== -1) continue;
      const b0 = t.buf[kv.off[i]];
      if (b0 === 0x01) {
        this.sink.add("BT_INDEX_EXTERNAL_DATUM", `external varlena datum in tuple that references heap row ${tidKeyText(t.heapTid)} in index "${this.relName}"`, { file: this.fileOf(blk), block: blk, item: off, attnum: i + 1 });
        return false;
      }
      if ((b0 & 3) === 2) need = true;
      else if ((b0 & 1) === 0 && this.attrs[i].storage !== "p" && kv.len[i] - 4 + 1 <= 127) need = true;
    }
    if (need && kv !== this.kv) this.kv.load(t, this.attrs.length, this.attrs); // reform() reads this.kv
    return need;
  }

  /** The normal form of the tuple into this.out; its size (t_info cannot hold every size), or -1 when a value cannot be decompressed. */
  private reform(t: TupleInfo): number {
    const v = this.vals;
    v.n = this.attrs.length;
    for (let i = 0; i < v.n; i++) {
      const a = this.attrs[i];
      const o = this.kv.off[i];
      const l = this.kv.len[i];
      if (this.kv.isnull[i]) v.set(i, VAL_NULL);
      else if (a.len > 0) v.set(i, VAL_FIXED, t.buf, o, l);
      else if (a.len === -2) v.set(i, VAL_CSTRING, t.buf, o, l);
      else {
        const b0 = t.buf[o];
        if ((b0 & 3) === 2) {
          try {
            const raw = decompressTcinfo(t.buf.subarray(o + 4, o + l));
            v.set(i, VAL_VARLENA, raw, 0, raw.length);
          } catch (e) {
            if (e instanceof FormatError) return -1;
            throw e;
          }
        } else if (b0 & 1) v.set(i, VAL_VARLENA, t.buf, o + 1, l - 1);
        else v.set(i, VAL_VARLENA, t.buf, o + 4, l - 4);
      }
    }
    return formIndexTuple(this.attrs, v, this.out);
  }

  /** Done adding: the heap has `nblocks` blocks (entries beyond them can match nothing). */
  finish(nblocks: number): void {
    this.set.finish(nblocks);
  }

  /** Done adding, for probes on another thread: the table grouped into shared memory (see the constructor's `shared`). */
  share(nblocks: number): SharedFingerprints {
    return this.set.toShared(nblocks);
  }

  /** Probing is over: the arrays go back to the thread's pool. */
  release(): void {
    this.set.release();
    this.kept = null;
  }

  /** Is there an entry for heap TID (block, off) whose tuple is formed[0, size)? 0 none for the TID, 1 found, 2 TID present with other bytes. */
  match(block: number, off: number, formed: Uint8Array, size: number): 0 | 1 | 2 {
    const info = formed[6] | (formed[7] << 8);
    fingerprint(formed, 0, size, info);
    const kept = this.kept;
    if (!kept) return this.set.match(block, off, FP[0], FP[1]);
    // every entry with the TID and the fingerprint, until one holds the same bytes
    const hi = FP[0];
    const lo = FP[1];
    let k = this.set.find(block, off, hi, lo, -1);
    if (k === -1) return 0;
    for (; k >= 0; k = this.set.find(block, off, hi, lo, k)) if (kept.same(this.set.refAt(k), formed, size, info)) return 1;
    return 2;
  }
}

/**
 * Exact heapallindexed: normalised index tuples kept as compared, each as (size, t_info, bytes 8
 * on) at an offset that is the entry's ref in the TID table.
 */
export class KeptTuples {
  private bytes = new Uint8Array(64 * 1024);
  private used = 0;

  /** Keep the tuple b[start, start + size) with t_info `info`; where it is kept. */
  keep(b: Uint8Array, start: number, size: number, info: number): number {
    if (this.used + size + 8 > this.bytes.length) {
      const a = new Uint8Array(Math.max(this.used + size + 8, 2 * this.bytes.length));
      a.set(this.bytes.subarray(0, this.used));
      this.bytes = a;
    }
    const a = this.bytes;
    const at = this.used;
    setU32At(a, at, size);
    setU32At(a, at + 4, info);
    for (let i = 8; i < size; i++) a[at + i] = b[start + i];
    this.used = (at + Math.max(size, 8) + 3) & ~3; // the 8 header bytes stand in for t_tid and t_info
    return at;
  }

  /** Is the tuple kept at `at` the tuple formed[0, size) with t_info `info`, byte for byte? */
  same(at: number, formed: Uint8Array, size: number, info: number): boolean {
    const a = this.bytes;
    if (u32At(a, at) !== size || u32At(a, at + 4) !== info) return false;
    for (let i = 8; i < size; i++) if (a[at + i] !== formed[i]) return false;
    return true;
  }
}



/** The table side of heapallindexed, shared by every index probed in one scan. */
export interface HeapBase {
  fork: RelationFork;
  relName: string;
  desc: TupleDesc;
  xids: XidContext;
  multixact: MultiXactReader | null;
  toast: ToastRelation | null;
  /** the heap is a TOAST relation: direct chunks (chunk_id NULL) are never indexed */
  isToast?: boolean;
}

/** One index probed by the scan. */
export interface ProbeTarget {
  entries: IndexEntries;
  sink: FindingSink;
  /** heap attnum (1-based) of each index attribute */
  indkey: number[];
  /** index attributes (key + INCLUDE) */
  attrs: AttrDesc[];
  indexName: string;
  /** partial index predicate over the tuple's NULLs, when it is one pgdisk can evaluate */
  predicate?: NullTests | null;
  /** expression columns and a predicate beyond NULL tests, evaluated per tuple */
  exprs?: IndexExprs | null;
}

export interface HeapSideStats {
  liveTuples: number;
  /** live tuples whose key values could not be read (damaged values; the table's check reports them) */
  unformable: number;
}


interface TargetState {
  t: ProbeTarget;
  /** copies in one array shape for every index (arrays of other shapes deoptimise the scan loop) */
  attrs: AttrDesc[];
  indkey: Int32Array;
  stats: HeapSideStats;
  need: number;
  vals: IndexValues;
  plan: HeapFormPlan;
  direct: DirectState;
  /** the row the expressions read, for targets with expressions (null otherwise) */
  row: ExprRow | null;
}

/**
 * The table side of heapallindexed for several indexes of one table, fed page by page (by a scan
 * of its own, or by the table's heap check, which then reads the table once for both): each page
 * is screened and its HOT chains resolved, and each tuple's visibility and attribute offsets
 * worked out once; each index then forms and looks up its own tuple, with exactly the findings
 * and counts it would get from a scan of its own.
 */
export class HeapProber {
  // formed where the fingerprint hashes them (no copy per probe)
  private readonly out = new FormBuffer(hashableFormBytes());
  private readonly nts: number;
  private readonly ts: TargetState[] = [];
  private readonly need: number;
  private readonly spans: AttrSpans;
  private readonly root = new Uint16Array(2049);
  private readonly badLp = new Set<number>();
  /** the block a complete feed gives next (-1: a block was missed or came out of order) */
  private nextBlock: number;

  constructor(
    readonly h: HeapBase,
    targets: ProbeTarget[],
  ) {
    // one array shape for every call: the scan loop is optimised once (a map that differed between
    // calls deoptimised it on `ts.length`, and each re-optimisation of this function costs ~40 ms)
    this.nts = targets.length;
    let need = 0;
    for (const t of targets) {
      const vals = new IndexValues();
      vals.n = t.attrs.length;
      const st: TargetState = { t, attrs: [...t.attrs], indkey: Int32Array.from(t.indkey), stats: { liveTuples: 0, unformable: 0 }, need: Math.max(0, t.exprs?.maxAttnum ?? 0, ...t.indkey), vals, plan: new HeapFormPlan(t.attrs, t.indkey, h.desc.attrs), direct: new DirectState(), row: null };
      if (t.exprs) st.row = new ExprRow(h, st.direct);
      this.ts.push(st);
      need = Math.max(need, st.need);
    }
    this.need = need;
    this.spans = new AttrSpans(need);
    for (const s of this.ts) s.t.entries.finish(h.fork.nblocks);
    this.nextBlock = h.fork.firstBlock;
  }

  /** every block of the table was probed, in order */
  get complete(): boolean {
    return this.nextBlock === this.h.fork.nblocks;
  }

  page(blk: number, page: Uint8Array): void {
    this.nextBlock = blk === this.nextBlock ? blk + 1 : -1;
    const { h, ts, nts, need, spans, root, badLp, out } = this;
    const x = h.xids;
    const dv = viewOf(page);
    if (pageIsNew(dv)) return;
    const special = pdSpecial(dv);
    if (pdLower(dv) < 24 || pdLower(dv) > pdUpper(dv) || pdUpper(dv) > special || special !== page.length) return;
    const maxoff = Math.min(maxOffsetNumber(dv), 2048);
    // items the page checks reject (overlapping, outside the item area ...) are not read
    unsafeHeapItems(dv, maxoff, pdUpper(dv), special, badLp);
    rootOffsets(dv, maxoff, root, h.multixact, badLp);
    const file = h.fork.fileOf(blk).path;
    for (let i = 1; i <= maxoff; i++) {
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL || badLp.has(i)) continue;
      const t = lpOff(w);
      const len = lpLen(w);
      if (t < 24 || t & 7 || t + len > special || len < 24) continue;
      if (!live(dv, t, x, h.multixact)) continue;
      const infomask = dv.getUint16(t + T_INFOMASK, true);
      const infomask2 = dv.getUint16(t + T_INFOMASK2, true);
      const natts = infomask2 & HEAP_NATTS_MASK;
      const hoff = page[t + T_HOFF];
      const hasnull = (infomask & HEAP_HASNULL) !== 0;
      if (hoff !== (hasnull ? (23 + ((natts + 7) >> 3) + 7) & ~7 : 24) || hoff > len || natts > h.desc.attrs.length) continue;
      if (h.isToast && hasnull && (page[t + 23] & 1) === 0) continue; // chunk_id NULL: a direct chunk
      const rootOff = infomask2 & HEAP_ONLY_TUPLE ? root[i] : i;
      // attribute offsets once for all indexes: failAt is the first attribute that did not fit
      let walked = false;
      let failAt = -1;
      for (let ti = 0; ti < nts; ti++) {
        const st = ts[ti];
        const tg = st.t;
        if (tg.predicate && !nullTestsHold(tg.predicate, page, t, natts, hasnull)) continue;
        let exprSize = 0;
        if (st.row) {
          // expressions and predicates read the attributes: walk first, then decide
          if (!walked) {
            failAt = spans.heapTuple(page, t, len, need, h.desc.attrs);
            walked = true;
          }
          exprSize = failAt >= 0 && failAt < st.need ? -1 : exprForm(st, st.row.at(page, spans, file, blk, i), out);
          if (exprSize === EXPR_PRED_FALSE) continue;
        }
        st.stats.liveTuples++;
        if (rootOff === 0) {
          tg.sink.add("BT_HOT_ROOT_MISSING", `failed to find parent tuple for heap-only tuple at (${blk},${i}) in table "${h.relName}"`, { file, block: blk, item: i, offset: t });
          continue;
        }
        if (!walked) {
          failAt = spans.heapTuple(page, t, len, need, h.desc.attrs);
          walked = true;
        }
        if (failAt >= 0 && failAt < st.need) {
          st.stats.unformable++;
          continue;
        }
        let size = st.row ? exprSize : formFromHeap(st.plan, page, spans, out);
        if (size < 0 && !st.row) size = slowForm(st, h, page, spans, out, file, blk, i);
        if (size < 0) {
          st.stats.unformable++;
          continue;
        }
        const m = tg.entries.match(blk, rootOff, out.bytes, size);
        if (m !== 1) {
          // reported under the index, as amcheck does: located in the index (the heap tuple,
          // in another relation's file, is named by the message and the detail)
          tg.sink.add(
            "BT_HEAP_TUPLE_NOT_INDEXED",
            `heap tuple (${blk},${rootOff}) from table "${h.relName}" lacks matching index tuple within index "${tg.indexName}"`,
            { file: tg.entries.fileOf(0) },
            `${m === 0 ? "No index entry points to this heap TID." : "Index entries point to this heap TID, but none holds the tuple's key bytes."} Heap tuple: block ${blk}, offset ${rootOff} of ${file}.`,
          );
        }
      }
    }
  }

  stats(): HeapSideStats[] {
    const stats: HeapSideStats[] = [];
    for (let ti = 0; ti < this.nts; ti++) stats.push(this.ts[ti].stats);
    return stats;
  }
}

/** The expected index tuple through IndexValues (values fetched from TOAST, decompressed, fast defaults); -1 when a value cannot be read. */
function slowForm(st: TargetState, h: HeapBase, page: Uint8Array, spans: AttrSpans, out: FormBuffer, file: string, blk: number, i: number): number {
  const vals = st.vals;
  const attrs = st.attrs;
  const indkey = st.indkey;
  for (let k = 0; k < attrs.length; k++) {
    if (!heapValueInto(h, page, spans, indkey[k], attrs[k], vals, k, file, blk, i, st.direct)) return -1;
  }
  return formIndexTuple(attrs, vals, out);
}

/** Heap attribute `attnum` of the tuple as index value k (`ia`: the index column, null for an expression's input); false when it cannot be read. */
function heapValueInto(h: HeapBase, page: Uint8Array, spans: AttrSpans, attnum: number, ia: AttrDesc | null, vals: IndexValues, k: number, file: string, blk: number, i: number, direct: DirectState): boolean {
  const ha = h.desc.attrs[attnum - 1];
  if (spans.isnull[attnum - 1]) {
    // beyond the tuple's natts: the fast default, else NULL
    if (attnum > spans.natts && ha.missing) return missingValue(ha, ia ?? ha, vals, k);
    vals.set(k, VAL_NULL);
    return true;
  }
  const o = spans.off[attnum - 1];
  const l = spans.len[attnum - 1];
  if (ia && ia.len === -2 && ha.typid === NAMEOID) {
    let e = o;
    while (e < o + l && page[e] !== 0) e++;
    vals.set(k, VAL_CSTRING, page, o, Math.min(e - o + 1, l));
  } else if (ha.len !== -1) vals.set(k, ha.len === -2 ? VAL_CSTRING : VAL_FIXED, page, o, l);
  else return varlenaValue(page, o, l, vals, k, h.toast, file, blk, i, direct);
  return true;
}

/** exprForm's result for a tuple outside a partial index's predicate. */
const EXPR_PRED_FALSE = -2;

/** A heap tuple as the expressions read it: attribute values decoded on demand. */
class ExprRow {
  private page!: Uint8Array;
  private spans!: AttrSpans;
  private file = "";
  private blk = 0;
  private item = 0;
  private readonly scratch = new IndexValues();

  constructor(
    private readonly h: HeapBase,
    private readonly direct: DirectState,
  ) {}

  at(page: Uint8Array, spans: AttrSpans, file: string, blk: number, item: number): this {
    Object.assign(this, { page, spans, file, blk, item });
    return this;
  }

  /** Heap attribute `attnum` as index value k of `vals` (`ia`: the index column, or null). */
  into(attnum: number, ia: AttrDesc | null, vals: IndexValues, k: number): boolean {
    return heapValueInto(this.h, this.page, this.spans, attnum, ia, vals, k, this.file, this.blk, this.item, this.direct);
  }

  /** the RowReader of formats/expr; an unreadable value throws (the tuple is then unformable) */
  readonly read = (attnum: number): ExprValue => {
    const s = this.scratch;
    if (!this.into(attnum, null, s, 0)) throw new FormatError("EXPR_UNSUPPORTED", `attribute ${attnum} cannot be read`);
    return s.kind[0] === VAL_NULL ? null : decodeExprValue(s.buf[0], s.off[0], s.len[0], this.h.desc.attrs[attnum - 1].typid);
  };
}

/** The index tuple of an expression or partial index: EXPR_PRED_FALSE outside its predicate, -1 when it cannot be formed. */
function exprForm(st: TargetState, row: ExprRow, out: FormBuffer): number {
  const x = st.t.exprs!;
  try {
    if (x.pred && x.pred(row.read) !== true) return EXPR_PRED_FALSE;
    const { attrs, indkey, vals } = st;
    let e = 0;
    for (let k = 0; k < attrs.length; k++) {
      if (indkey[k] !== 0) {
        if (!row.into(indkey[k], attrs[k], vals, k)) return -1;
        continue;
      }
      const r = x.exprs[e++];
      setExprResult(vals, k, r.fn(row.read), r.typid, attrs[k]);
    }
    return formIndexTuple(attrs, vals, out);
  } catch (err) {
    if (err instanceof FormatError) return -1;
    throw err;
  }
}

/** Does the heap tuple at page[t] satisfy every `col IS [NOT] NULL` of a partial index's predicate? */
function nullTestsHold(tests: NullTests, page: Uint8Array, t: number, natts: number, hasnull: boolean): boolean {
  for (let i = 0; i < tests.attnum.length; i++) {
    const a = tests.attnum[i];
    const isNull = a > natts || (hasnull && (page[t + 23 + ((a - 1) >> 3)] & (1 << ((a - 1) & 7))) === 0);
    if (isNull === (tests.notNull[i] === 1)) return false;
  }
  return true;
}

/** heap_get_root_tuples: root[off] = the line pointer that leads to heap-only tuple `off`. */
function rootOffsets(dv: DataView, maxoff: number, root: Uint16Array, mx: MultiXactReader | null, bad: ReadonlySet<number>): void {
  root.fill(0, 0, maxoff + 1);
  for (let off = 1; off <= maxoff; off++) {
    if (bad.has(off)) continue;
    const w = itemIdWord(dv, off);
    let next: number;
    let priorXmax: number;
    if (lpFlags(w) === LP_NORMAL) {
      const t = lpOff(w);
      if (t + 24 > dv.byteLength) continue;
      const im2 = dv.getUint16(t + T_INFOMASK2, true);
      if (im2 & HEAP_ONLY_TUPLE) continue;
      root[off] = off;
      const im = dv.getUint16(t + T_INFOMASK, true);
      if (!isHotUpdated(im, im2)) continue;
      next = ctidOffset(dv, t);
      priorXmax = updateXid(dv, t, mx);
    } else if (lpFlags(w) === LP_REDIRECT) {
      next = lpOff(w);
      priorXmax = 0;
    } else continue;
    for (let guard = 0; guard <= maxoff; guard++) {
      if (next < 1 || next > maxoff || bad.has(next)) break;
      const nw = itemIdWord(dv, next);
      if (lpFlags(nw) !== LP_NORMAL) break;
      const nt = lpOff(nw);
      if (nt + 24 > dv.byteLength) break;
      if (priorXmax !== 0 && tupleXmin(dv, nt) !== priorXmax) break;
      root[next] = off;
      const im = dv.getUint16(nt + T_INFOMASK, true);
      const im2 = dv.getUint16(nt + T_INFOMASK2, true);
      if (!isHotUpdated(im, im2)) break;
      next = ctidOffset(dv, nt);
      priorXmax = updateXid(dv, nt, mx);
    }
  }
}

function updateXid(dv: DataView, t: number, mx: MultiXactReader | null): number {
  const im = dv.getUint16(t + T_INFOMASK, true);
  const xmax = dv.getUint32(t + T_XMAX, true);
  if (!(im & HEAP_XMAX_IS_MULTI) || xmaxLockedOnly(im)) return xmax;
  const r = mx?.updateXid(xmax);
  return r && r.ok ? r.xid : 0;
}

/** A heap varlena as a raw payload: inline, compressed inline, or fetched from TOAST. */
function varlenaValue(page: Uint8Array, o: number, l: number, vals: IndexValues, k: number, toast: ToastRelation | null, file: string, block: number, item: number, direct: DirectState): boolean {
  const b0 = page[o];
  try {
    if (b0 === 0x01) {
      if (!toast) return false;
      const where: Location = { file, block, item };
      let stored: Uint8Array | null;
      let compressed: boolean;
      if (page[o + 1] === VARTAG_ONDISK) {
        const { rawsize, extinfo, valueId } = readExternalPointerFields(page, o);
        const extsize = extinfo & VARLENA_EXTSIZE_MASK;
        compressed = extsize < rawsize - VARHDRSZ;
        stored = checkPlainValue({ valueId, rawsize, extsize, compressed }, toast, where, null, false).stored;
      } else {
        const ptr = readDirectPointerFields(page, o);
        compressed = (ptr.extinfo & VARLENA_EXTSIZE_MASK) < ptr.rawsize - VARHDRSZ;
        stored = checkDirectValue(ptr, toast, where, null, direct, false);
      }
      if (!stored) return false;
      const raw = compressed ? decompressTcinfo(stored) : stored;
      vals.set(k, VAL_VARLENA, raw, 0, raw.length);
      return true;
    }
    if ((b0 & 3) === 2) {
      const raw = decompressTcinfo(page.subarray(o + 4, o + l));
      vals.set(k, VAL_VARLENA, raw, 0, raw.length);
      return true;
    }
    if (b0 & 1) vals.set(k, VAL_VARLENA, page, o + 1, l - 1);
    else vals.set(k, VAL_VARLENA, page, o + 4, l - 4);
    return true;
  } catch (e) {
    if (e instanceof FormatError) return false;
    throw e;
  }
}

/** attmissingval is a one-element array of the column's type; its element starts at payload offset 20. */
function missingValue(ha: AttrDesc, ia: AttrDesc, vals: IndexValues, k: number): boolean {
  const m = ha.missing!;
  const p = 20;
  if (ha.len > 0) {
    if (p + ha.len > m.length) return false;
    vals.set(k, ia.len === -2 ? VAL_CSTRING : VAL_FIXED, m, p, ha.len);
    return true;
  }
  if (p + 4 > m.length) return false;
  const l = varsize4BAt(m, p) - 4;
  if (l < 0 || p + 4 + l > m.length) return false;
  vals.set(k, VAL_VARLENA, m, p + 4, l);
  return true;
}

/**
 * A partial index's predicate as data, `col IS [NOT] NULL` tests all of which must hold: a
 * closure per index, called per tuple, was inlined by V8 into the probe loop, which was then
 * deoptimised when the closure died with its unit.
 */
export interface NullTests {
  attnum: Int32Array;
  /** 1: IS NOT NULL, 0: IS NULL */
  notNull: Uint8Array;
}

/**
 * The partial-index predicates pgdisk evaluates offline: `col IS [NOT] NULL` (a NULLTEST on a
 * Var in pg_index.indpred's node text, alone or ANDed). Null when the predicate is anything else.
 */
export function nullTestPredicate(pred: string): NullTests | null {
  const tests: { attnum: number; notNull: boolean }[] = [];
  const re = /\{NULLTEST :arg \{VAR :varno 1 :varattno (\d+)[^}]*\} :nulltesttype (\d)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(pred))) tests.push({ attnum: Number(m[1]), notNull: m[2] === "1" });
  const stripped = pred.replace(re, "");
  const nested = (pred.match(/\{/g) ?? []).length;
  // only a bare NULLTEST (2 braces) or an AND of them (BOOLEXPR :boolop and)
  const bare = tests.length === 1 && nested === 2;
  const andOnly = tests.length > 1 && /^\{BOOLEXPR :boolop and :args \(/.test(pred) && nested === 1 + 2 * tests.length;
  void stripped;
  if (!bare && !andOnly) return null;
  return { attnum: Int32Array.from(tests, (t) => t.attnum), notNull: Uint8Array.from(tests, (t) => (t.notNull ? 1 : 0)) };
}
