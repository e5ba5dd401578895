// pg_filenode.map of a directory (global/ or base/<db>/) as oid → filenode.
import { existsSync, readFileSync } from "node:fs";
import { FormatError } from "../schema/errors.js";
import { decodeRelMap } from "../storage/relmap.js";

/** Read a map in the layout of `maxMappings` entries (the cluster's version profile says which). */
export function readRelMap(path: string, maxMappings: number): Map<number, number> {
  if (!existsSync(path)) throw new FormatError("RELMAP_MISSING", `${path} does not exist`, { file: path });
  const map = decodeRelMap(new Uint8Array(readFileSync(path)), path, maxMappings);
  if (!map.crcOk) throw new FormatError("RELMAP_BAD_CRC", `${path}: CRC mismatch (stored ${map.storedCrc}, computed ${map.computedCrc})`, { file: path, offset: map.layout.crcOffset });
  return new Map(map.mappings.map((m) => [m.mapoid, m.mapfilenode]));
}
