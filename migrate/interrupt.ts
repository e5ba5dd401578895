// Stopping a conversion cleanly: the CLI turns SIGINT/SIGTERM into an AbortSignal; the engines
// look at it at safe points (between steps, and while the copy runs, whose cp child is killed),
// throw INTERRUPTED, and their usual failure path removes the output. Synchronous work between
// two safe points (one relation's rewrite) finishes first: a signal is only seen when the engine
// yields to the event loop, which safePoint() does.
import { spawn } from "node:child_process";
import { FormatError } from "../formats/schema/errors.js";

function interrupted(abort: AbortSignal): FormatError {
  return new FormatError("INTERRUPTED", `stopped by ${String(abort.reason ?? "a signal")}`);
}

/** Let pending signals be handled; throw INTERRUPTED when a stop was asked for. */
export async function safePoint(abort: AbortSignal | undefined): Promise<void> {
  if (!abort) return;
  await new Promise((r) => setImmediate(r));
  if (abort.aborted) throw interrupted(abort);
}

/** Run a command to its end (killed when a stop is asked for); its stderr in the error. */
export function runCommand(cmd: string, args: string[], abort: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], signal: abort });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", (e) => reject(abort?.aborted ? interrupted(abort) : e));
    child.on("close", (code) => {
      if (abort?.aborted) reject(interrupted(abort));
      else if (code === 0) resolve();
      else reject(new FormatError("OUTPUT_COPY_FAILED", `${cmd} ${args.join(" ")} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}
