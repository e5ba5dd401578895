// Which pages of each index access method hold a line pointer array, and which line pointer
// states the access method ever leaves there (src/backend/access/*): the facts verify's one
// line pointer checker needs to check every page of every relation.
// - nbtree, hash and GiST mark killed items LP_DEAD and keep their storage;
// - GIN and SP-GiST never set line pointer flags (SP-GiST keeps dead, redirect and placeholder
//   states in its tuples), and delete by compacting the page;
// - BRIN deletes with PageIndexTupleDeleteNoCompact, which leaves LP_UNUSED line pointers;
// - no index AM uses LP_REDIRECT.
// Metapages, hash bitmap pages, BRIN revmap pages, GIN posting-tree (data) pages and deleted
// pages use the space after the header for other things (pd_lower marks its end).
import { LP_DEAD, LP_NORMAL, LP_UNUSED } from "../page/item-id.js";
import type { AmName } from "./detect.js";

export type IndexAmWithItems = Exclude<AmName, "heap" | "sequence">;

/** Page kinds (detectPageKind's names) whose pd_lower ends a line pointer array. */
export const ITEM_PAGE_KINDS: Readonly<Record<IndexAmWithItems, readonly string[]>> = {
  btree: ["leaf", "internal", "half-dead"],
  hash: ["bucket", "overflow", "unused"],
  gist: ["leaf", "internal"],
  gin: ["entry-leaf", "entry-internal", "pending-list"],
  spgist: ["leaf", "inner", "nulls-leaf", "nulls-inner"],
  brin: ["regular"],
};

/** Whether pg_am.amname names an index AM whose item pages have line pointers (all but heap and sequences). */
export const isIndexAmWithItems = (amName: string): amName is IndexAmWithItems => Object.hasOwn(ITEM_PAGE_KINDS, amName);

/** The line pointer states (lp_flags) each index AM leaves on its item pages; all keep storage (lp_len > 0) but LP_UNUSED. */
export const AM_LP_FLAGS: Readonly<Record<IndexAmWithItems, readonly number[]>> = {
  btree: [LP_NORMAL, LP_DEAD],
  hash: [LP_NORMAL, LP_DEAD],
  gist: [LP_NORMAL, LP_DEAD],
  gin: [LP_NORMAL],
  spgist: [LP_NORMAL],
  brin: [LP_NORMAL, LP_UNUSED],
};

/** Whether an index AM leaves a line pointer in this state (flags, and storage for all but LP_UNUSED). */
export function amUsesLinePointer(am: IndexAmWithItems, flags: number, len: number): boolean {
  return AM_LP_FLAGS[am].includes(flags) && (flags === LP_UNUSED || len > 0);
}
