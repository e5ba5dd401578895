// Where `pgdisk inspect dump` writes: standard output, or a file given with --output. A file is
// written under a temporary name beside it and renamed onto its name only when the dump has
// finished (fsynced first), so an interrupted or failed dump never leaves a half-written file
// under the name asked for: a kill leaves only the temporary one, named for what it is.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface DumpOutput {
  write(b: Uint8Array): void;
  /** bytes accepted but not yet written (a pipe or terminal on stdout); 0 for a file */
  pending(): number;
  /** bytes written so far */
  readonly bytes: number;
  /** the dump finished: make the file current */
  commit(): void;
  /** the dump failed: remove what was written */
  discard(): void;
}

/** The temporary name of a dump being written to `path`. */
export const partialPath = (path: string): string => join(dirname(path), `.${basename(path)}.pgdisk-partial`);

export function openDumpOutput(path: string | undefined): DumpOutput {
  if (path === undefined) {
    let bytes = 0;
    return {
      write: (b) => {
        bytes += b.length;
        process.stdout.write(b);
      },
      pending: () => process.stdout.writableLength,
      get bytes() {
        return bytes;
      },
      commit: () => undefined,
      discard: () => undefined,
    };
  }
  const tmp = partialPath(path);
  const fd = openSync(tmp, "w", 0o644);
  let open = true;
  let bytes = 0;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write: (b) => {
      for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done);
      bytes += b.length;
    },
    pending: () => 0,
    get bytes() {
      return bytes;
    },
    commit: () => {
      fsyncSync(fd);
      close();
      renameSync(tmp, path);
    },
    discard: () => {
      close();
      rmSync(tmp, { force: true });
    },
  };
}
