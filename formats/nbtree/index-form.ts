// index_form_tuple's byte layout (src/backend/access/common/indextuple.c + heap_fill_tuple),
// used to form the index tuple a heap tuple should have: t_tid, t_info (size | INDEX_NULL_MASK |
// INDEX_VAR_MASK), the 4-byte null bitmap padded to 16 when some key is NULL, then the values
// with their alignment. Varlena values are given as raw (decompressed) payloads and always laid
// out uncompressed: a 1-byte header where index_form_tuple packs (storage not 'p' and payload
// <= 126 bytes), else an aligned 4-byte header. Both sides of the heapallindexed comparison are
// brought to this one normal form, so compression choices never make two equal keys differ;
// the loader forms its new index entries with it too.
import type { AttrDesc } from "../heap/descriptor.js";
import { alignBytes } from "../heap/descriptor.js";
import { INDEX_NULL_MASK, INDEX_SIZE_MASK, INDEX_VAR_MASK } from "./index-tuple.js";
import type { AttrSpans } from "../heap/attr-spans.js";

export const VAL_NULL = 0;
export const VAL_FIXED = 1;
/** raw varlena payload (no header) */
export const VAL_VARLENA = 2;
/** cstring bytes including the NUL */
export const VAL_CSTRING = 3;

/** Values of one tuple to form, reusable across tuples. */
export class IndexValues {
  readonly kind = new Uint8Array(32);
  readonly buf: Uint8Array[] = new Array(32);
  readonly off = new Int32Array(32);
  readonly len = new Int32Array(32);
  n = 0;

  set(i: number, kind: number, buf?: Uint8Array, off = 0, len = 0): void {
    this.kind[i] = kind;
    if (buf) this.buf[i] = buf;
    this.off[i] = off;
    this.len[i] = len;
  }
}

/** A growable output buffer for formed tuples (`initial`: where to form them while they fit). */
export class FormBuffer {
  bytes: Uint8Array;
  constructor(initial?: Uint8Array | null) {
    this.bytes = initial ?? new Uint8Array(512);
  }
  ensure(n: number): void {
    if (this.bytes.length < n) this.bytes = new Uint8Array(Math.max(n, this.bytes.length * 2));
  }
}

/**
 * The header index_form_tuple gives an uncompressed varlena of `payloadLen` bytes at b[pos]: one
 * byte when the column's storage allows short headers and the value fits, else 4 bytes after
 * zero padding to `align`. Returns where the payload goes.
 */
function varlenaHeader(b: Uint8Array, pos: number, align: number, payloadLen: number, shortAllowed: boolean): number {
  if (shortAllowed && payloadLen + 1 <= 127) {
    b[pos] = ((payloadLen + 1) << 1) | 1;
    return pos + 1;
  }
  for (const e = (pos + align - 1) & ~(align - 1); pos < e; pos++) b[pos] = 0;
  const total = (payloadLen + 4) << 2;
  b[pos] = total & 0xff;
  b[pos + 1] = (total >>> 8) & 0xff;
  b[pos + 2] = (total >>> 16) & 0xff;
  b[pos + 3] = (total >>> 24) & 0xff;
  return pos + 4;
}

/**
 * Zero the tuple's tail up to MAXALIGN, write t_info; returns the size. The tuple starts at b[at]
 * (a multiple of 8, so that alignment in the array is alignment in the tuple). The normal form
 * holds keys decompressed, so it can pass the 8,191 bytes t_info's 13-bit size field holds (a key
 * index_form_tuple stored compressed): the size field then keeps its low bits only, never
 * spilling into the flag bits, and callers take the size from the return value, never from t_info.
 */
function finishTuple(b: Uint8Array, at: number, pos: number, hasnull: boolean, varwidth: boolean): number {
  const end = (pos + 7) & ~7;
  for (let i = pos; i < end; i++) b[i] = 0;
  const size = end - at;
  const info = (size & INDEX_SIZE_MASK) | (hasnull ? INDEX_NULL_MASK : 0) | (varwidth ? INDEX_VAR_MASK : 0);
  b[at + 6] = info & 0xff;
  b[at + 7] = info >>> 8;
  return size;
}

