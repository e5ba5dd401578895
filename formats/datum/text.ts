// Character types: textout, varcharout, bpcharout (padding kept: it is stored), nameout,
// charout, and the other types whose output is their stored text (xml, pg_node_tree,
// refcursor, unknown, cstring).
import { isUtf8 } from "node:buffer";
import type { DecoderTable, WriterTable } from "./decoder.js";
import { putText, type ValueWriter } from "./text-out.js";
import { expectLength, utf8Text } from "./util.js";

const NAMEDATALEN = 64;

/** The output function of types whose text is their stored UTF-8 bytes (a prefix of them gives a prefix of the text). */
export const storedText: DecoderTable[number] = (d) => utf8Text(d);

/** storedText as a writer: well-formed UTF-8 is copied as it is; ill-formed goes through the decoder's replacements. */
export const storedWrite: ValueWriter = (d, s, e, out) => {
  out.reserve(e - s);
  const b = out.buf;
  let p = out.pos;
  let high = 0;
  for (let i = s; i < e; i++) high |= b[p++] = d[i]!;
  if (high < 0x80 || isUtf8(d.subarray(s, e))) out.pos = p;
  else putText(out, utf8Text(d.subarray(s, e)));
};

/** "char": one byte; PG 15 prints bytes >= 0x80 as a backslash and three octal digits, 0 as "". */
export function charText(b: number): string {
  if (b === 0) return "";
  if (b >= 0x80) return "\\" + b.toString(8).padStart(3, "0");
  return String.fromCharCode(b);
}

export const TEXT_WRITERS: WriterTable = {
  25: storedWrite,
  1043: storedWrite,
  1042: storedWrite,
  142: storedWrite,
  194: storedWrite,
  1790: storedWrite,
  705: storedWrite,
  2275: storedWrite,
};

export const TEXT_DECODERS: DecoderTable = {
  25: storedText, // text
  1043: storedText, // varchar
  1042: storedText, // bpchar
  142: storedText, // xml
  194: storedText, // pg_node_tree
  1790: storedText, // refcursor
  705: storedText, // unknown (cstring-like)
  2275: storedText, // cstring
  19: (d) => {
    expectLength(d, NAMEDATALEN, "name");
    const nul = d.indexOf(0);
    return utf8Text(nul < 0 ? d : d.subarray(0, nul));
  },
  18: (d) => (expectLength(d, 1, "char"), charText(d[0]!)),
};
