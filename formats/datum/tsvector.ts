// tsvectorout (src/backend/utils/adt/tsvector.c; layout in src/include/tsearch/ts_type.h):
// int32 size, size × WordEntry, the lexemes; a lexeme with positions is followed (at a
// SHORTALIGNed offset from the lexeme area's start) by uint16 npos and npos WordEntryPos.
import { bits32, defineStruct, register } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { utf8Text } from "./util.js";

export const WordEntry = register(
  defineStruct("WordEntry", "src/include/tsearch/ts_type.h", [
    bits32("entry", { haspos: 1, len: 11, pos: 20 }, "one lexeme", {
      haspos: "1 when a position vector follows the lexeme",
      len: "lexeme length in bytes",
      pos: "lexeme offset from the start of the lexeme area",
    }),
  ] as const),
);

const WEIGHT = ["", "C", "B", "A"];

/** One lexeme of a tsvector payload: its bytes' start and length, and its WordEntryPos values (null without positions). */
export interface TsvLexeme {
  start: number;
  len: number;
  positions: number[] | null;
}

/** The lexemes of a tsvector payload in stored (sorted) order. */
export function tsvectorLexemes(d: Uint8Array): TsvLexeme[] {
  const bad = (msg: string): FormatError => new FormatError("TSVECTOR_MALFORMED", `tsvector: ${msg}`, {});
  if (d.length < 4) throw bad(`${d.length} bytes, less than the 4-byte size`);
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const n = dv.getInt32(0, true);
  const strBase = 4 + 4 * n;
  if (n < 0 || strBase > d.length) throw bad(`${n} entries do not fit in ${d.length} bytes`);
  const out: TsvLexeme[] = [];
  for (let i = 0; i < n; i++) {
    const w = dv.getUint32(4 + 4 * i, true);
    const haspos = w & 1;
    const len = (w >>> 1) & 0x7ff;
    const pos = w >>> 12;
    const start = strBase + pos;
    if (start + len > d.length) throw bad(`lexeme ${i + 1} at ${pos} (${len} bytes) is past the end`);
    let positions: number[] | null = null;
    if (haspos) {
      const pv = strBase + ((pos + len + 1) & ~1);
      if (pv + 2 > d.length) throw bad(`positions of lexeme ${i + 1} are past the end`);
      const npos = dv.getUint16(pv, true);
      if (pv + 2 + 2 * npos > d.length) throw bad(`${npos} positions of lexeme ${i + 1} are past the end`);
      positions = [];
      for (let k = 0; k < npos; k++) positions.push(dv.getUint16(pv + 2 + 2 * k, true));
    }
    out.push({ start, len, positions });
  }
  return out;
}

function tsvectorText(d: Uint8Array): string {
  return tsvectorLexemes(d)
    .map((l) => {
      const s = `'${utf8Text(d.subarray(l.start, l.start + l.len)).replace(/'/g, "''").replace(/\\/g, "\\\\")}'`;
      return l.positions?.length ? `${s}:${l.positions.map((p) => `${p & 0x3fff}${WEIGHT[p >> 14]}`).join(",")}` : s;
    })
    .join(" ");
}

export const TSVECTOR_DECODERS: DecoderTable = { 3614: tsvectorText };
