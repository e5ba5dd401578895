// pg_control and pg_filenode.map as dump data (the structs' own fields plus derived values).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { FormatError, type Finding } from "../../formats/schema/errors.js";
import { decodeControlFile } from "../../formats/storage/control-file.js";
import { decodeRelMap } from "../../formats/storage/relmap.js";

export type SpecialFileKind = "pg_control" | "pg_filenode.map";

export function specialFileKind(path: string): SpecialFileKind | undefined {
  const b = basename(path);
  if (b === "pg_control" || b === "pg_control.pgdisk") return "pg_control";
  if (b === "pg_filenode.map") return "pg_filenode.map";
  return undefined;
}

export interface SpecialFileDump {
  schema: "pgdisk.control/1" | "pgdisk.relmap/1";
  file: string;
  fields: Record<string, unknown>;
  findings: Finding[];
}

const plain = (v: unknown): unknown => {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
};

export function dumpControlFile(path: string): SpecialFileDump {
  const c = decodeControlFile(new Uint8Array(readFileSync(path)));
  const findings: Finding[] = [];
  if (!c.crcOk) findings.push({ code: "CONTROL_BAD_CRC", severity: "error", message: `CRC mismatch: stored ${c.storedCrc}, computed ${c.computedCrc}`, location: { file: path, offset: c.layout.crcOffset } });
  if (!c.floatFormatOk) findings.push({ code: "CONTROL_BAD_FLOAT_FORMAT", severity: "error", message: "floatFormat is not 1234567.0: wrong byte order or damaged file", location: { file: path, offset: c.layout.floatFormatOffset } });
  const { fields, tail, layout, ...derived } = c;
  void tail;
  void layout;
  return { schema: "pgdisk.control/1", file: path, fields: { ...(plain(fields) as object), derived: plain(derived) }, findings };
}

export function dumpRelMapFile(path: string): SpecialFileDump {
  const m = decodeRelMap(new Uint8Array(readFileSync(path)), path);
  const findings: Finding[] = [];
  if (!m.crcOk) findings.push({ code: "RELMAP_BAD_CRC", severity: "error", message: `CRC mismatch: stored ${m.storedCrc}, computed ${m.computedCrc}`, location: { file: path, offset: m.layout.crcOffset } });
  return {
    schema: "pgdisk.relmap/1",
    file: path,
    fields: { magic: `0x${m.fields.magic.toString(16)}`, num_mappings: m.fields.num_mappings, mappings: m.mappings, crc: m.storedCrc, crcOk: m.crcOk },
    findings,
  };
}

export function dumpSpecialFile(path: string): SpecialFileDump {
  const k = specialFileKind(path);
  if (k === "pg_control") return dumpControlFile(path);
  if (k === "pg_filenode.map") return dumpRelMapFile(path);
  throw new FormatError("USAGE", `${path} is neither pg_control nor pg_filenode.map`, { file: path });
}
