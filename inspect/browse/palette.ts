// Colours of the hex view's byte categories and of the page kinds in the minimap (ink colour
// names). One table, so the legend and the bytes agree.
import type { RegionCategory } from "./hex-layout.js";

export const CATEGORY_COLOUR: Record<RegionCategory, string> = {
  header: "cyan",
  linp: "yellow",
  "tuple-header": "magenta",
  "null-bitmap": "red",
  attr: "green",
  "attr-alt": "blue",
  posting: "yellowBright",
  "pivot-tid": "yellowBright",
  item: "white",
  padding: "gray",
  free: "gray",
  special: "cyanBright",
  meta: "blueBright",
  unlabelled: "white",
};

/** Minimap glyph by fill (eighths) and colour by page kind. */
export const FILL_GLYPHS = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

export function kindColour(am: string, kind: string): string {
  if (kind === "new") return "gray";
  if (kind === "unreadable" || kind === "invalid" || kind === "unknown") return "red";
  if (kind === "meta") return "blueBright";
  if (kind === "internal" || kind === "root" || kind === "inner" || kind.endsWith("internal")) return "magenta";
  if (kind === "deleted" || kind === "half-dead") return "gray";
  if (am === "heap") return "green";
  return "cyan";
}

export function fillGlyph(fill: number, kind: string): string {
  if (kind === "new") return "·";
  if (kind === "unreadable" || kind === "invalid") return "!";
  if (kind === "meta") return "M";
  return FILL_GLYPHS[Math.max(1, Math.min(8, Math.round(fill * 8)))];
}
