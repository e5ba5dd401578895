// BTP_PREFIX leaf items (shared/docs/new-formats.md §2.2-2.3, spec 1.1): the prefix directory item
// and coded data items. Pure item-level codec: bytes in, bytes out; every malformed case throws a
// FormatError with a stable PREFIX_* code. Page-level reading is in prefix-page.ts.
import { defineStruct, nest, register, u16, u32, u8, type InferStruct } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { ItemPointerData } from "../page/item-pointer.js";
import { maxAlign } from "../page/page.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import { SizeOfItemIdData } from "../page/item-id.js";
import { BTP_PREFIX, P_HIKEY, P_FIRSTKEY, SizeOfBTPageOpaqueData } from "./opaque.js";
import { BT_IS_POSTING, INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_SIZE_MASK, INDEX_VAR_MASK, IndexAttributeBitMapData, IndexTupleData, indexDataOffset, SizeOfIndexTupleData, SizeOfItemPointerData, tInfoRaw } from "./index-tuple.js";
import type { Code } from "../codes/index.js";

/** The original null bitmap (IndexAttributeBitMapData, 4 bytes) follows the coded header when orig_t_info has INDEX_NULL_MASK. */
const BITMAP = IndexAttributeBitMapData.size;

export { BTP_PREFIX };

export const PREFIX_DIR_MAGIC = 0x5058;
export const PREFIX_DIR_VERSION = 1;
/** The directory's reserved t_tid: block MaxBlockNumber (0xFFFFFFFE), offset 0xFFFF. */
export const PREFIX_DIR_TID = { bi_hi: 0xffff, bi_lo: 0xfffe, ip_posid: 0xffff } as const;
/** Longest directory: MAXALIGN_DOWN(INDEX_SIZE_MASK). */
export const PREFIX_DIR_MAX_LENGTH = 8184;

export const BTPrefixDirectoryHeader = register(
  defineStruct("BTPrefixDirectoryHeader", "shared/docs/new-formats.md §2.2", [
    nest("t_tid", ItemPointerData, "reserved: (bi_hi 0xFFFF, bi_lo 0xFFFE, ip_posid 0xFFFF), never a heap TID"),
    u16("t_info", "the directory's length (= lp_len), no flag bits"),
    u16("magic", "0x5058"),
    u16("version", "1"),
    u16("ngroups", "number of groups, >= 1"),
    u16("M", "the largest per-item term of T"),
    u32("T", "sum over all data items of MAXALIGN(decoded size) + 4"),
  ] as const),
);
export type BTPrefixDirectoryHeaderValue = InferStruct<typeof BTPrefixDirectoryHeader>;
export const SizeOfPrefixDirHeader = BTPrefixDirectoryHeader.size; // 20

export const BTPrefixGroupEntry = register(
  defineStruct("BTPrefixGroupEntry", "shared/docs/new-formats.md §2.2", [
    u16("anchor_len", "length of the group's anchor (key bytes of the member that started it)"),
    u8("lead", "bytes each member keeps before the shared run, 0 <= lead <= anchor_len"),
    u8("flags", "0"),
  ] as const),
);
export const SizeOfPrefixGroupEntry = BTPrefixGroupEntry.size; // 4

export const BTPrefixCodedItemHeader = register(
  defineStruct("BTPrefixCodedItemHeader", "shared/docs/new-formats.md §2.3", [
    nest("t_tid", ItemPointerData, "the item's real heap TID"),
    u16("t_info", "coded length | the original INDEX_VAR_MASK and INDEX_NULL_MASK bits (0x2000 clear)"),
    u16("group", "index into the directory's groups, < ngroups"),
    u16("nshared", "anchor bytes [lead, lead + nshared) shared by this item"),
    u16("orig_t_info", "the original t_info: 0x2000 clear, size MAXALIGNed and >= its data offset"),
  ] as const),
);
export const SizeOfCodedItemHeader = BTPrefixCodedItemHeader.size; // 14
const DH = BTPrefixDirectoryHeader.offsets;
const GE = BTPrefixGroupEntry.offsets;
const CH = BTPrefixCodedItemHeader.offsets;
const TID = ItemPointerData.offsets;
const IT = IndexTupleData.offsets;

