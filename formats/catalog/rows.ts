// Catalog rows as plain objects: scan a catalog heap with a bootstrap descriptor, keep the
// live tuple versions and convert the column types catalogs use.
import { FormatError } from "../schema/errors.js";
import type { TupleDesc } from "../heap/descriptor.js";
import { deformHeapTuple, type AttrSlot } from "../heap/deform.js";
import { datumBytes } from "../heap/datum-bytes.js";
import { readArray } from "../datum/arrays.js";
import { builtinTypeLookup } from "../datum/builtin-types.js";
import { HTH } from "../heap/tuple-header.js";
import { tupleState } from "../heap/visibility.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { RelationFork, scanBlocks } from "../storage/relfile.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";

export type CatalogValue = number | boolean | string | number[] | string[] | Uint8Array | null;
export type CatalogRow = Record<string, CatalogValue>;

const utf8 = new TextDecoder("utf-8");

const f32 = new Float32Array(1);
const f32Bytes = new Uint8Array(f32.buffer);
const u32 = (b: Uint8Array, o: number): number => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;

/** A name (NUL-padded to 64 bytes): ASCII decoded directly (TextDecoder per short string costs more than the scan). */
function nameText(tuple: Uint8Array, o: number): string {
  let e = o;
  let ascii = true;
  while (e < o + 64 && e < tuple.length && tuple[e] !== 0) {
    if (tuple[e] > 0x7f) ascii = false;
    e++;
  }
  if (!ascii) return utf8.decode(tuple.subarray(o, e));
  let s = "";
  for (let i = o; i < e; i++) s += String.fromCharCode(tuple[i]);
  return s;
}

/** Convert one catalog column (the types in bootstrap.ts). */
export function catalogValue(tuple: Uint8Array, slot: AttrSlot, typid: number): CatalogValue {
  if (slot.isnull || slot.missing) return null;
  const o = slot.off;
  switch (typid) {
    case 26: // oid
    case 28: // xid
    case 24: // regproc
      return u32(tuple, o);
    case 23:
      return u32(tuple, o) | 0;
    case 21:
      return ((tuple[o] | (tuple[o + 1] << 8)) << 16) >> 16;
    case 16:
      return tuple[o] !== 0;
    case 18:
      return String.fromCharCode(tuple[o]);
    case 700:
      for (let i = 0; i < 4; i++) f32Bytes[i] = tuple[o + i];
      return f32[0];
    case 19:
      return nameText(tuple, o);
  }
  const d = datumBytes(tuple, slot);
  if (d.kind === "external") {
    // Catalog values we need (reloptions, indexprs) are never this large in practice; report it.
    throw new FormatError("CATALOG_VALUE_EXTERNAL", `catalog attribute ${slot.attnum} is TOASTed; pgdisk does not follow catalog TOAST pointers`, { attnum: slot.attnum, offset: slot.off });
  }
  switch (typid) {
    case 25:
    case 194:
      return utf8.decode(d.bytes);
    case 22:
    case 30:
      return arrayElements(d.bytes).map((e) => (typid === 22 ? new DataView(e.buffer, e.byteOffset).getInt16(0, true) : new DataView(e.buffer, e.byteOffset).getUint32(0, true)));
    case 1009:
      return arrayElements(d.bytes).map((e) => utf8.decode(e));
    default:
      return d.bytes.slice(); // raw payload (e.g. anyarray attmissingval, aclitem[])
  }
}

/** Elements of a catalog array (int2vector, oidvector, text[]: never NULL elements). */
function arrayElements(payload: Uint8Array): Uint8Array[] {
  return readArray(payload, builtinTypeLookup).elements.map((e, i) => {
    if (!e) throw new FormatError("CATALOG_ARRAY_UNEXPECTED", `catalog array element ${i + 1} is NULL`, {});
    return e;
  });
}

export interface ScanOptions {
  clog?: XactStatusLookup;
  /** decode only these columns (the others are left out of the rows); default all */
  columns?: readonly string[];
  /** keep the row's location */
  withTid?: boolean;
}

/** All live rows of a catalog heap file, decoded with `desc`. */
export function readCatalog(fork: RelationFork, desc: TupleDesc, opts: ScanOptions = {}): CatalogRow[] {
  const rows: CatalogRow[] = [];
  const want: number[] = [];
  desc.attrs.forEach((a, k) => {
    if (!opts.columns || opts.columns.includes(a.name)) want.push(k);
  });
  for (const [blkno, page] of scanBlocks(fork, fork.firstBlock, fork.nblocks, Math.max(1, Math.min(128, fork.nblocks - fork.firstBlock)))) {
    const dv = pageView(page);
    if (pageIsNew(dv)) continue;
    const n = maxOffsetNumber(dv);
    for (let i = 1; i <= n; i++) {
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const off = lpOff(w);
      const tuple = page.subarray(off, off + lpLen(w));
      const tdv = new DataView(tuple.buffer, tuple.byteOffset, tuple.byteLength);
      const state = tupleState(tdv.getUint32(HTH.t_xmin, true), tdv.getUint32(HTH.t_xmax, true), tdv.getUint16(HTH.t_infomask, true), opts.clog);
      if (state !== "live") continue;
      try {
        const layout = deformHeapTuple(tuple, desc);
        const row: CatalogRow = {};
        for (const k of want) {
          const a = desc.attrs[k];
          row[a.name] = catalogValue(tuple, layout.attrs[k], a.typid);
        }
        if (opts.withTid) row.ctid = `(${blkno},${i})`;
        rows.push(row);
      } catch (e) {
        throw e instanceof FormatError ? e.at({ file: fork.basePath, block: blkno, item: i, offset: off }) : e;
      }
    }
  }
  return rows;
}
