// Exit codes (as pg_amcheck's): 0 clean, 1 operational error (bad arguments, unreadable
// input), 2 damage found.
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

/** FormatError codes that mean "you asked for something that is not there", not damage. */
const OPERATIONAL = new Set([
  "FILE_NOT_FOUND", "FILE_IS_DIRECTORY", "CLUSTER_NOT_FOUND", "DATABASE_NOT_FOUND", "RELATION_NOT_FOUND", "RELATION_AMBIGUOUS",
  "RELATION_HAS_NO_STORAGE", "BLOCK_RANGE_OUT_OF_RELATION", "CLUSTER_UNSUPPORTED_VERSION", "CONTROL_UNSUPPORTED_VERSION",
  "RELMAP_UNSUPPORTED_VERSION", "CONTROL_MISSING", "REL_FILE_MISSING", "RELMAP_MISSING", "USAGE",
]);

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
    return OPERATIONAL.has(e.code) ? EXIT_USAGE : EXIT_DAMAGE;
  }
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === "string" && ["ENOENT", "EACCES", "EISDIR", "ENOTDIR", "EPERM"].includes(err.code)) {
    write(`pgdisk: ${err.message}\n`);
    return EXIT_USAGE;
  }
  write(`pgdisk: internal error (please report): ${err?.stack ?? String(e)}\n`);
  return 70;
}
