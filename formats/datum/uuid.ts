// uuid_out: 16 bytes as 8-4-4-4-12 lowercase hex groups.
import { decodersOf, type OutputCharsTable, type WriterTable } from "./decoder.js";
import { expectWidth, type ValueWriter } from "./text-out.js";

/** The two lowercase hex digits of each byte value, at 2 * byte. */
const HEX_PAIRS = new TextEncoder().encode(Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")).join(""));

/** Bytes d[i, i + n) as hex at b[p]; returns the position after them. */
function hexRun(b: Uint8Array, p: number, d: Uint8Array, i: number, n: number): number {
  for (let j = 0; j < n; j++) {
    const h = 2 * d[i + j]!;
    b[p] = HEX_PAIRS[h]!;
    b[p + 1] = HEX_PAIRS[h + 1]!;
    p += 2;
  }
  return p;
}

const uuidWrite: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, 16, "uuid");
  out.reserve(36);
  const b = out.buf;
  let p = hexRun(b, out.pos, d, s, 4);
  b[p] = 45;
  p = hexRun(b, p + 1, d, s + 4, 2);
  b[p] = 45;
  p = hexRun(b, p + 1, d, s + 6, 2);
  b[p] = 45;
  p = hexRun(b, p + 1, d, s + 8, 2);
  b[p] = 45;
  out.pos = hexRun(b, p + 1, d, s + 10, 6);
};

export const UUID_OUTPUT_CHARS: OutputCharsTable = { 2950: "0123456789abcdef-" };

export const UUID_WRITERS: WriterTable = { 2950: uuidWrite };

export const UUID_DECODERS = decodersOf(UUID_WRITERS);
