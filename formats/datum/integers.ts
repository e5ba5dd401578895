// bool, integer and OID-like types: boolout, int2out, int4out, int8out, oidout, xidout,
// cidout, xid8out (the reg* types are in reg.ts).
import type { DecoderTable } from "./decoder.js";
import { expectLength, view } from "./util.js";

// Little-endian reads straight from the bytes: these run for most values of a dump.
const u32 = (d: Uint8Array, at: number): number => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;
const int2: DecoderTable[number] = (d) => (expectLength(d, 2, "int2"), String(((d[0]! | (d[1]! << 8)) << 16) >> 16));
const int4: DecoderTable[number] = (d) => (expectLength(d, 4, "int4"), String(u32(d, 0) | 0));
const int8: DecoderTable[number] = (d) => {
  expectLength(d, 8, "int8");
  const hi = u32(d, 4) | 0;
  // exact as a double below 2^53 in magnitude; BigInt beyond
  if (hi >= -0x200000 && hi < 0x200000) return String(hi * 4294967296 + u32(d, 0));
  return String(view(d).getBigInt64(0, true));
};
const uint4 = (type: string): DecoderTable[number] => (d) => (expectLength(d, 4, type), String(u32(d, 0)));
const uint8 = (type: string): DecoderTable[number] => (d) => (expectLength(d, 8, type), String(view(d).getBigUint64(0, true)));

export const INTEGER_DECODERS: DecoderTable = {
  16: (d) => (expectLength(d, 1, "bool"), d[0] !== 0 ? "t" : "f"),
  21: int2,
  23: int4,
  20: int8,
  26: uint4("oid"),
  28: uint4("xid"),
  29: uint4("cid"),
  5069: uint8("xid8"),
};
