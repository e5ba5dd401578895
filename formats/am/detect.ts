// What kind of page is this? Decided per page from the special-space size and the AM page id in
// the last two bytes (like pg_filedump), with two fixes to pg_filedump's rules: BRIN (8-byte
// special, type 0xF091..0xF093 in its last half-word) is not mistaken for GIN, and the hash
// metapage is recognised as such. A catalog hint (pg_am.amname, or "sequence"/"heap") overrides
// the bytes; a disagreement is reported in `problem`, not thrown.
import { pageIsNew, pageView, pdSpecial, maxOffsetNumber } from "../page/page.js";
import { SizeOfPageHeaderData } from "../page/page-header.js";
import { BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, BTP_META, BTPageOpaqueData, MAX_BT_CYCLE_ID, btpoFlagNames } from "../nbtree/opaque.js";
import { BTREE_MAGIC } from "../nbtree/meta.js";
import { HASHO_PAGE_ID, HASH_MAGIC, HashPageOpaqueData, LH_META_PAGE, LH_PAGE_TYPE, hashPageTypeName } from "./hash.js";
import { F_DELETED, F_LEAF, GIST_PAGE_ID, GISTPageOpaqueData, gistFlagNames } from "./gist.js";
import { GIN_DATA, GIN_DELETED, GIN_LEAF, GIN_LIST, GIN_META, GinPageOpaqueData, ginFlagNames } from "./gin.js";
import { SPGIST_DELETED, SPGIST_LEAF, SPGIST_META, SPGIST_NULLS, SPGIST_PAGE_ID, SPGIST_MAGIC_NUMBER, SpGistPageOpaqueData, spgistFlagNames } from "./spgist.js";
import { BRIN_META_MAGIC, BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR, BRIN_PAGETYPE_REVMAP, BrinSpecialSpace } from "./brin.js";
import { SEQ_MAGIC } from "./sequence.js";

export type AmName = "heap" | "btree" | "hash" | "gist" | "gin" | "spgist" | "brin" | "sequence";
export type DetectedAm = AmName | "unknown";

export interface PageKind {
  am: DetectedAm;
  /**
   * heap/sequence: data; btree: meta, leaf, internal, deleted, half-dead; hash: meta, bucket,
   * overflow, bitmap, unused; gist: leaf, internal, deleted; gin: meta, pending-list, entry-leaf,
   * entry-internal, data-leaf, data-internal, deleted; spgist: meta, leaf, inner, nulls-leaf,
   * nulls-inner, deleted; brin: meta, revmap, regular; any: new (pd_upper = 0), invalid, unknown.
   */
  kind: string;
  /** pd_special distance from the page end (bytes of special space) */
  specialSize: number;
  /** the AM's own flag names, where it has flags */
  flags?: string[];
  /** why the bytes and the hint (or the AM's magic) disagree */
  problem?: string;
}

/** Expected special-space size of each AM (8 KiB pages, MAXALIGN 8). */
export const AM_SPECIAL_SIZE: Record<AmName, number> = { heap: 0, btree: 16, hash: 16, gist: 16, gin: 8, spgist: 8, brin: 8, sequence: 8 };

/** What the special space says, without a hint. */
function amFromBytes(page: Uint8Array, dv: DataView, special: number, size: number): DetectedAm {
  if (size === 0) return "heap";
  const last = dv.getUint16(page.length - 2, true);
  if (size === 8) {
    if (last === BRIN_PAGETYPE_META || last === BRIN_PAGETYPE_REVMAP || last === BRIN_PAGETYPE_REGULAR) return "brin";
    if (last === SPGIST_PAGE_ID) return "spgist";
    // A sequence has one heap tuple and the magic followed by zero padding. A GIN page with
    // rightlink 0x1717 and zero maxoff/flags would look the same: the catalog hint settles that.
    if (dv.getUint32(special, true) === SEQ_MAGIC && dv.getUint32(special + 4, true) === 0 && maxOffsetNumber(dv) === 1) return "sequence";
    // GIN flags use only the low byte, so no GIN page can carry a high byte here.
    return (last & 0xff00) === 0 ? "gin" : "unknown";
  }
  if (size === 16) {
    if (last <= MAX_BT_CYCLE_ID) return "btree";
    if (last === HASHO_PAGE_ID) return "hash";
    if (last === GIST_PAGE_ID) return "gist";
  }
  return "unknown";
}

