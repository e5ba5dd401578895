// Writing the two map forks of a heap for a writer that appends pages: the visibility map with
// bits set for a range of heap blocks (visibilitymap_set; new map pages PageInit'ed as
// vm_extend does), and a whole free space map from one category per heap block (each FSM page's
// max-heap of categories filled as fsm_set_avail leaves it, upper levels holding the max of the
// page below, fp_next_slot 0). Pure: pages in, pages out; the caller writes and checksums them.
import { pageInit } from "../heap/page-builder.js";
import { BLCKSZ_DEFAULT, pageIsNew, pageView } from "../page/page.js";
import { FormatError } from "../schema/errors.js";
import { FSM_PAGE_DATA_OFFSET, FSM_ROOT_LEVEL, FSMPageData, fsmLogicalToPhysical, fsmPhysicalToLogical, NodesPerPage, NonLeafNodesPerPage, SlotsPerFSMPage } from "./fsm.js";
import { VM_MAP_OFFSET, vmLocation } from "./vm.js";

function assertDefaultBlockSize(blockSize: number, what: string): void {
  if (blockSize !== BLCKSZ_DEFAULT) throw new FormatError("BLOCK_SIZE_UNSUPPORTED", `${what} pages are written for ${BLCKSZ_DEFAULT}-byte blocks only, not ${blockSize}`);
}

/**
 * The visibility map after setting `bits` (VISIBILITYMAP_ALL_VISIBLE | _ALL_FROZEN) for heap
 * blocks [from, to): the existing map pages (copied; missing ones new), extended to cover `to`.
 */
export function vmWithBitsSet(existing: readonly Uint8Array[], from: number, to: number, bits: number, blockSize = BLCKSZ_DEFAULT): Uint8Array[] {
  assertDefaultBlockSize(blockSize, "visibility map");
  const out = existing.map((p) => p.slice());
  const need = to > 0 ? vmLocation(to - 1).mapBlock + 1 : 0;
  while (out.length < need) {
    const p = new Uint8Array(blockSize);
    pageInit(p);
    out.push(p);
  }
  for (let b = from; b < to; b++) {
    const loc = vmLocation(b);
    const page = out[loc.mapBlock];
    // a map page that was never initialized (all zero) is initialized as vm_readbuf does
    if (pageIsNew(pageView(page))) pageInit(page);
    page[VM_MAP_OFFSET + loc.mapByte] |= bits << loc.mapOffset;
  }
  return out;
}

const NODES_OFF = FSM_PAGE_DATA_OFFSET + FSMPageData.offsets.fp_nodes;

/** One FSM page holding `slots` (missing slots 0), its non-leaf nodes the max of their children. */
function fsmPage(slots: Uint8Array, blockSize: number): Uint8Array {
  const page = new Uint8Array(blockSize);
  pageInit(page);
  const nodes = page.subarray(NODES_OFF, NODES_OFF + NodesPerPage);
  nodes.set(slots.subarray(0, SlotsPerFSMPage), NonLeafNodesPerPage);
  for (let i = NonLeafNodesPerPage - 1; i >= 0; i--) {
    const l = 2 * i + 1;
    const r = l + 1;
    nodes[i] = Math.max(l < NodesPerPage ? nodes[l] : 0, r < NodesPerPage ? nodes[r] : 0);
  }
  return page;
}

/** The whole FSM fork (physical block order) for heap blocks with these categories. */
export function buildFsm(categories: Uint8Array, blockSize = BLCKSZ_DEFAULT): Uint8Array[] {
  assertDefaultBlockSize(blockSize, "free space map");
  if (categories.length === 0) return [];
  // slot values per level: level 0 the categories, level l+1 the max of each level-l page
  const levels: Uint8Array[] = [categories];
  for (let l = 0; l < FSM_ROOT_LEVEL; l++) {
    const below = levels[l];
    const up = new Uint8Array(Math.ceil(below.length / SlotsPerFSMPage));
    for (let i = 0; i < below.length; i++) if (below[i] > up[Math.floor(i / SlotsPerFSMPage)]) up[Math.floor(i / SlotsPerFSMPage)] = below[i];
    levels.push(up);
  }
  const lastLeaf = fsmLogicalToPhysical({ level: 0, logpageno: Math.ceil(categories.length / SlotsPerFSMPage) - 1 });
  const out: Uint8Array[] = [];
  for (let blk = 0; blk <= lastLeaf; blk++) {
    const { level, logpageno } = fsmPhysicalToLogical(blk);
    const start = logpageno * SlotsPerFSMPage;
    out.push(fsmPage(levels[level].subarray(start, start + SlotsPerFSMPage), blockSize));
  }
  return out;
}