export interface PrefixGroup {
  anchor: Uint8Array;
  lead: number;
}
export interface PrefixDirectory {
  /** t_info size = lp_len */
  length: number;
  T: number;
  M: number;
  groups: PrefixGroup[];
}

/** Usable btree page space U = BLCKSZ - 24 - 16. */
export const prefixUsable = (blcksz = 8192): number => blcksz - SizeOfPageHeaderData - SizeOfBTPageOpaqueData;
/** BTMaxItemSize (PG15 formula): 2704 for 8 KiB. */
export const btMaxItemSize = (blcksz = 8192): number =>
  (Math.floor((blcksz - maxAlign(SizeOfPageHeaderData + 3 * SizeOfItemIdData + 3 * SizeOfItemPointerData) - maxAlign(SizeOfBTPageOpaqueData)) / 3) & ~7);
/** The directory's length for these groups: MAXALIGN(20 + 4 x ngroups + sum of anchor_len). */
export const directoryLength = (groups: readonly { anchor: Uint8Array }[]): number =>
  maxAlign(SizeOfPrefixDirHeader + SizeOfPrefixGroupEntry * groups.length + groups.reduce((s, g) => s + g.anchor.length, 0));

const dvOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
/** Little-endian u16 at a struct offset, straight from the bytes (the per-item hot paths: no DataView per item). */
const getU16 = (b: Uint8Array, off: number): number => b[off]! | (b[off + 1]! << 8);
const setU16 = (b: Uint8Array, off: number, v: number): void => {
  b[off] = v & 0xff;
  b[off + 1] = v >>> 8;
};
const fail = (code: Code, msg: string, offset?: number): never => {
  throw new FormatError(code, msg, offset === undefined ? {} : { offset });
};

/** Is this item the prefix directory (reserved t_tid)? Cheap test for readers. */
export function isPrefixDirectory(item: Uint8Array): boolean {
  if (item.length < 8) return false;
  return getU16(item, TID.bi_hi) === PREFIX_DIR_TID.bi_hi && getU16(item, TID.bi_lo) === PREFIX_DIR_TID.bi_lo && getU16(item, TID.ip_posid) === PREFIX_DIR_TID.ip_posid;
}

