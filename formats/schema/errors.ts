// Decoding throws FormatError; verification catches it and turns it into a finding.
// Every error carries a stable code from the one catalog (formats/codes) and as much location
// as the thrower knows.
import type { Code } from "../codes/index.js";

export interface Location {
  file?: string;
  /** block number within the relation fork (absolute across segments) */
  block?: number;
  /** byte offset within the page (or within the buffer being decoded) */
  offset?: number;
  /** line pointer (item) number, 1-based */
  item?: number;
  /** attribute number, 1-based */
  attnum?: number;
  /** schema path, e.g. "page.linp[3].lp_off" */
  path?: string;
}

export class FormatError extends Error {
  constructor(
    /** stable code, e.g. "PAGE_LOWER_GT_UPPER" */
    readonly code: Code,
    message: string,
    readonly location: Location = {},
    readonly detail?: string,
  ) {
    super(message);
    this.name = "FormatError";
  }

  /** A copy with more location filled in (outer layers know the file and block). */
  at(loc: Location): FormatError {
    const e = new FormatError(this.code, this.message, { ...loc, ...stripUndefined(this.location) }, this.detail);
    e.stack = this.stack;
    return e;
  }
}

function stripUndefined(l: Location): Location {
  return Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as Location;
}

export function describeLocation(l: Location): string {
  const parts: string[] = [];
  if (l.file) parts.push(l.file);
  if (l.block !== undefined) parts.push(`block ${l.block}`);
  if (l.item !== undefined) parts.push(`item ${l.item}`);
  if (l.attnum !== undefined) parts.push(`attribute ${l.attnum}`);
  if (l.offset !== undefined) parts.push(`offset ${l.offset}`);
  if (l.path) parts.push(l.path);
  return parts.join(", ");
}

export type Severity = "error" | "warning" | "info";

/** A problem found while reading or verifying: stable code, severity, where, what. */
export interface Finding<C extends Code = Code> {
  code: C;
  severity: Severity;
  message: string;
  location: Location;
  detail?: string;
}

export function findingFrom(e: FormatError, severity: Severity = "error", loc: Location = {}): Finding {
  return { code: e.code, severity, message: e.message, location: { ...loc, ...Object.fromEntries(Object.entries(e.location).filter(([, v]) => v !== undefined)) }, ...(e.detail ? { detail: e.detail } : {}) };
}
