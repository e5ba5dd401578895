// Input functions of contrib extension types, the inverse of contrib.ts, found like the output
// functions by the name of the type's input function (InputTypeInfo.inputFunction): citextin
// (contrib/citext/citext.c). Also the xid family (src/backend/utils/adt/xid.c: xidin, xid8in,
// cidin), whose input differs between versions (15 reads xid and cid with strtoul(str, NULL, 0)
// and no checks, 16 checks the range): pgdisk takes the spelling every version reads alike.
import { FormatError } from "../schema/errors.js";
import { textIn, type InputFunction } from "./input.js";

/**
 * xidin, cidin, xid8in: decimal digits within the type's range only. Versions read other
 * spellings (spaces, signs, 0x prefixes, trailing text, out-of-range values) differently, so
 * pgdisk refuses them by name rather than guess which reading the server would store.
 */
function transactionId(type: string, size: 4 | 8): InputFunction {
  const max = size === 4 ? 0xffffffffn : 0xffffffffffffffffn;
  return (text) => {
    const v = /^\d{1,20}$/.test(text) ? BigInt(text) : -1n;
    if (v < 0n || v > max) throw new FormatError("DATUM_BAD_INPUT", `pgdisk reads ${type} input only as decimal digits within 0..${max}: "${text}"`);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    if (size === 4) dv.setUint32(0, Number(v), true);
    else dv.setBigUint64(0, v, true);
    return out;
  };
}

/** The xid family by type OID (pg_type.dat: xid 28, cid 29, xid8 5069). */
export const XID_INPUT: [number, InputFunction][] = [
  [28, transactionId("xid", 4)],
  [29, transactionId("cid", 4)],
  [5069, transactionId("xid8", 8)],
];

/** Contrib input functions by the name of the type's input function. */
export const CONTRIB_INPUT: ReadonlyMap<string, InputFunction> = new Map<string, InputFunction>([
  // citext stores its text as text does; case folding happens only in comparisons
  ["citextin", textIn],
]);
