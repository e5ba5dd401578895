// uuid_out: 16 bytes as 8-4-4-4-12 lowercase hex groups.
import { decodersOf, type OutputCharsTable, type WriterTable } from "./decoder.js";
import { expectWidth, putHexBytes, type ValueWriter } from "./text-out.js";

const uuidWrite: ValueWriter = (d, s, e, out) => {
  expectWidth(s, e, 16, "uuid");
  out.reserve(36);
  const b = out.buf;
  let p = putHexBytes(b, out.pos, d, s, s + 4);
  b[p++] = 45;
  p = putHexBytes(b, p, d, s + 4, s + 6);
  b[p++] = 45;
  p = putHexBytes(b, p, d, s + 6, s + 8);
  b[p++] = 45;
  p = putHexBytes(b, p, d, s + 8, s + 10);
  b[p++] = 45;
  out.pos = putHexBytes(b, p, d, s + 10, s + 16);
};

export const UUID_OUTPUT_CHARS: OutputCharsTable = { 2950: "0123456789abcdef-" };

export const UUID_WRITERS: WriterTable = { 2950: uuidWrite };

export const UUID_DECODERS = decodersOf(UUID_WRITERS);
