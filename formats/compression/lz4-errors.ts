// The FormatErrors of LZ4 block decoding (shared by the one-shot and the streaming decoder).
// Offsets are input positions, the ones liblz4 reports as -(offset) - 1.
import { FormatError } from "../schema/errors.js";
import type { Code } from "../codes/index.js";

const LASTLITERALS = 5;

export const fail = (code: Code, message: string, offset: number, detail?: string): FormatError =>
  new FormatError(code, message, { offset, path: "lz4" }, detail);

export function offsetZero(at: number, op: number): FormatError {
  return fail("LZ4_OFFSET_ZERO", `lz4: match offset 0 at input offset ${at}`, at, `output position ${op}`);
}

export function offsetBeyond(ip: number, offset: number, op: number): FormatError {
  return fail(
    "LZ4_OFFSET_BEYOND_OUTPUT",
    `lz4: match reaches ${offset} bytes back but only ${op} bytes were produced (input offset ${ip})`,
    ip,
    `output position ${op}`,
  );
}

export function matchInLastLiterals(ip: number, cpy: number, oend: number): FormatError {
  return fail(
    "LZ4_MATCH_IN_LAST_LITERALS",
    `lz4: match ending at output position ${cpy} leaves fewer than ${LASTLITERALS} bytes for the final literals (output size ${oend})`,
    ip,
  );
}

export function truncatedLength(what: string, ip: number, initial: boolean): FormatError {
  return fail(
    "LZ4_TRUNCATED_LENGTH",
    `lz4: ${what} length extension ${initial ? "at" : "ending at"} input offset ${ip} runs into the end of the block`,
    ip,
  );
}

export function lastLiteralsError(ip: number, lit: number, iend: number, op: number, oend: number): FormatError {
  if (ip + lit > iend) {
    return fail("LZ4_TRUNCATED_LITERALS", `lz4: ${lit} literals at input offset ${ip} run past the end of the block (${iend} bytes)`, ip);
  }
  if (op + lit > oend) {
    return fail("LZ4_OUTPUT_OVERRUN", `lz4: ${lit} literals at output position ${op} run past the output size ${oend}`, ip);
  }
  return fail(
    "LZ4_BAD_BLOCK_END",
    `lz4: literal run at input offset ${ip} is in the end-of-block zone but ${iend - ip - lit} input bytes follow it`,
    ip,
  );
}

export function sizeMismatch(n: number, rawSize: number, at: number): FormatError {
  return fail("LZ4_SIZE_MISMATCH", `lz4: block decodes to ${n} bytes, raw size says ${rawSize}`, at);
}
