// The catalog of every check `pgdisk verify` performs: one stable code per on-disk rule, its
// severity, what it means, how it is detected and which amcheck message (PostgreSQL 15
// contrib/amcheck, or the buffer manager / pg_checksums) reports the same problem.
// docs/checks.md is generated from this list (verify/checks-doc.ts) and a test keeps them equal;
// every finding the engine emits must name a code listed here (findings.ts enforces it).
import type { Severity } from "../schema/errors.js";

export type CheckArea = "relation" | "page" | "heap" | "hot" | "xid" | "toast" | "direct-toast" | "btree" | "btree-parent" | "heapallindexed" | "prefix" | "gin" | "hash" | "brin" | "gist" | "spgist" | "sequence";

export interface CheckInfo<C extends string = CheckCode> {
  code: C;
  severity: Severity;
  area: CheckArea;
  /** what is wrong when the check fires */
  meaning: string;
  /** how pgdisk detects it */
  detection: string;
  /** the amcheck / server message for the same problem, when there is one */
  amcheck?: string;
  /** version or wording notes on the amcheck side */
  note?: string;
}

type Row<C extends string> = readonly [code: C, severity: Severity, meaning: string, detection: string, amcheck?: string, note?: string];

const NBT = "verify_nbtree.c";
const VH = "verify_heapam.c";
const VG = "verify_gin.c (PostgreSQL 18)";

// `const C` keeps each row's code as a literal type, so CheckCode below is the union of them all.
function area<const C extends string>(a: CheckArea, rows: readonly Row<C>[]): CheckInfo<C>[] {
  return rows.map(([code, severity, meaning, detection, amcheck, note]) => ({ code, severity, area: a, meaning, detection, ...(amcheck ? { amcheck } : {}), ...(note ? { note } : {}) }));
}

