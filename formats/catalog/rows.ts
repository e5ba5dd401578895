// Catalog rows as plain objects: scan a catalog heap with a bootstrap descriptor, keep the
// live tuple versions and convert the column types catalogs use.
import { FormatError, type Location } from "../schema/errors.js";
import { checkPageHeader } from "../page/sanity.js";
import { alignBytes, type TupleDesc } from "../heap/descriptor.js";
import { deformHeapTuple, expectedHoff, type AttrSlot, type TupleLayout } from "../heap/deform.js";
import { datumBytes } from "../heap/datum-bytes.js";
import { readArray } from "../datum/arrays.js";
import { builtinTypeLookup } from "../datum/builtin-types.js";
import { HEAP_HASNULL, HEAP_NATTS_MASK, HTH, SizeofHeapTupleHeader } from "../heap/tuple-header.js";
import { tupleState } from "../heap/visibility.js";
import type { XactStatusLookup } from "../storage/clog.js";
import { RelationFork, scanBlocks } from "../storage/relfile.js";
import { LP_NORMAL, lpFlags, lpLen, lpOff } from "../page/item-id.js";
import { itemIdWord, maxOffsetNumber, pageIsNew, pageView } from "../page/page.js";
import type { CheckCode } from "../codes/checks.js";
import { u32At } from "../schema/bytes.js";

export type CatalogValue = number | boolean | string | number[] | string[] | Uint8Array | null;
export type CatalogRow = Record<string, CatalogValue>;

const utf8 = new TextDecoder("utf-8");

const f32 = new Float32Array(1);
const f32Bytes = new Uint8Array(f32.buffer);

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
      return u32At(tuple, o);
    case 23:
      return u32At(tuple, o) | 0;
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

/** A catalog page or tuple a tolerant scan (ScanOptions.problems) left out, and why. */
export interface CatalogProblem {
  /** PAGE_* (a header check failed: the page is left out), CATALOG_TUPLE_UNREADABLE, or CATALOG_PAGE_NEW (all zeros before the catalog's last page: whatever rows it held are unknown) */
  code: CheckCode;
  message: string;
  location: Location;
}

export interface ScanOptions {
  clog?: XactStatusLookup;
  /**
   * Tolerant scan: a page whose header is damaged or a tuple that cannot be decoded is left out
   * and described here (else the scan throws), and an all-zero page before the last page too.
   */
  problems?: CatalogProblem[];
  /** decode only these columns (the others are left out of the rows); default all */
  columns?: readonly string[];
  /** keep the row's location */
  withTid?: boolean;
  /**
   * keep only the rows whose oid column `column` (a fixed-length NOT NULL column of the prefix,
   * e.g. pg_attribute.attrelid) is `value`, or one of `value`'s: the other rows are not decoded
   */
  match?: { column: string; value: number | ReadonlySet<number> };
}

/**
 * Offsets from t_hoff of the leading fixed-length attributes of `desc`: the same in every tuple in
 * which none of them is NULL (t_hoff is MAXALIGNed, so aligning from it aligns in the tuple).
 * Catalogs put their fixed-length NOT NULL columns first, so most wanted columns are among them.
 */
function fixedPrefix(desc: TupleDesc): Int32Array {
  const offs: number[] = [];
  let off = 0;
  for (const a of desc.attrs) {
    if (a.len <= 0) break;
    const al = alignBytes(a.align);
    off = (off + al - 1) & ~(al - 1);
    offs.push(off);
    off += a.len;
  }
  return Int32Array.from(offs);
}

/**
 * All live rows of a catalog heap file, decoded with `desc`. Columns in the fixed-length prefix
 * are read at their fixed offsets and NULL columns from the bitmap; the attribute walk
 * (deformHeapTuple, which throws on a tuple that does not fit the descriptor) runs only for a
 * wanted non-NULL column after the prefix, or when the tuple's header or a NULL inside the
 * prefix leaves the offsets in doubt. (pg_attribute's rows need no walk: attmissingval, the one
 * wanted column after the prefix, is nearly always NULL.)
 */
