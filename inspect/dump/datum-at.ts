// The text of one datum found by an access method's own layout (a GIN entry's key, a BRIN
// tuple's stored values) rather than by a heap or index tuple descriptor walk.
import { datumBytes } from "../../formats/heap/datum-bytes.js";
import { readVarlenaHeader } from "../../formats/varlena/varlena.js";
import { datumToText } from "../../formats/datum/index.js";
import type { TypeLookup } from "../../formats/datum/types.js";

/**
 * The output function's text of the datum of `len` bytes at `off` (attlen `attlen`, type
 * `typid`), an inline-compressed one decompressed; undefined for an external (TOAST) pointer.
 */
export function datumTextAt(b: Uint8Array, off: number, len: number, attlen: number, typid: number, typmod: number, types: TypeLookup): string | undefined {
  const varlena = attlen === -1 ? readVarlenaHeader(b, off, off + len) : undefined;
  const d = datumBytes(b, { attnum: 0, isnull: false, missing: false, off, len, varlena, cstring: attlen === -2 });
  return d.kind === "inline" ? datumToText(d.bytes, typid, typmod, types) : undefined;
}
