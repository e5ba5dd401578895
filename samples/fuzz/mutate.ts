// Structure-aware page mutations for the fuzzer: each one aims at a field the readers interpret
// (page header, line pointers, heap tuple header, null bitmap, varlena headers and TOAST
// pointers of every tag, compressed bytes, B-tree special space and index tuples, BTP_PREFIX
// directories) and sets it to a value chosen to cross a boundary: 0, all ones, one past a
// limit, a neighbour's value, a random bit flipped. Field positions come from the declarations
// in formats/, never from literal offsets. A mutation is a list of byte patches, so a failure
// can be replayed and minimised without the generator.
import { PageHeaderData } from "../../formats/page/page-header.js";
import { ItemIdData, LP_NORMAL, lpFlags, lpLen, lpOff, makeLp, SizeOfItemIdData } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageView, pdSpecial } from "../../formats/page/page.js";
import { HeapTupleHeaderData, HTH, HEAP_HASNULL } from "../../formats/heap/tuple-header.js";
import { walkAttributes } from "../../formats/heap/deform.js";
import { BTPageOpaqueData } from "../../formats/nbtree/opaque.js";
import { IndexTupleData } from "../../formats/nbtree/index-tuple.js";
import { VarattDirect, VarattExternal } from "../../formats/varlena/toast-pointer.js";
import { BTPrefixDirectoryHeader } from "../../formats/nbtree/prefix.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { FieldLayout } from "../../formats/schema/struct.js";
import type { Rng } from "../prng.js";

/** Bytes to write at `offset` of one page. */
export interface Patch {
  offset: number;
  bytes: number[];
  /** what was aimed at, e.g. "lp[3].lp_len" or "item 2 attr 4 varlena tag" */
  what: string;
}

export type PageKind = "heap" | "btree";

export interface MutateContext {
  kind: PageKind;
  /** heap pages: the relation's descriptor, to find attributes and their varlena headers */
  desc?: TupleDesc;
}

const HEADER = PageHeaderData.layout();
const TUPLE_HEADER = HeapTupleHeaderData.layout();
const BT_OPAQUE = BTPageOpaqueData.layout();
const INDEX_TUPLE = IndexTupleData.layout();
const EXTERNAL = VarattExternal.layout();
const DIRECT = VarattDirect.layout();
const PREFIX_DIR = BTPrefixDirectoryHeader.layout();
/** varlena first bytes: 1-byte header, 4-byte plain and compressed, external (0x01) */
const VARLENA_FIRST = [0x00, 0x01, 0x02, 0x03, 0x80, 0xff, 0x0b, 0x0c, 0xfe];
/** vartags: INDIRECT 1, EXPANDED_RO 2, EXPANDED_RW 3, ONDISK 18, DIRECT 19, and nonsense */
const VARTAGS = [0, 1, 2, 3, 4, 17, 18, 19, 20, 0xff];

/** Values that cross boundaries for a field of `size` bytes, given the page it sits in. */
function interesting(rng: Rng, size: number, current: number, pageSize: number): number {
  const max = size >= 4 ? 0xffffffff : (1 << (size * 8)) - 1;
  const choices = [0, 1, max, max >>> 1, current + 1, current - 1, current ^ (1 << rng.int(0, size * 8 - 1)), pageSize, pageSize - 1, pageSize + 1, 23, 24, 15, rng.int(0, max)];
  return (rng.pick(choices) & max) >>> 0;
}

function writeValue(offset: number, size: number, value: number, what: string): Patch {
  const bytes: number[] = [];
  for (let i = 0; i < size; i++) bytes.push((value >>> (8 * i)) & 0xff);
  return { offset, bytes, what };
}

function readValue(page: Uint8Array, offset: number, size: number): number {
  let v = 0;
  for (let i = size - 1; i >= 0; i--) v = v * 256 + (page[offset + i] ?? 0);
  return v;
}

/** A boundary value for one declared field (bit-field parts keep their neighbours' bits). */
export function mutateField(page: Uint8Array, base: number, f: FieldLayout, rng: Rng, label: string): Patch {
  const at = base + f.offset;
  const size = Math.min(f.size, 4);
  const word = readValue(page, at, size);
  if (f.bits) {
    const mask = (2 ** f.bits.width - 1) * 2 ** f.bits.shift;
    const part = Math.floor(word / 2 ** f.bits.shift) % 2 ** f.bits.width;
    const v = interesting(rng, Math.ceil(f.bits.width / 8), part, page.length) % 2 ** f.bits.width;
    const next = (word - (word & mask)) + v * 2 ** f.bits.shift;
    return writeValue(at, size, next >>> 0, `${label}.${f.path}`);
  }
  return writeValue(at, size, interesting(rng, size, word, page.length), `${label}.${f.path}`);
}