export function detectPageKind(page: Uint8Array, amHint?: AmName): PageKind {
  if (page.length < SizeOfPageHeaderData) return { am: amHint ?? "unknown", kind: "invalid", specialSize: 0, problem: `page has ${page.length} bytes` };
  const dv = pageView(page);
  const special = pdSpecial(dv);
  if (pageIsNew(dv)) return { am: amHint ?? "unknown", kind: "new", specialSize: 0 };
  if (special > page.length || special < SizeOfPageHeaderData) {
    return { am: amHint ?? "unknown", kind: "invalid", specialSize: 0, problem: `pd_special ${special} outside the ${page.length}-byte page` };
  }
  const size = page.length - special;
  const fromBytes = amFromBytes(page, dv, special, size);
  const am: DetectedAm = amHint ?? fromBytes;
  if (am === "unknown") return { am, kind: "unknown", specialSize: size, problem: `special space of ${size} bytes ending in 0x${dv.getUint16(page.length - 2, true).toString(16)}` };
  if (size !== AM_SPECIAL_SIZE[am]) {
    return { am, kind: "invalid", specialSize: size, problem: `${am} pages have ${AM_SPECIAL_SIZE[am]} bytes of special space, this one has ${size} (looks like ${fromBytes})` };
  }
  const out = kindFor(am, dv, special);
  const r: PageKind = { am, specialSize: size, ...out };
  if (amHint && fromBytes !== amHint) r.problem = [`the page id says ${fromBytes}`, out.problem].filter(Boolean).join("; ");
  return r;
}

function kindFor(am: AmName, dv: DataView, special: number): { kind: string; flags?: string[]; problem?: string } {
  switch (am) {
    case "heap":
    case "sequence":
      return { kind: "data" };
    case "btree": {
      const flags = dv.getUint16(special + BTPageOpaqueData.offsets.btpo_flags, true);
      const names = btpoFlagNames(flags);
      if (flags & BTP_META) {
        const magic = dv.getUint32(24, true);
        return { kind: "meta", flags: names, ...(magic !== BTREE_MAGIC ? { problem: `btree metapage magic 0x${magic.toString(16)}` } : {}) };
      }
      if (flags & BTP_DELETED) return { kind: "deleted", flags: names };
      if (flags & BTP_HALF_DEAD) return { kind: "half-dead", flags: names };
      return { kind: flags & BTP_LEAF ? "leaf" : "internal", flags: names };
    }
    case "hash": {
      const flag = dv.getUint16(special + HashPageOpaqueData.offsets.hasho_flag, true);
      const t = hashPageTypeName(flag);
      const type = flag & LH_PAGE_TYPE;
      if (type === LH_META_PAGE) {
        const magic = dv.getUint32(24, true);
        return { kind: "meta", ...(magic !== HASH_MAGIC ? { problem: `hash metapage magic 0x${magic.toString(16)}` } : {}) };
      }
      // more than one type bit, or none: hash_page_type rejects these (except none = unused)
      if (type !== 0 && t === "unused") return { kind: "invalid", problem: `hash page type bits 0x${type.toString(16)}` };
      return { kind: t };
    }
    case "gist": {
      const flags = dv.getUint16(special + GISTPageOpaqueData.offsets.flags, true);
      return { kind: flags & F_DELETED ? "deleted" : flags & F_LEAF ? "leaf" : "internal", flags: gistFlagNames(flags) };
    }
    case "gin": {
      const flags = dv.getUint16(special + GinPageOpaqueData.offsets.flags, true);
      const names = ginFlagNames(flags);
      if (flags & GIN_META) return { kind: "meta", flags: names };
      if (flags & GIN_DELETED) return { kind: "deleted", flags: names };
      if (flags & GIN_LIST) return { kind: "pending-list", flags: names };
      const leaf = (flags & GIN_LEAF) !== 0;
      if (flags & GIN_DATA) return { kind: leaf ? "data-leaf" : "data-internal", flags: names };
      return { kind: leaf ? "entry-leaf" : "entry-internal", flags: names };
    }
    case "spgist": {
      const flags = dv.getUint16(special + SpGistPageOpaqueData.offsets.flags, true);
      const names = spgistFlagNames(flags);
      if (flags & SPGIST_META) {
        const magic = dv.getUint32(24, true);
        return { kind: "meta", flags: names, ...(magic !== SPGIST_MAGIC_NUMBER ? { problem: `SP-GiST metapage magic 0x${magic.toString(16)}` } : {}) };
      }
      if (flags & SPGIST_DELETED) return { kind: "deleted", flags: names };
      const nulls = flags & SPGIST_NULLS ? "nulls-" : "";
      return { kind: nulls + (flags & SPGIST_LEAF ? "leaf" : "inner"), flags: names };
    }
    case "brin": {
      const type = dv.getUint16(special + BrinSpecialSpace.offsets.type, true);
      if (type === BRIN_PAGETYPE_META) {
        const magic = dv.getUint32(24, true);
        return { kind: "meta", ...(magic !== BRIN_META_MAGIC ? { problem: `BRIN metapage magic 0x${magic.toString(16)}` } : {}) };
      }
      if (type === BRIN_PAGETYPE_REVMAP) return { kind: "revmap" };
      if (type === BRIN_PAGETYPE_REGULAR) return { kind: "regular" };
      return { kind: "unknown", problem: `BRIN page type 0x${type.toString(16)}` };
    }
  }
}
