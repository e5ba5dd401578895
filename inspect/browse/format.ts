// Small text helpers shared by the view builders.
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

export const hex = (n: number, digits: number): string => `0x${n.toString(16).padStart(digits, "0")}`;

/** One line: control characters shown as escapes, cut to `max` characters. */
export function oneLine(s: string, max: number): string {
  const flat = s.replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t").replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

/** Wrap text into lines of at most `width` characters (hard wrap; newlines kept). */
export function wrapText(s: string, width: number, maxLines = Infinity): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const line of s.split("\n")) {
    if (line.length === 0) out.push("");
    for (let i = 0; i < line.length && out.length < maxLines; i += w) out.push(line.slice(i, i + w));
    if (out.length >= maxLines) break;
  }
  return out;
}