export function readCatalog(fork: RelationFork, desc: TupleDesc, opts: ScanOptions = {}): CatalogRow[] {
  const rows: CatalogRow[] = [];
  const want: number[] = [];
  desc.attrs.forEach((a, k) => {
    if (!opts.columns || opts.columns.includes(a.name)) want.push(k);
  });
  const prefix = fixedPrefix(desc);
  const matchAt = opts.match ? desc.attrs.findIndex((a) => a.name === opts.match!.column) : -1;
  if (opts.match && (matchAt < 0 || matchAt >= prefix.length || desc.attrs[matchAt].len !== 4)) throw new RangeError(`readCatalog: ${opts.match.column} is not a 4-byte column of the fixed prefix`);
  const matchSet = opts.match && typeof opts.match.value !== "number" ? opts.match.value : null;
  const matchValue = opts.match && typeof opts.match.value === "number" ? opts.match.value >>> 0 : 0;
  const matches = (v: number): boolean => (matchSet ? matchSet.has(v) : v === matchValue);
  const slot: AttrSlot = { attnum: 0, isnull: false, missing: false, off: 0, len: 0 };
  const problems = opts.problems;
  let newPages: number[] = [];
  for (const [blkno, page] of scanBlocks(fork, fork.firstBlock, fork.nblocks, Math.max(1, Math.min(128, fork.nblocks - fork.firstBlock)))) {
    const dv = pageView(page);
    if (pageIsNew(dv)) {
      if (problems) newPages.push(blkno);
      continue;
    }
    if (problems) {
      for (const b of newPages) problems.push({ code: "CATALOG_PAGE_NEW", message: `block ${b} of catalog file ${fork.basePath} is all zeros before its last page: rows it held, if any, are not read`, location: { file: fork.fileOf(b).path, block: b } });
      newPages = [];
      const header = checkPageHeader(dv, page.length, { file: fork.fileOf(blkno).path, block: blkno });
      if (header.length) {
        for (const f of header) problems.push({ code: f.code, message: `catalog page left out: ${f.message}`, location: f.location });
        continue;
      }
    }
    const n = maxOffsetNumber(dv);
    for (let i = 1; i <= n; i++) {
      const w = itemIdWord(dv, i);
      if (lpFlags(w) !== LP_NORMAL) continue;
      const off = lpOff(w);
      const len = lpLen(w);
      if (len < SizeofHeapTupleHeader || off + len > page.length) {
        const e = new FormatError("HEAP_TUPLE_TOO_SHORT", `tuple of ${len} bytes at offset ${off} does not fit a heap tuple in its page`, { file: fork.basePath, block: blkno, item: i, offset: off });
        if (!problems) throw e;
        problems.push({ code: "CATALOG_TUPLE_UNREADABLE", message: `catalog tuple left out: ${e.code}: ${e.message}`, location: e.location });
        continue;
      }
      const infomask = dv.getUint16(off + HTH.t_infomask, true);
      // a row of another relation, read at its fixed offset when it can be (header as expected,
      // no NULL up to the column), is skipped before anything else; else decoded, then compared
      if (matchAt >= 0) {
        const hoff = page[off + HTH.t_hoff];
        const hasnull = (infomask & HEAP_HASNULL) !== 0;
        const natts = dv.getUint16(off + HTH.t_infomask2, true) & HEAP_NATTS_MASK;
        if (hoff === expectedHoff(natts, hasnull) && hoff <= len && matchAt < natts && hoff + prefix[matchAt] + 4 <= len) {
          let nullBefore = false;
          if (hasnull) for (let k = 0; k <= matchAt && !nullBefore; k++) nullBefore = (page[off + SizeofHeapTupleHeader + (k >> 3)] & (1 << (k & 7))) === 0;
          if (!nullBefore && !matches(u32At(page, off + hoff + prefix[matchAt]))) continue;
        }
      }
      const state = tupleState(dv.getUint32(off + HTH.t_xmin, true), dv.getUint32(off + HTH.t_xmax, true), infomask, opts.clog);
      if (state !== "live") continue;
      const tuple = page.subarray(off, off + len);
      try {
        const natts = dv.getUint16(off + HTH.t_infomask2, true) & HEAP_NATTS_MASK;
        const hasnull = (infomask & HEAP_HASNULL) !== 0;
        const hoff = tuple[HTH.t_hoff];
        const plain = hoff === expectedHoff(natts, hasnull) && hoff <= len;
        // attributes before this one are present (not NULL) and inside the tuple's natts
        let present = Math.min(natts, prefix.length);
        if (hasnull) for (let k = 0; k < present; k++) if (attIsNullAt(tuple, k)) present = k;
        let layout: TupleLayout | null = null;
        const row: CatalogRow = {};
        for (const k of want) {
          const a = desc.attrs[k];
          if (plain && k < present && hoff + prefix[k] + a.len <= len) {
            slot.attnum = a.attnum;
            slot.off = hoff + prefix[k];
            slot.len = a.len;
            row[a.name] = catalogValue(tuple, slot, a.typid);
          } else if (plain && hasnull && k < natts && k >= present && attIsNullAt(tuple, k)) row[a.name] = null;
          else {
            layout ??= deformHeapTuple(tuple, desc);
            row[a.name] = catalogValue(tuple, layout.attrs[k], a.typid);
          }
        }
        if (opts.withTid) row.ctid = `(${blkno},${i})`;
        if (matchAt >= 0 && !matches(row[desc.attrs[matchAt].name] as number)) continue;
        rows.push(row);
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        const located = e.at({ file: fork.basePath, block: blkno, item: i, offset: off });
        if (!problems) throw located;
        problems.push({ code: "CATALOG_TUPLE_UNREADABLE", message: `catalog tuple left out: ${e.code}: ${e.message}`, location: located.location });
      }
    }
  }
  return rows;
}

/** The null bitmap bit of attribute k (0-based) of a tuple with HEAP_HASNULL: true when NULL. */
const attIsNullAt = (tuple: Uint8Array, k: number): boolean => (tuple[SizeofHeapTupleHeader + (k >> 3)] & (1 << (k & 7))) === 0;