/** Decode the directory item (its lp_len bytes). Anchors are views into `item`. */
export function decodeDirectory(item: Uint8Array): PrefixDirectory {
  if (item.length < SizeOfPrefixDirHeader) fail("PREFIX_DIR_TRUNCATED", `directory item has ${item.length} bytes, its header needs ${SizeOfPrefixDirHeader}`);
  const dv = dvOf(item);
  if (!isPrefixDirectory(item)) {
    fail("PREFIX_DIR_BAD_TID", `directory t_tid is (${dv.getUint16(0, true).toString(16)},${dv.getUint16(2, true).toString(16)},${dv.getUint16(4, true).toString(16)}), expected the reserved (ffff,fffe,ffff)`, DH.t_tid);
  }
  const info = dv.getUint16(DH.t_info, true);
  if (info & ~INDEX_SIZE_MASK) fail("PREFIX_DIR_FLAG_BITS", `directory t_info 0x${info.toString(16)} has flag bits`, DH.t_info);
  const magic = dv.getUint16(DH.magic, true);
  if (magic !== PREFIX_DIR_MAGIC) fail("PREFIX_DIR_BAD_MAGIC", `directory magic 0x${magic.toString(16)}, expected 0x5058`, DH.magic);
  const version = dv.getUint16(DH.version, true);
  if (version !== PREFIX_DIR_VERSION) fail("PREFIX_DIR_BAD_VERSION", `directory version ${version}, expected 1`, DH.version);
  const length = info & INDEX_SIZE_MASK;
  if (length !== item.length) fail("PREFIX_DIR_LENGTH_MISMATCH", `directory t_info length ${length} but the item has ${item.length} bytes (lp_len)`, DH.t_info);
  if (length > PREFIX_DIR_MAX_LENGTH) fail("PREFIX_DIR_TOO_LONG", `directory length ${length} exceeds ${PREFIX_DIR_MAX_LENGTH}`, DH.t_info);
  const ngroups = dv.getUint16(DH.ngroups, true);
  if (ngroups === 0) fail("PREFIX_DIR_NO_GROUPS", "directory has 0 groups", DH.ngroups);
  const entriesEnd = SizeOfPrefixDirHeader + ngroups * SizeOfPrefixGroupEntry;
  if (entriesEnd > length) fail("PREFIX_DIR_GROUPS_OUT_OF_RANGE", `${ngroups} group entries end at ${entriesEnd}, beyond the directory's ${length} bytes`, SizeOfPrefixDirHeader);
  const groups: PrefixGroup[] = new Array(ngroups);
  let a = entriesEnd;
  for (let g = 0; g < ngroups; g++) {
    const e = SizeOfPrefixDirHeader + g * SizeOfPrefixGroupEntry;
    const alen = dv.getUint16(e + GE.anchor_len, true);
    const lead = dv.getUint8(e + GE.lead);
    const flags = dv.getUint8(e + GE.flags);
    if (flags !== 0) fail("PREFIX_DIR_GROUP_FLAGS", `group ${g} has flags 0x${flags.toString(16)}, expected 0`, e + GE.flags);
    if (lead > alen) fail("PREFIX_DIR_LEAD_GT_ANCHOR", `group ${g} lead ${lead} exceeds its anchor_len ${alen}`, e + GE.lead);
    if (a + alen > length) fail("PREFIX_DIR_ANCHORS_OUT_OF_RANGE", `group ${g} anchor [${a}, ${a + alen}) extends beyond the directory's ${length} bytes`, a);
    groups[g] = { anchor: item.subarray(a, a + alen), lead };
    a += alen;
  }
  if (maxAlign(a) !== length) fail("PREFIX_DIR_BAD_LENGTH", `directory length ${length}, expected MAXALIGN(${a}) = ${maxAlign(a)}`, DH.t_info);
  for (let i = a; i < length; i++) if (item[i] !== 0) fail("PREFIX_DIR_PADDING_NONZERO", `directory padding byte at ${i} is 0x${item[i]!.toString(16)}`, i);
  return { length, T: dv.getUint32(DH.T, true), M: dv.getUint16(DH.M, true), groups };
}

/** Encode a directory. T and M come from computeTM over the page's data items. */
export function encodeDirectory(groups: readonly PrefixGroup[], T: number, M: number): Uint8Array {
  if (groups.length === 0) fail("PREFIX_DIR_NO_GROUPS", "a directory needs at least one group");
  if (groups.length > 0xffff) fail("PREFIX_DIR_GROUPS_OUT_OF_RANGE", `${groups.length} groups do not fit ngroups (u16)`);
  if (!Number.isInteger(T) || T < 0 || T > 0xffffffff) fail("PREFIX_DIR_BAD_T", `T ${T} does not fit u32`);
  if (!Number.isInteger(M) || M < 0 || M > 0xffff) fail("PREFIX_DIR_BAD_M", `M ${M} does not fit u16`);
  const length = directoryLength(groups);
  if (length > PREFIX_DIR_MAX_LENGTH) fail("PREFIX_DIR_TOO_LONG", `directory length ${length} exceeds ${PREFIX_DIR_MAX_LENGTH}`);
  const out = new Uint8Array(length);
  BTPrefixDirectoryHeader.encodeInto({ t_tid: { ...PREFIX_DIR_TID }, t_info: length, magic: PREFIX_DIR_MAGIC, version: PREFIX_DIR_VERSION, ngroups: groups.length, M, T }, out, 0);
  let a = SizeOfPrefixDirHeader + groups.length * SizeOfPrefixGroupEntry;
  groups.forEach((g, i) => {
    if (g.anchor.length > 0xffff) fail("PREFIX_DIR_ANCHORS_OUT_OF_RANGE", `group ${i} anchor of ${g.anchor.length} bytes does not fit anchor_len`);
    if (!Number.isInteger(g.lead) || g.lead < 0 || g.lead > 0xff) fail("PREFIX_DIR_LEAD_GT_ANCHOR", `group ${i} lead ${g.lead} does not fit u8`);
    if (g.lead > g.anchor.length) fail("PREFIX_DIR_LEAD_GT_ANCHOR", `group ${i} lead ${g.lead} exceeds its anchor_len ${g.anchor.length}`);
    BTPrefixGroupEntry.encodeInto({ anchor_len: g.anchor.length, lead: g.lead, flags: 0 }, out, SizeOfPrefixDirHeader + i * SizeOfPrefixGroupEntry);
    out.set(g.anchor, a);
    a += g.anchor.length;
  });
  return out;
}