function flipBits(page: Uint8Array, from: number, to: number, rng: Rng, what: string): Patch[] {
  if (to <= from) return [];
  const n = rng.int(1, 4);
  const out: Patch[] = [];
  for (let i = 0; i < n; i++) {
    const at = rng.int(from, to - 1);
    out.push({ offset: at, bytes: [page[at] ^ (1 << rng.int(0, 7))], what });
  }
  return out;
}

/** Line pointers that fit in the page, whatever pd_lower claims. */
const linePointers = (page: Uint8Array, dv: DataView): number => Math.max(0, Math.min(maxOffsetNumber(dv), Math.floor((page.length - PageHeaderData.size) / SizeOfItemIdData)));

/** LP_NORMAL items that lie inside the page: the ones other mutations can aim into. */
function normalItems(page: Uint8Array): { n: number; off: number; len: number }[] {
  const dv = pageView(page);
  const out: { n: number; off: number; len: number }[] = [];
  const max = linePointers(page, dv);
  for (let n = 1; n <= max; n++) {
    const w = itemIdWord(dv, n);
    if (lpFlags(w) !== LP_NORMAL) continue;
    const off = lpOff(w);
    const len = lpLen(w);
    if (off >= PageHeaderData.size && off + len <= page.length && len > 0) out.push({ n, off, len });
  }
  return out;
}

function lpPatch(page: Uint8Array, rng: Rng): Patch[] {
  const dv = pageView(page);
  const max = linePointers(page, dv);
  if (max < 1) return [];
  const n = rng.int(1, max);
  const at = PageHeaderData.size + (n - 1) * SizeOfItemIdData;
  const w = itemIdWord(dv, n);
  const r = rng.int(0, 3);
  if (r === 0) return [mutateField(page, at, rng.pick(ItemIdData.layout()), rng, `lp[${n}]`)];
  // point into a neighbour, at an odd offset, or past the end
  const other = itemIdWord(dv, rng.int(1, max));
  const off = rng.pick([lpOff(other), lpOff(w) + rng.int(1, 7), page.length - rng.int(0, 24), 15, 24]);
  const len = rng.pick([lpLen(w), lpLen(other), 0, 15, 23, lpLen(w) + 8, 0x7fff]);
  return [writeValue(at, 4, makeLp(off & 0x7fff, r === 3 ? rng.int(0, 3) : lpFlags(w), len & 0x7fff), `lp[${n}] word`)];
}

function heapTuplePatch(page: Uint8Array, rng: Rng, desc: TupleDesc | undefined): Patch[] {
  const items = normalItems(page);
  if (!items.length) return [];
  const it = rng.pick(items);
  const label = `item ${it.n}`;
  const r = rng.int(0, 9);
  if (r <= 3 || it.len < HeapTupleHeaderData.size) {
    const fields = TUPLE_HEADER.filter((f) => f.offset + f.size <= it.len);
    return fields.length ? [mutateField(page, it.off, rng.pick(fields), rng, label)] : [];
  }
  const tuple = page.subarray(it.off, it.off + it.len);
  const hoff = tuple[HTH.t_hoff];
  const infomask = tuple[HTH.t_infomask] | (tuple[HTH.t_infomask + 1] << 8);
  const hasNull = (infomask & HEAP_HASNULL) !== 0;
  if (r === 4 && hasNull) return flipBits(page, it.off + HeapTupleHeaderData.size, it.off + Math.min(hoff, it.len), rng, `${label} null bitmap`);
  if (!desc || hoff >= it.len) return flipBits(page, it.off, it.off + it.len, rng, `${label} bytes`);
  let attrs;
  try {
    const natts = Math.min(desc.attrs.length, (tuple[HTH.t_infomask2] | (tuple[HTH.t_infomask2 + 1] << 8)) & 0x7ff);
    attrs = walkAttributes(tuple, hoff, hasNull ? tuple.subarray(HeapTupleHeaderData.size, hoff) : undefined, natts, desc).attrs;
  } catch {
    return flipBits(page, it.off + hoff, it.off + it.len, rng, `${label} data`);
  }
  const varlenas = attrs.map((a, i) => ({ a, i })).filter(({ a, i }) => !a.isnull && !a.missing && desc.attrs[i]?.len === -1);
  if (!varlenas.length) return flipBits(page, it.off + hoff, it.off + it.len, rng, `${label} data`);
  const { a, i } = rng.pick(varlenas);
  return varlenaPatch(page, it.off + a.off, Math.min(a.len, it.len - a.off), rng, `${label} attr ${i + 1}`);
}

