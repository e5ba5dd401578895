// tsvectorout (src/backend/utils/adt/tsvector.c; layout in src/include/tsearch/ts_type.h):
// int32 size, size × WordEntry, the lexemes; a lexeme with positions is followed (at a
// SHORTALIGNed offset from the lexeme area's start) by uint16 npos and npos WordEntryPos.
import { bits32, defineStruct, register, u32 } from "../schema/index.js";
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

/** SignTSVector (src/backend/utils/adt/tsgistidx.c), the GiST key of tsvector_ops, after vl_len_. */
export const SignTSVector = register(
  defineStruct("SignTSVector", "src/backend/utils/adt/tsgistidx.c", [
    u32("flag", "ARRKEY 0x01 (int32 lexeme hashes follow), SIGNKEY 0x02 (a signature bitmap follows), ALLISTRUE 0x04 (no bitmap: every bit set)"),
  ] as const),
);
const GT_ARRKEY = 0x01;
const GT_ALLISTRUE = 0x04;

/** gtsvectorout: "N unique words" for a key of lexeme hashes, else its signature's true and false bit counts. */
function gtsvectorText(d: Uint8Array): string {
  if (d.length < SignTSVector.size) throw new FormatError("DATUM_BAD_LENGTH", `gtsvector of ${d.length} bytes, less than its flag word`);
  const flag = SignTSVector.decode(d, 0).flag;
  const rest = d.length - SignTSVector.size;
  if (flag & GT_ARRKEY) return `${Math.floor(rest / 4)} unique words`;
  let ones = rest * 8;
  if (!(flag & GT_ALLISTRUE)) {
    ones = 0;
    for (let i = SignTSVector.size; i < d.length; i++) for (let b = d[i]!; b; b &= b - 1) ones++;
  }
  return `${ones} true bits, ${rest * 8 - ones} false bits`;
}

export const TSVECTOR_DECODERS: DecoderTable = { 3614: tsvectorText, 3642: gtsvectorText };