// DataViews of the last source and destination arrays (a page, the form buffer): made once per
// array, as reading .buffer or making a subarray per value costs more than copying a short key.
let lastSrc: Uint8Array | null = null;
let srcView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
let lastDst: Uint8Array | null = null;
let dstView = srcView;

/** Copy n bytes, four at a time through the views (unaligned reads and writes are fine for DataView). */
function copy(dst: Uint8Array, at: number, src: Uint8Array, from: number, n: number): void {
  if (n > 1024) {
    dst.set(src.subarray(from, from + n), at);
    return;
  }
  let i = 0;
  // a short value from a new array (the loader's datums) is cheaper copied bytewise than through a new view
  if (n >= 8 && (src === lastSrc || n >= 64)) {
    if (src !== lastSrc) {
      lastSrc = src;
      srcView = new DataView(src.buffer, src.byteOffset, src.byteLength);
    }
    if (dst !== lastDst) {
      lastDst = dst;
      dstView = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
    }
    const sv = srcView;
    const dv = dstView;
    for (; i + 4 <= n; i += 4) dv.setInt32(at + i, sv.getInt32(from + i, true), true);
  }
  for (; i < n; i++) dst[at + i] = src[from + i];
}

/** At least the bytes formIndexTupleAt may write for these values (alignment padding and the MAXALIGN tail included). */
export function indexTupleBound(v: IndexValues): number {
  let upper = 16 + 8;
  for (let i = 0; i < v.n; i++) upper += v.len[i] + 8 + 4;
  return upper;
}

/** Form the tuple into `out.bytes[0, size)`; returns the size (t_tid left zero). */
export function formIndexTuple(attrs: AttrDesc[], v: IndexValues, out: FormBuffer): number {
  out.ensure(indexTupleBound(v));
  return formIndexTupleAt(attrs, v, out.bytes, 0);
}

/**
 * Form the tuple into b[at, at + size) (`at` a multiple of 8; indexTupleBound(v) bytes there
 * writable), e.g. straight into the loader's tuple store; returns the size (t_tid left zero).
 */
export function formIndexTupleAt(attrs: AttrDesc[], v: IndexValues, b: Uint8Array, at: number): number {
  let hasnull = false;
  for (let i = 0; i < v.n; i++) if (v.kind[i] === VAL_NULL) hasnull = true;
  // zero only what the values do not overwrite: t_tid, the null bitmap, alignment padding, the tail
  const head = at + (hasnull ? 16 : 8);
  for (let i = at; i < head; i++) b[i] = 0;
  let pos = head;
  let varwidth = false;
  for (let i = 0; i < v.n; i++) {
    const a = attrs[i];
    const k = v.kind[i];
    if (k === VAL_NULL) continue;
    if (hasnull) b[at + 8 + (i >> 3)] |= 1 << (i & 7);
    const al = alignBytes(a.align);
    const src = v.buf[i];
    const so = v.off[i];
    const sl = v.len[i];
    if (k === VAL_FIXED || k === VAL_CSTRING) {
      for (const e = (pos + al - 1) & ~(al - 1); pos < e; pos++) b[pos] = 0;
      copy(b, pos, src, so, sl);
      pos += sl;
      if (k === VAL_CSTRING) varwidth = true;
      continue;
    }
    varwidth = true;
    pos = varlenaHeader(b, pos, al, sl, a.storage !== "p");
    copy(b, pos, src, so, sl);
    pos += sl;
  }
  return finishTuple(b, at, pos, hasnull, varwidth);
}

const M_FIXED = 1;
const M_VARLENA = 2;
const M_CSTRING = 3;
/** a name column in an index whose attribute is cstring (name_ops stores names as cstrings) */
const M_NAME_CSTRING = 4;
const NAMEOID = 19;

/**
 * How one index forms its tuple from a heap tuple's key columns, in typed arrays (the hot loop
 * reads no AttrDesc objects and compares no alignment strings).
 */