const CHECK_ROWS = [
  ...area("relation", [
    ["REL_PARTIAL_BLOCK", "error", "a segment file ends with a partial block", "file size modulo BLCKSZ is not zero", "could not read block %u in file \"%s\": read %d of %d", "pg_checksums (fatal)"],
    ["REL_SHORT_READ", "error", "a block could not be read whole", "positioned read returned fewer than BLCKSZ bytes", "could not read block %u in file \"%s\": read %d of %d", "pg_checksums"],
    ["REL_FILE_MISSING", "error", "a relation named by the catalog has no file", "segment 0 of the main fork does not exist", "index \"%s\" lacks a main relation fork", `${NBT} (indexes); the server raises "could not open file" for tables`],
    ["REL_FILE_ORPHAN", "error", "a file in a relation directory is no fork segment of a relation pg_class names (its pg_class row lost, e.g. on a zeroed catalog page, or a stray file); its pages are checked as pg_checksums checks them", "the directory's files (pg_checksums' skip list aside) matched by name against pg_class relfilenodes (and pg_filenode.map), fork names and full preceding segments", undefined, "pg_checksums scans such files and fails on their partial blocks and checksums; amcheck never looks at them"],
    ["CATALOG_UNREADABLE", "error", "a catalog the checks use cannot be read at all (e.g. its own pg_class row is lost): the checks that need it fail on each relation", "reading pg_type, pg_attribute, pg_index, pg_opclass, pg_amproc, pg_collation and pg_enum once per database"],
    ["CATALOG_TUPLE_UNREADABLE", "error", "a catalog tuple cannot be decoded: it is left out of the catalog pgdisk reads (the relations it describes are not checked, and their files become REL_FILE_ORPHAN)", "the catalog scan's tuple decoding (line pointer bounds, attribute walk with the bootstrap descriptor)", undefined, "the server raises an error when it reads such a row"],
    ["CATALOG_INDEX_ROW_INVALID", "error", "an index's pg_index row does not fit its table (indkey NULL, of another length than indnatts, or naming a column the table does not have): heapallindexed is not run on it", "indkey checked against indnatts and the table's pg_attribute before the heap is probed", undefined, "the server would build index tuples from the wrong columns"],
    ["CATALOG_PAGE_NEW", "warning", "an all-zero page before a catalog's last page: valid for the server, but whatever rows it held are unknown (the relations they described show up as REL_FILE_ORPHAN)", "PageIsNew on a catalog page followed by a used page", undefined, "an all-zero page passes PageIsVerified and pg_checksums"],
    ["REL_DIR_UNREADABLE", "error", "a relation directory cannot be listed", "readdir of base/<oid>, global/ or a tablespace directory"],
    ["REL_VERIFY_FAILED", "error", "verification of the relation stopped on an unexpected decoding error", "an exception other than a finding escaped a check; the relation is reported, the run goes on"],
    ["REL_NOT_CHECKED_AM", "info", "only page-level checks apply to this access method (header and checksum of every page)", "relam is not heap, btree, GIN, hash, GiST, SP-GiST or BRIN and the relation is no sequence (an access method pgdisk does not know)", undefined, "pg_amcheck silently skips these relations"],
    ["REL_INDEX_NOT_VALID", "info", "the index is not valid (indisvalid false) and is not checked beyond its pages", "pg_index.indisvalid", "cannot check index \"%s\"", NBT],
    ["REL_NO_CATALOG", "info", "a lone file outside a cluster: no catalog, so no attribute walk, no XID horizons and no key order", "the file is not under a data directory with a readable catalog"],
    ["REL_FINDINGS_SUPPRESSED", "info", "more findings of one code than the per-relation limit; the rest were counted, not listed", "per-code counter in the finding sink"],
  ]),
  ...area("page", [
    ["PAGE_NEW_NOT_ZERO", "error", "pd_upper is 0 (a new page) but the page is not all zeros", "PageIsNew and a non-zero byte anywhere", "invalid page in block %u of relation %s", "bufmgr PageIsVerifiedExtended"],
    ["PAGE_CHECKSUM_MISMATCH", "error", "pd_checksum differs from pg_checksum_page computed with the relation-wide block number (a warning when the cluster was not cleanly shut down)", "FNV-based pg_checksum_page over the page with blkno = segno * RELSEG_SIZE + block", "checksum verification failed in file \"%s\", block %u: calculated checksum %X but block contains %X", "pg_checksums; the server says \"page verification failed, calculated checksum %u but expected %u\" and \"invalid page in block %u of relation %s\""],
    ["PAGE_BAD_FLAGS", "error", "pd_flags has bits outside PD_VALID_FLAG_BITS", "pd_flags & ~0x0007", "invalid page in block %u of relation %s", "bufmgr header check"],
    ["PAGE_BAD_LAYOUT_VERSION", "error", "pd_pagesize_version's low byte is not layout version 4", "pd_pagesize_version & 0xFF"],
    ["PAGE_BAD_SIZE", "error", "pd_pagesize_version names another page size than the cluster's BLCKSZ", "pd_pagesize_version & 0xFF00"],
    ["PAGE_LOWER_TOO_SMALL", "error", "pd_lower is inside the page header", "pd_lower < 24"],
    ["PAGE_LOWER_GT_UPPER", "error", "pd_lower > pd_upper", "header fields", "invalid page in block %u of relation %s", "bufmgr header check"],
    ["PAGE_UPPER_GT_SPECIAL", "error", "pd_upper > pd_special", "header fields", "invalid page in block %u of relation %s", "bufmgr header check"],
    ["PAGE_SPECIAL_BEYOND_PAGE", "error", "pd_special > BLCKSZ", "header fields", "invalid page in block %u of relation %s", "bufmgr header check"],
    ["PAGE_SPECIAL_NOT_ALIGNED", "error", "pd_special is not MAXALIGNed", "pd_special & 7", "invalid page in block %u of relation %s", "bufmgr header check"],
    ["PAGE_LOWER_NOT_ITEM_BOUNDARY", "error", "pd_lower does not end on a line pointer boundary", "(pd_lower - 24) % 4"],
    ["PAGE_SPECIAL_SIZE", "error", "the special space does not have the size of the relation's access method (heap 0, btree, hash and GiST 16, GIN, SP-GiST and BRIN 8)", "BLCKSZ - pd_special", "index \"%s\" contains corrupted page at block %u", `nbtpage.c _bt_checkpage (btree); heap pages have no amcheck check`],
    ["LP_UNUSED_NONZERO", "warning", "an LP_UNUSED line pointer has a non-zero offset or length", "lp_flags 0 with lp_off or lp_len set"],
    ["LP_REDIRECT_HAS_LENGTH", "error", "an LP_REDIRECT line pointer has a length", "lp_flags 2 with lp_len != 0"],
    ["LP_REDIRECT_OUT_OF_RANGE", "error", "a redirect names an item number outside 1..maxoff", "lp_off of an LP_REDIRECT", "line pointer redirection to item at offset %u exceeds maximum offset %u", `${VH}; below 1 it says "line pointer redirection to item at offset %u precedes minimum offset %u"`],
    ["LP_NORMAL_ZERO_LENGTH", "error", "an LP_NORMAL line pointer has no storage", "lp_flags 1 with lp_len 0", "invalid line pointer storage in index \"%s\"", `${NBT} (index pages)`],
    ["LP_NOT_ALIGNED", "error", "an item does not start at a MAXALIGNed offset", "lp_off & 7", "line pointer to page offset %u is not maximally aligned", VH],
    ["LP_OUTSIDE_ITEM_AREA", "error", "an item lies outside [pd_upper, pd_special)", "lp_off < pd_upper or lp_off + lp_len > pd_special", "line pointer to page offset %u with length %u ends beyond maximum page offset %u", `${VH} (beyond BLCKSZ); ${NBT}: "line pointer points past end of tuple space in index \\"%s\\""`],
    ["LP_TOO_SHORT", "error", "a heap item is shorter than MAXALIGN(SizeofHeapTupleHeader) = 24", "lp_len of an LP_NORMAL heap item", "line pointer length %u is less than the minimum tuple header size %u", VH],
    ["LP_OVERLAP", "error", "two items' storage overlaps", "items sorted by lp_off, each compared with the previous end", undefined, "amcheck does not check overlapping tuples"],
    ["BT_LP_INVALID_STORAGE", "error", "an index line pointer is LP_UNUSED or LP_REDIRECT (nbtree uses neither)", "lp_flags of index items", "invalid line pointer storage in index \"%s\"", NBT],
    ["IDX_LP_INVALID_STATE", "error", "a line pointer of a hash, GiST, GIN, SP-GiST or BRIN item page is in a state its access method never leaves: LP_REDIRECT (no index AM uses it), LP_DEAD in GIN, SP-GiST or BRIN (they never kill items), LP_DEAD without storage, or LP_UNUSED outside BRIN (the others compact the page on delete)", "lp_flags and lp_len of every item of the AM's item pages (hash bucket and overflow, GiST leaf and internal, GIN entry and pending-list, SP-GiST inner and leaf, BRIN regular pages)", undefined, "amcheck has no checks for these access methods (PostgreSQL 18's gin_index_check does not look at line pointer states)"],
  ]),
  ...area("heap", [
    ["HEAP_REDIRECT_TO_UNUSED", "error", "a redirect line pointer points to an unused item", "lp_flags of the redirect target", "line pointer redirection to unused item at offset %u", `${VH} (PG15 wording; PG16+: "redirected line pointer points to an unused item at offset %u")`],
    ["HEAP_REDIRECT_TO_DEAD", "error", "a redirect line pointer points to a dead item", "lp_flags of the redirect target", "redirected line pointer points to a dead item at offset %u", `${VH} PG16+`],
    ["HEAP_REDIRECT_TO_REDIRECT", "error", "a redirect line pointer points to another redirect", "lp_flags of the redirect target", "redirected line pointer points to another redirected line pointer at offset %u", `${VH} PG16+`],
    ["HEAP_HOFF_BEYOND_TUPLE", "error", "t_hoff is beyond the item's length", "t_hoff > lp_len", "data begins at offset %u beyond the tuple length %u", VH],
    ["HEAP_MULTIXACT_COMMITTED", "error", "HEAP_XMAX_COMMITTED together with HEAP_XMAX_IS_MULTI", "t_infomask", "multixact should not be marked committed", VH],
    ["HEAP_XMAX_COMMITTED_AND_INVALID", "error", "HEAP_XMAX_COMMITTED together with HEAP_XMAX_INVALID (the deleter both committed and did not)", "t_infomask", "tuple marked as datum tuple in table", "added to amcheck in 15.19/15.20, which words it so; pg_amcheck 15.20 reports it for exactly these two bits (test/verify/tap-heapam.test.ts)"],
    ["HEAP_HOT_UPDATED_XMAX_ZERO", "error", "HEAP_HOT_UPDATED with no updating transaction", "t_infomask2 & HEAP_HOT_UPDATED and update xid 0", "tuple has been HOT updated, but xmax is 0", `${VH} PG16+`],
    ["HEAP_ONLY_NOT_UPDATED", "error", "HEAP_ONLY_TUPLE without HEAP_UPDATED", "t_infomask2 & HEAP_ONLY_TUPLE, t_infomask & HEAP_UPDATED", "tuple is heap only, but not the result of an update", `${VH} PG16+`],
    ["HEAP_BAD_T_HOFF", "error", "t_hoff differs from MAXALIGN(23 + BITMAPLEN(natts)) (or 24 without nulls)", "t_hoff, natts and HEAP_HASNULL", "tuple data should begin at byte %u, but actually begins at byte %u (%u attributes, has nulls)", `${VH}; four variants: "1 attribute"/"%u attributes", "has nulls"/"no nulls"`],
    ["HEAP_NATTS_EXCEEDS_DESCRIPTOR", "error", "the tuple has more attributes than the relation (pg_class.relnatts / pg_attribute)", "t_infomask2 & HEAP_NATTS_MASK vs the catalog descriptor", "number of attributes %u exceeds maximum expected for table %u", VH],
    ["HEAP_ATTR_STARTS_BEYOND", "error", "an attribute starts beyond the tuple's end", "attribute walk with the catalog descriptor (heap_deform_tuple's alignment rules)", "attribute with length %u starts at offset %u beyond total tuple length %u", VH],
    ["HEAP_ATTR_ENDS_BEYOND", "error", "an attribute ends beyond the tuple's end", "attribute walk", "attribute with length %u ends at offset %u beyond total tuple length %u", VH],
    ["HEAP_TOAST_BAD_TAG", "error", "an external datum has a vartag other than VARTAG_ONDISK (18) or VARTAG_DIRECT (19)", "byte after the 0x01 external header", "toasted attribute has unexpected TOAST tag %u", `${VH} (which also rejects 19, the Direct TOAST tag stock servers do not know)`],
    ["HEAP_EXTERNAL_WITHOUT_FLAG", "error", "a tuple holds a TOAST pointer but HEAP_HASEXTERNAL is clear", "t_infomask", "toast value %u is external but tuple header flag HEAP_HASEXTERNAL not set", VH],
    ["HEAP_EXTERNAL_NO_TOAST_REL", "error", "a tuple holds a TOAST pointer but the relation has no TOAST relation", "pg_class.reltoastrelid = 0", "toast value %u is external but relation has no toast relation", VH],
    ["HEAP_VARLENA_BAD_HEADER", "error", "a 4-byte varlena header gives a length smaller than its own header", "VARSIZE < 4 (8 when compressed)", undefined, "amcheck walks on with the bad length"],
  ]),
  ...area("hot", [
    ["HEAP_REDIRECT_TO_NON_HOT", "error", "a redirect points to a tuple that is not heap-only", "HEAP_ONLY_TUPLE of the redirect target", "redirected line pointer points to a non-heap-only tuple at offset %u", `${VH} PG16+`],
    ["HEAP_REDIRECT_CHAINS_INTERSECT", "error", "two update chains reach the same tuple through a redirect", "predecessor array per page", "redirect line pointer points to offset %u, but offset %u also points there", `${VH} PG16+`],
    ["HEAP_UPDATE_CHAINS_INTERSECT", "error", "two tuples claim the same newer version", "t_ctid and xmax = next xmin, predecessor array", "tuple points to new version at offset %u, but offset %u also points there", `${VH} PG16+`],
    ["HEAP_NON_HOT_UPDATE_MADE_HOT", "error", "a tuple not marked HEAP_HOT_UPDATED has a heap-only successor", "infomask2 of both chain members", "non-heap-only update produced a heap-only tuple at offset %u", `${VH} PG16+`],
    ["HEAP_HOT_UPDATE_MADE_NON_HOT", "error", "a HEAP_HOT_UPDATED tuple has a successor that is not heap-only", "infomask2 of both chain members", "heap-only update produced a non-heap only tuple at offset %u", `${VH} PG16+`],
    ["HEAP_ABORTED_XMIN_UPDATED_TO_COMMITTED", "error", "a tuple whose inserter aborted was updated by a committed transaction", "pg_xact status of both xmins", "tuple with aborted xmin %u was updated to produce a tuple at offset %u with committed xmin %u", `${VH} PG16+`],
    ["HEAP_ABORTED_XMIN_UPDATED_TO_IN_PROGRESS", "error", "a tuple whose inserter aborted was updated by an in-progress transaction", "pg_xact status of both xmins", "tuple with aborted xmin %u was updated to produce a tuple at offset %u with in-progress xmin %u", `${VH} PG16+; offline "in progress" means never committed nor aborted in pg_xact`],
    ["HEAP_IN_PROGRESS_XMIN_UPDATED_TO_COMMITTED", "error", "an uncommitted tuple was updated by a committed transaction", "pg_xact status of both xmins", "tuple with in-progress xmin %u was updated to produce a tuple at offset %u with committed xmin %u", `${VH} PG16+`],
    ["HEAP_CHAIN_ROOT_IS_HEAP_ONLY", "error", "a heap-only tuple that nothing points to (the root of a chain must not be heap-only)", "predecessor array after the chain pass", "tuple is root of chain but is marked as heap-only tuple", `${VH} PG16+`],
  ]),
  ...area("xid", [
    ["HEAP_XMIN_IN_FUTURE", "error", "xmin is at or after pg_control's nextXid", "full XID from nextXid's epoch", "xmin %u equals or exceeds next valid transaction ID %u:%u", VH],
    ["HEAP_XMIN_BEFORE_CLUSTER_MIN", "error", "xmin precedes pg_control's oldestXid", "full XID comparison", "xmin %u precedes oldest valid transaction ID %u:%u", VH],
    ["HEAP_XMIN_BEFORE_RELFROZENXID", "error", "xmin precedes pg_class.relfrozenxid", "full XID comparison", "xmin %u precedes relation freeze threshold %u:%u", VH],
    ["HEAP_XVAC_INVALID", "error", "an old-style VACUUM FULL moved tuple has xvac 0", "HEAP_MOVED_OFF/IN with t_field3 = 0", "old-style VACUUM FULL transaction ID for moved off tuple is invalid", `${VH}; also "moved in"`],
    ["HEAP_XVAC_IN_FUTURE", "error", "xvac is at or after nextXid", "full XID comparison", "old-style VACUUM FULL transaction ID %u for moved off tuple equals or exceeds next valid transaction ID %u:%u", `${VH}; also "moved in"`],
    ["HEAP_XVAC_BEFORE_RELFROZENXID", "error", "xvac precedes relfrozenxid", "full XID comparison", "old-style VACUUM FULL transaction ID %u for moved off tuple precedes relation freeze threshold %u:%u", `${VH}; also "moved in"`],
    ["HEAP_XVAC_BEFORE_CLUSTER_MIN", "error", "xvac precedes oldestXid", "full XID comparison", "old-style VACUUM FULL transaction ID %u for moved off tuple precedes oldest valid transaction ID %u:%u", `${VH}; also "moved in"`],
    ["HEAP_XVAC_IN_PROGRESS", "error", "xvac never committed nor aborted in pg_xact", "pg_xact status 0 for an xid below nextXid in a stopped cluster", "old-style VACUUM FULL transaction ID %u for moved off tuple appears to be in progress", `${VH}; "matches our current transaction ID" cannot happen offline`],
    ["HEAP_MXID_INVALID", "error", "HEAP_XMAX_IS_MULTI with xmax 0", "t_xmax", "multitransaction ID is invalid", VH],
    ["HEAP_MXID_BEFORE_RELMINMXID", "error", "the MultiXactId precedes pg_class.relminmxid", "modulo-2^32 comparison", "multitransaction ID %u precedes relation minimum multitransaction ID threshold %u", VH],
    ["HEAP_MXID_BEFORE_CLUSTER_MIN", "error", "the MultiXactId precedes pg_control's oldestMulti", "modulo-2^32 comparison", "multitransaction ID %u precedes oldest valid multitransaction ID threshold %u", VH],
    ["HEAP_MXID_IN_FUTURE", "error", "the MultiXactId is at or after pg_control's nextMulti", "modulo-2^32 comparison", "multitransaction ID %u equals or exceeds next valid multitransaction ID %u", VH],
    ["HEAP_UPDATE_XID_INVALID", "error", "a MultiXact xmax that is not lock-only has no update member", "pg_multixact offsets and members", "update xid is invalid", VH],
    ["HEAP_UPDATE_XID_IN_FUTURE", "error", "the MultiXact's update xid is at or after nextXid", "full XID comparison", "update xid %u equals or exceeds next valid transaction ID %u:%u", VH],
    ["HEAP_UPDATE_XID_BEFORE_RELFROZENXID", "error", "the MultiXact's update xid precedes relfrozenxid", "full XID comparison", "update xid %u precedes relation freeze threshold %u:%u", VH],
    ["HEAP_UPDATE_XID_BEFORE_CLUSTER_MIN", "error", "the MultiXact's update xid precedes oldestXid", "full XID comparison", "update xid %u precedes oldest valid transaction ID %u:%u", VH],
    ["HEAP_XMAX_IN_FUTURE", "error", "xmax is at or after nextXid", "full XID comparison", "xmax %u equals or exceeds next valid transaction ID %u:%u", VH],
    ["HEAP_XMAX_BEFORE_RELFROZENXID", "error", "xmax precedes relfrozenxid", "full XID comparison", "xmax %u precedes relation freeze threshold %u:%u", VH],
    ["HEAP_XMAX_BEFORE_CLUSTER_MIN", "error", "xmax precedes oldestXid", "full XID comparison", "xmax %u precedes oldest valid transaction ID %u:%u", VH],
    ["MULTIXACT_UNREADABLE", "warning", "the members of a MultiXactId could not be read from pg_multixact", "offsets/members SLRU segment missing or short"],
  ]),
  ...area("toast", [
    ["TOAST_NOT_CHECKED", "info", "the table's TOAST pointers are not followed: its TOAST relation has no pg_class row or no file (that relation's own check reports the missing file)", "pg_class.reltoastrelid without a readable TOAST relation"],
    ["TOAST_RAWSIZE_TOO_LARGE", "error", "a TOAST pointer's va_rawsize exceeds 0x3FFFFFFF", "va_rawsize", "toast value %u rawsize %d exceeds limit %d", VH],
    ["TOAST_BAD_COMPRESSION_METHOD", "error", "a compressed value names a method other than pglz (0) or lz4 (1)", "top 2 bits of va_extinfo / va_tcinfo", "toast value %u has invalid compression method id %d", `${VH} (external values; pgdisk checks inline values too)`],
    ["TOAST_EXTSIZE_EXCEEDS_RAWSIZE", "error", "a pointer's stored size exceeds va_rawsize - 4", "va_extinfo & 0x3FFFFFFF vs va_rawsize"],
    ["TOAST_POINTER_BAD_RELID", "error", "va_toastrelid is not the parent's TOAST relation", "pointer vs pg_class.reltoastrelid"],
    ["TOAST_VALUE_MISSING", "error", "no chunk of the value exists", "chunk map of the TOAST heap (the index scan's order: chunk_id, chunk_seq)", "toast value %u not found in toast table", VH],
    ["TOAST_CHUNK_NULL_SEQ", "error", "a chunk has a NULL chunk_seq", "null bitmap of the chunk tuple", "toast value %u has toast chunk with null sequence number", VH],
    ["TOAST_CHUNK_UNEXPECTED_SEQ", "error", "a chunk is missing, duplicated or out of order", "chunks in (chunk_seq, TID) order compared with the running expectation", "toast value %u index scan returned chunk %d when expecting chunk %d", VH],
    ["TOAST_CHUNK_NULL_DATA", "error", "a chunk has NULL chunk_data", "null bitmap of the chunk tuple", "toast value %u chunk %d has null data", VH],
    ["TOAST_CHUNK_BAD_VARLENA", "error", "chunk_data is compressed or external", "varlena header of chunk_data", "toast value %u chunk %d has invalid varlena header %0x", VH],
    ["TOAST_CHUNK_EXTRA", "error", "a chunk follows the last one the value's size allows", "chunk_seq > (extsize - 1) / TOAST_MAX_CHUNK_SIZE", "toast value %u chunk %d follows last expected chunk %d", VH],
    ["TOAST_CHUNK_BAD_SIZE", "error", "a chunk's data has the wrong length", "TOAST_MAX_CHUNK_SIZE for all but the last chunk, the remainder for the last", "toast value %u chunk %d has size %u, but expected size %u", VH],
    ["TOAST_VALUE_TRUNCATED", "error", "the value's chunks end early", "last chunk seen vs (extsize - 1) / TOAST_MAX_CHUNK_SIZE", "toast value %u was expected to end at chunk %d, but ended while expecting chunk %d", VH],
    ["TOAST_DECOMPRESS_FAILED", "error", "a compressed value (external or inline) does not decompress", "pglz/lz4 decoder over the stored bytes; detail names the decoder's own code and offset", undefined, "amcheck checks only the method id, never the compressed bytes"],
    ["TOAST_RAWSIZE_MISMATCH", "error", "a compressed value decompresses to another size than its header says", "decompressed length vs va_rawsize - 4 / va_tcinfo"],
  ]),
  ...area("direct-toast", [
    ["DTOAST_POINTER_BAD_SIZE", "error", "a direct pointer's stored size is 0 or exceeds va_rawsize - 4", "va_extinfo & 0x3FFFFFFF (new-formats.md §1.5)"],
    ["DTOAST_POINTER_BAD_METHOD", "error", "a direct pointer's method bits are not 0/1, or are set on an uncompressed value", "va_extinfo >> 30 (§1.5)"],
    ["DTOAST_POINTER_BAD_TCINFO", "error", "a compressed direct value's first 4 stored bytes (va_tcinfo) disagree with the pointer", "raw size va_rawsize - 4 and the same method; stored size >= 5 (§1.5)"],
    ["DTOAST_ROOT_INVALID", "error", "va_tid names a block beyond the TOAST relation or an item that is not a used LP_NORMAL line pointer", "TOAST relation size and line pointers (§1.5)"],
    ["DTOAST_CHILD_INVALID", "error", "a chunk_tids entry names a block beyond the relation or an item that is not a used LP_NORMAL line pointer", "line pointers of the child (§1.5)"],
    ["DTOAST_CHUNK_HAS_ID", "error", "a chunk reached through a direct pointer has a non-NULL chunk_id", "null bitmap bit 0 (§1.2)"],
    ["DTOAST_CHUNK_ID_ZERO", "warning", "a direct chunk uses chunk_id 0 (the v1 convention); an error when the TOAST index is partial on chunk_id IS NOT NULL", "chunk_id value and pg_index.indpred of the TOAST index (§1.5)"],
    ["DTOAST_CHUNK_BAD_NATTS", "error", "a chunk's natts is outside 3..5, a root has fewer than 4 or an internal node fewer than 5", "t_infomask2 & HEAP_NATTS_MASK (§1.2)"],
    ["DTOAST_CHUNK_BAD_TUPLE", "error", "a chunk tuple cannot be walked with the five-attribute chunk descriptor", "attribute walk of the chunk (§1.2)"],
    ["DTOAST_TIER_MISMATCH", "error", "the chunk shapes do not match the tier n = ceil(stored size / 1996) calls for (single, flat 2..100, tree > 100)", "presence of chunk_tids / chunk_tid_offsets on the root (§1.3)"],
    ["DTOAST_CHUNK_BAD_SEQ", "error", "chunk_seq is not what the tier prescribes (slice index, n - 1 for a flat root, -level for internal nodes)", "chunk_seq (§1.3)"],
    ["DTOAST_SLICE_BAD_SIZE", "error", "a chunk's data length is not its slice's length (internal nodes: empty)", "len(chunk_data) vs min(1996, S - 1996 i) (§1.3)"],
    ["DTOAST_ARRAY_MALFORMED", "error", "chunk_tids or chunk_tid_offsets is not a 1-D, lower-bound-1, NULL-free array of tid / int8, or their lengths differ", "ArrayType header (§1.2)"],
    ["DTOAST_OFFSETS_BAD", "error", "chunk_tid_offsets are not strictly increasing or differ from the cumulative slice sizes", "offsets vs bytes actually under each child (§1.3)"],
    ["DTOAST_FLAT_ROOT_TID_COUNT", "error", "a flat root does not list exactly n - 1 TIDs", "dims[0] of chunk_tids (§1.3)"],
    ["DTOAST_NODE_FANOUT", "error", "an internal node has no children or more than 50", "dims[0] of chunk_tids (§1.3)"],
    ["DTOAST_NODE_BAD_LEVEL", "error", "a child is not one level down, or a leaf is not at depth L (the smallest L with 50^L >= n)", "chunk_seq of children, depth of leaves (§1.3)"],
    ["DTOAST_TOTAL_SIZE", "error", "the slices add up to another size than the pointer's stored size", "sum of chunk_data lengths (§1.5)"],
    ["DTOAST_CHUNK_SHARED", "error", "a chunk is reached from two different roots", "cluster of visited TIDs per TOAST relation (§1.5)"],
    ["DTOAST_TID_REVISITED", "error", "a TID is visited twice within one value", "visited set during the value's walk (§1.5)"],
    ["DTOAST_ROOT_SHARED", "error", "two pointers name the same root but describe different values", "pointer fields of every pointer naming a root (§1.3)"],
    ["DTOAST_SHORT_VARLENA", "warning", "a direct chunk stores chunk_data, chunk_tids or chunk_tid_offsets with a 1-byte header (readable; writers use 4-byte headers)", "varlena header form (§1.2)"],
    ["DTOAST_UNREACHABLE_LIVE", "warning", "a live direct chunk (xmin committed, xmax invalid or aborted) is reached from no pointer", "all chunk_id-NULL chunks of the TOAST relation minus the reached ones (§1.5)"],
    ["DTOAST_UNREACHABLE_DEAD", "info", "a dead or aborted direct chunk is reached from no pointer (waits for VACUUM)", "as above, chunk not live (§1.5)"],
  ]),
  ...area("btree", [
    ["BT_META_CORRUPT", "error", "block 0 is not a btree metapage (no BTP_META or a wrong magic)", "BTPageOpaqueData.btpo_flags, btm_magic", "index \"%s\" meta page is corrupt", NBT],
    ["BT_META_VERSION", "error", "btm_version is outside 2..4", "btm_version", "version mismatch in index \"%s\": file version %d, current version %d, minimal supported version %d", "nbtpage.c _bt_metaversion, which amcheck reaches first; verify_nbtree.c's own copy says \"minimum supported version\""],
    ["BT_META_EQUALIMAGE_OLD_VERSION", "error", "btm_allequalimage is set on an index older than version 4", "metapage fields", "index \"%s\" metapage has equalimage field set on unsupported nbtree version", NBT],
    ["BT_META_EQUALIMAGE_WRONG", "error", "btm_allequalimage is set but a key opclass has no equalimage support (numeric, float, interval, arrays, jsonb, ...)", "opclass input types vs PostgreSQL 15's BTEQUALIMAGE_PROC list", "index \"%s\" metapage incorrectly indicates that deduplication is safe", NBT],
    ["BT_META_PAGE_ELSEWHERE", "error", "a page other than block 0 has BTP_META", "btpo_flags", "invalid meta page found at block %u in index \"%s\"", NBT],
    ["BT_ZERO_PAGE", "error", "the tree walk reached an all-zero page", "PageIsNew of a page named by a link", "index \"%s\" contains unexpected zero page at block %u", "nbtpage.c _bt_checkpage"],
    ["BT_LEAF_LEVEL_NONZERO", "error", "a leaf page has btpo_level != 0", "btpo_level, btpo_flags", "invalid leaf page level %u for block %u in index \"%s\"", NBT],
    ["BT_INTERNAL_LEVEL_ZERO", "error", "an internal page has btpo_level 0", "btpo_level, btpo_flags", "invalid internal page level 0 for block %u in index \"%s\"", NBT],
    ["BT_TOO_MANY_ITEMS", "error", "more line pointers than MaxIndexTuplesPerPage", "PageGetMaxOffsetNumber", "Number of items on block %u of index \"%s\" exceeds MaxIndexTuplesPerPage (%u)", NBT],
    ["BT_INTERNAL_TOO_FEW_ITEMS", "error", "an internal page lacks its high key or its negative-infinity downlink", "maxoff < P_FIRSTDATAKEY", "internal block %u in index \"%s\" lacks high key and/or at least one downlink", NBT],
    ["BT_LEAF_NO_HIGHKEY", "error", "a non-rightmost leaf has no high key", "maxoff < P_HIKEY", "non-rightmost leaf block %u in index \"%s\" lacks high key item", NBT],
    ["BT_INTERNAL_HALF_DEAD", "error", "an internal page is half-dead", "btpo_flags", "internal page block %u in index \"%s\" is half-dead", NBT],
    ["BT_INTERNAL_HAS_GARBAGE", "error", "an internal page has BTP_HAS_GARBAGE", "btpo_flags", "internal page block %u in index \"%s\" has garbage items", NBT],
    ["BT_FULLXID_NOT_DELETED", "error", "BTP_HAS_FULLXID on a page that is not deleted", "btpo_flags", "full transaction id page flag appears in non-deleted block %u in index \"%s\"", NBT],
    ["BT_DELETED_HALF_DEAD", "error", "a page is both deleted and half-dead", "btpo_flags", "deleted page block %u in index \"%s\" is half-dead", NBT],
    ["BT_HIGHKEY_NATTS", "error", "the high key has the wrong number of attributes", "_bt_check_natts rules on P_HIKEY", "wrong number of high key index tuple attributes in index \"%s\"", NBT],
    ["BT_TUPLE_SIZE_LP_LEN", "error", "IndexTupleSize differs from lp_len", "t_info & 0x1FFF vs lp_len", "index tuple size does not equal lp_len in index \"%s\"", NBT],
    ["BT_TUPLE_NATTS", "error", "a tuple has the wrong number of attributes for its position (pivot/non-pivot, truncation, posting with INCLUDE)", "_bt_check_natts rules", "wrong number of index tuple attributes in index \"%s\"", NBT],
    ["BT_POSTING_MISPLACED_TID", "error", "posting list TIDs are not strictly ascending", "ItemPointerCompare of neighbours", "posting list contains misplaced TID in index \"%s\"", NBT],
    ["BT_POSTING_OUT_OF_TUPLE", "error", "a posting list extends beyond its tuple", "posting offset + 6 n vs IndexTupleSize"],
    ["BT_TUPLE_TOO_LARGE", "error", "a tuple exceeds BTMaxItemSize (BTMaxItemSizeNoHeapTid for pivots without a heap TID)", "IndexTupleSize", "index row size %zu exceeds maximum for index \"%s\"", NBT],
    ["BT_TUPLE_UNDECODABLE", "error", "a tuple's key attributes cannot be walked with the index descriptor", "attribute walk of the index tuple"],
    ["BT_UNEXPECTED_PIVOT", "error", "a pivot tuple where a non-pivot one belongs", "INDEX_ALT_TID_MASK without BT_IS_POSTING on a leaf data item", "block %u or its right sibling block or child block in index \"%s\" has unexpected pivot tuple", NBT],
    ["BT_UNEXPECTED_NON_PIVOT", "error", "a non-pivot tuple where a pivot belongs", "high keys and internal items", "block %u or its right sibling block or child block in index \"%s\" has unexpected non-pivot tuple", NBT],
    ["BT_NON_PIVOT_NO_HEAP_TID", "error", "a non-pivot tuple has an invalid heap TID", "ItemPointerIsValid", "block %u or its right sibling block or child block in index \"%s\" contains non-pivot tuple that lacks a heap TID", NBT],
    ["BT_DELETED_REACHED", "error", "a sibling link or downlink leads to a deleted page", "btpo_flags of the page reached", "downlink or sibling link points to deleted block in index \"%s\"", NBT],
    ["BT_FELL_OFF_END", "error", "the rightmost page of a level is deleted or half-dead", "P_IGNORE and P_RIGHTMOST", "block %u fell off the end of index \"%s\"", NBT],
    ["BT_NOT_LEFTMOST", "error", "the first page of a level has a left sibling (other than half-dead pages)", "btpo_prev of the level's first page", "block %u is not leftmost in index \"%s\"", NBT],
    ["BT_NOT_TRUE_ROOT", "error", "the metapage's root lacks BTP_ROOT", "btpo_flags of btm_root", "block %u is not true root in index \"%s\"", NBT],
    ["BT_LEVEL_MISMATCH", "error", "a page on a level has another btpo_level", "btpo_level vs the level being walked", "leftmost down link for level points to block in index \"%s\" whose level is not one level down", NBT],
    ["BT_CIRCULAR_LINK", "error", "sibling links form a cycle", "block equal to its left neighbour or its own btpo_prev", "circular link chain found in block %u of index \"%s\"", NBT],
    ["BT_SIBLING_MISMATCH", "error", "a page's btpo_prev is not the page whose btpo_next led to it", "left/right link pair", "left link/right link pair in index \"%s\" not in agreement", NBT],
    ["BT_NO_PAGES_ON_LEVEL", "error", "a level has no live page", "level walk", "index \"%s\" has no valid pages on level below %u or first level", NBT],
    ["BT_LINK_OUT_OF_RANGE", "error", "a sibling link, downlink or root points beyond the end of the index", "block number vs relation size", "could not read block %u in file \"%s\"", "the server's smgr error"],
    ["BT_ORDER_NOT_CHECKED", "info", "key order cannot be checked offline for some key columns (the operator family's support function 1 is not one pgdisk implements, e.g. a user-defined opclass, or a collation without an on-disk comparator); structure checks still ran", "the comparator is that of the opclass's operator family's support function 1 in pg_amproc; pgdisk implements PostgreSQL 15's built-in comparison functions of bool, int2/4/8, oid, tid, oidvector, char, float4/8, numeric, money, date, time, timetz, timestamp(tz), interval, uuid, macaddr(8), pg_lsn, xid8, bytea, inet/cidr, bit/varbit, tsvector, tsquery, and text/varchar/bpchar/name under C or POSIX collation (the *_pattern_ops under any); and, with facts read from the catalog, enums (enum_cmp: OIDs, else pg_enum.enumsortorder), arrays (btarraycmp with the element type's default comparator under the index collation), ranges and multiranges (range_cmp, multirange_cmp with pg_range's subtype opclass and collation) and composite types (btrecordcmp with each attribute's default comparator; not over collatable attributes) wherever their parts are comparable. jsonb (jsonb_cmp) when the database's default collation is C or POSIX. Not compared: text-like values under other collations"],
    ["BT_HIGHKEY_VIOLATED", "error", "an item is above its page's high key (leaf: >, internal: >=)", "on-disk key comparators with heap TID tiebreak", "high key invariant violated for index \"%s\"", NBT],
    ["BT_ITEM_ORDER", "error", "an item is not below the next item", "on-disk key comparators with heap TID tiebreak", "item order invariant violated for index \"%s\"", NBT],
    ["BT_CROSS_PAGE_ORDER", "error", "a page's last item is not below the right sibling's first item", "on-disk key comparators", "cross page item order invariant violated for index \"%s\"", NBT],
    ["BT_ROOTDESCEND_NOT_FOUND", "error", "a leaf tuple cannot be found by a search from the root", "binary search down the tree with the on-disk comparators (--rootdescend)", "could not find tuple using search from root page in index \"%s\"", NBT],
  ]),
  ...area("btree-parent", [
    ["BT_DOWNLINK_LOWER_BOUND", "error", "a child item is not above the parent's separator key", "on-disk key comparators", "down-link lower bound invariant violated for index \"%s\"", NBT],
    ["BT_DOWNLINK_TO_DELETED", "error", "a downlink names a deleted page", "btpo_flags of the child", "downlink to deleted page found in index \"%s\"", NBT],
    ["BT_CANT_TRAVERSE", "error", "the child level's right links do not lead from one downlink to the next", "walk of the child level between downlinks", "can't traverse from downlink %u to downlink %u of index \"%s\"", NBT],
    ["BT_FIRST_CHILD_NOT_LEFTMOST", "error", "the first child of the leftmost parent has a left sibling", "btpo_prev of the child", "the first child of leftmost target page is not leftmost of its level in index \"%s\"", NBT],
    ["BT_CHILD_LEVEL_INVALID", "error", "a child-level page is not one level below its parent", "btpo_level", "block found while following rightlinks from child of index \"%s\" has invalid level", NBT],
    ["BT_CHILD_HIGHKEY_GT_PARENT", "error", "a child has a high key where its parent has no more pivots", "child walk past the parent's last downlink", "child high key is greater than rightmost pivot key on target level in index \"%s\"", NBT],
    ["BT_NO_LEFT_SIBLING_HIGHKEY", "error", "the left uncle's high key needed to match a child high key is missing", "low key bookkeeping", "can't find left sibling high key in index \"%s\"", NBT],
    ["BT_PARENT_HIGHKEY_MISMATCH", "error", "a child's high key is not byte-identical to the parent's next separator", "bt_pivot_tuple_identical: bytes from ip_posid to IndexTupleSize", "mismatch between parent key and child high key in index \"%s\"", NBT],
    ["BT_LEAF_LACKS_DOWNLINK", "error", "a leaf page has no downlink in its parent (and no interrupted split explains it)", "child-level walk between downlinks", "leaf index block lacks downlink in index \"%s\"", NBT],
    ["BT_DOWNLINK_LEVEL", "error", "a page under an internal page without downlink is not one level down", "descent through the first downlinks", "downlink points to block in index \"%s\" whose level is not one level down", NBT],
    ["BT_DOWNLINK_TO_DELETED_LEAF", "error", "the descent from a page without downlink ends at a deleted leaf", "btpo_flags of the leaf", "downlink to deleted leaf page found in index \"%s\"", NBT],
    ["BT_INTERNAL_LACKS_DOWNLINK", "error", "an internal page has no downlink and no interrupted deletion explains it", "descent to the leaf and its top-parent link", "internal index block lacks downlink in index \"%s\"", NBT],
  ]),
  ...area("heapallindexed", [
    ["BT_HEAP_TUPLE_NOT_INDEXED", "error", "a live heap tuple has no index entry with its TID and its key bytes", "expected index tuple formed from the heap tuple's key columns (detoasted, decompressed, short varlena headers where index_form_tuple uses them), looked up under its exact heap TID among the index's leaf entries normalised the same way (posting lists split) by a 64-bit fingerprint of the tuple bytes (a damaged entry passes only on a fingerprint collision, about 1 in 1.8e19; amcheck's Bloom filter accepts a few percent)", "heap tuple (%u,%u) from table \"%s\" lacks matching index tuple within index \"%s\"", NBT],
    ["BT_INDEX_EXTERNAL_DATUM", "error", "an index tuple holds an external (TOAST pointer) varlena", "varlena header of index attributes", "external varlena datum in tuple that references heap row (%u,%u) in index \"%s\"", NBT],
    ["BT_HOT_ROOT_MISSING", "error", "a live heap-only tuple has no root line pointer leading to it", "heap_get_root_tuples over the page", "failed to find parent tuple for heap-only tuple at (%u,%u) in table \"%s\"", "heapam_handler.c, raised during the heapallindexed scan"],
    ["BT_HEAPALLINDEXED_SKIPPED", "info", "heap-vs-index comparison not done for this index: its expression or predicate uses a node or function the offline evaluator lacks (named in the message), its table's row is lost, or a heap value could not be fetched", "pg_index.indexprs / indpred compiled by formats/expr/evaluate.ts (column references, constants, immutable casts, AND/OR/NOT, IS [NOT] NULL, COALESCE, comparisons of int, numeric, float, date/time, text, name, oid, uuid; integer, float and numeric + - * / %; text functions, md5, jsonb -> ->> #> #>>, date_trunc, date_part, extract)"],
  ]),
  ...area("prefix", [
    ["PREFIX_PAGE_UNDECODABLE", "error", "a BTP_PREFIX page cannot be decoded for a reason the codec names in the detail", "formats/nbtree/prefix-page.ts decoder error outside the codes below"],
    ["PREFIX_PAGE_NOT_LEAF", "error", "BTP_PREFIX on a page without BTP_LEAF", "btpo_flags (new-formats.md §2.5)"],
    ["PREFIX_PAGE_BAD_FLAGS", "error", "BTP_PREFIX with BTP_DELETED, BTP_HALF_DEAD or BTP_META", "btpo_flags (§2.5)"],
    ["PREFIX_PAGE_BAD_VERSION", "error", "BTP_PREFIX in an index whose metapage is not version 4", "btm_version (§2.5)"],
    ["PREFIX_PAGE_NO_DIRECTORY", "error", "no item where the prefix directory belongs", "maxoff vs the stock P_FIRSTDATAKEY (§2.1)"],
    ["PREFIX_DIR_NOT_NORMAL", "error", "the directory's line pointer is not LP_NORMAL", "lp_flags (§2.2)"],
    ["PREFIX_DIR_TRUNCATED", "error", "the directory is shorter than its 20-byte header", "lp_len (§2.2)"],
    ["PREFIX_DIR_BAD_TID", "error", "the directory's t_tid is not the reserved (0xFFFF, 0xFFFE, 0xFFFF)", "t_tid (§2.2)"],
    ["PREFIX_DIR_FLAG_BITS", "error", "the directory's t_info has flag bits", "t_info & ~0x1FFF (§2.2)"],
    ["PREFIX_DIR_BAD_MAGIC", "error", "the directory magic is not 0x5058", "magic (§2.2)"],
    ["PREFIX_DIR_BAD_VERSION", "error", "the directory version is not 1", "version (§2.2)"],
    ["PREFIX_DIR_LENGTH_MISMATCH", "error", "the directory's t_info length differs from lp_len", "t_info vs lp_len (§2.2)"],
    ["PREFIX_DIR_TOO_LONG", "error", "the directory is longer than 8184 bytes", "t_info (§2.2)"],
    ["PREFIX_DIR_NO_GROUPS", "error", "ngroups is 0", "ngroups (§2.2)"],
    ["PREFIX_DIR_GROUPS_OUT_OF_RANGE", "error", "the group entries extend beyond the directory", "20 + 4 ngroups vs length (§2.2)"],
    ["PREFIX_DIR_GROUP_FLAGS", "error", "a group entry's flags byte is not 0", "group entry (§2.2)"],
    ["PREFIX_DIR_LEAD_GT_ANCHOR", "error", "a group's lead exceeds its anchor_len", "group entry (§2.2)"],
    ["PREFIX_DIR_ANCHORS_OUT_OF_RANGE", "error", "anchors extend beyond the directory", "sum of anchor_len (§2.2)"],
    ["PREFIX_DIR_BAD_LENGTH", "error", "the directory length is not MAXALIGN(20 + 4 ngroups + sum of anchor_len)", "length (§2.2)"],
    ["PREFIX_DIR_PADDING_NONZERO", "error", "the directory's padding is not zero", "bytes after the anchors (§2.2)"],
    ["PREFIX_ITEM_BAD_LP", "error", "a data item's line pointer is neither LP_NORMAL nor LP_DEAD", "lp_flags (§2.3)"],
    ["PREFIX_ITEM_ALT_TID_NOT_POSTING", "error", "a data item has INDEX_ALT_TID_MASK without BT_IS_POSTING", "t_info, ip_posid (§2.3)"],
    ["PREFIX_ITEM_TRUNCATED", "error", "a coded item is shorter than its header (and null bitmap)", "lp_len (§2.3)"],
    ["PREFIX_ITEM_LENGTH_MISMATCH", "error", "a coded item's t_info length differs from lp_len", "t_info vs lp_len (§2.3)"],
    ["PREFIX_ITEM_LENGTH_UNALIGNED", "error", "a coded length is not MAXALIGNed", "t_info (§2.3)"],
    ["PREFIX_ORIG_ALT_TID", "error", "a coded item's original t_info has INDEX_ALT_TID_MASK", "orig_t_info (§2.3)"],
    ["PREFIX_ITEM_FLAGS_MISMATCH", "error", "the coded t_info's INDEX_VAR_MASK/INDEX_NULL_MASK differ from the original's", "t_info vs orig_t_info (§2.3)"],
    ["PREFIX_ORIG_SIZE_UNALIGNED", "error", "the original size is not MAXALIGNed", "orig_t_info (§2.3)"],
    ["PREFIX_ORIG_SIZE_TOO_SMALL", "error", "the original size is below its data offset", "orig_t_info (§2.3)"],
    ["PREFIX_ORIG_TOO_LARGE", "error", "the original size exceeds BTMaxItemSize", "orig_t_info (§2.5)"],
    ["PREFIX_ITEM_GROUP_RANGE", "error", "a coded item's group is >= ngroups", "group (§2.5)"],
    ["PREFIX_ITEM_SHARED_RANGE", "error", "lead + nshared exceeds the anchor", "nshared (§2.3)"],
    ["PREFIX_ITEM_RESIDUAL_SHORT", "error", "the residual is shorter than lead", "residual length (§2.3)"],
    ["PREFIX_ITEM_TRUNCATED_NONZERO", "error", "the decoded key is longer than the original and the cut bytes are not zero", "decode (§2.3)"],
    ["PREFIX_GROUP_ORDER", "error", "group numbers decrease in item order (a group's members are not one run)", "group of successive coded items (§2.5)"],
    ["PREFIX_GROUP_EMPTY", "info", "a directory group has no coded member (its anchor outlived its items)", "groups used by the page's items (§2.2)"],
    ["PREFIX_PAGE_NO_CODED_ITEM", "error", "a BTP_PREFIX page has no coded item", "items (§2.1)"],
    ["PREFIX_DIR_T_MISMATCH", "error", "the directory's T differs from the items' sum of MAXALIGN(decoded size) + 4", "recomputed T (§2.2)"],
    ["PREFIX_DIR_M_MISMATCH", "error", "the directory's M differs from the largest per-item term", "recomputed M (§2.2)"],
    ["PREFIX_PAGE_SPLIT_FIT", "error", "T + H + 2M + 8 exceeds 2U: a split could not lay the decoded items out", "split-fit bound (§2.5)"],
    ["PREFIX_PAGE_SAVES_TOO_LITTLE", "warning", "16 C > 15 T: the page saves less than a sixteenth and should have stayed plain", "space test (§2.5)"],
  ]),
  ...area("gin", [
    ["GIN_META_INVALID", "error", "block 0 of a GIN index is not a GIN metapage", "GIN_META in the special space's flags of block 0"],
    ["GIN_META_VERSION", "error", "the metapage's ginVersion is not GIN_CURRENT_VERSION (2)", "GinMetaPageData.ginVersion"],
    ["GIN_META_STATS", "warning", "the metapage's page counts (as of the last VACUUM or the build) are implausible: more pages than the file has, or more entry and data pages than total pages", "nTotalPages <= blocks and nEntryPages + nDataPages <= nTotalPages", undefined, "only the planner reads these counts"],
    ["GIN_PENDING_LIST", "error", "the pending list (fastupdate) is incoherent: head and tail disagree, a page on it is not a GIN_LIST page or is deleted, its right links leave the file or loop, it does not end at the tail, or it has another number of pages than nPendingPages", "walk from the metapage's head along right links"],
    ["GIN_PAGE_ZERO", "error", "a downlink, right link or posting tree root leads to an all-zero page", "PageIsNew on a page the tree walk reaches", "index \"%s\" contains unexpected zero page at block %u", VG],
    ["GIN_PAGE_KIND", "error", "a page of the entry tree is not an entry page (GIN_DATA, GIN_META or GIN_LIST set), a page of a posting tree has no GIN_DATA, or a reached page's special space is not GIN's", "flags and special size of each page the walk reaches", "index \"%s\" contains corrupted page at block %u", `${VG} (the special size)`],
    ["GIN_DELETED_PAGE", "error", "a deleted page is an internal page, or still holds tuples", "GIN_DELETED with GIN_LEAF clear, or with line pointers, on any page", "index \"%s\" has deleted internal page %u", `${VG}; also "index \"%s\" has deleted page %u with tuples"`],
    ["GIN_DELETED_REACHABLE", "error", "a downlink, right link or posting tree root leads to a deleted page", "GIN_DELETED on a page the walk reaches"],
    ["GIN_LEAF_DEPTH", "error", "the tree does not have one height: a leaf page at another depth than the other leaves, or a page whose leaf flag differs from the rest of its level", "depth of each page from the root; GIN_LEAF against the majority of its level", "index \"%s\": internal pages traversal encountered leaf page unexpectedly on block %u", VG],
    ["GIN_INTERNAL_EMPTY", "error", "an internal page has no downlink", "maxoff of entry and posting tree internal pages", undefined, "verify_gin.c's header names the invariant; its walk does not report it"],
    ["GIN_DOWNLINK_INVALID", "error", "a downlink or a posting tree root names a block past the end of the index or the metapage or entry root", "block number vs the relation's size", "could not read block %u in file \"%s\"", "the server's smgr error"],
    ["GIN_DOWNLINK_DUPLICATE", "error", "a page is reached twice from the root (two downlinks to it, a downlink cycle, or two posting trees sharing a page)", "a mark per block during the walk"],
    ["GIN_RIGHTLINK_INVALID", "error", "a right link names a block past the end of the index, the metapage or the entry root", "rightlink vs the relation's size"],
    ["GIN_RIGHTLINK_CYCLE", "error", "the right links of a level loop", "walk of each level's right links from its leftmost page with a per-walk mark"],
    ["GIN_SIBLING_MISMATCH", "error", "a page's right link is not the page of the parent's next downlink (and no incomplete split explains it), or the rightmost page of a level has a right link", "each level's right-link chain compared with its parents' downlinks in order"],
    ["GIN_TUPLE_SIZE", "error", "an entry tuple's IndexTupleSize disagrees with its line pointer's length", "MAXALIGN(lp_len) vs MAXALIGN(t_info & 0x1FFF)", "index \"%s\" has inconsistent tuple sizes, block %u, offset %u", VG],
    ["GIN_TUPLE_CORRUPT", "error", "an entry tuple's key or posting list does not fit in the tuple (column number out of range, a NULL category that does not exist, a key or posting list running past the tuple's end)", "gintuple_get_attrnum, gintuple_get_key and GinGetPosting's layout over the tuple's bytes"],
    ["GIN_ENTRY_ORDER", "error", "entry keys of a page are not strictly increasing (column number, then null category, then the opclass's compare function)", "ginCompareAttEntries with the on-disk comparators; the last key of the rightmost internal page of a level is +infinity and is not compared", "index \"%s\" has wrong tuple order on entry tree page, block %u, offset %u, rightlink %u", VG],
    ["GIN_PARENT_KEY", "error", "a child page's last key is above its parent's downlink key", "ginCompareAttEntries of the child's last tuple against the parent's tuple", "index \"%s\" has inconsistent records on page %u offset %u", VG],
    ["GIN_ORDER_NOT_CHECKED", "info", "entry key order is not checked for some index columns: pgdisk has no on-disk comparator for the opclass's compare function (GIN support function 1, or the key type's default btree comparator) or the collation; the structure and posting lists are still checked", "gin_compare_jsonb and gin_cmp_tslexeme (bytewise), the btree comparators of formats/order/ (text-like types under C or POSIX only)"],
    ["GIN_POSTING_COUNT", "error", "a compressed posting list in an entry tuple decodes to another number of TIDs than the tuple header says", "GinGetNPosting vs the decoded count", "number of items mismatch in GIN entry tuple, %d in tuple header, %d decoded", `${VG} (elog)`],
    ["GIN_POSTING_ORDER", "error", "heap TIDs of a posting list, of a posting tree leaf page or across the leaves of a posting tree are not strictly increasing", "decoded TIDs compared one after another (segments and pages in order)"],
    ["GIN_POSTING_INVALID_TID", "error", "a posting list holds a heap TID with offset number 0", "OffsetNumberIsValid on each decoded TID", "index \"%s\": posting list contains invalid heap pointer on block %u", VG],
    ["GIN_POSTING_TRUNCATED", "error", "a compressed posting list runs past its tuple or past pd_lower, or a varbyte delta is cut off", "segment sizes (8 + SHORTALIGN(nbytes)) and varbyte lengths against their bounds"],
    ["GIN_DATA_PD_LOWER", "error", "a posting tree internal page's pd_lower does not match its number of PostingItems", "(pd_lower - 24 - 8) / 10 vs maxoff", "index \"%s\" has unexpected pd_lower %u in posting tree block %u with maxoff %u)", VG],
    ["GIN_DATA_HIGHKEY", "error", "a non-rightmost posting tree page's right bound is not the key of its downlink", "GinDataPageGetRightBound vs the parent's PostingItem key", "index \"%s\": posting tree page's high key (%u, %u) doesn't match the downlink on block %u (parent blk %u, key (%u, %u))", `${VG} (internal pages; pgdisk checks leaves too)`],
    ["GIN_DATA_ITEM_ORDER", "error", "PostingItem keys of a posting tree internal page decrease", "ItemPointerCompare of consecutive keys", "index \"%s\" has wrong tuple order in posting tree, block %u, offset %u", VG],
    ["GIN_DATA_RIGHTMOST_KEY", "error", "the last PostingItem of the rightmost internal page of a posting tree level has a key other than (0,0)", "the key of item maxoff when rightlink is InvalidBlockNumber", "index \"%s\": rightmost posting tree page (blk %u) has unexpected last key (%u, %u)", VG],
    ["GIN_DATA_PARENT_KEY", "error", "a posting tree page holds a key or TID above its parent's downlink key", "the last PostingItem key or the last TID of a leaf vs the parent's key", "index \"%s\": posting item exceeds parent's high key in postingTree internal page on block %u offset %u", `${VG}; for leaves "index \"%s\": tid exceeds parent's high key in postingTree leaf on block %u"`],
    ["GIN_DATA_RIGHTBOUND", "error", "a non-rightmost posting tree leaf holds a TID above its own right bound", "last TID vs GinDataPageGetRightBound"],
    ["GIN_PAGE_UNREACHABLE", "warning", "a page that is neither new, deleted nor the metapage is reached by no downlink, right link, posting tree or pending list", "a mark per block after every walk", undefined, "a crash between a page's allocation and its linking can leave one; GIN never truncates"],
  ]),
  ...area("hash", [
    ["HASH_META_MAGIC", "error", "block 0 is not a hash metapage (page type or hashm_magic)", "LH_META_PAGE in hasho_flag and hashm_magic 0x6440640", "index \"%s\" is not a hash index", "hashutil.c _hash_checkpage; no checker reads hash indexes offline"],
    ["HASH_META_VERSION", "error", "hashm_version is not HASH_VERSION 4", "hashm_version", "index \"%s\" has wrong hash version", "hashutil.c _hash_checkpage"],
    ["HASH_META_MASKS", "error", "hashm_maxbucket, hashm_highmask and hashm_lowmask do not describe one table size: highmask + 1 a power of two, lowmask = highmask >> 1, lowmask <= maxbucket <= highmask, and every bucket's primary page (BUCKET_TO_BLKNO over hashm_spares) inside the file", "the metapage's fields, and BUCKET_TO_BLKNO of the highest bucket against the file's size"],
    ["HASH_META_BITMAPS", "error", "the metapage's bitmap pages are wrong: hashm_nmaps above HASH_MAX_BITMAPS, or a hashm_mapp block outside the file or not an LH_BITMAP_PAGE", "hashm_nmaps, each hashm_mapp[i] read and its hasho_flag checked"],
    ["HASH_PAGE_TYPE", "error", "a page of the hash index has no known page type (hasho_flag's LH_PAGE_TYPE bits), or a second metapage", "hasho_flag & LH_PAGE_TYPE on every page"],
    ["HASH_BUCKET_PAGE", "error", "a bucket's primary page (BUCKET_TO_BLKNO) is not an LH_BUCKET_PAGE of that bucket: wrong page type, or hasho_bucket names another bucket", "each bucket 0..hashm_maxbucket: its primary page's hasho_flag and hasho_bucket"],
    ["HASH_OVERFLOW_LINK", "error", "a bucket's overflow chain is broken: hasho_nextblkno outside the file or at a page that is not an LH_OVERFLOW_PAGE of the bucket, hasho_prevblkno not the page before it, or a page reached twice (a cycle, or two chains sharing pages)", "the chain of every bucket followed from its primary page, each page marked when reached"],
    ["HASH_OVERFLOW_ORPHAN", "warning", "an overflow page is on no bucket's chain (an interrupted page allocation or free leaves one; its tuples are invisible to scans)", "LH_OVERFLOW_PAGE pages not reached by any chain"],
    ["HASH_TUPLE_SIZE", "error", "a hash index tuple's size (t_info) differs from its line pointer's length, or is too small to hold the hash code", "IndexTupleSize against lp_len and MAXALIGN(8 + 4)"],
    ["HASH_TUPLE_BUCKET", "error", "a tuple's hash code belongs to another bucket than the chain holding it (_hash_hashkey2bucket with the metapage's masks)", "every live tuple of buckets not in a split (LH_BUCKET_BEING_SPLIT, _BEING_POPULATED and _NEEDS_SPLIT_CLEANUP buckets hold tuples of both halves)"],
    ["HASH_TUPLE_ORDER", "error", "the hash codes on a bucket or overflow page are not in ascending order (_hash_binsearch relies on it)", "each page's tuples' hash codes compared in item order"],
    ["HASH_TID_OUT_OF_RANGE", "error", "a tuple's heap TID names a block beyond the table's last block, or offset 0", "t_tid against the table's block count"],
    ["HASH_BUCKET_SPLITTING", "info", "a bucket is marked as taking part in a split (an interrupted split the next insert or VACUUM finishes): its tuples' buckets are not checked", "LH_BUCKET_BEING_SPLIT, LH_BUCKET_BEING_POPULATED or LH_BUCKET_NEEDS_SPLIT_CLEANUP on a primary page"],
  ]),
  ...area("brin", [
    ["BRIN_META_MAGIC", "error", "block 0 is not a BRIN metapage (page type or brinMagic)", "BRIN_PAGETYPE_META in the special space and brinMagic 0xA8109CFA", undefined, "the server does not check the magic; no checker reads BRIN indexes offline"],
    ["BRIN_META_VERSION", "error", "brinVersion is not BRIN_CURRENT_VERSION 1", "brinVersion"],
    ["BRIN_META_FIELDS", "error", "pagesPerRange is 0 or above 131072, or lastRevmapPage is beyond the file", "the metapage's fields against the file's size"],
    ["BRIN_PAGE_TYPE", "error", "a page has the wrong BRIN page type for its place: blocks 1..lastRevmapPage must be revmap pages, the later ones regular pages (a metapage or revmap page there, or an unknown type)", "the special space's page type of every page"],
    ["BRIN_REVMAP_TID", "error", "a revmap entry names no range summary: a block outside the file or not a regular page, an offset beyond the page's line pointers, or a line pointer that is not LP_NORMAL", "each valid TID of every revmap page"],
    ["BRIN_REVMAP_DUPLICATE", "error", "two revmap entries name the same range summary tuple", "the regular tuples marked as their revmap entries are read"],
    ["BRIN_TUPLE_BLKNO", "error", "a range summary's bt_blkno is not the first heap block of the range its revmap entry stands for", "bt_blkno against range number * pagesPerRange"],
    ["BRIN_TUPLE_SIZE", "error", "a range summary's data offset (bt_info & 0x1F) is below MAXALIGN(sizeof(BrinTuple)), not MAXALIGNed, or beyond the line pointer's length", "every tuple on the regular pages"],
    ["BRIN_TUPLE_ORPHAN", "warning", "a range summary tuple on a regular page is named by no revmap entry (an interrupted summarization leaves one; scans never see it and brin_summarize_range would make a new one)", "LP_NORMAL tuples of regular pages not reached from the revmap"],
  ]),
  ...area("gist", [
    ["GIST_ROOT", "error", "block 0, the root, is a deleted page or not a GiST page", "the special space of block 0 (GIST_PAGE_ID, F_DELETED)", undefined, "no checker reads GiST indexes offline (amcheck's gist_index_check is PostgreSQL 18+ and online)"],
    ["GIST_DOWNLINK", "error", "a downlink of an internal page names a block beyond the file, a deleted page or a page that is not a GiST page", "t_tid's block of every internal tuple"],
    ["GIST_LEVEL", "error", "the tree's levels are wrong: leaf and internal pages at one depth, leaves at two depths, an internal page without downlinks, or a page reached twice from the root (a cycle, or two parents)", "the tree walked level by level from block 0 over the downlinks"],
    ["GIST_RIGHTLINK", "error", "a page's right link names a block beyond the end of the index", "rightlink of every live page"],
    ["GIST_TUPLE_SIZE", "error", "a GiST tuple's size (t_info) differs from its line pointer's length", "IndexTupleSize against lp_len"],
    ["GIST_TID_OUT_OF_RANGE", "error", "a leaf tuple's heap TID names a block beyond the table's last block, or offset 0", "t_tid of leaf tuples against the table's block count"],
  ]),
  ...area("spgist", [
    ["SPGIST_META", "error", "block 0 is not an SP-GiST metapage (SPGIST_META flag, magic 0xBA0BABEE), or another block is marked a metapage", "the flags of every page and the metapage's magicNumber", undefined, "no checker reads SP-GiST indexes (amcheck has none, online or offline)"],
    ["SPGIST_ROOT", "error", "the root (block 1) or the nulls root (block 2) is missing, deleted, a metapage, in the wrong tree (SPGIST_NULLS), or an inner page whose item 1 is not a live inner tuple", "blocks 1 and 2 before the tree walk"],
    ["SPGIST_PAGE_ID", "error", "a page's special space does not end in SPGIST_PAGE_ID 0xFF82", "spgist_page_id of every page"],
    ["SPGIST_PAGE_COUNTS", "error", "a page's nRedirection or nPlaceholder differs from the number of redirect or placeholder tuples on it", "the opaque counts against the tuples' tupstate"],
    ["SPGIST_TUPLE_SIZE", "error", "a tuple's size field differs from its line pointer's length, a leaf tuple is shorter than SGDTSIZE, or a redirect, dead or placeholder tuple is not SGDTSIZE (16) bytes", "size of every tuple against lp_len"],
    ["SPGIST_INNER_TUPLE", "error", "an inner tuple has no nodes, or its prefix and node tuples do not fill exactly its size", "nNodes, prefixSize and each node's IndexTupleSize"],
    ["SPGIST_DOWNLINK", "error", "a node's downlink names a block beyond the file, a page that is not an SP-GiST item page (deleted, a metapage), a page of the other tree (nulls or not), an offset beyond the page's line pointers, or a placeholder tuple", "every valid node downlink, followed through redirects, on the walk from the roots"],
    ["SPGIST_REDIRECT", "error", "a redirect tuple points outside the index or at offset 0, or redirects loop", "the pointer of every redirect tuple"],
    ["SPGIST_LEAF_CHAIN", "error", "a leaf chain is broken: a nextOffset beyond the page's line pointers, a nextOffset on the root leaf page (its tuples are not chained), a chain through a tuple that is not live, or a cycle", "nextOffset (PG14+: t_info & 0x3FFF) of every leaf tuple, and each chain followed from its downlink"],
    ["SPGIST_REACHED", "error", "a tuple is reached twice from the roots (a cycle, or two parents)", "the walk from the roots over (block, offset) tuples"],
    ["SPGIST_ORPHAN", "warning", "live tuples that no downlink from the roots reaches (scans never return them)", "live tuples not marked by the walk, one finding per page"],
    ["SPGIST_TID_OUT_OF_RANGE", "error", "a live leaf tuple's heap TID names a block beyond the table's last block, or offset 0", "heapPtr of live leaf tuples against the table's block count"],
  ]),
  ...area("sequence", [
    ["SEQ_MAGIC", "error", "the sequence page's special space does not hold SEQ_MAGIC 0x1717", "the 4-byte magic at pd_special", "bad magic number in sequence \"%s\": %08X", "sequence.c read_seq_tuple"],
    ["SEQ_SHAPE", "error", "a sequence relation is not one page with one LP_NORMAL tuple holding FormData_pg_sequence_data", "block count, line pointer count, the tuple's length past t_hoff"],
    ["SEQ_VALUE_RANGE", "error", "last_value is outside [seqmin, seqmax] of the sequence's pg_sequence row", "last_value against pg_sequence (when its row can be read)", "nextval: reached maximum value of sequence \"%s\" (%lld)", "the server only fails on the next nextval"],
  ]),
];

