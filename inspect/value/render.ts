// Rendering of `pgdisk inspect value` results: the value itself (text, hex or raw bytes), the
// read statistics, and the JSON form (everything but the bytes).
import type { ValueResult } from "./value.js";

export type ValueFormat = "text" | "hex" | "raw";

/** What to print or save: text when asked or when the type gives one, else hex (raw only when asked). */
export function valueOutput(r: ValueResult, format: ValueFormat | undefined, toFile: boolean): Uint8Array | string {
  const f = format ?? (toFile ? "raw" : r.text !== null ? "text" : "hex");
  if (f === "raw") return r.bytes;
  if (f === "text" && r.text !== null) return r.text;
  return `\\x${Buffer.from(r.bytes).toString("hex")}`;
}

export function statsText(r: ValueResult): string {
  const s = r.stats;
  const p = r.pointer;
  const what = p
    ? `${p.flavour === "plain" ? `stock value ${p.valueId}` : `direct value at ${p.root} (${p.tier})`}, ${p.slices} chunk${p.slices === 1 ? "" : "s"} of data, stored ${p.storedSize} bytes${p.compressed ? ` ${p.method}-compressed` : ""}, raw ${p.rawSize}`
    : `${r.storage} value, ${r.rawSize} bytes`;
  const lines = [
    `value: ${r.table}${r.column ? `.${r.column}` : ""}${r.tid ? ` at ${r.tid}` : ""}${r.tupleState && r.tupleState !== "live" ? ` (tuple ${r.tupleState})` : ""}: ${what}`,
    `range: [${r.range.start}, ${r.range.end}) of ${r.rawSize} bytes`,
    `pages touched: heap ${s.heapPages}, index ${s.indexPages}${s.heapScanPages ? `, heap scan ${s.heapScanPages}` : ""}; chunks read ${s.chunksRead}; bytes decompressed ${s.bytesDecompressed}${s.via.length ? `; via ${s.via.join(", ")}` : ""}`,
  ];
  return lines.join("\n") + "\n";
}

export function valueJson(r: ValueResult, includeValue: boolean): string {
  const { bytes, text, ...rest } = r;
  const o: Record<string, unknown> = { ...rest };
  if (includeValue) {
    if (text !== null) o.text = text;
    else o.hex = Buffer.from(bytes).toString("hex");
  }
  return JSON.stringify(o, null, 1) + "\n";
}
