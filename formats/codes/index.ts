// The one vocabulary of codes: verify's checks (checks.ts) and every other error (errors.ts).
// A code's class decides what a command's exit status is when it stops on that code.
import { CHECK_BY_CODE, type CheckCode } from "./checks.js";
import { ERRORS, type CodeClass, type ErrorCode, type ErrorInfo } from "./errors.js";

export type { CheckCode } from "./checks.js";
export type { CodeClass, ErrorCode } from "./errors.js";
export type Code = CheckCode | ErrorCode;

const ERROR_BY_CODE: ReadonlyMap<string, ErrorInfo> = (() => {
  const m = new Map<string, ErrorInfo>();
  for (const e of ERRORS) {
    if (m.has(e.code) || CHECK_BY_CODE.has(e.code)) throw new Error(`code ${e.code} is declared twice in formats/codes`);
    m.set(e.code, e);
  }
  return m;
})();

export const isCode = (s: string): s is Code => ERROR_BY_CODE.has(s) || CHECK_BY_CODE.has(s);

/**
 * Check codes a reader also throws when a command's own input is not there: such a command
 * stops as on any missing input (operational), while verify reports the same condition as a
 * damage finding of the relation.
 */
const THROWN_AS_OPERATIONAL: ReadonlySet<CheckCode> = new Set<CheckCode>(["REL_FILE_MISSING"]);

/** The declared class of an error code; damage for a verify check (but THROWN_AS_OPERATIONAL). */
export function codeClass(code: Code): CodeClass {
  const e = ERROR_BY_CODE.get(code);
  if (e) return e.class;
  return THROWN_AS_OPERATIONAL.has(code as CheckCode) ? "operational" : "damage";
}
