// Every btree index of the loaded table, rebuilt over all its rows as REINDEX lays it out: the
// existing entries (the index's own leaf tuples, posting lists expanded, LP_DEAD ones dropped)
// merged in key order with index tuples formed from the new rows (index_form_tuple's layout),
// then laid out by the CREATE INDEX builder (BTP_PREFIX leaves when the index had them). New
// rows sit on pages after every existing one, so among equal keys the existing entries come
// first, as the heap TID order says. A unique index refuses a key that a live existing row or
// another input row already has (exit 2, the key and the input line), before anything is
// switched. The new index files are staged under temporary names.
import type { DatabaseCatalog, IndexInfo, RelationInfo } from "../../formats/catalog/cluster.js";
import { alignBytes, type AttrDesc } from "../../formats/heap/descriptor.js";
import { FormatError } from "../../formats/schema/errors.js";
import { grown } from "../../formats/schema/bytes.js";
import { RelationFork, scanBlocks, type Geometry } from "../../formats/storage/relfile.js";
import { readTid as readItemPointer, setTidAt, type Tid } from "../../formats/page/item-pointer.js";
import { INDEX_SIZE_MASK, IndexTupleData } from "../../formats/nbtree/index-tuple.js";
import { lpOff, lpFlags, LP_NORMAL } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { tupleState } from "../../formats/heap/visibility.js";
import { leafTuples, readBtreeMeta } from "../../formats/nbtree/reader.js";
import { buildBtree, type LeafSource, type TupleRef } from "../../formats/nbtree/build.js";
import { btMaxItemSize } from "../../formats/nbtree/prefix.js";
import { prefixPolicyLead } from "../../formats/nbtree/prefix-policy.js";
import { BTP_PREFIX, readBTOpaque } from "../../formats/nbtree/opaque.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import { indexKeyTexts } from "../../formats/nbtree/keys.js";
import { BTREE_VERSION } from "../../formats/nbtree/meta.js";
import { maxHeapTupleSize } from "../../formats/heap/page-builder.js";
import { formIndexTupleAt, indexTupleBound, IndexValues, VAL_CSTRING, VAL_FIXED, VAL_NULL, VAL_VARLENA } from "../../formats/nbtree/index-form.js";
import { indexKeysFor } from "../../formats/catalog/index-keys.js";
import { exprContextOf, indexExprs, setExprResult, type IndexExprs } from "../../formats/expr/index-exprs.js";
import { decodeExprValue, type ExprValue } from "../../formats/expr/evaluate.js";
import { btCompare, KeyView, NO_TID, TupleInfo, type IndexKeys } from "../../formats/nbtree/bt-compare.js";
import { BtreeCatalog, type BtreeIndexInfo } from "../btree/index-info.js";
import { OrderedPageSink } from "../btree/page-sink.js";
import { selfCheck } from "../btree/convert.js";
import type { ClusterOwner } from "../file-owner.js";
import { STAGE_SUFFIX } from "./plan.js";
import { orderByNumber, sortRecordsByNumber } from "./number-order.js";
import { NUMBER_KEY_OPCLASSES } from "../../formats/order/number-key.js";
import { RowValues } from "./row-values.js";

const NAMEOID = 19;
const IT = IndexTupleData.offsets;

/** Growth of the tuple store: four times over up to 16 M elements (fewer copies in a million-row load), then the doubling of grown(). */
const quadrupled = (n: number): number => (n < 1 << 24 ? n * 4 : 0);

/** Index tuples of the new rows, packed in one buffer (t_tid set), in input order; typed arrays, so that another thread can take them over. */
class TupleStore {
  buf: Uint8Array = new Uint8Array(1 << 16);
  used = 0;
  /** tuples stored */
  n = 0;
  start: Int32Array = new Int32Array(1024);
  len: Int32Array = new Int32Array(1024);
  /** input line of each tuple's row */
  line: Int32Array = new Int32Array(1024);
  /** the single key as a number, when the index sorts as numbers (see NUMBER_KEY_OPCLASSES) */
  num: Float64Array = new Float64Array(1024);

