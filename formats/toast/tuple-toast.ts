// What the server's heap_toast_insert_or_update (src/backend/access/heap/heaptoast.c, with
// toast_helper.c's toast_tuple_init / toast_tuple_find_biggest_attribute /
// toast_tuple_try_compression) does to a new tuple's datums that is over TOAST_TUPLE_THRESHOLD,
// as decisions on stored datums (1-byte or 4-byte headers, as heap_form_tuple stores them):
//  1. while the tuple is over the target (toast_tuple_target, default TOAST_TUPLE_TARGET):
//     take the biggest 'x' or 'e' value not yet compressed or tried; compress it if 'x' (kept
//     only when it saves more than 2 bytes), else mark it incompressible; if it alone is still
//     over the target's data length, move it out of line at once;
//  2. while still over: move the biggest 'x' or 'e' value (compressed or not) out of line;
//  3. while still over: compress the biggest 'm' values;
//  4. with the target raised to TOAST_TUPLE_TARGET_MAIN: move the biggest 'm' values out of line.
// "Biggest" is the current stored size, strictly more than MAXALIGN(TOAST_POINTER_SIZE), the
// first attribute winning ties. Steps that move values out of line are skipped when the table has
// no TOAST relation. Moving out of line is the caller's (externalize: the stored bytes and the
// pointer fields of toast_save_datum, back comes the pointer datum).
import type { TupleDesc } from "../heap/descriptor.js";
import { heapTupleSize, tupleHoff } from "../heap/form.js";
import { maxAlign } from "../page/page.js";
import { compressDatum, compressedVarlena, readTcinfo, VARLENA_EXTSIZE_BITS, type CompressionMethod } from "../compression/index.js";
import { maxHeapTupleSize, toastTupleThreshold } from "../heap/page-builder.js";
import { TOAST_POINTER_SIZE } from "../varlena/toast-pointer.js";
import { VARHDRSZ } from "../varlena/varlena.js";
import type { PointerFields } from "./reform.js";

/** TOAST_TUPLE_TARGET_MAIN: MaximumBytesPerTuple(1), the target of step 4. */
export const toastTupleTargetMain = (blockSize: number): number => maxHeapTupleSize(blockSize);

/** The toast_tuple_target reloption (128..TOAST_TUPLE_TARGET_MAIN), else TOAST_TUPLE_TARGET (= TOAST_TUPLE_THRESHOLD). */
export function toastTupleTarget(options: readonly string[] | null, blockSize: number): number {
  for (const o of options ?? []) {
    const [k, v] = o.split("=", 2);
    if (k !== "toast_tuple_target") continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 128 || n > toastTupleTargetMain(blockSize)) throw new RangeError(`toast_tuple_target=${v} is not an integer in 128..${toastTupleTargetMain(blockSize)}`);
    return n;
  }
  return toastTupleThreshold(blockSize);
}

/** A value to move out of line: its stored bytes S and the pointer fields toast_save_datum gives it. */
export interface ExternalValue {
  /** attribute index (0-based) */
  att: number;
  stored: Uint8Array;
  pointer: PointerFields;
  compressed: boolean;
}

export interface TupleToastOptions {
  desc: TupleDesc;
  /** the tuple size steps 1-3 aim under (toastTupleTarget) */
  target: number;
  blockSize: number;
  /** per attribute: the compression method (attcompression, else the cluster default) */
  methods: readonly CompressionMethod[];
  /** the TOAST relation's OID, 0 when the table has none */
  toastRelid: number;
  /** store a value out of line; returns its pointer datum */
  externalize: (v: ExternalValue) => Uint8Array;
}

export interface ToastedTuple {
  datums: (Uint8Array | null)[];
  size: number;
  /** values compressed here that stay inline */
  inlineCompressed: number;
}

const IGNORE = 1;
const INCOMPRESSIBLE = 2;

const isCompressed = (d: Uint8Array): boolean => (d[0] & 0x03) === 0x02;
const isExternal = (d: Uint8Array): boolean => d[0] === 0x01;
const isShort = (d: Uint8Array): boolean => (d[0] & 0x01) === 0x01 && d[0] !== 0x01;

