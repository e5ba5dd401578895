// pg_filenode.map (src/backend/utils/cache/relmapper.c): the relation mapper's OID → relfilenode
// table for catalogs whose pg_class.relfilenode is 0. global/pg_filenode.map holds the shared
// catalogs, base/<db>/pg_filenode.map the local ones. Two layouts with the same magic: until
// PostgreSQL 15 MAX_MAPPINGS = 62 and a trailing pad (512 bytes); from 16 MAX_MAPPINGS = 64 and
// no pad (524 bytes). The version profile says which one a cluster uses; a bare file is told by its size.
import { bytes, defineStruct, FormatError, i32, pad, register, u32, type AnyStruct, type InferStruct } from "../schema/index.js";
import { crc32c } from "./crc32c.js";

export const RELMAPPER_FILEMAGIC = 0x592717;

export const RelMapping = register(
  defineStruct("RelMapping", "src/backend/utils/cache/relmapper.c", [
    u32("mapoid", "OID of a mapped catalog"),
    u32("mapfilenode", "its current relfilenode"),
  ] as const),
);
export type RelMappingFields = InferStruct<typeof RelMapping>;

/** magic, count and the entries of a map of `n` entries */
const relMapHead = (n: number) =>
  [
    i32("magic", "RELMAPPER_FILEMAGIC 0x592717"),
    i32("num_mappings", `number of valid entries at the start of mappings (0..${n})`),
    bytes("mappings", n * RelMapping.size, `RelMapping[${n}] {mapoid, mapfilenode}; entries past num_mappings are unused (zero)`),
  ] as const;

/** The map of PostgreSQL 13 to 15: 62 entries and a pad. */
export const RelMapFile = register(
  defineStruct("RelMapFile", "src/backend/utils/cache/relmapper.c (PostgreSQL 13 to 15)", [...relMapHead(62), u32("crc", "CRC-32C of all preceding bytes"), pad("pad", 4)] as const),
);
/** The map of PostgreSQL 16 and later: 64 entries, no pad. */
export const RelMapFile64 = register(defineStruct("RelMapFile64", "src/backend/utils/cache/relmapper.c (PostgreSQL 16+)", [...relMapHead(64), u32("crc", "CRC-32C of all preceding bytes")] as const));
/** The fields of either layout (the 62-entry one has a pad). */
export type RelMapFileFields = InferStruct<typeof RelMapFile64> & { pad?: Uint8Array };

/** One relation map layout. */
export interface RelMapLayout {
  /** MAX_MAPPINGS */
  maxMappings: number;
  struct: AnyStruct;
  /** file size (sizeof(RelMapFile)) */
  size: number;
  crcOffset: number;
}
const layoutOf = (maxMappings: number, struct: AnyStruct): RelMapLayout => ({ maxMappings, struct, size: struct.size, crcOffset: struct.offsets.crc! });
/** The layouts by MAX_MAPPINGS (the version profile's relmapMappings). */
export const RELMAP_LAYOUTS: ReadonlyMap<number, RelMapLayout> = new Map([
  [62, layoutOf(62, RelMapFile)],
  [64, layoutOf(64, RelMapFile64)],
]);

/** The layout of MAX_MAPPINGS `n` (62 or 64). */
export function relMapLayout(maxMappings: number): RelMapLayout {
  const l = RELMAP_LAYOUTS.get(maxMappings);
  if (!l) throw new RangeError(`no relation map layout with ${maxMappings} entries (known: ${[...RELMAP_LAYOUTS.keys()].join(", ")})`);
  return l;
}

export interface RelMap {
  /** every struct field, as stored (mappings as raw bytes, unused entries included) */
  fields: RelMapFileFields;
  layout: RelMapLayout;
  /** the first num_mappings entries, in file order */
  mappings: RelMappingFields[];
  crcOk: boolean;
  storedCrc: number;
  computedCrc: number;
  fileSize: number;
}

const layoutText = (l: RelMapLayout): string => `${l.size} bytes, ${l.maxMappings} entries`;

/**
 * Decode a pg_filenode.map in the layout of `maxMappings` entries (the cluster's version profile),
 * or, when it is not given, the layout whose size the file has. Throws RELMAP_TRUNCATED,
 * RELMAP_BAD_MAGIC, RELMAP_UNSUPPORTED_VERSION (the other release's layout) and RELMAP_BAD_COUNT;
 * a CRC mismatch is reported (crcOk false), not thrown. `file` only labels errors.
 */
