// The extended statistics types of pg_statistic_ext_data (src/backend/statistics/mvdistinct.c,
// dependencies.c, mcv.c): pg_ndistinct_out `{"1, 2": 11, ...}` (the estimate truncated to an
// integer), pg_dependencies_out `{"1 => 2": 1.000000, ...}` (the degree as %f), and
// pg_mcv_list_out, which is byteaout.
// Both serialized forms are a header (magic, type, item count) and packed, unaligned items:
// ndistinct items are a float8 estimate, an int32 attribute count and int16 attnums;
// dependency items a float8 degree, an int16 attribute count and int16 attnums.
import { defineStruct, register, u32 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { Decoder, DecoderTable } from "./decoder.js";
import { hex, view } from "./util.js";

export const MVStatsHeader = register(
  defineStruct("MVNDistinct / MVDependencies header", "src/include/statistics/statistics.h", [
    u32("magic", "STATS_NDISTINCT_MAGIC 0xA352BFA4 or STATS_DEPS_MAGIC 0xB4549A2C"),
    u32("type", "STATS_NDISTINCT_TYPE_BASIC / STATS_DEPS_TYPE_BASIC (1)"),
    u32("nitems", "number of items that follow"),
  ] as const),
);

const STATS_NDISTINCT_MAGIC = 0xa352bfa4;
const STATS_DEPS_MAGIC = 0xb4549a2c;
const STATS_MAX_DIMENSIONS = 8;

/** The packed items after the header: each one's leading float8 and its attnums. */
function readItems(d: Uint8Array, what: string, magic: number, countBytes: 2 | 4): { value: number; attnums: number[] }[] {
  const fail = (msg: string, offset: number): never => {
    throw new FormatError("STATS_EXT_MALFORMED", `${what}: ${msg}`, { offset });
  };
  if (d.length < MVStatsHeader.size) fail(`${d.length} bytes cannot hold its header`, 0);
  const dv = view(d);
  if (dv.getUint32(MVStatsHeader.offsets.magic, true) !== magic) fail(`magic ${dv.getUint32(0, true).toString(16)} is not ${magic.toString(16)}`, MVStatsHeader.offsets.magic);
  const n = dv.getUint32(MVStatsHeader.offsets.nitems, true);
  const items: { value: number; attnums: number[] }[] = [];
  let off = MVStatsHeader.size;
  for (let i = 0; i < n; i++) {
    if (off + 8 + countBytes > d.length) fail(`item ${i + 1} of ${n} runs past the end`, off);
    const value = dv.getFloat64(off, true);
    const natts = countBytes === 4 ? dv.getInt32(off + 8, true) : dv.getInt16(off + 8, true);
    off += 8 + countBytes;
    if (natts < 2 || natts > STATS_MAX_DIMENSIONS || off + 2 * natts > d.length) fail(`item ${i + 1} has ${natts} attributes`, off - countBytes);
    const attnums: number[] = [];
    for (let k = 0; k < natts; k++) attnums.push(dv.getInt16(off + 2 * k, true));
    off += 2 * natts;
    items.push({ value, attnums });
  }
  if (off !== d.length) fail(`${d.length - off} bytes after the last item`, off);
  return items;
}

const ndistinctText: Decoder = (d) => `{${readItems(d, "pg_ndistinct", STATS_NDISTINCT_MAGIC, 4).map((it) => `"${it.attnums.join(", ")}": ${Math.trunc(it.value)}`).join(", ")}}`;

const dependenciesText: Decoder = (d) =>
  `{${readItems(d, "pg_dependencies", STATS_DEPS_MAGIC, 2)
    .map((it) => `"${it.attnums.slice(0, -1).join(", ")} => ${it.attnums[it.attnums.length - 1]}": ${it.value.toFixed(6)}`)
    .join(", ")}}`;

export const STATISTICS_DECODERS: DecoderTable = {
  3361: ndistinctText, // pg_ndistinct
  3402: dependenciesText, // pg_dependencies
  5017: (d) => "\\x" + hex(d), // pg_mcv_list
};
