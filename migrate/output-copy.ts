// Converters write into a copy of the input cluster, never into the input: the copy keeps
// ownership and modes (cp -a, reflinks where the filesystem has them), then only the relations
// being converted are rewritten in it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { FormatError } from "../formats/schema/errors.js";

export function copyClusterForOutput(srcPgdata: string, outPgdata: string): void {
  const src = resolve(srcPgdata);
  const dst = resolve(outPgdata);
  if (src === dst || dst.startsWith(src + "/")) {
    throw new FormatError("OUTPUT_INSIDE_INPUT", `the output ${dst} must not be the input cluster or inside it`, { file: dst });
  }
  if (existsSync(dst) && readdirSync(dst).length > 0) {
    throw new FormatError("OUTPUT_EXISTS", `output directory ${dst} exists and is not empty; name a new directory`, { file: dst });
  }
  if (existsSync(dst)) execFileSync("rmdir", [dst]);
  execFileSync("cp", ["-a", "--reflink=auto", src, dst]);
  // A copied postmaster.pid would make a server refuse to start (or look running to us).
  execFileSync("rm", ["-f", `${dst}/postmaster.pid`]);
}

/**
 * A conversion failed after the output copy was made: remove the half-converted copy (it must
 * never look usable) and say so in the error's detail. Returns the error to throw.
 */
export function abandonOutput(output: string, e: unknown): unknown {
  rmSync(output, { recursive: true, force: true });
  if (!(e instanceof FormatError)) return e;
  const moved = new FormatError(e.code, e.message, e.location, `${e.detail ? e.detail + "; " : ""}the output ${output} was removed; the input was not changed`);
  moved.stack = e.stack;
  return moved;
}
