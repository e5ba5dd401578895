// json_out prints the text as stored; escape_json is shared with jsonb output.
import type { DecoderTable, WriterTable } from "./decoder.js";
import { storedText, storedWrite } from "./text.js";

/** escape_json: a JSON string literal (control characters as \u00xx, lowercase hex). */
export function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case '"':
        out += '\\"';
        break;
      case "\\":
        out += "\\\\";
        break;
      default:
        out += ch < " " ? "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0") : ch;
    }
  }
  return out + '"';
}

export const JSON_WRITERS: WriterTable = { 114: storedWrite };

export const JSON_DECODERS: DecoderTable = {
  114: storedText,
};
