// TOAST pointers. varatt_external (VARTAG_ONDISK 18): src/include/varatt.h. varatt_direct
// (VARTAG_DIRECT 19): new-formats.md §1.1, 18 packed bytes with the root chunk's TID.
import { defineStruct, i32, nest, register, u32, type InferStruct } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { ItemPointerData, tidBlockAt, tidOffsetAt, type Tid } from "../page/item-pointer.js";
import { VARHDRSZ, VARTAG_DIRECT, VARTAG_ONDISK } from "./varlena.js";

export const VarattExternal = register(
  defineStruct("varatt_external", "src/include/varatt.h", [
    i32("va_rawsize", "original data size including its 4-byte varlena header"),
    u32("va_extinfo", "low 30 bits: stored size in the TOAST relation (no header); top 2 bits: compression method"),
    u32("va_valueid", "chunk_id of the value in the TOAST relation"),
    u32("va_toastrelid", "pg_class OID of the TOAST relation (not its relfilenode)"),
  ] as const),
);
export type VarattExternalValue = InferStruct<typeof VarattExternal>;

export const VarattDirect = register(
  defineStruct("varatt_direct", "new-formats.md §1.1", [
    i32("va_rawsize", "original data size including its 4-byte varlena header"),
    u32("va_extinfo", "low 30 bits: stored size S (no header); top 2 bits: compression method, set only when compressed"),
    u32("va_toastrelid", "pg_class OID of the TOAST relation"),
    nest("va_tid", ItemPointerData, "TID of the value's ROOT chunk in the TOAST relation"),
  ] as const),
);
export type VarattDirectValue = InferStruct<typeof VarattDirect>;

export const VARLENA_EXTSIZE_BITS = 30;
export const VARLENA_EXTSIZE_MASK = 0x3fffffff;
export const TOAST_POINTER_SIZE = 2 + VarattExternal.size; // 18
export const DIRECT_POINTER_SIZE = 2 + VarattDirect.size; // 20

/** A TOAST pointer decoded from a 1b_e varlena, either flavour. */
export type ToastPointer =
  | ({ tag: typeof VARTAG_ONDISK; extsize: number; method: number; compressed: boolean } & VarattExternalValue)
  | ({ tag: typeof VARTAG_DIRECT; extsize: number; method: number; compressed: boolean; root: Tid } & VarattDirectValue);

/** A direct pointer's fields as verify's scans keep them (no nested objects). */
export interface DirectPointerFields {
  rawsize: number;
  extinfo: number;
  toastrelid: number;
  rootBlock: number;
  rootItem: number;
}
/** A plain pointer's fields as verify's scans keep them. */
export interface ExternalPointerFields {
  rawsize: number;
  extinfo: number;
  valueId: number;
  toastrelid: number;
}

const directGet = VarattDirect.get;
const externalGet = VarattExternal.get;

/** The fields of the VARTAG_DIRECT pointer whose 0x01 byte is at `off` (bounds checked by the caller). */
export function readDirectPointerFields(buf: Uint8Array, off: number): DirectPointerFields {
  const at = off + 2;
  return {
    rawsize: directGet.va_rawsize(buf, at),
    extinfo: directGet.va_extinfo(buf, at),
    toastrelid: directGet.va_toastrelid(buf, at),
    rootBlock: tidBlockAt(buf, at + VarattDirect.offsets.va_tid),
    rootItem: tidOffsetAt(buf, at + VarattDirect.offsets.va_tid),
  };
}

/** The fields of the VARTAG_ONDISK pointer whose 0x01 byte is at `off` (bounds checked by the caller). */
export function readExternalPointerFields(buf: Uint8Array, off: number): ExternalPointerFields {
  const at = off + 2;
  return { rawsize: externalGet.va_rawsize(buf, at), extinfo: externalGet.va_extinfo(buf, at), valueId: externalGet.va_valueid(buf, at), toastrelid: externalGet.va_toastrelid(buf, at) };
}

/** Decode the pointer whose 0x01 byte is at `off`. */
export function readToastPointer(buf: Uint8Array, off: number): ToastPointer {
  const tag = buf[off + 1];
  if (tag === VARTAG_ONDISK) {
    const v = VarattExternal.decode(buf, off + 2);
    const extsize = v.va_extinfo & VARLENA_EXTSIZE_MASK;
    return { tag, ...v, extsize, method: v.va_extinfo >>> VARLENA_EXTSIZE_BITS, compressed: extsize < v.va_rawsize - VARHDRSZ };
  }
  if (tag === VARTAG_DIRECT) {
    const v = VarattDirect.decode(buf, off + 2);
    const extsize = v.va_extinfo & VARLENA_EXTSIZE_MASK;
    return {
      tag,
      ...v,
      extsize,
      method: v.va_extinfo >>> VARLENA_EXTSIZE_BITS,
      compressed: extsize < v.va_rawsize - VARHDRSZ,
      root: { block: tidBlockAt(buf, off + 2 + VarattDirect.offsets.va_tid), offset: v.va_tid.ip_posid },
    };
  }
  throw new FormatError("TOAST_POINTER_BAD_TAG", `external datum at offset ${off} has vartag ${tag}, which cannot appear on disk`, { offset: off });
}
