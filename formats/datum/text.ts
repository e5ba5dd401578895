// Character types: textout, varcharout, bpcharout (padding kept: it is stored), nameout,
// charout, and the other types whose output is their stored text (xml, pg_node_tree,
// refcursor, unknown, cstring).
import type { DecoderTable } from "./decoder.js";
import { expectLength, utf8Text } from "./util.js";

const NAMEDATALEN = 64;

/** The output function of types whose text is their stored UTF-8 bytes (a prefix of them gives a prefix of the text). */
export const storedText: DecoderTable[number] = (d) => utf8Text(d);

/** "char": one byte; PG 15 prints bytes >= 0x80 as a backslash and three octal digits, 0 as "". */
export function charText(b: number): string {
  if (b === 0) return "";
  if (b >= 0x80) return "\\" + b.toString(8).padStart(3, "0");
  return String.fromCharCode(b);
}

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
