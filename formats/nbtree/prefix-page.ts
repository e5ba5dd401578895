// BTP_PREFIX leaf pages as a whole (new-formats.md §2.1, §2.5, §2.6): read a prefix page back to
// its stock items, and recode a plain leaf page 1:1 (or back). Structural damage throws a
// FormatError; invariant breaches that still allow decoding are returned as findings.
import { FormatError } from "../schema/errors.js";
import { LP_NORMAL, LP_DEAD, lpFlags, lpLen, lpOff, makeLp, SizeOfItemIdData } from "../page/item-id.js";
import { itemIdWord, maxAlign, maxOffsetNumber, pageView, pdSpecial } from "../page/page.js";
import { PageHeaderData, SizeOfPageHeaderData } from "../page/page-header.js";
import { BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, BTP_META, BTP_PREFIX, BTO, readBTOpaque, type BTPageOpaque } from "./opaque.js";
import { BT_IS_POSTING, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK, posidRaw, tInfoRaw } from "./index-tuple.js";
import {
  computeC,
  computeTM,
  decodeCodedItem,
  decodeDirectory,
  encodeCodedItem,
  encodeDirectory,
  highKeyTerm,
  prefixDirectoryOffset,
  prefixSavesEnough,
  splitFitOk,
  codedItemInfo,
  mayShrinkCoded,
  type PrefixDirectory,
} from "./prefix.js";
import { planGroups, type LeadPolicy } from "./prefix-policy.js";

export interface PlainItem {
  /** LP_NORMAL or LP_DEAD */
  lpFlags: number;
  /** the stock tuple bytes (decoded for coded items) */
  tuple: Uint8Array;
}
export interface PrefixDataItem extends PlainItem {
  /** offset number on the prefix page */
  offset: number;
  coded: boolean;
  /** directory group, -1 for a posting tuple */
  group: number;
  /** lp_len on the prefix page */
  lpLen: number;
}
export interface PrefixLeafPage {
  opaque: BTPageOpaque;
  highKey: Uint8Array | null;
  directoryOffset: number;
  directory: PrefixDirectory;
  items: PrefixDataItem[];
  /** T and M recomputed from the items */
  T: number;
  M: number;
  C: number;
  /** 16 C <= 15 T */
  savesEnough: boolean;
  /** invariant breaches that did not stop decoding (T/M, group order, split-fit, space) */
  findings: FormatError[];
}

function itemAt(page: Uint8Array, dv: DataView, n: number): { flags: number; bytes: Uint8Array } {
  const w = itemIdWord(dv, n);
  const off = lpOff(w);
  const len = lpLen(w);
  if (off < SizeOfPageHeaderData || off + len > pdSpecial(dv)) throw new FormatError("LP_OUT_OF_PAGE", `item ${n} [${off}, ${off + len}) lies outside the item area`, { item: n, offset: off });
  return { flags: lpFlags(w), bytes: page.subarray(off, off + len) };
}

