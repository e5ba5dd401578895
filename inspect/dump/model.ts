// The dump engine's output: plain, JSON-serialisable data. Renderers (text, JSON, the TUI)
// only format it. The JSON schema is documented in docs/dump-json.md ("pgdisk.dump/1").
import type { Finding } from "../../formats/schema/errors.js";

export interface DumpTarget {
  file?: string;
  pgdata?: string;
  database?: string;
  relation?: string;
  relkind?: string;
  am?: string;
  fork: string;
  /** relation-wide block numbers covered [from, to) */
  blocks: [number, number];
  nblocks: number;
  /** a table's column names in order, dropped and generated columns left out (COPY's HEADER) */
  columns?: string[];
}

export interface DumpHeader {
  lsn: string;
  pd_checksum: number;
  pd_flags: number;
  flagNames: string[];
  pd_lower: number;
  pd_upper: number;
  pd_special: number;
  pd_pagesize_version: number;
  pageSize: number;
  layoutVersion: number;
  pd_prune_xid: number;
  /** number of line pointers */
  items: number;
  freeSpace: number;
  /** computed checksum when the cluster has checksums enabled (or --checksums) */
  checksum?: { computed: number; ok: boolean };
}

export interface DumpValue {
  attnum: number;
  name: string;
  type: string;
  isnull: boolean;
  dropped?: boolean;
  /** value from attmissingval (the tuple predates ADD COLUMN ... DEFAULT) */
  missing?: boolean;
  /** PostgreSQL's text output */
  value?: string;
  /** value holds only the beginning of the text (text dumps decode long values in part) */
  truncated?: boolean;
  /** with truncated: the whole text's length, when known without decoding it all */
  fullLength?: number;
  /** how the datum is stored: fixed, short, plain (4-byte header), compressed, external, cstring */
  storage?: string;
  compression?: "pglz" | "lz4";
  /** stored size in the tuple (bytes, header included) */
  storedSize?: number;
  toast?: {
    tag: "ondisk" | "direct";
    rawsize: number;
    extsize: number;
    compressed: boolean;
    method?: "pglz" | "lz4";
    valueid?: number;
    toastrelid: number;
    root?: string;
    detoasted?: boolean;
  };
}

export interface HeapItemDump {
  t_xmin: number;
  t_xmax: number;
  t_field3: number;
  t_ctid: string;
  t_infomask2: number;
  t_infomask: number;
  t_hoff: number;
  natts: number;
  flags: string[];
  t_bits?: string;
  values?: DumpValue[];
  state?: string;
}

export interface BtreeItemDump {
  ctid: string;
  nulls: boolean;
  vars: boolean;
  data: string;
  dead: boolean | null;
  htid: string | null;
  tids: string[] | null;
  kind: "pivot" | "posting" | "tuple" | "minus-infinity" | "highkey";
  keys?: DumpValue[];
}

/** An IndexTupleData item of a GiST or hash page: header fields as pg_filedump -i shows them, keys as gist_page_items / hash_page_items. */
export interface IndexItemDump {
  /** t_tid: the heap TID (GiST leaf, hash), or the child block with offset 65535 (GiST internal) */
  ctid: string;
  /** IndexTupleSize (t_info's size bits) */
  size: number;
  nulls: boolean;
  vars: boolean;
  /** the key attributes through the index's descriptor (a hash index stores the int4 hash code; a GIN entry its key) */
  keys?: DumpValue[];
  /** a GIN entry or pending-list tuple */
  gin?: GinEntryDump;
}

/** A BRIN range summary (BrinTuple on a regular page), as brin_page_items shows it. */
export interface BrinItemDump {
  /** bt_blkno: the first heap block of the range */
  blknum: number;
  /** BRIN_PLACEHOLDER_MASK: a placeholder tuple of a range being summarised */
  placeholder: boolean;
  /** BRIN_EMPTY_RANGE_MASK (PostgreSQL 16 on): the range has no tuples */
  empty: boolean;
  /** per index column: its null bits and its stored values as brin_page_items prints them ("{min .. max}"; null when all nulls) */
  columns: { attnum: number; allnulls: boolean; hasnulls: boolean; value: string | null }[];
}

/** What a GIN entry tuple's t_tid and key header hold (ginblock.h, gin_private.h). */
export interface GinEntryDump {
  /** index column of the key (1 in a one-column index) */
  attnum: number;
  /** GinNullCategory: key, null-key, empty-item or null-item */
  category: "key" | "null-key" | "empty-item" | "null-item";
  /** entry leaf: the heap TIDs of its posting list, in stored order */
  tids?: string[];
  /** entry leaf: the posting list is compressed (GinPostingList segments) */
  compressed?: boolean;
  /** entry leaf: the root block of the key's posting tree (t_tid offset GIN_TREE_POSTING) */
  postingTree?: number;
  /** entry internal: the child block (GinGetDownlink) */
  child?: number;
}

/** A GIN posting tree page's contents (no line pointers): gin_leafpage_items' segments, or the downlinks. */
export interface GinDataPageDump {
  /** GinDataPageGetRightBound: the page's high key */
  rightBound: string;
  /** data leaf: each GinPostingList segment, its first TID, coded bytes and every TID */
  segments?: { first_tid: string; nbytes: number; tids: string[] }[];
  /** data internal: each PostingItem, its child block and the child's high key */
  postingItems?: { child: number; key: string }[];
}

export interface DumpItem {
  lp: number;
  lp_off: number;
  lp_flags: number;
  flag: string;
  lp_len: number;
  heap?: HeapItemDump;
  btree?: BtreeItemDump;
  index?: IndexItemDump;
  brin?: BrinItemDump;
  /** hex of the item bytes for kinds pgdisk does not decode item by item */
  hex?: string;
}

export interface DumpPage {
  block: number;
  file: string;
  /** byte position of the block in its file */
  fileOffset: number;
  /** page kind: am and role, e.g. {am:"btree", kind:"leaf"} */
  am: string;
  kind: string;
  isNew: boolean;
  header?: DumpHeader;
  items: DumpItem[];
  /** decoded special space (btree opaque, hash/gist/gin/spgist/brin fields) or metapage */
  special?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** a GIN posting tree page */
  ginData?: GinDataPageDump;
  /** a BRIN revmap page: its TIDs of range summaries up to the last valid one, as brin_revmap_data lists them */
  revmap?: string[];
  findings: Finding[];
}

export interface DumpSummary {
  pages: number;
  newPages: number;
  items: number;
  findings: number;
  errors: number;
  warnings: number;
}
