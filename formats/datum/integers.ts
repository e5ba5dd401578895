// bool, integer and OID-like types: boolout, int2out, int4out, int8out, oidout, xidout,
// cidout, xid8out (the reg* types are in reg.ts). Each output rule is a writer (text-out.ts);
// the string output functions are derived from them.
import { decodersOf, type OutputCharsTable, type WriterTable } from "./decoder.js";
import { expectWidth, putInt, putText, putUint, type TextOut, type ValueWriter } from "./text-out.js";

// Little-endian reads straight from the bytes: these run for most values of a dump.
const u32 = (d: Uint8Array, at: number): number => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24)) >>> 0;

function putSigned(out: TextOut, n: number): void {
  out.reserve(21);
  out.pos = putInt(out.buf, out.pos, n);
}

const int2: ValueWriter = (d, s, e, out) => (expectWidth(s, e, 2, "int2"), putSigned(out, ((d[s]! | (d[s + 1]! << 8)) << 16) >> 16));
const int4: ValueWriter = (d, s, e, out) => (expectWidth(s, e, 4, "int4"), putSigned(out, u32(d, s) | 0));
const int8: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, 8, "int8");
  const hi = u32(d, s + 4) | 0;
  // exact as a double below 2^53 in magnitude; BigInt beyond
  if (hi >= -0x200000 && hi < 0x200000) putSigned(out, hi * 4294967296 + u32(d, s));
  else putText(out, String((BigInt(hi) << 32n) | BigInt(u32(d, s))));
};
const uint4 =
  (type: string): ValueWriter =>
  (d, s, e, out) => {
    expectWidth(s, e, 4, type);
    out.reserve(10);
    out.pos = putUint(out.buf, out.pos, u32(d, s), 0);
  };
const uint8 =
  (type: string): ValueWriter =>
  (d, s, e, out) => (expectWidth(s, e, 8, type), putText(out, String((BigInt(u32(d, s + 4)) << 32n) | BigInt(u32(d, s)))));
const bool: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, 1, "bool");
  out.reserve(1);
  out.buf[out.pos++] = d[s] !== 0 ? 116 : 102; // t, f
};

export const INTEGER_WRITERS: WriterTable = {
  16: bool,
  21: int2,
  23: int4,
  20: int8,
  26: uint4("oid"),
  28: uint4("xid"),
  29: uint4("cid"),
  5069: uint8("xid8"),
};

export const INTEGER_DECODERS = decodersOf(INTEGER_WRITERS);

const SIGNED = "-0123456789";
const UNSIGNED = "0123456789";
export const INTEGER_OUTPUT_CHARS: OutputCharsTable = { 16: "tf", 21: SIGNED, 23: SIGNED, 20: SIGNED, 26: UNSIGNED, 28: UNSIGNED, 29: UNSIGNED, 5069: UNSIGNED };