/** Read a BTP_PREFIX leaf page: high key, directory, and every data item decoded to its stock bytes. */
export function readPrefixLeafPage(page: Uint8Array, opts: { blcksz?: number; btmVersion?: number } = {}): PrefixLeafPage {
  const blcksz = opts.blcksz ?? page.length;
  const dv = pageView(page);
  const o = readBTOpaque(dv);
  if (!(o.btpo_flags & BTP_PREFIX)) throw new FormatError("PREFIX_PAGE_NOT_PREFIX", "page does not have BTP_PREFIX");
  if (!(o.btpo_flags & BTP_LEAF)) throw new FormatError("PREFIX_PAGE_NOT_LEAF", "BTP_PREFIX on a page without BTP_LEAF");
  if (o.btpo_flags & (BTP_DELETED | BTP_HALF_DEAD | BTP_META)) throw new FormatError("PREFIX_PAGE_BAD_FLAGS", `BTP_PREFIX with btpo_flags 0x${o.btpo_flags.toString(16)} (deleted, half-dead or meta)`);
  if (opts.btmVersion !== undefined && opts.btmVersion !== 4) throw new FormatError("PREFIX_PAGE_BAD_VERSION", `BTP_PREFIX in an index of btm_version ${opts.btmVersion}`);
  const n = maxOffsetNumber(dv);
  const dirOff = prefixDirectoryOffset(o);
  if (n < dirOff) throw new FormatError("PREFIX_PAGE_NO_DIRECTORY", `page has ${n} items, the directory belongs at offset ${dirOff}`);
  const highKey = dirOff === 2 ? itemAt(page, dv, 1).bytes : null;
  const d = itemAt(page, dv, dirOff);
  if (d.flags !== LP_NORMAL) throw new FormatError("PREFIX_DIR_NOT_NORMAL", `directory line pointer has flags ${d.flags}, expected LP_NORMAL`, { item: dirOff });
  let directory: PrefixDirectory;
  try {
    directory = decodeDirectory(d.bytes);
  } catch (e) {
    throw e instanceof FormatError ? e.at({ item: dirOff }) : e;
  }
  const items: PrefixDataItem[] = [];
  const findings: FormatError[] = [];
  let lastGroup = -1;
  for (let i = dirOff + 1; i <= n; i++) {
    const it = itemAt(page, dv, i);
    if (it.flags !== LP_NORMAL && it.flags !== LP_DEAD) throw new FormatError("PREFIX_ITEM_BAD_LP", `data item line pointer has flags ${it.flags}`, { item: i });
    const b = it.bytes;
    const posting = b.length >= 8 && (tInfoRaw(b) & INDEX_ALT_TID_MASK) !== 0 && (posidRaw(b) & BT_IS_POSTING) !== 0;
    try {
      if (posting) {
        items.push({ offset: i, lpFlags: it.flags, coded: false, group: -1, lpLen: b.length, tuple: b });
        continue;
      }
      const info = codedItemInfo(b, blcksz);
      const tuple = decodeCodedItem(b, directory, blcksz, undefined, 0, info);
      if (info.group < lastGroup) findings.push(new FormatError("PREFIX_GROUP_ORDER", `group ${info.group} after group ${lastGroup}: a group's members must form one run`, { item: i }));
      lastGroup = Math.max(lastGroup, info.group);
      items.push({ offset: i, lpFlags: it.flags, coded: true, group: info.group, lpLen: b.length, tuple });
    } catch (e) {
      throw e instanceof FormatError ? e.at({ item: i }) : e;
    }
  }
  if (!items.some((x) => x.coded)) throw new FormatError("PREFIX_PAGE_NO_CODED_ITEM", "BTP_PREFIX page without a coded item");
  const { T, M } = computeTM(items.map((x) => tInfoRaw(x.tuple) & INDEX_SIZE_MASK));
  if (T !== directory.T) findings.push(new FormatError("PREFIX_DIR_T_MISMATCH", `directory T ${directory.T}, items give ${T}`, { item: dirOff }));
  if (M !== directory.M) findings.push(new FormatError("PREFIX_DIR_M_MISMATCH", `directory M ${directory.M}, items give ${M}`, { item: dirOff }));
  const H = highKeyTerm(highKey ? highKey.length : null);
  if (!splitFitOk(T, H, M, blcksz)) findings.push(new FormatError("PREFIX_PAGE_SPLIT_FIT", `T + H + 2M + 8 = ${T + H + 2 * M + 8} exceeds 2U`));
  const C = computeC(items.map((x) => x.lpLen), d.bytes.length);
  const savesEnough = prefixSavesEnough(C, T);
  if (!savesEnough) findings.push(new FormatError("PREFIX_PAGE_SAVES_TOO_LITTLE", `16 C = ${16 * C} > 15 T = ${15 * T}: the page should have stayed plain`));
  return { opaque: o, highKey, directoryOffset: dirOff, directory, items, T, M, C, savesEnough, findings };
}

/** Lay out items (slot 1 first) on a copy of `template`'s header and special space. Null when they do not fit. */
export function layoutLeafPage(template: Uint8Array, items: readonly PlainItem[], btpoFlags: number): Uint8Array | null {
  const dv0 = pageView(template);
  const special = pdSpecial(dv0);
  const lower = SizeOfPageHeaderData + items.length * SizeOfItemIdData;
  let upper = special;
  for (const it of items) upper -= maxAlign(it.tuple.length);
  if (upper < lower) return null;
  const page = new Uint8Array(template.length);
  page.set(template.subarray(0, SizeOfPageHeaderData), 0);
  page.set(template.subarray(special), special);
  const dv = pageView(page);
  let pos = special;
  items.forEach((it, i) => {
    pos -= maxAlign(it.tuple.length);
    page.set(it.tuple, pos);
    dv.setUint32(SizeOfPageHeaderData + i * SizeOfItemIdData, makeLp(pos, it.lpFlags, it.tuple.length), true);
  });
  dv.setUint16(PageHeaderData.offsets.pd_lower, lower, true);
  dv.setUint16(PageHeaderData.offsets.pd_upper, pos, true);
  dv.setUint16(special + BTO.btpo_flags, btpoFlags, true);
  return page;
}