/** Header facts of a coded item, read without decoding the key. */
export interface CodedItemInfo {
  codedLength: number;
  group: number;
  nshared: number;
  origTInfo: number;
  origSize: number;
  /** 14, or 18 with the original's null bitmap */
  residualStart: number;
}

/** Read and check a coded item's header (everything that does not need the directory). */
export function codedItemInfo(item: Uint8Array, blcksz = 8192): CodedItemInfo {
  if (item.length < 8) fail("PREFIX_ITEM_TRUNCATED", `coded item has ${item.length} bytes`);
  const outer = getU16(item, CH.t_info);
  if (outer & INDEX_ALT_TID_MASK) {
    if (getU16(item, TID.ip_posid) & BT_IS_POSTING) fail("PREFIX_ITEM_IS_POSTING", "item is a posting-list tuple: stock layout, not coded", CH.t_info);
    fail("PREFIX_ITEM_ALT_TID_NOT_POSTING", `leaf data item has INDEX_ALT_TID_MASK (t_info 0x${outer.toString(16)}) without BT_IS_POSTING`, CH.t_info);
  }
  const codedLength = outer & INDEX_SIZE_MASK;
  if (codedLength !== item.length) fail("PREFIX_ITEM_LENGTH_MISMATCH", `coded t_info length ${codedLength} but the item has ${item.length} bytes (lp_len)`, CH.t_info);
  if (codedLength < SizeOfCodedItemHeader) fail("PREFIX_ITEM_TRUNCATED", `coded item of ${codedLength} bytes is shorter than its ${SizeOfCodedItemHeader}-byte header`);
  if (codedLength !== maxAlign(codedLength)) fail("PREFIX_ITEM_LENGTH_UNALIGNED", `coded length ${codedLength} is not MAXALIGNed`, CH.t_info);
  const orig = getU16(item, CH.orig_t_info);
  if (orig & INDEX_ALT_TID_MASK) fail("PREFIX_ORIG_ALT_TID", `original t_info 0x${orig.toString(16)} has INDEX_ALT_TID_MASK`, CH.orig_t_info);
  if ((outer & (INDEX_VAR_MASK | INDEX_NULL_MASK)) !== (orig & (INDEX_VAR_MASK | INDEX_NULL_MASK))) {
    fail("PREFIX_ITEM_FLAGS_MISMATCH", `coded t_info flags 0x${(outer & 0xc000).toString(16)} differ from the original's 0x${(orig & 0xc000).toString(16)}`, CH.t_info);
  }
  const origSize = orig & INDEX_SIZE_MASK;
  const dataOff = indexDataOffset(orig);
  if (origSize !== maxAlign(origSize)) fail("PREFIX_ORIG_SIZE_UNALIGNED", `original size ${origSize} is not MAXALIGNed`, CH.orig_t_info);
  if (origSize < dataOff) fail("PREFIX_ORIG_SIZE_TOO_SMALL", `original size ${origSize} is below its data offset ${dataOff}`, CH.orig_t_info);
  const maxItem = btMaxItemSize(blcksz);
  if (origSize > maxItem) fail("PREFIX_ORIG_TOO_LARGE", `original size ${origSize} exceeds BTMaxItemSize ${maxItem}`, CH.orig_t_info);
  const residualStart = SizeOfCodedItemHeader + (orig & INDEX_NULL_MASK ? BITMAP : 0);
  if (residualStart > codedLength) fail("PREFIX_ITEM_TRUNCATED", `coded item of ${codedLength} bytes has no room for the null bitmap`, SizeOfCodedItemHeader);
  return { codedLength, group: getU16(item, CH.group), nshared: getU16(item, CH.nshared), origTInfo: orig, origSize, residualStart };
}