  /** Room for a tuple of up to `bound` bytes at `used` (formed there in place, then kept by add()). */
  reserve(bound: number): Uint8Array {
    if (this.used + bound > this.buf.length) this.buf = grown(this.buf, Math.max(this.used + bound, quadrupled(this.buf.length)), this.used);
    return this.buf;
  }
  /** Keep the `n`-byte tuple formed at `used` (a multiple of 8: tuples are MAXALIGNed). */
  add(n: number, line: number, num: number): void {
    if (this.n === this.start.length) {
      const want = Math.max(this.n + 1, quadrupled(this.n));
      this.start = grown(this.start, want);
      this.len = grown(this.len, want);
      this.line = grown(this.line, want);
      this.num = grown(this.num, want);
    }
    const i = this.n++;
    this.start[i] = this.used;
    this.len[i] = n;
    this.line[i] = line;
    this.num[i] = num;
    this.used += n;
  }
  /** The one length of every tuple, stored one after another from 0 (start[i] = i * length), else 0. */
  uniformLen(): number {
    const n = this.n;
    if (n === 0) return 0;
    const L = this.len[0];
    for (let i = 0; i < n; i++) if (this.len[i] !== L || this.start[i] !== i * L) return 0;
    return L;
  }
  tuple(i: number): Uint8Array {
    return this.buf.subarray(this.start[i], this.start[i] + this.len[i]);
  }
  /** The stored tuples as plain data (the arrays cut to size, not copied), for another thread. */
  export(numeric: boolean): StoredTuples {
    const n = this.n;
    return { buf: this.buf.subarray(0, this.used), start: this.start.subarray(0, n), len: this.len.subarray(0, n), line: this.line.subarray(0, n), num: numeric ? this.num.subarray(0, n) : null };
  }
  static from(d: StoredTuples): TupleStore {
    const s = new TupleStore();
    s.buf = d.buf;
    s.used = d.buf.length;
    s.n = d.start.length;
    s.start = d.start;
    s.len = d.len;
    s.line = d.line;
    if (d.num) s.num = d.num;
    return s;
  }
}

/** `order` of tuples sortRecordsByNumber moved to their places (no order array: every use reads the moved tuples) */
const IN_PLACE = new Uint32Array(0);

function isIdentity(order: Uint32Array): boolean {
  for (let i = 0; i < order.length; i++) if (order[i] !== i) return false;
  return true;
}

/** The `len`-byte tuples buf[i * len, (i + 1) * len) in the order `order`, in a new buffer. */
function gather(buf: Uint8Array, len: number, order: Uint32Array): Uint8Array {
  const n = order.length;
  const out = new Uint8Array(n * len);
  if (len % 4 === 0 && buf.byteOffset % 4 === 0) {
    // four bytes at a time (tuples are MAXALIGNed: their length is a multiple of 8)
    const w = len >>> 2;
    const src = new Int32Array(buf.buffer, buf.byteOffset, (n * len) >>> 2);
    const dst = new Int32Array(out.buffer);
    for (let p = 0; p < n; p++) {
      const from = order[p] * w;
      const to = p * w;
      for (let k = 0; k < w; k++) dst[to + k] = src[from + k];
    }
  } else for (let p = 0; p < n; p++) out.set(buf.subarray(order[p] * len, (order[p] + 1) * len), p * len);
  return out;
}

/** The new rows' index tuples of one index, handed to the thread that builds it. */
export interface StoredTuples {
  buf: Uint8Array;
  start: Int32Array;
  len: Int32Array;
  line: Int32Array;
  /** the keys as numbers (null: the index does not sort them as numbers) */
  num: Float64Array | null;
}

export interface IndexLoadResult {
  index: string;
  oid: number;
  unique: boolean;
  prefix: boolean;
  existingEntries: number;
  newEntries: number;
  pagesBefore: number;
  pagesAfter: number;
  staged: { files: { temp: string; final: string }[]; stale: string[] };
}

/** One index of the table: forms the new rows' tuples as they come, then merges, checks and builds. */
export class IndexLoader {
  readonly info: BtreeIndexInfo;
  readonly keys: IndexKeys;
  readonly name: string;
  private readonly attrs: AttrDesc[];
  private readonly heapAttrs: readonly AttrDesc[];
  private readonly values = new IndexValues();
  private store = new TupleStore();
  private readonly maxItem: number;
  /** how to read the key as a number, while every key so far was exact (null: compare tuples) */
  private numKey: ((d: Uint8Array, off: number) => number) | null = null;
  /** the layout of an index of fixed-length columns only (addFixed), else null */
  private fixed: { n: number; attr: Int32Array; at: Int32Array; len: Int32Array; size: number } | null = null;
  /** addRow's datums, packed */
  private scratch: RowValues | null = null;
  /** index_form_tuple compresses a varlena key larger than TOAST_INDEX_TARGET (MaxHeapTupleSize / 16) */
  private readonly toastIndexTarget: number;
  /** expression columns and the predicate (null for a plain index) */
  private readonly exprs: IndexExprs | null;

