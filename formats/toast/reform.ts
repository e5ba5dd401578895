// Swapping TOAST pointers inside a parent tuple: the datum of some attributes is replaced (an
// 18-byte stock pointer by a 20-byte direct one, or back) and every later attribute is placed
// again by the stock alignment rules of heap_fill_tuple: fixed-length attributes and 4-byte
// varlenas align to attalign, 1-byte and external varlenas and cstrings do not. The header
// (null bitmap included) is kept; padding is zero.
import type { TupleDesc } from "../heap/descriptor.js";
import { datumOffset } from "../heap/form.js";
import type { TupleLayout } from "../heap/deform.js";
import { writeTid, type Tid } from "../page/item-pointer.js";
import { DIRECT_POINTER_SIZE, TOAST_POINTER_SIZE, VarattDirect, VarattExternal } from "../varlena/toast-pointer.js";
import { VARTAG_DIRECT, VARTAG_ONDISK } from "../varlena/varlena.js";

export interface PointerFields {
  va_rawsize: number;
  va_extinfo: number;
  va_toastrelid: number;
}

/** A direct pointer datum (20 bytes: 0x01, 19, varatt_direct packed). */
export function encodeDirectPointer(p: PointerFields, root: Tid): Uint8Array {
  const d = new Uint8Array(DIRECT_POINTER_SIZE);
  const dv = new DataView(d.buffer);
  d[0] = 0x01;
  d[1] = VARTAG_DIRECT;
  dv.setInt32(2 + VarattDirect.offsets.va_rawsize, p.va_rawsize, true);
  dv.setUint32(2 + VarattDirect.offsets.va_extinfo, p.va_extinfo >>> 0, true);
  dv.setUint32(2 + VarattDirect.offsets.va_toastrelid, p.va_toastrelid, true);
  writeTid(dv, 2 + VarattDirect.offsets.va_tid, root);
  return d;
}

/** A stock pointer datum (18 bytes: 0x01, 18, varatt_external). */
export function encodePlainPointer(p: PointerFields, valueId: number): Uint8Array {
  const d = new Uint8Array(TOAST_POINTER_SIZE);
  const dv = new DataView(d.buffer);
  d[0] = 0x01;
  d[1] = VARTAG_ONDISK;
  dv.setInt32(2 + VarattExternal.offsets.va_rawsize, p.va_rawsize, true);
  dv.setUint32(2 + VarattExternal.offsets.va_extinfo, p.va_extinfo >>> 0, true);
  dv.setUint32(2 + VarattExternal.offsets.va_valueid, valueId, true);
  dv.setUint32(2 + VarattExternal.offsets.va_toastrelid, p.va_toastrelid, true);
  return d;
}

/**
 * The tuple with the datums of attributes `replace` (0-based attribute index -> new datum bytes,
 * header included) swapped in. Attributes must be present in the tuple (not null, not missing).
 */
export function reformTuple(tuple: Uint8Array, layout: TupleLayout, desc: TupleDesc, replace: ReadonlyMap<number, Uint8Array>): Uint8Array {
  let grow = 0;
  for (const [k, d] of replace) {
    const s = layout.attrs[k];
    if (!s || s.isnull || s.missing) throw new RangeError(`attribute ${k + 1} is not stored in the tuple`);
    grow += Math.max(0, d.length - s.len);
  }
  const out = new Uint8Array(layout.end + grow + 8 * (replace.size + 1));
  out.set(tuple.subarray(0, layout.hoff));
  let off = layout.hoff;
  for (let k = 0; k < layout.attrs.length; k++) {
    const s = layout.attrs[k];
    if (s.isnull || s.missing) continue;
    const a = desc.attrs[k];
    const bytes = replace.get(k) ?? tuple.subarray(s.off, s.off + s.len);
    off = datumOffset(off, a, bytes);
    out.set(bytes, off);
    off += bytes.length;
  }
  return out.slice(0, off);
}
