// pg_filenode.map, PostgreSQL 15 layout (src/backend/utils/cache/relmapper.c): the relation
// mapper's OID → relfilenode table for catalogs whose pg_class.relfilenode is 0.
// global/pg_filenode.map holds the shared catalogs, base/<db>/pg_filenode.map the local ones.
// PG15 has MAX_MAPPINGS = 62 and a trailing pad (512 bytes); PG16+ has 64 and no pad (524 bytes)
// with the same magic, so the file size tells the layouts apart.
import { bytes, defineStruct, FormatError, i32, pad, register, u32, type InferStruct } from "../schema/index.js";
import { crc32c } from "./crc32c.js";

export const RELMAPPER_FILEMAGIC = 0x592717;
export const MAX_MAPPINGS = 62;
/** Size of a PostgreSQL 16+ map (64 entries, no pad). */
export const RELMAP_FILE_SIZE_PG16 = 524;

export const RelMapping = register(
  defineStruct("RelMapping", "src/backend/utils/cache/relmapper.c", [
    u32("mapoid", "OID of a mapped catalog"),
    u32("mapfilenode", "its current relfilenode"),
  ] as const),
);
export type RelMappingFields = InferStruct<typeof RelMapping>;

export const RelMapFile = register(
  defineStruct("RelMapFile", "src/backend/utils/cache/relmapper.c", [
    i32("magic", "RELMAPPER_FILEMAGIC 0x592717"),
    i32("num_mappings", "number of valid entries at the start of mappings (0..62)"),
    bytes("mappings", MAX_MAPPINGS * RelMapping.size, "RelMapping[62] {mapoid, mapfilenode}; entries past num_mappings are unused (zero)"),
    u32("crc", "CRC-32C of all preceding bytes"),
    pad("pad", 4),
  ] as const),
);
export type RelMapFileFields = InferStruct<typeof RelMapFile>;

export const RELMAP_FILE_SIZE = RelMapFile.size; // 512
const CRC_OFF = RelMapFile.offsets.crc; // 504

export interface RelMap {
  /** every struct field, as stored (mappings as raw bytes, unused entries included) */
  fields: RelMapFileFields;
  /** the first num_mappings entries, in file order */
  mappings: RelMappingFields[];
  crcOk: boolean;
  storedCrc: number;
  computedCrc: number;
  fileSize: number;
}

/**
 * Decode a PostgreSQL 15 pg_filenode.map. Throws RELMAP_TRUNCATED, RELMAP_BAD_MAGIC,
 * RELMAP_UNSUPPORTED_VERSION (a 524-byte PG16+ map) and RELMAP_BAD_COUNT; a CRC mismatch is
 * reported (crcOk false), not thrown. `file` only labels errors.
 */
export function decodeRelMap(buf: Uint8Array, file = "pg_filenode.map"): RelMap {
  if (buf.length < RelMapFile.offsets.num_mappings) {
    throw new FormatError("RELMAP_TRUNCATED", `relation map file is ${buf.length} bytes; a PostgreSQL 15 map is ${RELMAP_FILE_SIZE}`, { file, offset: buf.length });
  }
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const magic = dv.getInt32(RelMapFile.offsets.magic, true);
  if (magic !== RELMAPPER_FILEMAGIC) {
    throw new FormatError("RELMAP_BAD_MAGIC", `relation map file has magic 0x${(magic >>> 0).toString(16)}, expected 0x${RELMAPPER_FILEMAGIC.toString(16)}`, { file, offset: 0, path: "RelMapFile.magic" });
  }
  if (buf.length === RELMAP_FILE_SIZE_PG16) {
    const crcOk16 = crc32c(buf.subarray(0, RELMAP_FILE_SIZE_PG16 - 4)) === dv.getUint32(RELMAP_FILE_SIZE_PG16 - 4, true);
    throw new FormatError(
      "RELMAP_UNSUPPORTED_VERSION",
      `relation map file is ${buf.length} bytes, the PostgreSQL 16+ layout (64 entries); pgdisk reads PostgreSQL 15 (${RELMAP_FILE_SIZE} bytes, 62 entries)`,
      { file },
      crcOk16 ? "its CRC at offset 520 (PostgreSQL 16+ layout) is valid" : "its CRC at offset 520 (PostgreSQL 16+ layout) does not match either",
    );
  }
  if (buf.length < RELMAP_FILE_SIZE) {
    throw new FormatError("RELMAP_TRUNCATED", `relation map file is ${buf.length} bytes; a PostgreSQL 15 map is ${RELMAP_FILE_SIZE}`, { file, offset: buf.length });
  }
  const fields = RelMapFile.decode(buf, 0);
  if (fields.num_mappings < 0 || fields.num_mappings > MAX_MAPPINGS) {
    throw new FormatError("RELMAP_BAD_COUNT", `relation map file has num_mappings ${fields.num_mappings}, outside 0..${MAX_MAPPINGS}`, { file, offset: RelMapFile.offsets.num_mappings, path: "RelMapFile.num_mappings" });
  }
  const mappings: RelMappingFields[] = [];
  for (let i = 0; i < fields.num_mappings; i++) mappings.push(RelMapping.decode(fields.mappings, i * RelMapping.size));
  const computedCrc = crc32c(buf.subarray(0, CRC_OFF));
  return { fields, mappings, crcOk: computedCrc === fields.crc, storedCrc: fields.crc, computedCrc, fileSize: buf.length };
}

/** Encode the struct fields with a freshly computed CRC (the `crc` field is ignored). 512 bytes. */
export function encodeRelMapFields(fields: RelMapFileFields): Uint8Array {
  const out = RelMapFile.encode(fields);
  new DataView(out.buffer).setUint32(CRC_OFF, crc32c(out.subarray(0, CRC_OFF)), true);
  return out;
}

/** Build a PostgreSQL 15 map from its entries (unused entries and pad zero), with its CRC. */
export function encodeRelMap(mappings: readonly RelMappingFields[]): Uint8Array {
  if (mappings.length > MAX_MAPPINGS) throw new RangeError(`a PostgreSQL 15 relation map holds at most ${MAX_MAPPINGS} entries, got ${mappings.length}`);
  const raw = new Uint8Array(MAX_MAPPINGS * RelMapping.size);
  mappings.forEach((m, i) => RelMapping.encodeInto(m, raw, i * RelMapping.size));
  return encodeRelMapFields({ magic: RELMAPPER_FILEMAGIC, num_mappings: mappings.length, mappings: raw, crc: 0, pad: new Uint8Array(4) });
}

/** The filenode a map gives for `oid`, or undefined when it is not mapped. */
export function relMapLookup(map: RelMap, oid: number): number | undefined {
  return map.mappings.find((m) => m.mapoid === oid)?.mapfilenode;
}