  constructor(
    readonly cat: DatabaseCatalog,
    readonly rel: RelationInfo,
    readonly index: IndexInfo,
    heapAttrs: readonly AttrDesc[],
    readonly geometry: Geometry,
  ) {
    this.info = new BtreeCatalog(cat).info(rel);
    this.name = this.info.name;
    const plan = indexKeysFor(cat, rel, index);
    if (plan.notComparable.length) throw new FormatError("LOAD_UNSUPPORTED", `index "${this.name}": pgdisk cannot sort its keys offline: ${plan.notComparable.join("; ")}`);
    this.keys = plan.keys;
    this.attrs = plan.keys.attrs;
    this.heapAttrs = heapAttrs;
    this.maxItem = btMaxItemSize(geometry.blockSize);
    this.toastIndexTarget = Math.floor(maxHeapTupleSize(geometry.blockSize) / 16);
    this.exprs = indexExprs(index.exprs, index.pred, false, exprContextOf(cat));
    const nk = index.nkeyatts === 1 && !this.exprs ? NUMBER_KEY_OPCLASSES.get(index.opclassNames[0] ?? "") : undefined;
    if (nk && nk.typid === heapAttrs[index.keys[0] - 1]?.typid) this.numKey = nk.read;
    // every column a fixed-length attribute stored as is: the tuple's layout is the same for every row without NULLs
    if (!this.exprs && index.natts > 0 && this.attrs.every((ia, k) => index.keys[k] > 0 && ia.len > 0 && heapAttrs[index.keys[k] - 1]?.len === ia.len)) {
      const n = index.natts;
      const f = { n, attr: new Int32Array(n), at: new Int32Array(n), len: new Int32Array(n), size: 0 };
      let pos = 8;
      for (let k = 0; k < n; k++) {
        const al = alignBytes(this.attrs[k].align);
        pos = (pos + al - 1) & ~(al - 1);
        f.attr[k] = index.keys[k] - 1;
        f.at[k] = pos;
        f.len[k] = this.attrs[k].len;
        pos += this.attrs[k].len;
      }
      f.size = (pos + 7) & ~7;
      // t_info's size field holds it (INDEX_SIZE_MASK): always, for fixed-length keys
      if (f.size <= INDEX_SIZE_MASK) this.fixed = f;
    }
  }

  /** A new row's stored datum as the expressions read it (values are never compressed here). */
  private exprValue(v: RowValues, attnum: number): ExprValue {
    const i = attnum - 1;
    if (i >= v.n || v.len[i] < 0) return null;
    const ha = this.heapAttrs[i];
    const off = v.off[i];
    if (ha.len !== -1) return decodeExprValue(v.buf, off, v.len[i], ha.typid);
    const hdr = v.buf[off] & 1 ? 1 : 4;
    return decodeExprValue(v.buf, off + hdr, v.len[i] - hdr, ha.typid);
  }

  /** Form the index tuple of one new row (its stored heap datums, as arrays) at `tid`. */
  addRow(datums: readonly (Uint8Array | null)[], tid: Tid, line: number): void {
    this.addValues((this.scratch ??= new RowValues(datums.length)).setAll(datums), tid, line);
  }

