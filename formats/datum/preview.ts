// A value's text cut short: the first `limit`-odd characters of PostgreSQL's output without
// producing the rest. Long bytea, character and JSON values decode only a prefix of their
// bytes, one-dimensional arrays stop formatting elements; other types are decoded whole.
// The text is always a prefix of datumToText's and, when `truncated`, longer than `limit`.
import { arrayText } from "./arrays.js";
import { builtinTypeLookup, columnOwnWriter, datumToText, DECODERS, isArrayType } from "./index.js";
import { textOf } from "./text-out.js";
import type { TypeLookup } from "./types.js";
import { hex, utf8Text } from "./util.js";
import { jsonbTextPrefix } from "./jsonb.js";
import { storedText } from "./text.js";

export interface ValuePreview {
  text: string;
  /** the text stops before the value's end */
  truncated: boolean;
  /** the whole text's length in characters (UTF-16 units, as String.length), when known without decoding it */
  fullLength?: number;
}

/**
 * The UTF-16 length of well-formed UTF-8 bytes (one unit per sequence, two for 4-byte ones);
 * undefined for ill-formed bytes, whose decoded length depends on the replacement rules.
 */
function utf16Length(b: Uint8Array): number | undefined {
  let n = 0;
  let follow = 0;
  // the first continuation byte's range (UTF-8's exclusions: overlongs, surrogates, > U+10FFFF)
  let lo = 0x80;
  let hi = 0xbf;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (follow > 0) {
      if (c < lo || c > hi) return undefined;
      lo = 0x80;
      hi = 0xbf;
      follow--;
      continue;
    }
    if (c < 0x80) n++;
    else if (c >= 0xc2 && c <= 0xdf) (n++, (follow = 1));
    else if (c >= 0xe0 && c <= 0xef) {
      n++;
      follow = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n += 2;
      follow = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return undefined;
  }
  return follow === 0 ? n : undefined;
}

const BYTEA = 17;
const JSONB = 3802;

export function datumPreview(data: Uint8Array, typeOid: number, typmod: number, types: TypeLookup, limit: number): ValuePreview {
  // "\x" and two digits a byte: (limit >> 1) + 1 bytes give more than limit characters
  if (typeOid === BYTEA && data.length > (limit >> 1) + 1) return { text: "\\x" + hex(data.subarray(0, (limit >> 1) + 1)), truncated: true, fullLength: 2 + 2 * data.length };
  if (DECODERS.get(typeOid) === storedText && data.length > 4 * (limit + 1)) {
    // limit + 1 characters need at most 4 (limit + 1) bytes; cut on a character boundary
    let cut = 4 * (limit + 1);
    while (cut > 0 && (data[cut]! & 0xc0) === 0x80) cut--;
    // the length is exact for valid UTF-8 (what the server stores); invalid bytes decode to U+FFFD
    return { text: utf8Text(data.subarray(0, cut)), truncated: true, fullLength: utf16Length(data) };
  }
  if (typeOid === JSONB) {
    const p = jsonbTextPrefix(data, limit);
    return { text: p.text, truncated: p.cut };
  }
  if (!DECODERS.has(typeOid)) {
    const info = types(typeOid) ?? builtinTypeLookup(typeOid);
    // an array with its own writer (short elements, never quoted) is written whole: its length is known
    const own = isArrayType(info) ? columnOwnWriter(typeOid, types) : undefined;
    if (own) return { text: textOf(own.write, data), truncated: false };
    if (isArrayType(info) && !info?.decode) {
      const lookup: TypeLookup = (oid) => types(oid) ?? builtinTypeLookup(oid);
      const toText = (d: Uint8Array, oid: number, mod: number): string => datumToText(d, oid, mod, types);
      try {
        const text = arrayText(data, { typeOid, typmod, types: lookup, info, toText, catalog: types.catalog }, limit);
        return { text, truncated: text.length > limit && !text.endsWith("}") };
      } catch {
        // anything unusual (unknown element types, damage): the full decoder says what it is
      }
    }
  }
  return { text: datumToText(data, typeOid, typmod, types), truncated: false };
}
