// A column default that an offline writer can apply: pg_attrdef.adbin holding one Const node
// (nodeToString form, src/backend/nodes/outfuncs.c _outConst / outDatum): its value's bytes as
// the server keeps them in memory. `:constvalue N [ b0 b1 ... ]` prints N bytes: for a by-value
// type the whole Datum (typlen announced, 8 bytes printed, little-endian, the value in the low bytes), for a by-reference
// type the pointed-to bytes (a varlena with its 4-byte header, or a cstring with its NUL). Any
// other node (a function call such as nextval(), a cast, an operator) is not a constant.
import { FormatError } from "../../formats/schema/errors.js";
import type { AttrDesc } from "../../formats/heap/descriptor.js";
import { varlenaStored } from "../../formats/heap/form.js";

export type ConstDefault = { constant: true; stored: Uint8Array | null } | { constant: false; node: string };

const CONST = /^\{CONST :consttype (\d+) :consttypmod (-?\d+) :constcollid \d+ :constlen (-?\d+) :constbyval (true|false) :constisnull (true|false) :location -?\d+ :constvalue (?:<>|(\d+) \[ ((?:-?\d+ )*)\])\}$/;

/** The stored datum of a default expression, or why it is not a constant. */
export function constDefault(adbin: string, a: AttrDesc): ConstDefault {
  const m = CONST.exec(adbin.trim());
  if (!m || Number(m[1]) !== a.typid) return { constant: false, node: /^\{(\w+)/.exec(adbin)?.[1] ?? adbin.slice(0, 40) };
  if (m[5] === "true") return { constant: true, stored: null };
  const len = Number(m[3]);
  const bytes = Uint8Array.from((m[7] ?? "").trim().split(/\s+/).filter(Boolean).map((x) => Number(x) & 0xff));
  // by value: the length is typlen, but the whole Datum (8 bytes) is printed
  const printed = m[4] === "true" ? Math.max(8, Number(m[6])) : Number(m[6]);
  if (bytes.length !== printed || (m[4] === "true" && len > 8)) throw new FormatError("LOAD_BAD_DEFAULT", `default of column "${a.name}": ${printed} bytes announced, ${bytes.length} given`);
  if (m[4] === "true") return { constant: true, stored: bytes.slice(0, len) };
  if (len === -1) {
    // an in-memory varlena: 4-byte header (length << 2), never compressed for a literal
    const total = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 2;
    if ((bytes[0] & 3) !== 0 || total !== bytes.length) return { constant: false, node: "CONST (a compressed or short varlena)" };
    return { constant: true, stored: varlenaStored(a, bytes.subarray(4)) };
  }
  return { constant: true, stored: bytes };
}