  /** Form the index tuple of one new row (its stored heap datums) at `tid`; a row outside a partial index's predicate has none. */
  addValues(rv: RowValues, tid: Tid, line: number): void {
    if (this.fixed && this.addFixed(rv, tid, line)) return;
    const v = this.values;
    v.n = this.index.natts;
    let nextExpr = 0;
    // made only for an index with expressions (a closure per row costs, even unused)
    const row = this.exprs ? (attnum: number): ExprValue => this.exprValue(rv, attnum) : null;
    try {
      if (this.exprs?.pred && this.exprs.pred(row!) !== true) return;
    } catch (e) {
      throw this.exprError(e, line);
    }
    const buf = rv.buf;
    for (let k = 0; k < v.n; k++) {
      if (this.index.keys[k] === 0) {
        const x = this.exprs!.exprs[nextExpr++]!;
        let r: ExprValue;
        try {
          r = x.fn(row!);
        } catch (e) {
          throw this.exprError(e, line);
        }
        setExprResult(v, k, r, x.typid, this.attrs[k]);
        continue;
      }
      const a = this.index.keys[k] - 1;
      const ha = this.heapAttrs[a];
      const ia = this.attrs[k];
      const n = rv.len[a];
      const off = rv.off[a];
      if (n < 0) v.set(k, VAL_NULL);
      else if (ia.len === -2 && ha.typid === NAMEOID) {
        let nul = off;
        while (nul < off + n && buf[nul] !== 0) nul++;
        v.set(k, VAL_CSTRING, buf, off, nul - off + 1);
      } else if (ha.len === -1) {
        const hdr = buf[off] & 1 ? 1 : 4;
        if (n > this.toastIndexTarget && (ia.storage === "x" || ia.storage === "m")) {
          throw new FormatError("LOAD_UNSUPPORTED", `index "${this.name}": the key value of column "${ha.name}" at input line ${line} is ${n - hdr} bytes, which the server would compress in the index; pgdisk does not compress index keys yet`);
        }
        v.set(k, VAL_VARLENA, buf, off + hdr, n - hdr);
      } else v.set(k, VAL_FIXED, buf, off, n);
    }
    let x = 0;
    if (this.numKey) {
      const a = this.index.keys[0] - 1;
      x = rv.len[a] < 0 ? (this.keys.nullsFirst[0] ? -Infinity : Infinity) : this.keys.desc[0] ? -this.numKey(buf, rv.off[a]) : this.numKey(buf, rv.off[a]);
      if (Number.isNaN(x)) this.numKey = null;
    }
    // formed in place in the store (no scratch buffer, no copy)
    const st = this.store;
    const out = st.reserve(indexTupleBound(v));
    const at = st.used;
    const len = formIndexTupleAt(this.attrs, v, out, at);
    if (len > this.maxItem) throw new FormatError("LOAD_BAD_INPUT", `index row size ${len} exceeds btree version ${BTREE_VERSION} maximum ${this.maxItem} for index "${this.rel.name}" (input line ${line})`);
    setTidAt(out, at + IT.t_tid, tid.block, tid.offset);
    st.add(len, line, x);
  }

  /**
   * The tuple of a row whose keys are all fixed-length and not NULL, formed as formIndexTupleAt
   * forms it (t_tid, t_info the size, each key at its offset, zero padding) without the general
   * loop; false for a row with a NULL key (the general way).
   */
  private addFixed(rv: RowValues, tid: Tid, line: number): boolean {
    const f = this.fixed!;
    const len = rv.len;
    for (let k = 0; k < f.n; k++) if (len[f.attr[k]] < 0) return false;
    const st = this.store;
    const size = f.size;
    const out = st.reserve(size);
    const at = st.used;
    for (let i = at + 8; i < at + size; i++) out[i] = 0;
    const src = rv.buf;
    for (let k = 0; k < f.n; k++) {
      const s = rv.off[f.attr[k]];
      const p = at + f.at[k];
      for (let b = 0, n = f.len[k]; b < n; b++) out[p + b] = src[s + b];
    }
    setTidAt(out, at + IT.t_tid, tid.block, tid.offset);
    out[at + 6] = size & 0xff;
    out[at + 7] = size >>> 8;
    let x = 0;
    if (this.numKey) {
      const a = f.attr[0];
      x = this.keys.desc[0] ? -this.numKey(src, rv.off[a]) : this.numKey(src, rv.off[a]);
      if (Number.isNaN(x)) this.numKey = null;
    }
    st.add(size, line, x);
    return true;
  }

  /** The new rows' tuples, for a build in another thread (this loader is done with them). */
  exportTuples(): StoredTuples {
    return this.store.export(this.numKey !== null);
  }

  /** Take over the tuples another loader of the same index formed (exportTuples). */
  importTuples(d: StoredTuples): void {
    this.store = TupleStore.from(d);
    if (!d.num) this.numKey = null;
  }

  /** An expression that fails on a row (overflow) is that row's error, as the server's INSERT would raise it. */
  private exprError(e: unknown, line: number): unknown {
    if (!(e instanceof FormatError)) return e;
    // a result the evaluator cannot reproduce on this row (not the row's fault) refuses the load
    if (e.code === "EXPR_UNSUPPORTED") return new FormatError("LOAD_UNSUPPORTED", `index "${this.rel.name}": ${e.message} (input line ${line})`, { item: line });
    return new FormatError("LOAD_BAD_INPUT", `${e.message} in an expression of index "${this.rel.name}" (input line ${line})`, { item: line });
  }