/** The stock items of a plain live leaf page, in offset order. */
export function plainLeafItems(page: Uint8Array): PlainItem[] {
  const dv = pageView(page);
  const out: PlainItem[] = [];
  for (let i = 1; i <= maxOffsetNumber(dv); i++) {
    const it = itemAt(page, dv, i);
    out.push({ lpFlags: it.flags, tuple: it.bytes });
  }
  return out;
}

/**
 * Recode one plain leaf page 1:1 (§2.6): it becomes BTP_PREFIX iff it has a codable item and
 * 16 C <= 15 T; otherwise a byte-for-byte copy comes back. Pages that are not live leaves are copied.
 * pd_checksum is carried over unchanged: whoever writes the page sets it.
 */
export function recodeLeafPage(page: Uint8Array, policy: LeadPolicy = "optimal"): { page: Uint8Array; coded: boolean; C: number; T: number } {
  const dv = pageView(page);
  const o = readBTOpaque(dv);
  const copy = (): { page: Uint8Array; coded: boolean; C: number; T: number } => ({ page: page.slice(), coded: false, C: 0, T: 0 });
  if (!(o.btpo_flags & BTP_LEAF) || o.btpo_flags & (BTP_DELETED | BTP_HALF_DEAD | BTP_META | BTP_PREFIX)) return copy();
  const all = plainLeafItems(page);
  const first = prefixDirectoryOffset(o);
  const head = all.slice(0, first - 1);
  const data = all.slice(first - 1);
  if (data.some((x) => x.lpFlags !== LP_NORMAL && x.lpFlags !== LP_DEAD)) return copy();
  if (!data.some((x) => mayShrinkCoded(x.tuple))) return copy(); // C > T whatever the grouping: stays plain
  const plan = planGroups(data.map((x) => x.tuple), policy);
  if (plan.groups.length === 0) return copy(); // only posting tuples: nothing to code
  const { T, M } = computeTM(data.map((x) => tInfoRaw(x.tuple) & INDEX_SIZE_MASK));
  if ("bytes" in plan) {
    // the byte-minimal planner's figure is what the items and directory take coded: C without coding them
    const C = (plan as { bytes: number }).bytes + SizeOfItemIdData * (data.length + 1);
    if (!prefixSavesEnough(C, T)) return { ...copy(), C, T };
  }
  const coded = data.map((x, i) => (plan.groupOf[i]! < 0 ? x.tuple : encodeCodedItem(x.tuple, plan.groupOf[i]!, plan.groups[plan.groupOf[i]!]!.anchor, plan.groups[plan.groupOf[i]!]!.lead)));
  let dir: Uint8Array;
  try {
    dir = encodeDirectory(plan.groups, T, M);
  } catch {
    return copy(); // e.g. anchors too long for one directory
  }
  const C = computeC(coded.map((c) => c.length), dir.length);
  if (!prefixSavesEnough(C, T)) return { ...copy(), C, T };
  const H = highKeyTerm(head.length ? head[0]!.tuple.length : null);
  if (!splitFitOk(T, H, M, page.length)) return { ...copy(), C, T };
  const items: PlainItem[] = [...head, { lpFlags: LP_NORMAL, tuple: dir }, ...coded.map((c, i) => ({ lpFlags: data[i]!.lpFlags, tuple: c }))];
  const out = layoutLeafPage(page, items, o.btpo_flags | BTP_PREFIX);
  if (!out) return { ...copy(), C, T };
  return { page: out, coded: true, C, T };
}

/** prefix -> plain by recode: the decoded items on one page, or null when they do not fit (rebuild instead). */
export function decodeToPlainPage(page: Uint8Array): Uint8Array | null {
  const r = readPrefixLeafPage(page);
  const items: PlainItem[] = [...(r.highKey ? [{ lpFlags: LP_NORMAL, tuple: r.highKey }] : []), ...r.items.map((x) => ({ lpFlags: x.lpFlags, tuple: x.tuple }))];
  return layoutLeafPage(page, items, r.opaque.btpo_flags & ~BTP_PREFIX);
}