export function decodeRelMap(buf: Uint8Array, file = "pg_filenode.map", maxMappings?: number): RelMap {
  const bySize = [...RELMAP_LAYOUTS.values()].find((l) => l.size === buf.length);
  const layout = maxMappings === undefined ? (bySize ?? relMapLayout(62)) : relMapLayout(maxMappings);
  if (buf.length < RelMapFile.offsets.num_mappings) {
    throw new FormatError("RELMAP_TRUNCATED", `relation map file is ${buf.length} bytes; a map is ${[...RELMAP_LAYOUTS.values()].map(layoutText).join(" or ")}`, { file, offset: buf.length });
  }
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const magic = dv.getInt32(RelMapFile.offsets.magic, true);
  if (magic !== RELMAPPER_FILEMAGIC) {
    throw new FormatError("RELMAP_BAD_MAGIC", `relation map file has magic 0x${(magic >>> 0).toString(16)}, expected 0x${RELMAPPER_FILEMAGIC.toString(16)}`, { file, offset: 0, path: "RelMapFile.magic" });
  }
  if (bySize && bySize !== layout) {
    const other = crc32c(buf.subarray(0, bySize.crcOffset)) === dv.getUint32(bySize.crcOffset, true);
    throw new FormatError(
      "RELMAP_UNSUPPORTED_VERSION",
      `relation map file is ${buf.length} bytes, the ${bySize.maxMappings}-entry layout; this cluster's release uses ${layoutText(layout)}`,
      { file },
      `its CRC at offset ${bySize.crcOffset} (${bySize.maxMappings}-entry layout) ${other ? "is valid" : "does not match either"}`,
    );
  }
  if (buf.length < layout.size) {
    throw new FormatError("RELMAP_TRUNCATED", `relation map file is ${buf.length} bytes; a map is ${layoutText(layout)}`, { file, offset: buf.length });
  }
  const fields = layout.struct.decode(buf, 0) as unknown as RelMapFileFields;
  if (fields.num_mappings < 0 || fields.num_mappings > layout.maxMappings) {
    throw new FormatError("RELMAP_BAD_COUNT", `relation map file has num_mappings ${fields.num_mappings}, outside 0..${layout.maxMappings}`, { file, offset: RelMapFile.offsets.num_mappings, path: "RelMapFile.num_mappings" });
  }
  const mappings: RelMappingFields[] = [];
  for (let i = 0; i < fields.num_mappings; i++) mappings.push(RelMapping.decode(fields.mappings, i * RelMapping.size));
  const computedCrc = crc32c(buf.subarray(0, layout.crcOffset));
  return { fields, layout, mappings, crcOk: computedCrc === fields.crc, storedCrc: fields.crc, computedCrc, fileSize: buf.length };
}

/** Encode the struct fields of the layout of `maxMappings` entries (default 62) with a freshly computed CRC (the `crc` field is ignored). */
export function encodeRelMapFields(fields: RelMapFileFields, maxMappings = 62): Uint8Array {
  const layout = relMapLayout(maxMappings);
  const out = layout.struct.encode(fields as never);
  new DataView(out.buffer).setUint32(layout.crcOffset, crc32c(out.subarray(0, layout.crcOffset)), true);
  return out;
}

/** Build a map of the layout of `maxMappings` entries (default 62) from its entries (unused entries and pad zero), with its CRC. */
export function encodeRelMap(mappings: readonly RelMappingFields[], maxMappings = 62): Uint8Array {
  const layout = relMapLayout(maxMappings);
  if (mappings.length > layout.maxMappings) throw new RangeError(`a ${layout.maxMappings}-entry relation map holds at most ${layout.maxMappings} entries, got ${mappings.length}`);
  const raw = new Uint8Array(layout.maxMappings * RelMapping.size);
  mappings.forEach((m, i) => RelMapping.encodeInto(m, raw, i * RelMapping.size));
  return encodeRelMapFields({ magic: RELMAPPER_FILEMAGIC, num_mappings: mappings.length, mappings: raw, crc: 0, pad: new Uint8Array(4) }, maxMappings);
}

/** The filenode a map gives for `oid`, or undefined when it is not mapped. */
export function relMapLookup(map: RelMap, oid: number): number | undefined {
  return map.mappings.find((m) => m.mapoid === oid)?.mapfilenode;
}