/**
 * Decode a coded item (its lp_len bytes) back to the original index tuple, byte for byte.
 * With `out`, writes there at `outOffset` (room for the original size) and returns that view.
 */
export function decodeCodedItem(item: Uint8Array, directory: PrefixDirectory, blcksz = 8192, out?: Uint8Array, outOffset = 0, info?: CodedItemInfo): Uint8Array {
  const h = info ?? codedItemInfo(item, blcksz);
  if (h.group >= directory.groups.length) fail("PREFIX_ITEM_GROUP_RANGE", `group ${h.group} >= ngroups ${directory.groups.length}`, CH.group);
  const g = directory.groups[h.group]!;
  const rs = h.residualStart;
  const rlen = h.codedLength - rs;
  const dataOff = indexDataOffset(h.origTInfo);
  const klen = h.origSize - dataOff;
  const dst = out ? out.subarray(outOffset, outOffset + h.origSize) : new Uint8Array(h.origSize);
  if (dst.length < h.origSize) throw new RangeError(`no room for ${h.origSize} bytes at ${outOffset}`);
  for (let i = 0; i < SizeOfItemPointerData; i++) dst[IT.t_tid + i] = item[CH.t_tid + i]!;
  dst[IT.t_info] = h.origTInfo & 0xff;
  dst[IT.t_info + 1] = h.origTInfo >>> 8;
  if (h.origTInfo & INDEX_NULL_MASK) {
    for (let i = 0; i < BITMAP; i++) dst[SizeOfIndexTupleData + i] = item[SizeOfCodedItemHeader + i]!;
    dst.fill(0, SizeOfIndexTupleData + BITMAP, dataOff);
  }
  // K' = residual[0, lead) + anchor[lead, lead + nshared) + residual[lead, end), or the residual;
  // copied byte by byte (keys are short: no view per piece)
  let kpos = 0;
  if (h.nshared > 0) {
    if (g.lead + h.nshared > g.anchor.length) fail("PREFIX_ITEM_SHARED_RANGE", `lead ${g.lead} + nshared ${h.nshared} exceeds group ${h.group}'s anchor_len ${g.anchor.length}`, CH.nshared);
    if (rlen < g.lead) fail("PREFIX_ITEM_RESIDUAL_SHORT", `residual of ${rlen} bytes is shorter than lead ${g.lead}`, rs);
    kpos = putTruncated(dst, dataOff, klen, kpos, item, rs, rs + g.lead, 0);
    kpos = putTruncated(dst, dataOff, klen, kpos, g.anchor, g.lead, g.lead + h.nshared, CH.nshared);
    kpos = putTruncated(dst, dataOff, klen, kpos, item, rs + g.lead, rs + rlen, 0);
  } else kpos = putTruncated(dst, dataOff, klen, kpos, item, rs, rs + rlen, 0);
  if (kpos < klen) dst.fill(0, dataOff + kpos, dataOff + klen);
  return dst;
}

/**
 * Copy src[from, to) to the key at dst[kbase + kpos], cut at klen key bytes; the bytes cut must be
 * zero (reported at errOffset + their index in src). Returns the new kpos.
 */
function putTruncated(dst: Uint8Array, kbase: number, klen: number, kpos: number, src: Uint8Array, from: number, to: number, errOffset: number): number {
  const take = Math.max(0, Math.min(to - from, klen - kpos));
  for (let i = 0; i < take; i++) dst[kbase + kpos + i] = src[from + i]!;
  for (let i = from + take; i < to; i++) {
    if (src[i] !== 0) fail("PREFIX_ITEM_TRUNCATED_NONZERO", `decoded key is longer than the original's ${klen} bytes and its byte ${kpos + i - from} (0x${src[i]!.toString(16)}) is not zero`, errOffset + i);
  }
  return kpos + (to - from);
}

/** Key bytes K of a plain (non-pivot, non-posting) tuple: data offset to IndexTupleSize. */
export function tupleKey(tuple: Uint8Array): Uint8Array {
  const info = tInfoRaw(tuple);
  return tuple.subarray(indexDataOffset(info), info & INDEX_SIZE_MASK);
}