/** A varlena's header, its TOAST pointer fields, or its compressed payload. */
function varlenaPatch(page: Uint8Array, at: number, len: number, rng: Rng, label: string): Patch[] {
  const first = page[at];
  if (first === 0x01 && len >= 2) {
    const tag = page[at + 1];
    const r = rng.int(0, 3);
    if (r === 0) return [{ offset: at + 1, bytes: [rng.pick(VARTAGS)], what: `${label} vartag` }];
    const fields = (tag === 19 ? DIRECT : EXTERNAL).filter((f) => 2 + f.offset + f.size <= len);
    if (fields.length) return [mutateField(page, at + 2, rng.pick(fields), rng, `${label} ${tag === 19 ? "varatt_direct" : "varatt_external"}`)];
  }
  const r = rng.int(0, 4);
  if (r === 0) return [{ offset: at, bytes: [rng.pick(VARLENA_FIRST)], what: `${label} varlena first byte` }];
  if (r === 1 && (first & 0x01) === 0 && len >= 4) {
    // 4-byte header: length word (and the compression bits in its low byte)
    return [writeValue(at, 4, interesting(rng, 4, readValue(page, at, 4), page.length), `${label} va_header`)];
  }
  if (r === 2 && (first & 0x03) === 0x02 && len > 8) return flipBits(page, at + 8, at + len, rng, `${label} compressed bytes`);
  return flipBits(page, at, at + Math.max(1, len), rng, `${label} bytes`);
}

function btreePatch(page: Uint8Array, rng: Rng): Patch[] {
  const special = pdSpecial(pageView(page));
  const r = rng.int(0, 5);
  if (r <= 1 && special + BTPageOpaqueData.size <= page.length) return [mutateField(page, special, rng.pick(BT_OPAQUE), rng, "btpo")];
  if (r === 2) {
    // a BTP_PREFIX directory sits at the start of the item area of coded leaves
    const at = rng.int(PageHeaderData.size, Math.max(PageHeaderData.size, Math.min(page.length - PREFIX_DIR.length * 4, special) - 1));
    const f = rng.pick(PREFIX_DIR);
    if (at + f.offset + f.size <= page.length) return [mutateField(page, at, f, rng, "prefix directory")];
  }
  const items = normalItems(page);
  if (!items.length) return [];
  const it = rng.pick(items);
  const fields = INDEX_TUPLE.filter((f) => f.offset + f.size <= it.len);
  if (r <= 4 && fields.length) return [mutateField(page, it.off, rng.pick(fields), rng, `item ${it.n}`)];
  return flipBits(page, it.off, it.off + it.len, rng, `item ${it.n} bytes`);
}

/** One to four patches aimed at the structures of a page of this kind. */
export function mutatePage(page: Uint8Array, rng: Rng, ctx: MutateContext): Patch[] {
  const out: Patch[] = [];
  const n = rng.int(1, 4);
  for (let k = 0; k < n; k++) {
    const r = rng.int(0, 9);
    let p: Patch[];
    if (r === 0) p = [mutateField(page, 0, rng.pick(HEADER), rng, "header")];
    else if (r <= 2) p = lpPatch(page, rng);
    else if (r === 9) p = flipBits(page, 0, page.length, rng, "random bytes");
    else p = ctx.kind === "heap" ? heapTuplePatch(page, rng, ctx.desc) : btreePatch(page, rng);
    for (const x of p) {
      applyPatch(page, x);
      out.push(x);
    }
  }
  return out;
}

export function applyPatch(page: Uint8Array, p: Patch): void {
  for (let i = 0; i < p.bytes.length; i++) if (p.offset + i < page.length) page[p.offset + i] = p.bytes[i];
}
