// byteaout with bytea_output = hex (the default): \x followed by two lowercase hex digits a byte.
import { decodersOf, type WriterTable } from "./decoder.js";
import { putHexBytes, type ValueWriter } from "./text-out.js";

const byteaWrite: ValueWriter = (d, s, e, out) => {
  out.reserve(2 + 2 * (e - s));
  const b = out.buf;
  b[out.pos] = 92; // backslash
  b[out.pos + 1] = 120; // x
  out.pos = putHexBytes(b, out.pos + 2, d, s, e);
};

export const BYTEA_WRITERS: WriterTable = { 17: byteaWrite };

export const BYTEA_DECODERS = decodersOf(BYTEA_WRITERS);
