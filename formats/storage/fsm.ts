// Free space map fork (_fsm): src/backend/storage/freespace/freespace.c, fsmpage.c,
// src/include/storage/fsm_internals.h. Each FSM page holds a binary max-heap of one-byte
// free-space categories (avail / 32); its leaves are the page's slots. The pages form a tree of
// FSM_TREE_DEPTH levels laid out depth-first in the fork: leaf slots describe heap blocks,
// upper-level slots the max of a child FSM page.
import { BLCKSZ_DEFAULT, maxAlign } from "../page/page.js";
import { PageHeaderData, SizeOfPageHeaderData, type PageHeader } from "../page/page-header.js";
import { SizeOfItemIdData } from "../page/item-id.js";
import { bytes, defineStruct, FormatError, i32, register, type InferStruct } from "../schema/index.js";
import { forkPage, type ForkPages } from "./fork-pages.js";

/** Offset of FSMPageData within a page. */
export const FSM_PAGE_DATA_OFFSET = maxAlign(SizeOfPageHeaderData); // 24
/** offsetof(FSMPageData, fp_nodes): after the int32 fp_next_slot (checked against the declaration below). */
const FP_NODES_OFFSET = 4;
/** NodesPerPage = BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - offsetof(FSMPageData, fp_nodes). */
export const NodesPerPage = BLCKSZ_DEFAULT - FSM_PAGE_DATA_OFFSET - FP_NODES_OFFSET; // 8164
export const NonLeafNodesPerPage = BLCKSZ_DEFAULT / 2 - 1; // 4095
export const LeafNodesPerPage = NodesPerPage - NonLeafNodesPerPage; // 4069
export const SlotsPerFSMPage = LeafNodesPerPage;
export const FSM_TREE_DEPTH = SlotsPerFSMPage >= 1626 ? 3 : 4;
export const FSM_ROOT_LEVEL = FSM_TREE_DEPTH - 1;
export const FSM_BOTTOM_LEVEL = 0;
export const FSM_CATEGORIES = 256;
export const FSM_CAT_STEP = BLCKSZ_DEFAULT / FSM_CATEGORIES; // 32
/** MaxFSMRequestSize = MaxHeapTupleSize: category 255 means at least this much. */
export const MaxFSMRequestSize = BLCKSZ_DEFAULT - maxAlign(SizeOfPageHeaderData + SizeOfItemIdData); // 8160

export const FSMPageData = register(
  defineStruct("FSMPageData", "src/include/storage/fsm_internals.h", [
    i32("fp_next_slot", "slot where the next search starts (round-robin hint)"),
    bytes("fp_nodes", NodesPerPage, "binary max-heap of categories: 4095 non-leaf nodes, then 4069 leaf nodes (the slots)"),
  ] as const),
);
export type FSMPageDataFields = InferStruct<typeof FSMPageData>;
if (FSMPageData.offsets.fp_nodes !== FP_NODES_OFFSET || FSM_PAGE_DATA_OFFSET + FSMPageData.size !== BLCKSZ_DEFAULT) throw new Error("FSMPageData layout");
const SLOTS_OFF = FSM_PAGE_DATA_OFFSET + FP_NODES_OFFSET + NonLeafNodesPerPage; // page offset of slot 0

/** fsm_space_cat_to_avail: the free bytes a category stands for. */
export const fsmCatToAvail = (cat: number): number => (cat === FSM_CATEGORIES - 1 ? MaxFSMRequestSize : cat * FSM_CAT_STEP);

/** fsm_space_avail_to_cat: the category recorded for `avail` free bytes (for writers). */
export function fsmAvailToCat(avail: number): number {
  if (avail >= MaxFSMRequestSize) return FSM_CATEGORIES - 1;
  return Math.min(Math.floor(avail / FSM_CAT_STEP), FSM_CATEGORIES - 2);
}

/** A logical FSM page: its level (0 = leaves) and its number within that level. */
export interface FSMAddress {
  level: number;
  logpageno: number;
}

/** fsm_logical_to_physical: the fork block holding a logical FSM page (depth-first layout). */
export function fsmLogicalToPhysical(addr: FSMAddress): number {
  // Number of the first leaf page below the given page.
  let leafno = addr.logpageno;
  for (let l = 0; l < addr.level; l++) leafno *= SlotsPerFSMPage;
  // Count the pages needed to address that leaf at every level, then drop the levels below ours.
  let pages = 0;
  for (let l = 0; l < FSM_TREE_DEPTH; l++) {
    pages += leafno + 1;
    leafno = Math.floor(leafno / SlotsPerFSMPage);
  }
  pages -= addr.level;
  return pages - 1;
}