  get newEntries(): number {
    return this.store.n;
  }

  /** The key of a tuple as text, as the server's DETAIL prints it: (a, b)=(1, x). */
  private keyText(t: Uint8Array): string {
    const names = this.attrs.slice(0, this.index.nkeyatts).map((a) => a.name);
    const texts = indexKeyTexts(t, { attrs: this.attrs }, typeLookupFor(this.cat)).slice(0, names.length);
    return `(${names.join(", ")})=(${texts.map((x) => x ?? "null").join(", ")})`;
  }

  private violation(t: Uint8Array, line: number, what: string): FormatError {
    return new FormatError("LOAD_UNIQUE_VIOLATION", `duplicate key value violates unique constraint "${this.rel.name}" (input line ${line})`, {}, `Key ${this.keyText(t)} ${what}.`);
  }

  /** Whether a key has a NULL key column, which never conflicts (unless NULLS NOT DISTINCT). */
  private hasNullKey(xv: KeyView): boolean {
    if (this.index.nullsNotDistinct) return false;
    for (let i = 0; i < this.index.nkeyatts; i++) if (xv.isnull[i]) return true;
    return false;
  }

  /**
   * Sort the new tuples, check uniqueness, merge with the existing entries and build the new
   * index under temporary names. `heap` reads a heap block (for the liveness of an existing row
   * whose key an input row repeats).
   */
  build(o: { path: string; checksums: boolean; owner: ClusterOwner; heap: (block: number) => Uint8Array; clog: DatabaseCatalog["cluster"]["clog"]; dryRun?: boolean }): IndexLoadResult {
    const k = this.keys;
    const nk = this.index.nkeyatts;
    const natts = this.index.natts;
    const s = this.store;
    const xa = new TupleInfo();
    const xb = new TupleInfo();
    const va = new KeyView();
    const vb = new KeyView();
    const load = (ti: TupleInfo, kv: KeyView, buf: Uint8Array, start: number, len: number): void => {
      ti.load(buf, start, len, natts);
      kv.load(ti, natts, this.attrs);
    };
    const keyCmp = (): number => btCompare(k, xa, va, nk, NO_TID, xb, vb);
    // a stable sort on the key alone keeps equal keys in TID (input) order
    let order: Uint32Array;
    // tuples of one size (fixed-length keys) of a non-unique index, keys counting-sortable: moved to their places in one pass
    const L = s.uniformLen();
    const placed = this.numKey && L > 0 && !this.index.unique ? sortRecordsByNumber(s.num.subarray(0, s.n), s.buf, L) : null;
    if (placed) order = IN_PLACE;
    else if (this.numKey) order = orderByNumber(s.num.subarray(0, s.n));
    else {
      const byKey = Array.from({ length: s.n }, (_, i) => i);
      byKey.sort((i, j) => {
        load(xa, va, s.buf, s.start[i], s.len[i]);
        load(xb, vb, s.buf, s.start[j], s.len[j]);
        return keyCmp();
      });
      order = Uint32Array.from(byKey);
    }
    if (this.index.unique) {
      // keys sorted as numbers are equal exactly when their numbers are (a NULL key is +-Infinity)
      const num = this.numKey ? s.num : null;
      for (let p = 1; p < order.length; p++) {
        if (num && (num[order[p - 1]] !== num[order[p]] || (!Number.isFinite(num[order[p]]) && !this.index.nullsNotDistinct))) continue;
        load(xa, va, s.buf, s.start[order[p - 1]], s.len[order[p - 1]]);
        load(xb, vb, s.buf, s.start[order[p]], s.len[order[p]]);
        if (keyCmp() === 0 && !this.hasNullKey(va)) {
          const first = order[p - 1];
          const second = order[p];
          throw this.violation(s.tuple(second), s.line[second], `is also at input line ${s.line[first]}`);
        }
      }
    }

    const fork = new RelationFork(o.path, this.geometry);
    const pagesBefore = fork.nblocks;
    let existingEntries = 0;
    let prefix = false;
    try {
      const meta = readBtreeMeta(fork);
      if (meta.btm_version < BTREE_VERSION) throw new FormatError("BT_VERSION_TOO_OLD", `${this.name} is a btree version ${meta.btm_version} index (from before PostgreSQL 12); REINDEX it on the server first`, { file: o.path, block: 0 });
      // BTP_PREFIX leaves stay prefix-coded: any coded page means the index was converted
      for (const [, page] of scanBlocks(fork, 1)) {
        const dv = pageView(page);
        if (!pageIsNew(dv) && readBTOpaque(dv).btpo_flags & BTP_PREFIX) {
          prefix = true;
          break;
        }
      }
      const existing = leafTuples(fork, { expandPostings: true });
      const self = this;
      const isLive = (t: Uint8Array): boolean => {
        const tid = readItemPointer(new DataView(t.buffer, t.byteOffset, t.byteLength), 0);
        const page = o.heap(tid.block);
        const dv = pageView(page);
        if (tid.offset > maxOffsetNumber(dv)) return false;
        const w = itemIdWord(dv, tid.offset);
        if (lpFlags(w) !== LP_NORMAL) return true; // a redirect: a HOT chain whose member is live
        const off = lpOff(w);
        const hv = new DataView(page.buffer, page.byteOffset + off);
        return tupleState(hv.getUint32(HTH.t_xmin, true), hv.getUint32(HTH.t_xmax, true), hv.getUint16(HTH.t_infomask, true), o.clog) === "live";
      };
      // the new tuples (in the store's buffer, by `order`) merged with the existing ones, handed to the builder as references;
      // tuples of one size out of input order are first gathered in key order into a buffer of their own, so that the
      // merge and the builder read them sequentially (one random read per tuple instead of one per array and pass)
      const gathered = placed ?? (L > 0 && !isIdentity(order) ? gather(s.buf, L, order) : null);
      const nb = gathered ?? s.buf;
      const n = s.n;
      let p = 0;
      let e = existing.next();
      const merged: LeafSource = {
        next(out: TupleRef): boolean {
          if (e.done) {
            if (p >= n) return false;
            out.buf = nb;
            if (gathered) {
              out.off = p * L;
              out.len = L;
              p++;
            } else {
              const i = order[p++];
              out.off = s.start[i];
              out.len = s.len[i];
            }
            return true;
          }
          const et = e.value.tuple;
          if (p < n) {
            // (sortRecordsByNumber is for non-unique indexes only: i is not needed past the order then)
            const i = placed ? p : order[p];
            const off = gathered ? p * L : s.start[i];
            const len = gathered ? L : s.len[i];
            load(xa, va, nb, off, len);
            load(xb, vb, et, 0, et.length);
            const c = keyCmp();
            if (c < 0) {
              p++;
              out.buf = nb;
              out.off = off;
              out.len = len;
              return true;
            }
            if (c === 0 && self.index.unique && !self.hasNullKey(va) && isLive(et)) throw self.violation(s.tuple(i), s.line[i], "already exists");
          }
          existingEntries++;
          out.buf = et;
          out.off = 0;
          out.len = et.length;
          e = existing.next();
          return true;
        },
      };
      // the server decided _bt_allequalimage when it built the index; REINDEX decides it the same way
      const allequalimage = meta.btm_allequalimage;
      const sink = o.dryRun ? null : new OrderedPageSink(o.path, this.geometry, o.checksums, o.owner);
      try {
        const res = buildBtree(
          merged,
          {
            blcksz: this.geometry.blockSize,
            // the comparators that sorted the keys also decide suffix truncation where bytes cannot (_bt_keep_natts)
            spec: { ...this.info.spec, order: this.keys.cmps },
            leafFillfactor: this.info.fillfactor,
            deduplicate: allequalimage && !this.index.unique && this.info.deduplicateItems,
            allequalimage,
            prefix: prefix ? { policy: prefixPolicyLead("lead") } : null,
          },
          (blk, page) => {
            if (prefix && readBTOpaque(pageView(page)).btpo_flags & BTP_PREFIX) selfCheck(page, blk, this.name);
            sink?.put(blk, page);
          },
        );
        const staged = sink ? sink.stage(STAGE_SUFFIX) : { n: res.nblocks, files: [], stale: [] };
        return { index: this.name, oid: this.rel.oid, unique: this.index.unique, prefix, existingEntries, newEntries: n, pagesBefore, pagesAfter: staged.n, staged: { files: staged.files, stale: staged.stale } };
      } catch (e) {
        sink?.dispose();
        throw e;
      }
    } finally {
      fork.close();
    }
  }
}
