// GIN pages in a dump: entry and pending-list tuples (their key through the index's descriptor,
// the column and null category, the posting list's heap TIDs or the posting tree's root, an
// internal tuple's downlink), and posting tree pages, which have no line pointers: a leaf's
// GinPostingList segments as gin_leafpage_items shows them, an internal page's PostingItems.
import { FormatError } from "../../formats/schema/errors.js";
import {
  decodeGinPostingList, GIN_CAT_NORM_KEY, GIN_DATA_ITEMS_OFFSET, GIN_DATA_RIGHTBOUND_OFFSET, GIN_TREE_POSTING, ginCodeToTidKey, ginEntryKey, GinKeySpan,
  GinPageOpaqueData, GinPostingListData, ginPostingListSize, GinPostingDecode, ginTupleBlock, ginTupleCompressed, ginTupleNPosting, ginTuplePostingOffset,
  GIN_COMPRESSED, POSTING_ITEM_KEY, postingItemChild, SizeOfPostingItem, type GinKeyShape,
} from "../../formats/am/gin.js";
import { ItemPointerData, tidKeyText, tidTextAt } from "../../formats/page/item-pointer.js";
import { pdLower, pdSpecial } from "../../formats/page/page.js";
import { datumTextAt } from "./datum-at.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";
import type { DumpValue, GinDataPageDump, GinEntryDump } from "./model.js";
import type { PageDumpContext } from "./page-dump.js";

const CATEGORY = ["key", "null-key", "empty-item", "null-item"] as const;

/**
 * The entry tuple of lp_len `len` at `tup`: its column, category and key, and on an entry leaf
 * its heap TIDs (or posting tree), on an internal page its child. A pending-list tuple is a leaf
 * tuple whose t_tid is the heap TID itself. Throws FormatError when its bytes break the format.
 */
export function ginEntry(page: Uint8Array, tup: number, len: number, kind: string, desc: TupleDesc, shape: GinKeyShape, ctx: PageDumpContext): { gin: GinEntryDump; key?: DumpValue } {
  const span = new GinKeySpan();
  if (!ginEntryKey(page, tup, len, shape.oneCol, shape.keyLen, shape.keyAlign, span))
    throw new FormatError("GIN_TUPLE_CORRUPT", "the entry tuple's column number, key or null category does not fit its length", { offset: tup });
  const gin: GinEntryDump = { attnum: span.attnum, category: CATEGORY[span.category]! };
  if (kind === "entry-internal") gin.child = ginTupleBlock(page, tup);
  else if (kind === "entry-leaf") {
    const n = ginTupleNPosting(page, tup);
    if (n === GIN_TREE_POSTING) gin.postingTree = ginTupleBlock(page, tup);
    else {
      const tids: string[] = [];
      if (ginTupleCompressed(page, tup)) {
        gin.compressed = true;
        const out = new GinPostingDecode();
        const end = tup + len;
        for (let at = tup + ginTuplePostingOffset(page, tup); at < end && out.n < n; at += ginPostingListSize(page, at)) decodeGinPostingList(page, at, end, out);
        if (out.truncated || out.n !== n) throw new FormatError(out.truncated ? "GIN_POSTING_TRUNCATED" : "GIN_POSTING_COUNT", `the entry tuple's posting list holds ${out.n} TIDs where t_tid says ${n}`, { offset: tup });
        for (let i = 0; i < out.n; i++) tids.push(tidKeyText(ginCodeToTidKey(out.codes[i]!)));
      } else {
        const at = tup + ginTuplePostingOffset(page, tup);
        if (at + n * ItemPointerData.size > tup + len) throw new FormatError("GIN_POSTING_TRUNCATED", `${n} uncompressed TIDs run past the entry tuple`, { offset: tup });
        for (let i = 0; i < n; i++) tids.push(tidTextAt(page, at + i * ItemPointerData.size));
      }
      gin.tids = tids;
    }
  }
  if (!ctx.values) return { gin };
  const a = desc.attrs[span.attnum - 1]!;
  const key: DumpValue = { attnum: a.attnum, name: a.name, type: ctx.values.types(a.typid)?.name ?? String(a.typid), isnull: span.category !== GIN_CAT_NORM_KEY };
  if (!key.isnull) {
    const text = datumTextAt(page, span.off, span.len, a.len, a.typid, a.typmod, ctx.values.types);
    if (text === undefined) key.storage = "external";
    else key.value = text;
  }
  return { gin, key };
}

/** A posting tree page: its right bound, then a leaf's segments (compressed leaves) or an internal page's downlinks. */
export function ginDataPage(page: Uint8Array, leaf: boolean): GinDataPageDump {
  const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const out: GinDataPageDump = { rightBound: tidTextAt(page, GIN_DATA_RIGHTBOUND_OFFSET) };
  const special = pdSpecial(dv);
  const flags = GinPageOpaqueData.get.flags(page, special);
  const lower = Math.min(pdLower(dv), special);
  if (leaf) {
    // a leaf from before 9.4 holds plain ItemPointers; gin_leafpage_items shows only compressed ones
    if (!(flags & GIN_COMPRESSED)) return out;
    out.segments = [];
    const d = new GinPostingDecode();
    for (let at = GIN_DATA_ITEMS_OFFSET; at < lower; at += ginPostingListSize(page, at)) {
      d.n = 0;
      decodeGinPostingList(page, at, lower, d);
      if (d.truncated) throw new FormatError("GIN_POSTING_TRUNCATED", "a posting list segment runs past pd_lower", { offset: d.stopAt });
      const tids: string[] = [];
      for (let i = 0; i < d.n; i++) tids.push(tidKeyText(ginCodeToTidKey(d.codes[i]!)));
      out.segments.push({ first_tid: tidTextAt(page, at), nbytes: GinPostingListData.get.nbytes(page, at), tids });
    }
    return out;
  }
  const maxoff = GinPageOpaqueData.get.maxoff(page, special);
  out.postingItems = [];
  for (let i = 0; i < maxoff; i++) {
    const at = GIN_DATA_ITEMS_OFFSET + i * SizeOfPostingItem;
    if (at + SizeOfPostingItem > special) throw new FormatError("GIN_DATA_PD_LOWER", `PostingItem ${i + 1} of ${maxoff} runs into the special space`, { offset: at });
    out.postingItems.push({ child: postingItemChild(page, at), key: tidTextAt(page, at + POSTING_ITEM_KEY) });
  }
  return out;
}