/** The key of a codable tuple (what a coded item shares), null for posting and pivot tuples (never coded). */
export const codableKey = (t: Uint8Array): Uint8Array | null => (tInfoRaw(t) & INDEX_ALT_TID_MASK ? null : tupleKey(t));

/**
 * Can coding this tuple make it smaller? A coded item takes at least MAXALIGN(its header: 14, or
 * 18 with a null bitmap), so a tuple no longer than that (at most 8 key bytes: integers,
 * timestamps) never shrinks; posting and pivot tuples are never coded. A page of such tuples has
 * C > T (the directory comes on top) and always stays plain.
 */
export function mayShrinkCoded(t: Uint8Array): boolean {
  const info = tInfoRaw(t);
  if (info & INDEX_ALT_TID_MASK) return false;
  return (info & INDEX_SIZE_MASK) > maxAlign(SizeOfCodedItemHeader + (info & INDEX_NULL_MASK ? BITMAP : 0));
}

/** Length of the common prefix of a[from..] and b[from..]. */
export function sharedFrom(a: Uint8Array, b: Uint8Array, from: number): number {
  const n = Math.min(a.length, b.length);
  let i = from;
  while (i < n && a[i] === b[i]) i++;
  return Math.max(0, i - from);
}
function trimZeros(b: Uint8Array, floor = 0): number {
  let e = b.length;
  while (e > floor && b[e - 1] === 0) e--;
  return e;
}

/**
 * How key bytes K code against (anchor, lead): the shorter of the two codings, sharing the longest
 * run anchor[lead..] allows (the residual is K[0, lead) + tail) or sharing nothing (the residual is
 * the tail, K without its trailing zeros). residualLen is what the item stores before its padding.
 */
export function codedResidual(K: Uint8Array, anchor: Uint8Array, lead: number): { nshared: number; tail: Uint8Array; residualLen: number } {
  const whole = trimZeros(K);
  const nshared = K.length > lead ? sharedFrom(K, anchor, lead) : 0;
  if (nshared > 0) {
    const tail = K.subarray(lead + nshared, trimZeros(K, lead + nshared));
    if (lead + tail.length < whole) return { nshared, tail, residualLen: lead + tail.length };
  }
  return { nshared: 0, tail: K.subarray(0, whole), residualLen: whole };
}

/**
 * Code a plain leaf tuple against its group's anchor: shares the longest run anchor[lead..] allows
 * and drops trailing zero bytes of K. Posting tuples and pivots are refused (they stay stock).
 */
