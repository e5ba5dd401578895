// Visibility map fork (_vm): src/backend/access/heap/visibilitymap.c, src/include/access/visibilitymapdefs.h.
// Each map page is a standard page whose contents (from MAXALIGN(SizeOfPageHeaderData)) are a
// bitmap of 2 bits per heap block: 0x1 all-visible, 0x2 all-frozen; 4 heap blocks per byte.
// There is no special space and no struct beyond the page header.
import { maxAlign } from "../page/page.js";
import { PageHeaderData, SizeOfPageHeaderData, type PageHeader } from "../page/page-header.js";
import { BLCKSZ_DEFAULT } from "../page/page.js";
import { FormatError } from "../schema/errors.js";
import { forkPage, type ForkPages } from "./fork-pages.js";

export const VISIBILITYMAP_ALL_VISIBLE = 0x01;
export const VISIBILITYMAP_ALL_FROZEN = 0x02;
export const BITS_PER_HEAPBLOCK = 2;
export const HEAPBLOCKS_PER_BYTE = 4;
/** Offset of the bitmap within a map page. */
export const VM_MAP_OFFSET = maxAlign(SizeOfPageHeaderData); // 24
export const VM_MAPSIZE = BLCKSZ_DEFAULT - VM_MAP_OFFSET; // 8168
export const VM_HEAPBLOCKS_PER_PAGE = VM_MAPSIZE * HEAPBLOCKS_PER_BYTE; // 32672

export interface VmLocation {
  /** VM fork block */
  mapBlock: number;
  /** byte index within the bitmap (page offset is VM_MAP_OFFSET + mapByte) */
  mapByte: number;
  /** bit shift of the heap block's pair within that byte */
  mapOffset: number;
}

/** HEAPBLK_TO_MAPBLOCK / HEAPBLK_TO_MAPBYTE / HEAPBLK_TO_OFFSET. */
export function vmLocation(heapBlock: number): VmLocation {
  return {
    mapBlock: Math.floor(heapBlock / VM_HEAPBLOCKS_PER_PAGE),
    mapByte: Math.floor((heapBlock % VM_HEAPBLOCKS_PER_PAGE) / HEAPBLOCKS_PER_BYTE),
    mapOffset: (heapBlock % HEAPBLOCKS_PER_BYTE) * BITS_PER_HEAPBLOCK,
  };
}

export interface VmBits {
  all_visible: boolean;
  all_frozen: boolean;
}

/** The 2-bit status (0..3) of a heap block; 0 when the map page is missing or new. */
export function vmStatusForHeapBlock(vm: ForkPages, heapBlock: number): number {
  const loc = vmLocation(heapBlock);
  const page = forkPage(vm, loc.mapBlock);
  if (!page) return 0;
  return (page[VM_MAP_OFFSET + loc.mapByte] >>> loc.mapOffset) & 3;
}

/** visibilitymap_get_status for one heap block, as pg_visibility_map reports it. */
export function vmBitsForHeapBlock(vm: ForkPages, heapBlock: number): VmBits {
  const s = vmStatusForHeapBlock(vm, heapBlock);
  return { all_visible: (s & VISIBILITYMAP_ALL_VISIBLE) !== 0, all_frozen: (s & VISIBILITYMAP_ALL_FROZEN) !== 0 };
}

/** The 2-bit status of heap blocks 0..nHeapBlocks-1 (one byte each). */
export function vmStatusForHeapBlocks(vm: ForkPages, nHeapBlocks: number): Uint8Array {
  const out = new Uint8Array(nHeapBlocks);
  for (let mapBlock = 0; mapBlock * VM_HEAPBLOCKS_PER_PAGE < nHeapBlocks; mapBlock++) {
    const page = forkPage(vm, mapBlock);
    if (!page) continue; // a missing map page reads as 0 (page arrays may have holes)
    const first = mapBlock * VM_HEAPBLOCKS_PER_PAGE;
    const end = Math.min(nHeapBlocks, first + VM_HEAPBLOCKS_PER_PAGE);
    for (let h = first; h < end; h++) {
      const i = h - first;
      out[h] = (page[VM_MAP_OFFSET + (i >>> 2)] >>> ((i & 3) * 2)) & 3;
    }
  }
  return out;
}

export interface VmPage {
  mapBlock: number;
  /** first heap block this page covers */
  firstHeapBlock: number;
  /** PageIsNew (pd_upper 0, e.g. an all-zero page extended but never written) */
  isNew: boolean;
  header: PageHeader;
  /** 2-bit status of each covered heap block (VM_HEAPBLOCKS_PER_PAGE entries) */
  status: Uint8Array;
  allVisible: number;
  allFrozen: number;
  /** heap blocks marked all-frozen but not all-visible (PostgreSQL never sets that combination) */
  frozenNotVisible: number[];
}

/** Decode one map page (block `mapBlock` of the _vm fork). */
export function decodeVmPage(page: Uint8Array, mapBlock: number): VmPage {
  if (page.length !== BLCKSZ_DEFAULT) {
    throw new FormatError("VM_PAGE_SIZE", `visibility map page is ${page.length} bytes, expected ${BLCKSZ_DEFAULT}`, { block: mapBlock });
  }
  const header = PageHeaderData.decode(page, 0);
  const status = new Uint8Array(VM_HEAPBLOCKS_PER_PAGE);
  const firstHeapBlock = mapBlock * VM_HEAPBLOCKS_PER_PAGE;
  const frozenNotVisible: number[] = [];
  let allVisible = 0;
  let allFrozen = 0;
  for (let i = 0; i < VM_HEAPBLOCKS_PER_PAGE; i++) {
    const s = (page[VM_MAP_OFFSET + (i >>> 2)] >>> ((i & 3) * 2)) & 3;
    status[i] = s;
    if (s & VISIBILITYMAP_ALL_VISIBLE) allVisible++;
    if (s & VISIBILITYMAP_ALL_FROZEN) {
      allFrozen++;
      if (!(s & VISIBILITYMAP_ALL_VISIBLE)) frozenNotVisible.push(firstHeapBlock + i);
    }
  }
  return { mapBlock, firstHeapBlock, isNew: header.pd_upper === 0, header, status, allVisible, allFrozen, frozenNotVisible };
}