/** The inverse of fsmLogicalToPhysical: which logical page a fork block holds. */
export function fsmPhysicalToLogical(blkno: number): FSMAddress {
  // Depth-first: a subtree rooted at level L occupies size(L) = 1 + SlotsPerFSMPage * size(L-1) blocks.
  let level = FSM_ROOT_LEVEL;
  let logpageno = 0;
  let rest = blkno;
  while (rest > 0) {
    rest -= 1; // the current page itself
    let sub = 1;
    for (let l = 1; l < level; l++) sub = 1 + SlotsPerFSMPage * sub; // size of one child subtree
    const child = Math.floor(rest / sub);
    if (child >= SlotsPerFSMPage) throw new RangeError(`FSM block ${blkno} is past the addressable tree`);
    rest -= child * sub;
    level -= 1;
    logpageno = logpageno * SlotsPerFSMPage + child;
  }
  return { level, logpageno };
}

/** fsm_get_location: the leaf page and slot that describe heap block `heapBlock`. */
export function fsmGetLocation(heapBlock: number): { addr: FSMAddress; slot: number } {
  return { addr: { level: FSM_BOTTOM_LEVEL, logpageno: Math.floor(heapBlock / SlotsPerFSMPage) }, slot: heapBlock % SlotsPerFSMPage };
}

/** The category recorded for a heap block; 0 when its FSM page is missing or new. */
export function fsmCategoryForHeapBlock(fsm: ForkPages, heapBlock: number): number {
  const { addr, slot } = fsmGetLocation(heapBlock);
  const page = forkPage(fsm, fsmLogicalToPhysical(addr));
  if (!page) return 0;
  return page[SLOTS_OFF + slot];
}

/** GetRecordedFreeSpace: free bytes recorded for a heap block, as pg_freespace(rel, blkno) reports it. */
export const fsmAvailForHeapBlock = (fsm: ForkPages, heapBlock: number): number => fsmCatToAvail(fsmCategoryForHeapBlock(fsm, heapBlock));

/** Categories of heap blocks 0..nHeapBlocks-1 (one byte each), reading each leaf page once. */
export function fsmCategoriesForHeapBlocks(fsm: ForkPages, nHeapBlocks: number): Uint8Array {
  const out = new Uint8Array(nHeapBlocks);
  for (let leaf = 0; leaf * SlotsPerFSMPage < nHeapBlocks; leaf++) {
    const page = forkPage(fsm, fsmLogicalToPhysical({ level: FSM_BOTTOM_LEVEL, logpageno: leaf }));
    if (!page) continue; // a missing leaf reads as 0; later leaves may still exist in a sparse page array
    const first = leaf * SlotsPerFSMPage;
    const n = Math.min(SlotsPerFSMPage, nHeapBlocks - first);
    out.set(page.subarray(SLOTS_OFF, SLOTS_OFF + n), first);
  }
  return out;
}

export interface FsmPage {
  blkno: number;
  address: FSMAddress;
  /** PageIsNew (all-zero): every node reads as 0 */
  isNew: boolean;
  header: PageHeader;
  fp_next_slot: number;
  /** all 8164 nodes */
  nodes: Uint8Array;
  /** the leaf nodes (nodes[4095..]): heap-block categories on level 0, child-page maxima above */
  slots: Uint8Array;
  /** nodes[0], the page's maximum */
  root: number;
  /** non-leaf nodes that are not the max of their children (the tree is a hint; PostgreSQL rebuilds it) */
  treeMismatches: number[];
}

/** Non-leaf nodes whose value is not the max of their children (children past the last node count as 0). */
export function fsmTreeMismatches(nodes: Uint8Array): number[] {
  const bad: number[] = [];
  for (let x = 0; x < NonLeafNodesPerPage; x++) {
    const l = 2 * x + 1;
    const r = l + 1;
    const want = Math.max(l < NodesPerPage ? nodes[l] : 0, r < NodesPerPage ? nodes[r] : 0);
    if (nodes[x] !== want) bad.push(x);
  }
  return bad;
}

/** Decode one FSM page (block `blkno` of the _fsm fork). */
export function decodeFsmPage(page: Uint8Array, blkno: number): FsmPage {
  if (page.length !== BLCKSZ_DEFAULT) {
    throw new FormatError("FSM_PAGE_SIZE", `free space map page is ${page.length} bytes, expected ${BLCKSZ_DEFAULT}`, { block: blkno });
  }
  const header = PageHeaderData.decode(page, 0);
  const data = FSMPageData.decode(page, FSM_PAGE_DATA_OFFSET);
  const nodes = data.fp_nodes;
  return {
    blkno,
    address: fsmPhysicalToLogical(blkno),
    isNew: header.pd_upper === 0,
    header,
    fp_next_slot: data.fp_next_slot,
    nodes,
    slots: nodes.subarray(NonLeafNodesPerPage),
    root: nodes[0],
    treeMismatches: fsmTreeMismatches(nodes),
  };
}