export function encodeCodedItem(originalTuple: Uint8Array, group: number, anchor: Uint8Array, lead: number): Uint8Array {
  if (originalTuple.length < 8) fail("PREFIX_ENCODE_TRUNCATED", `tuple has ${originalTuple.length} bytes`);
  const orig = tInfoRaw(originalTuple);
  if (orig & INDEX_ALT_TID_MASK) fail("PREFIX_ENCODE_ALT_TID", "posting and pivot tuples are never coded");
  const size = orig & INDEX_SIZE_MASK;
  const dataOff = indexDataOffset(orig);
  if (size > originalTuple.length) fail("PREFIX_ENCODE_TRUNCATED", `t_info size ${size} exceeds the ${originalTuple.length} bytes given`);
  if (size !== maxAlign(size) || size < dataOff) fail("PREFIX_ORIG_SIZE_UNALIGNED", `original size ${size} is not a MAXALIGNed size >= ${dataOff}`);
  if (orig & INDEX_NULL_MASK) for (let i = SizeOfIndexTupleData + BITMAP; i < dataOff; i++) if (originalTuple[i] !== 0) fail("PREFIX_ENCODE_NONZERO_PAD", `byte ${i} between the null bitmap and the data is not zero`, i);
  if (!Number.isInteger(group) || group < 0 || group > 0xffff) fail("PREFIX_ITEM_GROUP_RANGE", `group ${group} does not fit u16`);
  if (lead > anchor.length) fail("PREFIX_DIR_LEAD_GT_ANCHOR", `lead ${lead} exceeds anchor_len ${anchor.length}`);
  // codedResidual's choice, on offsets into the tuple (the per-item hot path: no view, no object)
  const t = originalTuple;
  const klen = size - dataOff;
  let whole = size;
  while (whole > dataOff && t[whole - 1] === 0) whole--;
  let nshared = 0;
  if (klen > lead) {
    const n = Math.min(klen, anchor.length);
    let i = lead;
    while (i < n && t[dataOff + i] === anchor[i]) i++;
    nshared = i - lead;
  }
  // the residual: K[0, lead) + K[lead + nshared, end without trailing zeros), or K without them
  let tailFrom = dataOff;
  let tailTo = whole;
  let residualLen = whole - dataOff;
  if (nshared > 0) {
    let e = size;
    while (e > dataOff + lead + nshared && t[e - 1] === 0) e--;
    const tailLen = e - (dataOff + lead + nshared);
    if (lead + tailLen < whole - dataOff) {
      tailFrom = dataOff + lead + nshared;
      tailTo = e;
      residualLen = lead + tailLen;
    } else nshared = 0;
  }
  const start = SizeOfCodedItemHeader + (orig & INDEX_NULL_MASK ? BITMAP : 0);
  const len = maxAlign(start + residualLen);
  const out = new Uint8Array(len);
  // hot path: the header through the declaration's offsets (t_tid is copied as is)
  for (let i = 0; i < SizeOfItemPointerData; i++) out[CH.t_tid + i] = t[CH.t_tid + i]!;
  setU16(out, CH.t_info, len | (orig & (INDEX_VAR_MASK | INDEX_NULL_MASK)));
  setU16(out, CH.group, group);
  setU16(out, CH.nshared, nshared);
  setU16(out, CH.orig_t_info, orig);
  if (orig & INDEX_NULL_MASK) for (let i = 0; i < BITMAP; i++) out[SizeOfCodedItemHeader + i] = t[SizeOfIndexTupleData + i]!;
  let o = start;
  if (nshared > 0) for (let i = 0; i < lead; i++) out[o++] = t[dataOff + i]!;
  for (let i = tailFrom; i < tailTo; i++) out[o++] = t[i]!;
  return out;
}

// ---- page-level arithmetic (§2.2, §2.5) ----

/** One data item's term of T: MAXALIGN(decoded size) + 4. */
export const prefixTerm = (decodedSize: number): number => maxAlign(decodedSize) + SizeOfItemIdData;

/** T and M over the decoded sizes of ALL data items (coded, posting, LP_DEAD; not the high key or directory). */
export function computeTM(decodedSizes: Iterable<number>): { T: number; M: number } {
  let T = 0;
  let M = 0;
  for (const s of decodedSizes) {
    const t = prefixTerm(s);
    T += t;
    if (t > M) M = t;
  }
  return { T, M };
}
/** H: MAXALIGN(high key size) + 4, or 0 on the rightmost page. */
export const highKeyTerm = (highKeySize: number | null): number => (highKeySize === null ? 0 : maxAlign(highKeySize) + SizeOfItemIdData);
/** The split-fit bound T + H + 2M + 8 <= 2U. */
export const splitFitOk = (T: number, H: number, M: number, blcksz = 8192): boolean => T + H + 2 * M + 8 <= 2 * prefixUsable(blcksz);
/** C: sum over data items of (MAXALIGN(lp_len) + 4) + MAXALIGN(directory lp_len) + 4. */
export function computeC(dataLpLens: Iterable<number>, directoryLpLen: number): number {
  let C = maxAlign(directoryLpLen) + SizeOfItemIdData;
  for (const l of dataLpLens) C += maxAlign(l) + SizeOfItemIdData;
  return C;
}
/** The space rule: a page is worth coding iff 16 C <= 15 T. */
export const prefixSavesEnough = (C: number, T: number): boolean => 16 * C <= 15 * T;

/** Offset number of the directory: the stock P_FIRSTDATAKEY. */
export const prefixDirectoryOffset = (o: { btpo_next: number }): number => (o.btpo_next === 0 ? P_HIKEY : P_FIRSTKEY);
/** P_FIRSTDATAKEY on a page: stock value + 1 when BTP_PREFIX is set. */
export const firstDataKey = (o: { btpo_next: number; btpo_flags: number }): number => prefixDirectoryOffset(o) + (o.btpo_flags & BTP_PREFIX ? 1 : 0);
