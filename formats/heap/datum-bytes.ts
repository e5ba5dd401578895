// The bytes of one attribute's datum, header stripped, inline compression undone.
// External (TOAST) values are returned as pointers; fetching them is the TOAST engine's job.
import { FormatError } from "../schema/errors.js";
import { decompressTcinfo } from "../compression/index.js";
import { readToastPointer, type ToastPointer } from "../varlena/toast-pointer.js";
import type { AttrSlot } from "./deform.js";

export type DatumBytes =
  | { kind: "inline"; bytes: Uint8Array; compressed?: { method: number; stored: number } }
  | { kind: "external"; pointer: ToastPointer };

/** Where a plain datum's bytes start in the tuple: fixed-length, cstring or an uncompressed inline varlena. */
export const plainDatumStart = (slot: AttrSlot): number => slot.off + (slot.varlena ? slot.varlena.header : 0);

/** Where they end (a cstring's NUL left out). */
export const plainDatumEnd = (slot: AttrSlot): number => (slot.varlena ? slot.off + slot.varlena.total : slot.off + slot.len - (slot.cstring ? 1 : 0));

/** Whether the datum's bytes are stored plainly in the tuple (not compressed, not a TOAST pointer). */
export const isPlainDatum = (slot: AttrSlot): boolean => !slot.varlena || slot.varlena.kind === "1b" || slot.varlena.kind === "4b";

/** Bytes of a non-null attribute. Fixed-length: the typlen bytes; cstring without its NUL. */
export function datumBytes(tuple: Uint8Array, slot: AttrSlot): DatumBytes {
  if (slot.isnull || slot.missing) throw new Error("datumBytes on a null or missing attribute");
  const v = slot.varlena;
  if (!v || isPlainDatum(slot)) return { kind: "inline", bytes: tuple.subarray(plainDatumStart(slot), plainDatumEnd(slot)) };
  switch (v.kind) {
    case "4b_c":
      return { kind: "inline", bytes: decompressInline(tuple, slot.off, v.total, slot.attnum), compressed: { method: tuple[slot.off + 7]! >>> 6, stored: v.total } };
    default:
      return { kind: "external", pointer: readToastPointer(tuple, slot.off) };
  }
}

/**
 * The raw bytes of the inline-compressed varlena of `total` bytes at tuple[off] (attribute
 * `attnum`). A codec error is located at the datum in the tuple, its offset within the
 * compressed stream named in the message.
 */
export function decompressInline(tuple: Uint8Array, off: number, total: number, attnum: number): Uint8Array {
  const payload = tuple.subarray(off + 4, off + total);
  try {
    return decompressTcinfo(payload);
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    const at = e.location.offset !== undefined ? ` (byte ${e.location.offset} of the compressed data)` : "";
    throw new FormatError(e.code, e.message + at, { attnum, offset: off }, e.detail);
  }
}