export class HeapFormPlan {
  readonly n: number;
  readonly attnum: Int32Array;
  readonly mode: Uint8Array;
  readonly align: Uint8Array;
  /** the index column's storage allows a 1-byte varlena header (not 'p') */
  readonly packable: Uint8Array;
  /** the heap column has a fast default (attmissingval) */
  readonly missing: Uint8Array;

  constructor(indexAttrs: readonly AttrDesc[], indkey: ArrayLike<number>, heapAttrs: readonly AttrDesc[]) {
    const n = indexAttrs.length;
    this.n = n;
    this.attnum = Int32Array.from(indkey);
    this.mode = new Uint8Array(n);
    this.align = new Uint8Array(n);
    this.packable = new Uint8Array(n);
    this.missing = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const ia = indexAttrs[k];
      const ha = heapAttrs[indkey[k] - 1];
      this.align[k] = alignBytes(ia.align);
      this.packable[k] = ia.storage !== "p" ? 1 : 0;
      this.missing[k] = ha?.missing ? 1 : 0;
      if (!ha) this.mode[k] = 0;
      else if (ia.len === -2 && ha.typid === NAMEOID) this.mode[k] = M_NAME_CSTRING;
      else if (ha.len === -1) this.mode[k] = M_VARLENA;
      else if (ha.len === -2) this.mode[k] = M_CSTRING;
      else this.mode[k] = M_FIXED;
    }
  }
}

/**
 * formIndexTuple for values read straight from a heap page: attribute `attnum` at
 * page[spans.off[attnum - 1], + spans.len[attnum - 1]), NULL when spans.isnull[attnum - 1]. Returns the size, or -1 when a value
 * needs more than its bytes in place (a compressed or external varlena, a fast default, a column
 * the plan does not know): the caller then forms the tuple through IndexValues. Same bytes as
 * formIndexTuple.
 */
export function formFromHeap(plan: HeapFormPlan, page: Uint8Array, spans: AttrSpans, out: FormBuffer): number {
  const { off, len, isnull, natts } = spans;
  const n = plan.n;
  let hasnull = false;
  let upper = 16;
  for (let k = 0; k < n; k++) {
    const a = plan.attnum[k];
    if (isnull[a - 1]) {
      if (a > natts && plan.missing[k]) return -1;
      hasnull = true;
    } else upper += len[a - 1] + 12;
  }
  if (upper > out.bytes.length) out.ensure(upper + 8);
  const b = out.bytes;
  const head = hasnull ? 16 : 8;
  for (let i = 0; i < head; i++) b[i] = 0;
  let pos = head;
  let varwidth = false;
  for (let k = 0; k < n; k++) {
    const a = plan.attnum[k];
    if (isnull[a - 1]) continue;
    if (hasnull) b[8 + (k >> 3)] |= 1 << (k & 7);
    const m = plan.mode[k];
    const al = plan.align[k];
    let so = off[a - 1];
    let sl = len[a - 1];
    if (m === M_VARLENA) {
      varwidth = true;
      const b0 = page[so];
      if (b0 === 0x01 || (b0 & 3) === 2) return -1; // external or compressed: the caller's slow path
      if (b0 & 1) {
        so += 1;
        sl -= 1;
      } else {
        so += 4;
        sl -= 4;
      }
      pos = varlenaHeader(b, pos, al, sl, plan.packable[k] === 1);
    } else {
      if (m === 0) return -1;
      if (m !== M_FIXED) varwidth = true;
      if (m === M_NAME_CSTRING) {
        let e = so;
        while (e < so + sl && page[e] !== 0) e++;
        sl = Math.min(e - so + 1, sl);
      }
      for (const e = (pos + al - 1) & ~(al - 1); pos < e; pos++) b[pos] = 0;
    }
    if (sl <= 16) for (let i = 0; i < sl; i++) b[pos + i] = page[so + i];
    else copy(b, pos, page, so, sl);
    pos += sl;
  }
  return finishTuple(b, 0, pos, hasnull, varwidth);
}
