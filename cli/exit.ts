// Exit codes (as pg_amcheck's): 0 clean, 1 operational error (bad arguments, unreadable
// input), 2 damage found, 70 an internal error; an error's code class picks one.
import { codeClass, type Code } from "../formats/codes/index.js";
import { FormatError, describeLocation } from "../formats/schema/errors.js";

export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
export const EXIT_DAMAGE = 2;
/** stdout's reader went away (`pgdisk … | head`): what a C tool killed by SIGPIPE reports */
export const EXIT_PIPE = 141;

/** Stop quietly when stdout's reader goes away; any other output error is an operational one. */
export function handleStdoutErrors(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(EXIT_PIPE);
    process.stderr.write(`pgdisk: cannot write the output: ${e.message}\n`);
    process.exit(EXIT_USAGE);
  });
}

/** pgdisk contradicted itself (a bug to report). */
export const EXIT_INTERNAL = 70;

/** The exit status of a command stopped by an error: its code's class decides (formats/codes). */
export function exitStatusFor(code: Code): number {
  switch (codeClass(code)) {
    case "damage":
      return EXIT_DAMAGE;
    case "internal":
      return EXIT_INTERNAL;
    default:
      return EXIT_USAGE;
  }
}

export class UsageError extends FormatError {
  constructor(message: string) {
    super("USAGE", message);
  }
}

/** Print an error the way every pgdisk command does and return its exit code. */
export function reportError(e: unknown, write: (s: string) => void = (s) => process.stderr.write(s)): number {
  if (e instanceof FormatError) {
    const loc = describeLocation(e.location);
    write(`pgdisk: ${e.code === "USAGE" ? "" : `${e.code}: `}${e.message}${loc && !e.message.includes(loc) ? ` (${loc})` : ""}\n`);
    if (e.detail) write(`DETAIL: ${e.detail}\n`);
    return exitStatusFor(e.code);
  }
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === "string" && ["ENOENT", "EACCES", "EISDIR", "ENOTDIR", "EPERM"].includes(err.code)) {
    write(`pgdisk: ${err.message}\n`);
    return EXIT_USAGE;
  }
  write(`pgdisk: internal error (please report): ${err?.stack ?? String(e)}\n`);
  return EXIT_INTERNAL;
}