/** toast_save_datum's stored bytes and pointer fields for a stored (not external) varlena datum. */
export function externalValue(att: number, d: Uint8Array, toastRelid: number): ExternalValue {
  if (isShort(d)) {
    const stored = d.subarray(1);
    return { att, stored, pointer: { va_rawsize: stored.length + VARHDRSZ, va_extinfo: stored.length, va_toastrelid: toastRelid }, compressed: false };
  }
  const stored = d.subarray(VARHDRSZ);
  if (isCompressed(d)) {
    const tc = readTcinfo(stored);
    return { att, stored, pointer: { va_rawsize: tc.rawSize + VARHDRSZ, va_extinfo: (stored.length | (tc.method << VARLENA_EXTSIZE_BITS)) >>> 0, va_toastrelid: toastRelid }, compressed: true };
  }
  return { att, stored, pointer: { va_rawsize: d.length, va_extinfo: stored.length, va_toastrelid: toastRelid }, compressed: false };
}

/** The datums of a new tuple as heap_toast_insert_or_update leaves them (call it only over TOAST_TUPLE_THRESHOLD). */
export function toastTuple(input: readonly (Uint8Array | null)[], o: TupleToastOptions): ToastedTuple {
  const { desc } = o;
  const n = desc.attrs.length;
  const vals = input.slice();
  const flags = new Uint8Array(n);
  // toast_tuple_init: NULLs, fixed-length attributes and 'p' varlenas are never touched
  for (let i = 0; i < n; i++) {
    const a = desc.attrs[i];
    const d = vals[i];
    if (d === null || a.len !== -1 || a.storage === "p" || isExternal(d)) flags[i] |= IGNORE;
  }
  const over = (target: number): boolean => heapTupleSize(desc, vals) > target;
  const minBiggest = maxAlign(TOAST_POINTER_SIZE);
  const biggest = (forCompression: boolean, main: boolean): number => {
    let best = -1;
    let bestSize = minBiggest;
    for (let i = 0; i < n; i++) {
      const d = vals[i];
      if (d === null || flags[i] & IGNORE || (forCompression && flags[i] & INCOMPRESSIBLE)) continue;
      if (isExternal(d) || (forCompression && isCompressed(d))) continue;
      const s = desc.attrs[i].storage;
      if (main ? s !== "m" : s !== "x" && s !== "e") continue;
      if (d.length > bestSize) {
        best = i;
        bestSize = d.length;
      }
    }
    return best;
  };
  const tryCompress = (i: number): void => {
    const d = vals[i]!;
    const payload = compressDatum(d.subarray(isShort(d) ? 1 : VARHDRSZ), o.methods[i]);
    if (payload) vals[i] = compressedVarlena(payload);
    else flags[i] |= INCOMPRESSIBLE;
  };
  const externalize = (i: number): void => {
    vals[i] = o.externalize(externalValue(i, vals[i]!, o.toastRelid));
    flags[i] |= IGNORE;
  };
  const hasToast = o.toastRelid !== 0;
  // heap_compute_data_size > maxDataLen, with maxDataLen = target - hoff: the same as the tuple size > target
  const maxDataLen = o.target - tupleHoff(n, vals.includes(null));
  while (over(o.target)) {
    const i = biggest(true, false);
    if (i < 0) break;
    if (desc.attrs[i].storage === "x") tryCompress(i);
    else flags[i] |= INCOMPRESSIBLE;
    if (vals[i]!.length > maxDataLen && hasToast) externalize(i);
  }
  while (hasToast && over(o.target)) {
    const i = biggest(false, false);
    if (i < 0) break;
    externalize(i);
  }
  while (over(o.target)) {
    const i = biggest(true, true);
    if (i < 0) break;
    tryCompress(i);
  }
  const targetMain = toastTupleTargetMain(o.blockSize);
  while (hasToast && over(targetMain)) {
    const i = biggest(false, true);
    if (i < 0) break;
    externalize(i);
  }
  let inlineCompressed = 0;
  for (let i = 0; i < n; i++) {
    const d = vals[i];
    if (d !== null && isCompressed(d) && d !== input[i]) inlineCompressed++;
  }
  return { datums: vals, size: heapTupleSize(desc, vals), inlineCompressed };
}
