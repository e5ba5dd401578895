// PageHeaderData: src/include/storage/bufpage.h (PostgreSQL 15; unchanged through 18).
import { defineStruct, register, u16, u32, type InferStruct } from "../schema/index.js";

export const PageHeaderData = register(
  defineStruct("PageHeaderData", "src/include/storage/bufpage.h", [
    u32("pd_lsn_xlogid", "LSN of the last WAL record that changed the page: high 32 bits"),
    u32("pd_lsn_xrecoff", "LSN: low 32 bits"),
    u16("pd_checksum", "data checksum (pg_checksum_page), or 0 / stale when checksums are off"),
    u16("pd_flags", "PD_HAS_FREE_LINES 0x1 | PD_PAGE_FULL 0x2 | PD_ALL_VISIBLE 0x4"),
    u16("pd_lower", "offset to the start of free space (end of the line pointer array)"),
    u16("pd_upper", "offset to the end of free space (start of the last-added item)"),
    u16("pd_special", "offset to the special space (= page size when there is none)"),
    u16("pd_pagesize_version", "page size | layout version (0x2004 for 8 KiB, version 4)"),
    u32("pd_prune_xid", "oldest XID that may be prunable, 0 if none (a hint)"),
  ] as const),
);
export type PageHeader = InferStruct<typeof PageHeaderData>;

export const SizeOfPageHeaderData = PageHeaderData.size; // 24
export const PG_PAGE_LAYOUT_VERSION = 4;

export const PD_HAS_FREE_LINES = 0x0001;
export const PD_PAGE_FULL = 0x0002;
export const PD_ALL_VISIBLE = 0x0004;
export const PD_VALID_FLAG_BITS = 0x0007;

export const PD_FLAG_NAMES: [number, string][] = [
  [PD_HAS_FREE_LINES, "HAS_FREE_LINES"],
  [PD_PAGE_FULL, "PAGE_FULL"],
  [PD_ALL_VISIBLE, "ALL_VISIBLE"],
];

/** "X/Y" text form of an LSN, as pg_lsn prints it. */
export function lsnText(h: Pick<PageHeader, "pd_lsn_xlogid" | "pd_lsn_xrecoff">): string {
  return `${h.pd_lsn_xlogid.toString(16).toUpperCase()}/${h.pd_lsn_xrecoff.toString(16).toUpperCase()}`;
}
