// `pgdisk inspect value`: one attribute value of a stopped cluster, found by the parent tuple's
// TID (or straight from a TOAST pointer given in hex), detoasted through the TOAST reader (stock
// chunks via the TOAST index, Direct TOAST by TID), whole or a byte slice, with what the read
// touched. Returns plain data; the CLI renders it.
import { FormatError } from "../../formats/schema/errors.js";
import { Cluster, type DatabaseCatalog, type RelationInfo } from "../../formats/catalog/cluster.js";
import { typeLookupFor } from "../../formats/catalog/types.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { tupleState } from "../../formats/heap/visibility.js";
import { HTH } from "../../formats/heap/tuple-header.js";
import { LP_FLAG_NAMES, LP_NORMAL, LP_REDIRECT, lpFlags, lpLen, lpOff } from "../../formats/page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../../formats/page/page.js";
import { parseTid, tidText, type Tid } from "../../formats/page/item-pointer.js";
import { readToastPointer, type ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { VARTAG_DIRECT, VARTAG_ONDISK } from "../../formats/varlena/varlena.js";
import { datumToText } from "../../formats/datum/index.js";
import { methodName } from "../../formats/compression/index.js";
import { emptyStats, type ToastReadStats } from "../../formats/toast/pages.js";
import { pointerShape, type ToastReader } from "../../formats/toast/reader.js";
import { sliceCount, tierOf } from "../../formats/toast/tiers.js";
import { toastMaxChunkSize } from "../../formats/toast/chunk-desc.js";
import { openToastReader } from "../dump/target.js";

export interface ValueOptions {
  pgdata: string;
  database: string;
  table: string;
  /** column name (or attnum); needed with --tid, optional with --pointer (gives the type) */
  column?: string;
  /** the parent tuple, "(block,item)" */
  tid?: string;
  /** a TOAST pointer datum in hex (18 bytes stock, 20 bytes direct; \x prefix and spaces allowed) */
  pointer?: string;
  /** raw byte range [start, end) of the value */
  slice?: { start: number; end?: number };
}

export interface PointerInfo {
  flavour: "plain" | "direct";
  rawSize: number;
  storedSize: number;
  compressed: boolean;
  method: string | null;
  valueId?: number;
  root?: string;
  toastRelid: number;
  /** data slices (= stock chunks; direct leaves) and, for direct values, the tier */
  slices: number;
  tier?: string;
}

export interface ValueResult {
  schema: "pgdisk.value/1";
  table: string;
  column: string | null;
  type: string | null;
  typid: number | null;
  tid: string | null;
  /** the parent tuple's state, when read by TID */
  tupleState: string | null;
  storage: "null" | "inline" | "compressed-inline" | "external";
  pointer: PointerInfo | null;
  /** the byte range returned, in raw-value coordinates */
  range: { start: number; end: number };
  /** size of the whole raw value */
  rawSize: number;
  stats: ToastReadStats;
  /** the raw bytes of the range (not in JSON) */
  bytes: Uint8Array;
  /** PostgreSQL's text output of a whole value (or UTF-8 of a text slice), when the type is known */
  text: string | null;
}

const usage = (m: string): FormatError => new FormatError("USAGE", m);

/** Parse "\x0112...", "01 12 ..." into bytes. */
export function parseHex(s: string): Uint8Array {
  const h = s.trim().replace(/^\\x/i, "").replace(/^0x/i, "").replace(/[\s:]/g, "");
  if (!/^([0-9a-f]{2})*$/i.test(h)) throw usage(`"${s}" is not hex bytes`);
  return Uint8Array.from(Buffer.from(h, "hex"));
}

/** Text-like types whose slices still print as text (UTF-8 with replacement for a cut character). */
const TEXTY = new Set([25, 1043, 1042, 114, 142, 19, 18]);

function findColumn(cat: DatabaseCatalog, rel: RelationInfo, column: string): number {
  const attrs = cat.descriptor(rel.oid).attrs;
  const k = /^\d+$/.test(column) ? attrs.findIndex((a) => a.attnum === Number(column)) : attrs.findIndex((a) => a.name === column && !a.dropped);
  if (k < 0) throw new FormatError("COLUMN_NOT_FOUND", `column "${column}" of ${rel.namespaceName}.${rel.name} does not exist (columns: ${attrs.filter((a) => !a.dropped).map((a) => a.name).join(", ")})`, {});
  return k;
}

function pointerInfo(p: ToastPointer, maxChunk: number): PointerInfo {
  const sh = pointerShape(p);
  const n = sliceCount(sh.storedSize, maxChunk);
  return {
    flavour: sh.flavour,
    rawSize: sh.rawSize,
    storedSize: sh.storedSize,
    compressed: sh.compressed,
    method: sh.compressed ? methodName(sh.method) : null,
    ...(p.tag === VARTAG_ONDISK ? { valueId: p.va_valueid } : { root: tidText(p.root), tier: tierOf(n) }),
    toastRelid: p.va_toastrelid,
    slices: n,
  };
}

export function readValue(o: ValueOptions): ValueResult {
  if (!o.tid === !o.pointer) throw usage("name the value with --tid (block,item) and -c COLUMN, or give a TOAST pointer with --pointer HEX");
  if (o.tid && !o.column) throw usage("--tid needs -c COLUMN");
  const cluster = new Cluster(o.pgdata);
  const cat = cluster.database(o.database);
  const rel = cat.findRelation(o.table);
  if (rel.kind !== "r" && rel.kind !== "m" && rel.kind !== "t") throw new FormatError("NOT_A_TABLE", `"${o.table}" is not a table (relkind ${rel.kind})`, {});
  const desc = cat.descriptor(rel.oid);
  const k = o.column !== undefined ? findColumn(cat, rel, o.column) : -1;
  const attr = k >= 0 ? desc.attrs[k] : undefined;
  const lookup = typeLookupFor(cat);
  const typid = attr ? lookup.decodeAs(attr.typid) : null;
  const typeName = attr ? (cat.type(attr.typid)?.name ?? String(attr.typid)) : null;
  const stats = emptyStats();
  const base = { schema: "pgdisk.value/1" as const, table: `${rel.namespaceName}.${rel.name}`, column: attr?.name ?? null, type: typeName, typid: attr?.typid ?? null, stats };

  let pointer: ToastPointer;
  let tid: Tid | null = null;
  let state: string | null = null;
  if (o.pointer) {
    const b = parseHex(o.pointer);
    if (b.length < 2 || b[0] !== 0x01 || (b[1] !== VARTAG_ONDISK && b[1] !== VARTAG_DIRECT)) throw usage("--pointer must be a whole TOAST pointer datum: 01 12 + 16 bytes (stock) or 01 13 + 18 bytes (direct)");
    const want = b[1] === VARTAG_ONDISK ? 18 : 20;
    if (b.length !== want) throw usage(`--pointer: a ${b[1] === VARTAG_ONDISK ? "stock" : "direct"} pointer is ${want} bytes, got ${b.length}`);
    pointer = readToastPointer(b, 0);
  } else {
    tid = parseTid(o.tid!);
    if (!tid) throw usage(`--tid "${o.tid}" is not a TID: use (block,item)`);
    const fork = new RelationFork(cat.path(rel), cluster.geometry);
    let page: Uint8Array;
    try {
      if (tid.block >= fork.nblocks) throw new FormatError("TID_OUT_OF_RANGE", `block ${tid.block} is beyond the end of ${base.table} (${fork.nblocks} blocks)`, {});
      page = fork.readBlock(tid.block);
    } finally {
      fork.close();
    }
    const dv = pageView(page);
    const max = pageIsNew(dv) ? 0 : maxOffsetNumber(dv);
    if (tid.offset < 1 || tid.offset > max) throw new FormatError("TID_OUT_OF_RANGE", `item ${tid.offset} does not exist on block ${tid.block} (${max} line pointers)`, {});
    const w = itemIdWord(dv, tid.offset);
    if (lpFlags(w) === LP_REDIRECT) throw new FormatError("TID_IS_REDIRECT", `${tidText(tid)} is a redirect to item ${lpOff(w)} (a HOT chain); name (${tid.block},${lpOff(w)})`, {});
    if (lpFlags(w) !== LP_NORMAL) throw new FormatError("TID_NO_TUPLE", `${tidText(tid)} is ${LP_FLAG_NAMES[lpFlags(w)]}: no tuple there`, {});
    const tuple = page.subarray(lpOff(w), lpOff(w) + lpLen(w));
    const tdv = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
    state = tupleState(tdv.getUint32(HTH.t_xmin, true), tdv.getUint32(HTH.t_xmax, true), tdv.getUint16(HTH.t_infomask, true), cluster.clog);
    const layout = deformHeapTuple(tuple, desc);
    const s = layout.attrs[k];
    const head = { ...base, tid: tidText(tid), tupleState: state };
    if (s.isnull) return { ...head, storage: "null", pointer: null, range: { start: 0, end: 0 }, rawSize: 0, bytes: new Uint8Array(0), text: null };
    if (s.missing) throw new FormatError("VALUE_IS_DEFAULT", `${tidText(tid)} predates column "${attr!.name}": its value is the column's default (attmissingval)`, {});
    const d = datumBytes(tuple, s);
    if (d.kind === "inline") {
      const all = d.bytes;
      const a = Math.min(o.slice?.start ?? 0, all.length);
      const b = Math.min(o.slice?.end ?? all.length, all.length);
      const bytes = all.subarray(a, Math.max(a, b));
      return { ...head, storage: d.compressed ? "compressed-inline" : "inline", pointer: null, range: { start: a, end: a + bytes.length }, rawSize: all.length, bytes, text: textOf(bytes, a === 0 && bytes.length === all.length, typid, attr!.typmod, lookup.types) };
    }
    pointer = d.pointer;
  }
  const toast = rel.kind === "t" ? rel : cat.classes.get(rel.toastRelid);
  if (!toast) throw new FormatError("TOAST_RELATION_MISSING", `${base.table} has no TOAST relation, but the value is a TOAST pointer`, {});
  const reader: ToastReader = openToastReader(cat, toast, cluster.geometry, cluster.clog);
  try {
    const info = pointerInfo(pointer, toastMaxChunkSize(cluster.geometry.blockSize));
    const a = Math.min(o.slice?.start ?? 0, info.rawSize);
    const b = Math.min(o.slice?.end ?? info.rawSize, info.rawSize);
    const bytes = reader.fetchSlice(pointer, a, Math.max(a, b), stats);
    const whole = a === 0 && bytes.length === info.rawSize;
    return { ...base, tid: tid ? tidText(tid) : null, tupleState: state, storage: "external", pointer: info, range: { start: a, end: a + bytes.length }, rawSize: info.rawSize, bytes, text: typid === null ? null : textOf(bytes, whole, typid, attr!.typmod, lookup.types) };
  } finally {
    reader.close();
  }
}

function textOf(bytes: Uint8Array, whole: boolean, typid: number | null, typmod: number, types: ReturnType<typeof typeLookupFor>["types"]): string | null {
  if (typid === null) return null;
  if (whole) return datumToText(bytes, typid, typmod, types);
  return TEXTY.has(typid) ? Buffer.from(bytes).toString("utf8") : null;
}
