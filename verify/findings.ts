// The finding sink of one relation's verification: every finding names a catalog code (its
// severity comes from the catalog, never from the call site), and a flood of one code is
// capped so a badly damaged relation still gives a readable report.
import type { Finding, Location, Severity } from "../formats/schema/errors.js";
import { FormatError } from "../formats/schema/errors.js";
import { checkInfo, isCheckCode, type CheckCode } from "../formats/codes/checks.js";

export class FindingSink {
  readonly list: Finding[] = [];
  private readonly perCode = new Map<string, number>();
  private readonly suppressedByCode = new Map<string, number>();

  constructor(
    /** findings kept per code; the rest are counted */
    readonly capPerCode = 200,
    /** severity override for findings whose catalog severity depends on context */
    private readonly downgrade?: (code: string) => Severity | undefined,
  ) {}

  add(code: CheckCode, message: string, location: Location, detail?: string, severity?: Severity): void {
    const info = checkInfo(code);
    const n = (this.perCode.get(code) ?? 0) + 1;
    this.perCode.set(code, n);
    if (n > this.capPerCode) {
      this.suppressedByCode.set(code, (this.suppressedByCode.get(code) ?? 0) + 1);
      return;
    }
    const f: Finding = { code, severity: severity ?? this.downgrade?.(code) ?? info.severity, message, location: clean(location) };
    if (detail) f.detail = detail;
    this.list.push(f);
  }

  /** A FormatError thrown by a decoder, with the caller's location filled in. */
  fromError(e: FormatError, location: Location, code?: CheckCode, severity?: Severity): void {
    const loc = { ...location, ...clean(e.location) };
    const c = code ?? e.code;
    if (!isCheckCode(c)) throw new Error(`finding code ${c} is not in formats/codes/checks.ts`);
    this.add(c, e.message, loc, e.detail, severity);
  }

  count(severity?: Severity): number {
    return severity ? this.list.filter((f) => f.severity === severity).length : this.list.length;
  }

  /** Close the sink: one info finding per code whose findings were capped. */
  finish(location: Location): Finding[] {
    for (const [code, n] of this.suppressedByCode) {
      this.add("REL_FINDINGS_SUPPRESSED", `${n} more ${code} findings were not listed (limit ${this.capPerCode} per code)`, location);
    }
    this.suppressedByCode.clear();
    return this.list;
  }

  /** How many findings of a code were raised, listed or not. */
  raised(code: string): number {
    return this.perCode.get(code) ?? 0;
  }
}

function clean(l: Location): Location {
  const out: Location = {};
  for (const [k, v] of Object.entries(l)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
