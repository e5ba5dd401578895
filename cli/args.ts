// Argument parsers shared by commands; they throw commander's InvalidArgumentError.
import { InvalidArgumentError } from "commander";
import type { BlockRange } from "../inspect/dump/dump.js";

/** "N", "A:B" (B exclusive), "A:" (to the end), ":B". */
export function parseBlockRange(s: string): BlockRange {
  const m = /^(\d*)(?::(\d*))?$/.exec(s.trim());
  if (!m || (m[1] === "" && (m[2] === undefined || m[2] === ""))) throw new InvalidArgumentError(`"${s}" is not a block range: use N, A:B (B exclusive), A: or :B`);
  const from = m[1] === "" ? 0 : Number(m[1]);
  if (m[2] === undefined) return { from, to: from + 1 };
  const to = m[2] === "" ? undefined : Number(m[2]);
  if (to !== undefined && to <= from) throw new InvalidArgumentError(`block range "${s}" is empty: the end (exclusive) must be greater than the start`);
  return { from, to };
}

export function parsePositiveInt(s: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`"${s}" is not a positive integer`);
  return n;
}

export function parseBlockSize(s: string): number {
  const n = parsePositiveInt(s);
  if (![1024, 2048, 4096, 8192, 16384, 32768].includes(n)) throw new InvalidArgumentError(`block size ${n} is not one PostgreSQL supports (1024..32768, a power of two)`);
  return n;
}