/** Every finding code `pgdisk verify` can report (a typo in a check's code does not compile). */
export type CheckCode = (typeof CHECK_ROWS)[number]["code"];
export const CHECKS: readonly CheckInfo[] = CHECK_ROWS;

export const CHECK_BY_CODE: ReadonlyMap<string, CheckInfo> = (() => {
  const m = new Map<string, CheckInfo>();
  for (const c of CHECKS) {
    if (m.has(c.code)) throw new Error(`duplicate check code ${c.code} in formats/codes/checks.ts`);
    m.set(c.code, c);
  }
  return m;
})();

/**
 * The notes that say a check could not run on a relation (the reason is the finding's message):
 * counted apart ("notes: N not checked"), listed without -v, and failures with
 * --fail-on-not-checked, so a report never passes off as checked what was not.
 */
export const NOT_CHECKED_CODES: ReadonlySet<string> = new Set(["REL_NOT_CHECKED_AM", "REL_INDEX_NOT_VALID", "REL_NO_CATALOG", "TOAST_NOT_CHECKED", "BT_ORDER_NOT_CHECKED", "BT_HEAPALLINDEXED_SKIPPED", "GIN_ORDER_NOT_CHECKED"]);
for (const code of NOT_CHECKED_CODES) if (checkInfo(code).severity !== "info") throw new Error(`not-checked code ${code} must be an info finding`);

export const isNotChecked = (code: string): boolean => NOT_CHECKED_CODES.has(code);

export const isCheckCode = (s: string): s is CheckCode => CHECK_BY_CODE.has(s);

export function checkInfo(code: string): CheckInfo {
  const c = CHECK_BY_CODE.get(code);
  if (!c) throw new Error(`finding code ${code} is not in formats/codes/checks.ts`);
  return c;
}

export const AREA_TITLES: Record<CheckArea, string> = {
  relation: "Relation files",
  page: "Pages and line pointers (every relation)",
  heap: "Heap tuples",
  hot: "HOT chains and redirects",
  xid: "Transaction IDs and MultiXacts",
  toast: "Plain TOAST",
  "direct-toast": "Direct TOAST (new-formats.md §1.5)",
  btree: "B-tree structure and key order",
  "btree-parent": "B-tree parent/child (bt_index_parent_check)",
  heapallindexed: "Heap vs. index (heapallindexed)",
  prefix: "BTP_PREFIX leaves (new-formats.md §2.5)",
  gin: "GIN entry and posting trees (gin_index_check)",
  hash: "Hash index structure",
  brin: "BRIN index structure",
  gist: "GiST index structure",
  spgist: "SP-GiST index structure",
  sequence: "Sequences",
};
